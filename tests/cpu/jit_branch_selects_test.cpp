// The first tier's pass for selects on a branch's own condition (cpu-dbt/jit_branch_selects.h): which uses
// take one way's value, which keep the select, and that the function computes what it did before.
#include "cpu-dbt/jit_branch_selects.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <string>

namespace {

// %next is the branch's select (10 on the true way, 20 on the false way), used
//   in the branch's own block (%own)                                 -> keeps the select
//   by a phi in the true way's first block, coming from the branch   -> 10
//   by a store in the true way's first block (%t)                    -> 10
//   two blocks on, past a block of one predecessor (%exit_t)         -> 10
//   by a phi in %exit_f, coming from %f (the false way's first block) -> 20
//   by a phi in %join (two predecessors): from %t2 10, from %f 20
//   by an instruction in %join, past the join                        -> keeps the select
std::string branch_with_select(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %a, i64 %b) {
entry:
  %c = icmp ult i64 %a, %b
  %next = select i1 %c, i64 10, i64 20
  %own = add i64 %next, 1
  br i1 %c, label %t, label %f
t:
  %first = phi i64 [ %next, %entry ]
  store i64 %next, ptr %s
  br label %t2
t2:
  %d = icmp eq i64 %a, 0
  br i1 %d, label %exit_t, label %join
exit_t:
  %r1 = add i64 %next, %own
  %r1b = add i64 %r1, %first
  ret i64 %r1b
f:
  %e = icmp eq i64 %b, 7
  br i1 %e, label %join, label %exit_f
exit_f:
  %p = phi i64 [ %next, %f ]
  ret i64 %p
join:
  %q = phi i64 [ %next, %t2 ], [ %next, %f ]
  %r2 = mul i64 %next, 3
  %r3 = add i64 %q, %r2
  ret i64 %r3
}
)";
}

using vplat::test::parse_ir;

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::SelectsOnBranchConditions>(f);
}

llvm::BasicBlock* block(llvm::Function& f, const char* name) {
  for (llvm::BasicBlock& bb : f)
    if (bb.getName() == name) return &bb;
  return nullptr;
}
int64_t constant(llvm::Value* v) {
  auto* k = llvm::dyn_cast<llvm::ConstantInt>(v);
  return k ? k->getSExtValue() : -1;
}

TEST(SelectsOnBranchConditions, UsesPastOneWayTakeThatWaysValue) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, branch_with_select("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  auto* first = llvm::cast<llvm::PHINode>(&block(f, "t")->front());
  EXPECT_EQ(constant(first->getIncomingValue(0)), 10);
  llvm::StoreInst* store = nullptr;
  for (llvm::Instruction& i : *block(f, "t"))
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i)) store = st;
  ASSERT_TRUE(store);
  EXPECT_EQ(constant(store->getValueOperand()), 10);
  auto* r1 = llvm::cast<llvm::BinaryOperator>(&block(f, "exit_t")->front());
  EXPECT_EQ(constant(r1->getOperand(0)), 10);
  auto* p = llvm::cast<llvm::PHINode>(&block(f, "exit_f")->front());
  EXPECT_EQ(constant(p->getIncomingValue(0)), 20);
  auto* q = llvm::cast<llvm::PHINode>(&block(f, "join")->front());
  EXPECT_EQ(constant(q->getIncomingValueForBlock(block(f, "t2"))), 10);
  EXPECT_EQ(constant(q->getIncomingValueForBlock(block(f, "f"))), 20);
  // Kept where the branch has not decided it: in its own block and past the join.
  auto* r2 = llvm::cast<llvm::BinaryOperator>(q->getNextNode());
  EXPECT_TRUE(llvm::isa<llvm::SelectInst>(r2->getOperand(0)));
  auto* own = llvm::cast<llvm::BinaryOperator>(f.getEntryBlock().front().getNextNode()->getNextNode());
  EXPECT_TRUE(llvm::isa<llvm::SelectInst>(own->getOperand(0)));
}

TEST(SelectsOnBranchConditions, ASelectOnlyExitsReadGoes) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, R"(define i64 @g(i64 %a) {
entry:
  %c = icmp eq i64 %a, 3
  %next = select i1 %c, i64 100, i64 104
  br i1 %c, label %taken, label %on
taken:
  br label %exit
on:
  %z = icmp eq i64 %a, 9
  br i1 %z, label %exit2, label %back
back:
  ret i64 0
exit:
  %pc = phi i64 [ %next, %taken ]
  ret i64 %pc
exit2:
  ret i64 %next
}
)");
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("g");
  run_pass(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned selects = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) selects += llvm::isa<llvm::SelectInst>(i);
  EXPECT_EQ(selects, 0u);
  // The branch's compare has one use left, so the code generator can branch on the compare itself.
  EXPECT_TRUE(f.getEntryBlock().front().hasOneUse());
}

// Both functions, as written and after the pass, run on the host: the same result and the same stored word
// whichever ways the three branches go.
TEST(SelectsOnBranchConditions, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(branch_with_select, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  unsigned exits[4] = {};
  for (uint64_t a : {0ull, 1ull, 5ull, 9ull})
    for (uint64_t b : {0ull, 5ull, 7ull, 9ull}) {
      uint64_t sa = 0, sb = 0;
      const uint64_t ra = want(&sa, a, b), rb = got(&sb, a, b);
      EXPECT_EQ(ra, rb) << a << " " << b;
      EXPECT_EQ(sa, sb) << a << " " << b;
      // Which return it reached: %exit_t 31, %exit_f 20, %join 10 + 30 or 20 + 60.
      exits[ra == 31 ? 0 : ra == 20 ? 1 : ra == 40 ? 2 : 3] += 1;
    }
  for (unsigned n : exits) EXPECT_GT(n, 0u); // every way out ran
}

} // namespace
