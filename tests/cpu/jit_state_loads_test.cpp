// The second tier's pass that moves loads of the state to where their values are used
// (cpu-dbt/jit_state_loads.h): which loads move where, which stay, and that the function computes the same.
#include "cpu-dbt/jit_state_alias.h"
#include "cpu-dbt/jit_state_loads.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/Analysis/BasicAliasAnalysis.h>
#include <llvm/Analysis/ScopedNoAliasAA.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <map>
#include <string>

namespace {

// A state of eight words, %s, loaded at the function's start as the state cache does. Words 1-4 and 6 are
// registers (`!alias.scope !1`); word 5 is like PC, which the memory helpers may read and write.
// `%mem_helper` is called as the emitters call a memory helper (`!noalias !1`).
//   entry -> left -> left2 -> loop (a loop) -> join -> ret
//         -> right ------------------------> join
//   x1: read on the left only                                 -> moves to %left
//   x2: read on both ways                                     -> stays
//   x3: read in %left2, past the memory helper's call          -> moves to %left2
//   x4: read in %join; %right stores word 4 first              -> stays
//   x5: read in %left2; the memory helper may write word 5     -> stays
//   x6: read in the loop only                                  -> moves to %left2, ahead of the loop
std::string function(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %a, i64 %b, ptr %mem_helper) {
entry:
  %p1 = getelementptr inbounds i8, ptr %s, i64 8
  %p2 = getelementptr inbounds i8, ptr %s, i64 16
  %p3 = getelementptr inbounds i8, ptr %s, i64 24
  %p4 = getelementptr inbounds i8, ptr %s, i64 32
  %p5 = getelementptr inbounds i8, ptr %s, i64 40
  %p6 = getelementptr inbounds i8, ptr %s, i64 48
  %x1 = load i64, ptr %p1, align 8, !alias.scope !1
  %x2 = load i64, ptr %p2, align 8, !alias.scope !1
  %x3 = load i64, ptr %p3, align 8, !alias.scope !1
  %x4 = load i64, ptr %p4, align 8, !alias.scope !1
  %x5 = load i64, ptr %p5, align 8
  %x6 = load i64, ptr %p6, align 8, !alias.scope !1
  %rounds = and i64 %b, 3
  %c = icmp ult i64 %a, %b
  br i1 %c, label %left, label %right
left:
  %l = add i64 %x1, %x2
  call void %mem_helper(ptr %s), !noalias !1
  br label %left2
left2:
  %l2 = add i64 %l, %x3
  %l3 = xor i64 %l2, %x5
  br label %loop
loop:
  %i = phi i64 [ 0, %left2 ], [ %i1, %loop ]
  %acc = phi i64 [ %l3, %left2 ], [ %acc1, %loop ]
  %acc1 = add i64 %acc, %x6
  %i1 = add i64 %i, 1
  %again = icmp ult i64 %i1, %rounds
  br i1 %again, label %loop, label %join
right:
  %r = sub i64 %x2, %a
  store i64 %a, ptr %p4, align 8, !alias.scope !1
  br label %join
join:
  %v = phi i64 [ %acc1, %loop ], [ %r, %right ]
  %w = mul i64 %v, %x4
  ret i64 %w
}

!0 = distinct !{!0, !"state"}
!2 = distinct !{!2, !0, !"registers"}
!1 = !{!2}
)";
}

// With the alias analyses the JIT's second tier uses (the state's offsets, scopes, LLVM's basic analysis).
void run_pass(llvm::Function& f) {
  llvm::FunctionAnalysisManager fam;
  fam.registerPass([] { return vplat::cpu::StateAlias(); });
  fam.registerPass([] {
    llvm::AAManager aa;
    aa.registerFunctionAnalysis<vplat::cpu::StateAlias>();
    aa.registerFunctionAnalysis<llvm::ScopedNoAliasAA>();
    aa.registerFunctionAnalysis<llvm::BasicAA>();
    return aa;
  });
  llvm::PassBuilder pb;
  pb.registerFunctionAnalyses(fam);
  vplat::cpu::StateLoadsWhereUsed().run(f, fam);
}

TEST(StateLoadsWhereUsed, LoadsMoveToTheBlockThatDominatesTheirUsesWhenNothingWritesTheirBytesOnTheWay) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  std::map<std::string, std::string> where; // load -> its block
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (llvm::isa<llvm::LoadInst>(i)) where[i.getName().str()] = bb.getName().str();
  EXPECT_EQ(where["x1"], "left");
  EXPECT_EQ(where["x2"], "entry");
  EXPECT_EQ(where["x3"], "left2");
  EXPECT_EQ(where["x4"], "entry");
  EXPECT_EQ(where["x5"], "entry");
  EXPECT_EQ(where["x6"], "left2");
}

// The memory helper changes word 5, as a helper that may write it would.
void mem_helper(uint64_t* s) {
  s[5] += 1000;
}

// Both functions, as written and after the pass, run on the host: the same result and the same state after,
// on both ways and for loops of one to three rounds.
TEST(StateLoadsWhereUsed, TheFunctionComputesTheSame) {
  using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t, void (*)(uint64_t*));
  auto code = vplat::test::compile_before_and_after<Fn>(function, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  for (uint64_t a : {0ull, 3ull, 6ull, 0x1234ull, ~0ull})
    for (uint64_t b : {0ull, 3ull, 7ull, ~1ull}) {
      uint64_t sa[8], sb[8];
      for (uint64_t k = 0; k < 8; ++k) sa[k] = sb[k] = 0x0101010101010101ull * (k + 1);
      EXPECT_EQ(want(sa, a, b, mem_helper), got(sb, a, b, mem_helper)) << a << " " << b;
      for (int k = 0; k < 8; ++k) EXPECT_EQ(sa[k], sb[k]) << a << " " << b << " word " << k;
    }
}

} // namespace
