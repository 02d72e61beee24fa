// Which ways through a translated block are likely, and the second tier's instruction selection by them
// (cpu-dbt/jit_likely_paths.h): full selection on likely paths, fast selection elsewhere.
#include "cpu-dbt/jit_likely_paths.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <set>
#include <string>

namespace {

// entry -> fast (likely) or slow (unlikely, 1 : 2^20); both -> join; `only_slow` only from slow; `tail`
// from join (unweighted) and from only_slow.
std::string diamond(const std::string& name) {
  return "define i64 @" + name + R"((ptr %p, ptr %q, i64 %x) {
entry:
  %a = load i64, ptr %p
  %s = shl i64 %a, 3
  %m = add i64 %s, %x
  %c = icmp ult i64 %m, 1000
  br i1 %c, label %fast, label %slow, !prof !0
fast:
  %b = load i64, ptr %q
  %t = shl i64 %b, 3
  %n = add i64 %t, %x
  store i64 %n, ptr %p
  br label %join
slow:
  %d = load i64, ptr %q
  %u = shl i64 %d, 3
  %o = add i64 %u, %x
  store i64 %o, ptr %q
  %k = icmp eq i64 %o, 7
  br i1 %k, label %only_slow, label %join
only_slow:
  br label %tail
join:
  %j = phi i64 [ %n, %fast ], [ %o, %slow ]
  %e = icmp eq i64 %j, 0
  br i1 %e, label %tail, label %done
tail:
  br label %done
done:
  %r = phi i64 [ %j, %join ], [ 1, %tail ]
  ret i64 %r
}
!0 = !{!"branch_weights", i32 1048576, i32 1}
)";
}

std::set<std::string> names(const llvm::SmallPtrSet<const llvm::BasicBlock*, 32>& blocks) {
  std::set<std::string> r;
  for (const llvm::BasicBlock* bb : blocks) r.insert(bb->getName().str());
  return r;
}

TEST(LikelyBlocks, AreThoseReachedFromTheEntryWithoutAnUnlikelyEdge) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, diamond("f"));
  ASSERT_TRUE(m);
  // `slow` and `only_slow` are reached through the unlikely edge only; `tail` also from `join`.
  EXPECT_EQ(names(vplat::cpu::likely_blocks(*m->getFunction("f"))),
            (std::set<std::string>{"entry", "fast", "join", "tail", "done"}));
}

// x86-64 assembly of `m` at the second tier's level, with or without fast instruction selection.
std::string assembly(llvm::Module& m, bool fast_isel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return "no target: " + llvm::toString(jtmb.takeError());
  jtmb->setCodeGenOptLevel(llvm::CodeGenOpt::Default);
  jtmb->getOptions().EnableFastISel = fast_isel;
  auto tm = jtmb->createTargetMachine();
  if (!tm) return "no target machine: " + llvm::toString(tm.takeError());
  m.setDataLayout((*tm)->createDataLayout());
  llvm::SmallString<4096> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile)) return "cannot emit assembly";
  pm.run(m);
  return text.str().str();
}

unsigned count(const std::string& text, const std::string& word) {
  unsigned n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// Each of entry, fast and slow shifts a loaded value left by 3 and adds x. The full selector makes that one
// LEA; the fast one a SHL and an ADD.
TEST(FullSelectionOnLikelyPaths, SelectsTheLikelyBlocksInFullAndTheOthersFast) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, diamond("f"));
  ASSERT_TRUE(m);
  vplat::test::run_function_pass<vplat::cpu::FullSelectionOnLikelyPaths>(*m->getFunction("f"));
  ASSERT_FALSE(llvm::verifyModule(*m, &llvm::errs()));
  const std::string code = assembly(*m, true);
  EXPECT_EQ(count(code, "\tlea"), 2u) << code; // entry, fast
  EXPECT_EQ(count(code, "\tshl"), 1u) << code; // slow

  // The reference points: every block selected fast without the pass, in full without fast selection.
  auto plain = vplat::test::parse_ir(ctx, diamond("f"));
  ASSERT_TRUE(plain);
  const std::string fast = assembly(*plain, true);
  EXPECT_EQ(count(fast, "\tlea"), 0u) << fast;
  EXPECT_EQ(count(fast, "\tshl"), 3u) << fast;
  auto plain_full = vplat::test::parse_ir(ctx, diamond("f"));
  ASSERT_TRUE(plain_full);
  const std::string full = assembly(*plain_full, false);
  EXPECT_EQ(count(full, "\tlea"), 3u) << full;
}

// Compiled as written and after the pass, the function returns and stores the same on every way through.
TEST(FullSelectionOnLikelyPaths, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint64_t*, uint64_t*, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(diamond, [](llvm::Function& f) {
    vplat::test::run_function_pass<vplat::cpu::FullSelectionOnLikelyPaths>(f);
  });
  ASSERT_TRUE(code.as_written && code.after_pass);
  // (p, q, x): fast with join non-zero and zero; slow to join, and slow to only_slow.
  const uint64_t cases[][3] = {{1, 2, 3}, {1, 0, 0}, {200, 2, 3}, {200, 0, 7}, {0, 0, 0}};
  for (const auto& c : cases) {
    uint64_t p1 = c[0], q1 = c[1], p2 = c[0], q2 = c[1];
    EXPECT_EQ(code.as_written(&p1, &q1, c[2]), code.after_pass(&p2, &q2, c[2]));
    EXPECT_EQ(p1, p2);
    EXPECT_EQ(q1, q2);
  }
}

// Likely branches on a logical OR (SimplifyCFG's select form) and a logical AND of two compares, each
// joining a block with a phi.
std::string conjunctions(const std::string& name) {
  return "define i64 @" + name + R"((i64 %x, i64 %y) {
entry:
  %a = icmp ult i64 %x, 10
  %b = icmp ugt i64 %y, 20
  %either = select i1 %a, i1 true, i1 %b
  br i1 %either, label %one, label %two, !prof !0
one:
  %c = icmp eq i64 %x, 3
  %d = icmp ne i64 %y, 4
  %both = and i1 %c, %d
  br i1 %both, label %three, label %two
two:
  %t = phi i64 [ 2, %entry ], [ 5, %one ]
  ret i64 %t
three:
  ret i64 3
}
!0 = !{!"branch_weights", i32 1048576, i32 1}
)";
}

// Each becomes two compare-and-jumps: nothing computes the OR or the AND any more.
TEST(FullSelectionOnLikelyPaths, BranchesOnAnOrOrAnAndOfTwoValuesBecomeTwoBranches) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, conjunctions("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  vplat::test::run_function_pass<vplat::cpu::FullSelectionOnLikelyPaths>(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned branches = 0, logic = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      if (auto* br = llvm::dyn_cast<llvm::BranchInst>(&i); br && br->isConditional()) ++branches;
      if (llvm::isa<llvm::SelectInst>(i) || i.getOpcode() == llvm::Instruction::And ||
          i.getOpcode() == llvm::Instruction::Or)
        ++logic;
    }
  EXPECT_EQ(branches, 4u);
  EXPECT_EQ(logic, 0u);

  using Fn = uint64_t (*)(uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(conjunctions, [](llvm::Function& g) {
    vplat::test::run_function_pass<vplat::cpu::FullSelectionOnLikelyPaths>(g);
  });
  ASSERT_TRUE(code.as_written && code.after_pass);
  for (uint64_t x : {0, 3, 9, 10, 11})
    for (uint64_t y : {0, 4, 20, 21, 30})
      EXPECT_EQ(code.as_written(x, y), code.after_pass(x, y)) << x << " " << y;
}

} // namespace
