// The second tier's pass for blocks that loop (cpu-dbt/jit_loop_exits.h): a flag that only the loop's exits
// read is no longer computed in the loop, and the function computes what it did before, for every way out.
#include "cpu-dbt/jit_loop_exits.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Transforms/Utils/Local.h>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

// The shape of a translated block's loop: x (a register) and a flag live in the state, are loaded on entry
// and stored at the exits; the flag is set in every iteration from x and read by no instruction in the loop.
// The early exit (at the loop's top, when i reaches `stop`) stores the values of the iteration before.
std::string loop_function(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %n, i64 %stop) {
entry:
  %x0 = load i64, ptr %s
  %fp = getelementptr inbounds i8, ptr %s, i64 8
  %f0 = load i8, ptr %fp
  br label %loop
loop:
  %x = phi i64 [ %x0, %entry ], [ %x1, %latch ]
  %flag = phi i8 [ %f0, %entry ], [ %z8, %latch ]
  %i = phi i64 [ %n, %entry ], [ %i1, %latch ]
  %early = icmp eq i64 %i, %stop
  br i1 %early, label %exit_early, label %body
body:
  %x1 = add i64 %x, 7
  %z = icmp ult i64 %x1, 30
  %z8 = zext i1 %z to i8
  %i1 = sub i64 %i, 1
  %more = icmp ne i64 %i1, 0
  br i1 %more, label %latch, label %exit_late
latch:
  br label %loop
exit_early:
  store i64 %x, ptr %s
  store i8 %flag, ptr %fp
  ret i64 %i
exit_late:
  store i64 %x1, ptr %s
  store i8 %z8, ptr %fp
  ret i64 0
}
)";
}

// A loop that tests several things in turn jumps back from each test (a block with several branches to its
// start): here two back edges, each with its own value of the flag (and of x).
std::string two_latch_function(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %n, i64 %stop) {
entry:
  %x0 = load i64, ptr %s
  %fp = getelementptr inbounds i8, ptr %s, i64 8
  %f0 = load i8, ptr %fp
  br label %loop
loop:
  %x = phi i64 [ %x0, %entry ], [ %x1, %latch_a ], [ %x2, %latch_b ]
  %flag = phi i8 [ %f0, %entry ], [ %za8, %latch_a ], [ %zb8, %latch_b ]
  %i = phi i64 [ %n, %entry ], [ %i1, %latch_a ], [ %i1, %latch_b ]
  %early = icmp eq i64 %i, %stop
  br i1 %early, label %exit_early, label %body
body:
  %x1 = add i64 %x, 7
  %za = icmp ult i64 %x1, 30
  %za8 = zext i1 %za to i8
  %i1 = sub i64 %i, 1
  %more = icmp ne i64 %i1, 0
  br i1 %more, label %pick, label %exit_late
pick:
  %odd = and i64 %i1, 1
  %is_odd = icmp ne i64 %odd, 0
  br i1 %is_odd, label %latch_a, label %second
second:
  %x2 = mul i64 %x1, 3
  %zb = icmp ugt i64 %x2, 100
  %zb8 = zext i1 %zb to i8
  br label %latch_b
latch_a:
  br label %loop
latch_b:
  br label %loop
exit_early:
  store i64 %x, ptr %s
  store i8 %flag, ptr %fp
  ret i64 %i
exit_late:
  store i64 %x1, ptr %s
  store i8 %za8, ptr %fp
  ret i64 0
}
)";
}

using vplat::test::parse_ir;

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::LoopExitValues>(f);
}

bool in_loop_block(const llvm::Instruction& i) {
  const std::string name = i.getParent()->getName().str();
  return name == "loop" || name == "body" || name == "latch" || name == "pick" || name == "second" ||
         name == "latch_a" || name == "latch_b";
}

