// The first tier's pass for stores to the state that later stores overwrite (cpu-dbt/jit_state_stores.h):
// which stores go and which stay, and that the function leaves the same state and shows helpers the same
// values.
#include "cpu-dbt/jit_state_stores.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <map>
#include <memory>
#include <string>

namespace {

// A state of eight words, %s. Words 0-4, 6 and 7 are registers (`!alias.scope !1`); word 5 is like PC, which
// the memory helpers may read. `%mem_helper` is called as the emitters call a memory helper (`!noalias !1`);
// `%helper` as any other helper (it may read all of the state).
//   word 0: stored, a register load of word 1, stored again          -> the first store goes
//   word 3: stored, one of its bytes loaded, stored again            -> both stay
//   word 4: stored, the memory helper called, stored again           -> the first store goes
//   word 5: stored, the memory helper called, stored again           -> both stay
//   byte 17 (a flag): stored, then stored again on both ways on      -> the first store goes
//   word 7: stored, then stored again on one way on only             -> both stay
//   word 6: stored in a loop, which stores it again in its next round
//           and after it                                             -> the loop's store goes
std::string function(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %a, i64 %b, ptr %mem_helper, ptr %helper) {
entry:
  %x1 = getelementptr inbounds i8, ptr %s, i64 8
  %z = getelementptr inbounds i8, ptr %s, i64 17
  %x3 = getelementptr inbounds i8, ptr %s, i64 24
  %x3byte = getelementptr inbounds i8, ptr %s, i64 27
  %x4 = getelementptr inbounds i8, ptr %s, i64 32
  %pc = getelementptr inbounds i8, ptr %s, i64 40
  %x6 = getelementptr inbounds i8, ptr %s, i64 48
  %x7 = getelementptr inbounds i8, ptr %s, i64 56
  store i64 %a, ptr %s, align 8, !alias.scope !1
  %v1 = load i64, ptr %x1, align 8, !alias.scope !1
  %sum = add i64 %v1, %b
  store i64 %sum, ptr %s, align 8, !alias.scope !1
  store i64 %a, ptr %x3, align 8, !alias.scope !1
  %byte = load i8, ptr %x3byte, align 1
  %wide = zext i8 %byte to i64
  store i64 %wide, ptr %x3, align 8, !alias.scope !1
  store i64 %b, ptr %x4, align 8, !alias.scope !1
  %a1 = add i64 %a, 1
  store i64 %a1, ptr %pc, align 8
  call void %mem_helper(ptr %s), !noalias !1
  store i64 %sum, ptr %x4, align 8, !alias.scope !1
  store i64 %b, ptr %pc, align 8
  %eq = icmp eq i64 %a, %b
  %eq8 = zext i1 %eq to i8
  store i8 %eq8, ptr %z, align 1, !alias.scope !1
  store i64 %b, ptr %x7, align 8, !alias.scope !1
  %rounds = and i64 %a, 7
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  store i64 %i, ptr %x6, align 8, !alias.scope !1
  %i1 = add i64 %i, 1
  %again = icmp ult i64 %i1, %rounds
  br i1 %again, label %loop, label %after
after:
  store i64 99, ptr %x6, align 8, !alias.scope !1
  %lt = icmp ult i64 %a, %b
  br i1 %lt, label %left, label %right
left:
  store i8 0, ptr %z, align 1, !alias.scope !1
  store i64 %a, ptr %x7, align 8, !alias.scope !1
  call void %helper(ptr %s)
  ret i64 1
right:
  %gt = icmp ugt i64 %a, 5
  %gt8 = zext i1 %gt to i8
  store i8 %gt8, ptr %z, align 1, !alias.scope !1
  ret i64 2
}

!0 = distinct !{!0, !"state"}
!2 = distinct !{!2, !0, !"registers"}
!1 = !{!2}
)";
}

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::OverwrittenStateStores>(f);
}

TEST(OverwrittenStateStores, StoresOverwrittenOnEveryWayBeforeAReadGo) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  std::map<std::string, unsigned> stores; // by the name of the address
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i)) ++stores[st->getPointerOperand()->getName().str()];
  EXPECT_EQ(stores["s"], 1u);  // word 0: overwritten after a load of another register
  EXPECT_EQ(stores["x3"], 2u); // read through one of its bytes in between
  EXPECT_EQ(stores["x4"], 1u); // the memory helper reads no register
  EXPECT_EQ(stores["pc"], 2u); // ... but may read PC
  EXPECT_EQ(stores["z"], 2u);  // overwritten on both ways on (one of them then calls a helper)
  EXPECT_EQ(stores["x7"], 2u); // overwritten on one way only
  EXPECT_EQ(stores["x6"], 1u); // the loop's store: overwritten by its next round or after it
}

// What the helpers saw: the memory helper, PC (word 5); the other helper, all eight words.
struct Seen {
  uint64_t pc = 0;
  uint64_t state[8] = {};
  unsigned mem_calls = 0, calls = 0;
};
Seen seen;
void mem_helper(const uint64_t* s) {
  seen.pc = s[5];
  ++seen.mem_calls;
}
void helper(const uint64_t* s) {
  std::memcpy(seen.state, s, sizeof seen.state);
  ++seen.calls;
}

// Both functions, as written and after the pass, run on the host for operands on either side of each other:
// the same result, the same state after, and the same values seen by each helper.
TEST(OverwrittenStateStores, TheFunctionLeavesTheSameStateAndShowsHelpersTheSame) {
  using Fn =
      uint64_t (*)(uint64_t*, uint64_t, uint64_t, void (*)(const uint64_t*), void (*)(const uint64_t*));
  auto code = vplat::test::compile_before_and_after<Fn>(function, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  unsigned left = 0;
  for (uint64_t a : {0ull, 3ull, 6ull, 0x1234ull, ~0ull})
    for (uint64_t b : {0ull, 3ull, 7ull, ~1ull}) {
      uint64_t sa[8], sb[8];
      for (uint64_t k = 0; k < 8; ++k) sa[k] = sb[k] = 0x0101010101010101ull * (k + 1);
      seen = {};
      const uint64_t ra = want(sa, a, b, mem_helper, helper);
      const Seen sawa = seen;
      seen = {};
      const uint64_t rb = got(sb, a, b, mem_helper, helper);
      const Seen sawb = seen;
      EXPECT_EQ(ra, rb) << a << " " << b;
      for (int k = 0; k < 8; ++k) EXPECT_EQ(sa[k], sb[k]) << a << " " << b << " word " << k;
      EXPECT_EQ(sawa.pc, sawb.pc) << a << " " << b;
      EXPECT_EQ(sawa.calls, sawb.calls);
      for (int k = 0; k < 8; ++k) EXPECT_EQ(sawa.state[k], sawb.state[k]) << a << " " << b << " word " << k;
      EXPECT_EQ(sawa.mem_calls, 1u);
      left += ra == 1;
    }
  EXPECT_GT(left, 0u); // both ways on ran
  EXPECT_LT(left, 20u);
}

} // namespace
