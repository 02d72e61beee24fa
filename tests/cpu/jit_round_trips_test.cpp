// The first tier's pass for truth values that go through the state (cpu-dbt/jit_round_trips.h): a
// conditional branch tests the compares themselves, not the flag bytes stored from them, and the function
// computes what it did before.
#include "cpu-dbt/jit_round_trips.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <memory>
#include <string>

namespace {

// The shape of a first-tier block's CMP and B.HI after its passes: the flags Z and C stored as bytes, NPC
// stored as the next instruction's address and then as the branch's choice, and read back for the exit test.
// Before the compare, NPC is stored and read by a helper call (which must keep its store).
std::string compare_and_branch(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %a, i64 %b) {
entry:
  %zp = getelementptr inbounds i8, ptr %s, i64 8
  %cp = getelementptr inbounds i8, ptr %s, i64 9
  %np = getelementptr inbounds i8, ptr %s, i64 16
  store i64 7, ptr %np
  %seen = load i64, ptr %np
  store i64 %seen, ptr %s
  store i64 100, ptr %np
  %z = icmp eq i64 %a, %b
  %z64 = zext i1 %z to i64
  %z8 = trunc i64 %z64 to i8
  store i8 %z8, ptr %zp
  %c = icmp uge i64 %a, %b
  %c64 = zext i1 %c to i64
  %c8 = trunc i64 %c64 to i8
  store i8 %c8, ptr %cp
  %zr = zext i8 %z8 to i64
  %zclear = icmp eq i64 %zr, 0
  %cr = zext i8 %c8 to i64
  %cset = icmp eq i64 %cr, 1
  %hi = and i1 %cset, %zclear
  %next = select i1 %hi, i64 200, i64 100
  store i64 %next, ptr %np
  %pc = load i64, ptr %np
  %taken = icmp ne i64 %pc, 100
  br i1 %taken, label %t, label %n
t:
  ret i64 2
n:
  %stay = icmp eq i64 %pc, 100
  %r = zext i1 %stay to i64
  ret i64 %r
}
)";
}

using vplat::test::parse_ir;

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::BooleanRoundTrips>(f);
}

TEST(BooleanRoundTrips, TheBranchTestsTheComparesNotTheStoredFlags) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, compare_and_branch("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned loads = 0, npc_stores = 0, truncs = 0, compares_of_casts = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      loads += llvm::isa<llvm::LoadInst>(i);
      truncs += llvm::isa<llvm::TruncInst>(i);
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i))
        npc_stores += st->getPointerOperand()->getName() == "np";
      if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&i))
        compares_of_casts +=
            llvm::isa<llvm::CastInst>(cmp->getOperand(0)) || llvm::isa<llvm::SelectInst>(cmp->getOperand(0));
    }
  EXPECT_EQ(loads, 0u);      // NPC read back after both stores: forwarded
  EXPECT_EQ(npc_stores, 2u); // the one a load reads, and the branch's choice (100 before it overwritten)
  EXPECT_EQ(truncs, 0u);     // the flag bytes: the i1s zero-extended to 8 bits
  EXPECT_EQ(compares_of_casts, 0u);
  auto* br = llvm::cast<llvm::BranchInst>(f.getEntryBlock().getTerminator());
  EXPECT_EQ(br->getCondition()->getName(), "hi");
}

// Both functions, as written and after the pass, run on the host: the same result and the same state for
// operands equal, below and above each other.
TEST(BooleanRoundTrips, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(compare_and_branch, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  unsigned taken = 0;
  for (uint64_t a : {0ull, 1ull, 5ull, ~0ull})
    for (uint64_t b : {0ull, 1ull, 5ull, ~0ull}) {
      uint64_t sa[3] = {0, 0, 0}, sb[3] = {0, 0, 0}; // a helper's copy of NPC, the flag bytes, NPC
      const uint64_t ra = want(sa, a, b), rb = got(sb, a, b);
      EXPECT_EQ(ra, rb) << a << " " << b;
      for (int k = 0; k < 3; ++k) EXPECT_EQ(sa[k], sb[k]) << a << " " << b << " word " << k;
      taken += ra == 2;
    }
  EXPECT_GT(taken, 0u); // both ways of the branch ran
  EXPECT_LT(taken, 16u);
}

} // namespace