TEST(LoopExitValues, AFlagOnlyTheExitsReadLeavesTheLoop) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, loop_function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned flag_phis = 0, flag_values_in_loop = 0, first_iteration_phis = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
        flag_phis += phi->getType()->isIntegerTy(8);
        first_iteration_phis += phi->getType()->isIntegerTy(1);
      }
      // The flag's own computation: the compare with 30 and its widening.
      if (in_loop_block(i) && (llvm::isa<llvm::ZExtInst>(i) ||
                               (llvm::isa<llvm::ICmpInst>(i) && i.getName().str().rfind("z", 0) == 0)))
        ++flag_values_in_loop;
    }
  EXPECT_EQ(flag_phis, 0u);
  EXPECT_EQ(first_iteration_phis, 1u);
  EXPECT_EQ(flag_values_in_loop, 0u);
}

TEST(LoopExitValues, WithTwoBackEdgesTheFlagLeavesTheLoopToo) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, two_latch_function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  // What no longer has a use goes (as code generation drops it).
  for (bool again = true; again;) {
    again = false;
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : llvm::make_early_inc_range(bb))
        if (llvm::isInstructionTriviallyDead(&i)) {
          i.eraseFromParent();
          again = true;
        }
  }
  unsigned flag_phis = 0, entered_from_phis = 0, flag_values_in_loop = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
        flag_phis += phi->getType()->isIntegerTy(8);
        entered_from_phis += phi->getType()->isIntegerTy(32);
      }
      // The flag's computations: the compares with 30 and 100 and their widenings.
      const std::string name = i.getName().str();
      if (in_loop_block(i) && (llvm::isa<llvm::ZExtInst>(i) || name == "za" || name == "zb"))
        ++flag_values_in_loop;
    }
  EXPECT_EQ(flag_phis, 0u);
  EXPECT_EQ(entered_from_phis, 1u); // which back edge the iteration came from, for the exits
  EXPECT_EQ(flag_values_in_loop, 0u);
}

// Where a value sits after the pass: the names of the blocks that compute an instruction called `name` (or a
// copy of it: name1, name2, ...).
std::vector<std::string> blocks_computing(llvm::Function& f, const std::string& name) {
  std::vector<std::string> where;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (i.getName().rtrim("0123456789") == name)
        where.push_back(bb.getName().str()); // copies: c8, c81, ...
  return where;
}

// Any block, looping or not: a flag that only side exits store is computed in each of them, not on the way
// through, which reads it nowhere.
TEST(LoopExitValues, AValueOnlyExitsReadIsComputedInThemNotOnTheWayThrough) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, R"(define i64 @f(ptr %s, i64 %a, i64 %b) {
entry:
  %less = icmp ult i64 %a, %b
  %less_byte = zext i1 %less to i8
  %fp = getelementptr inbounds i8, ptr %s, i64 8
  %t1 = icmp eq i64 %a, 5
  br i1 %t1, label %exit1, label %mid
mid:
  %t2 = icmp eq i64 %b, 7
  br i1 %t2, label %exit2, label %through
exit1:
  store i8 %less_byte, ptr %fp
  ret i64 1
exit2:
  store i8 %less_byte, ptr %fp
  ret i64 2
through:
  ret i64 0
}
)");
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  EXPECT_EQ(blocks_computing(f, "less_byte"), (std::vector<std::string>{"exit1", "exit2"}));
  EXPECT_EQ(blocks_computing(f, "less"), (std::vector<std::string>{"exit1", "exit2"}));
}

// A value that a loop reads is not moved into the loop, where it would be computed in every iteration.
TEST(LoopExitValues, AValueALoopReadsStaysOutsideIt) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, R"(define i64 @f(ptr %s, i64 %a, i64 %b) {
entry:
  %v = mul i64 %a, 3
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %x = phi i64 [ 0, %entry ], [ %x1, %loop ]
  %x1 = add i64 %x, %v
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %b
  br i1 %more, label %loop, label %done
done:
  store i64 %x1, ptr %s
  ret i64 %i1
}
)");
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  EXPECT_EQ(blocks_computing(f, "v"), (std::vector<std::string>{"entry"}));
}

// Both functions, the one as written and the one after the pass, run on the host: the same return value and
// the same state for every iteration count and every iteration the early exit may be taken in.
void expect_same_results(std::string (*make)(const std::string&), uint64_t max_n) {
  using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(make, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  unsigned early_exits_after_the_first_iteration = 0, flag_values[2] = {0, 0};
  for (uint64_t n = 1; n <= max_n; ++n)
    for (uint64_t stop = 0; stop <= n + 1; ++stop) {
      uint64_t a[2] = {0, 5}, b[2] = {0, 5}; // x, then the flag byte (5: no value the loop sets)
      const uint64_t ra = want(a, n, stop), rb = got(b, n, stop);
      EXPECT_EQ(ra, rb) << "n " << n << " stop " << stop;
      EXPECT_EQ(a[0], b[0]) << "n " << n << " stop " << stop;
      EXPECT_EQ(a[1] & 0xff, b[1] & 0xff) << "n " << n << " stop " << stop;
      early_exits_after_the_first_iteration += ra != 0 && ra < n;
      if ((a[1] & 0xff) < 2) ++flag_values[a[1] & 1];
    }
  EXPECT_GT(early_exits_after_the_first_iteration, 10u);
  EXPECT_GT(flag_values[0], 0u); // the exits saw the flag both clear and set
  EXPECT_GT(flag_values[1], 0u);
}

// A block's two counters as a loop keeps them: the budget left counts down and the instructions retired up,
// by the instructions of the way taken back (4 or 7 here, two back edges); each exit returns the retired
// count at its point (the early exit in the middle of an iteration, the budget's exit after the last).
std::string counters_function(const std::string& name) {
  return "define i64 @" + name + R"((ptr %s, i64 %budget, i64 %retired) {
entry:
  %x0 = load i64, ptr %s
  %enough = icmp slt i64 %budget, 7
  br i1 %enough, label %no_room, label %loop
loop:
  %x = phi i64 [ %x0, %entry ], [ %x1, %short ], [ %x1, %long ]
  %left = phi i64 [ %budget, %entry ], [ %left4, %short ], [ %left7, %long ]
  %done = phi i64 [ %retired, %entry ], [ %done4, %short ], [ %done7, %long ]
  %x1 = add i64 %x, 5
  %big = icmp ugt i64 %x1, 60
  br i1 %big, label %early, label %pick
pick:
  %odd = and i64 %x1, 1
  %is_odd = icmp ne i64 %odd, 0
  br i1 %is_odd, label %short, label %long
short:
  %left4 = add i64 %left, -4
  %done4 = add i64 %done, 4
  %room4 = icmp sge i64 %left4, 7
  br i1 %room4, label %loop, label %out4
long:
  %left7 = add i64 %left, -7
  %done7 = add i64 %done, 7
  %room7 = icmp sge i64 %left7, 7
  br i1 %room7, label %loop, label %out7
early:
  store i64 %x1, ptr %s
  %done2 = add i64 %done, 2
  ret i64 %done2
out4:
  store i64 %x1, ptr %s
  ret i64 %done4
out7:
  store i64 %x1, ptr %s
  ret i64 %done7
no_room:
  ret i64 %retired
}
)";
}

TEST(LoopExitValues, TheRetiredCountIsTheBudgetsCountdownSubtractedAtTheExits) {
  llvm::LLVMContext ctx;
  auto m = parse_ir(ctx, counters_function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned counter_phis = 0, counting_up_in_loop = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&i); phi && phi->getName().str() != "x")
        counter_phis += phi->getType()->isIntegerTy(64);
      // What the retired count's steps were: an add of 4 or 7 on the way back.
      if (auto* add = llvm::dyn_cast<llvm::BinaryOperator>(&i);
          add && add->getOpcode() == llvm::Instruction::Add &&
          (bb.getName() == "short" || bb.getName() == "long"))
        if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(add->getOperand(1)); c && !c->isNegative())
          ++counting_up_in_loop;
    }
  EXPECT_EQ(counter_phis, 1u); // the budget's
  EXPECT_EQ(counting_up_in_loop, 0u);
}

TEST(LoopExitValues, TheRetiredCountIsWhatItWasAtEveryExit) {
  using Fn = uint64_t (*)(uint64_t*, int64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(counters_function, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  std::set<uint64_t> counts; // instructions retired in a call: how varied the ways through were
  for (int64_t budget = 0; budget <= 60; ++budget)
    for (uint64_t x = 0; x <= 64; x += 3)
      for (uint64_t retired : {0ull, 1000ull, ~0ull - 5}) {
        uint64_t a = x, b = x;
        const uint64_t ra = want(&a, budget, retired), rb = got(&b, budget, retired);
        EXPECT_EQ(ra, rb) << "budget " << budget << " x " << x << " retired " << retired;
        EXPECT_EQ(a, b) << "budget " << budget << " x " << x;
        counts.insert(ra - retired);
      }
  EXPECT_TRUE(counts.count(0));     // no room for one iteration
  EXPECT_TRUE(counts.count(2));     // the early exit in the first iteration
  EXPECT_GT(counts.size(), 20u);    // and many counts of iterations of either length
  EXPECT_GE(*counts.rbegin(), 50u); // up to the budget
}

// A guest loop that clears memory 64 bytes at a time: a pointer (p) counts up and the length left (len) down
// by the same step, and only the length is compared; so they look like the block's two counters. The
// pointer's step is stored before the length steps when `length_first` is false (the order of the guest's
// instructions, say `stp` with write-back, then `subs`), after it otherwise.
std::string pointer_and_length_function(const std::string& name, bool length_first) {
  const std::string length_step = "  %len1 = add i64 %len, -64\n";
  return "define i64 @" + name + R"((ptr %s, i64 %p0, i64 %len0) {
entry:
  br label %loop
loop:
  %p = phi i64 [ %p0, %entry ], [ %p1, %loop ]
  %len = phi i64 [ %len0, %entry ], [ %len1, %loop ]
  %p1 = add i64 %p, 64
)" + (length_first ? length_step : "") +
         R"(  store i64 %p1, ptr %s
)" + (length_first ? "" : length_step) +
         R"(  %more = icmp ugt i64 %len1, 63
  br i1 %more, label %loop, label %out
out:
  %sum = add i64 %p1, %len1
  ret i64 %sum
}
)";
}

unsigned integer_phis(llvm::Function& f) {
  unsigned n = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::PHINode& phi : bb.phis()) n += phi.getType()->isIntegerTy();
  return n;
}

TEST(LoopExitValues, ACounterUsedAfterItsStepBeforeTheOtherStepsKeepsItsPhi) {
  for (bool length_first : {false, true}) {
    llvm::LLVMContext ctx;
    auto m = parse_ir(ctx, pointer_and_length_function("f", length_first));
    ASSERT_TRUE(m);
    llvm::Function& f = *m->getFunction("f");
    run_pass(f);
    // The store of p's step cannot be rebuilt from len's step before len has stepped.
    EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs())) << "length first: " << length_first;
    EXPECT_EQ(integer_phis(f), length_first ? 1u : 2u) << "length first: " << length_first;
  }
}

TEST(LoopExitValues, APointerAndALengthComputeWhatTheyDidBefore) {
  for (bool length_first : {false, true}) {
    using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t);
    auto code = vplat::test::compile_before_and_after<Fn>(
        [&](const std::string& name) { return pointer_and_length_function(name, length_first); }, run_pass);
    Fn want = code.as_written, got = code.after_pass;
    ASSERT_TRUE(want && got);
    for (uint64_t p0 : {0ull, 0x1000ull, ~0ull - 100})
      for (uint64_t len0 : {64ull, 100ull, 640ull, 4096ull}) { // (the guest's loop runs at least once)
        uint64_t a = 0, b = 0;
        EXPECT_EQ(want(&a, p0, len0), got(&b, p0, len0)) << "p0 " << p0 << " len0 " << len0;
        EXPECT_EQ(a, b) << "the last pointer stored, p0 " << p0 << " len0 " << len0;
        EXPECT_EQ(a, p0 + 64 * (len0 / 64)) << "p0 " << p0 << " len0 " << len0;
      }
  }
}

TEST(LoopExitValues, TheLoopComputesWhatItDidBefore) {
  expect_same_results(loop_function, 8);
}

TEST(LoopExitValues, TheLoopWithTwoBackEdgesComputesWhatItDidBefore) {
  expect_same_results(two_latch_function, 12);
}

} // namespace
