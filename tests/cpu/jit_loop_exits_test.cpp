// The second tier's pass for blocks that loop (cpu-dbt/jit_loop_exits.h): a flag that only the loop's exits
// read is no longer computed in the loop, and the function computes what it did before, for every way out.
#include "cpu-dbt/jit_loop_exits.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <memory>
#include <string>

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

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext& ctx, const std::string& text) {
  llvm::SMDiagnostic err;
  auto m = llvm::parseAssemblyString(text, err, ctx);
  EXPECT_TRUE(m) << err.getMessage().str();
  return m;
}

void run_pass(llvm::Function& f) {
  llvm::FunctionAnalysisManager fam;
  llvm::PassBuilder pb;
  pb.registerFunctionAnalyses(fam);
  vplat::cpu::LoopExitValues().run(f, fam);
}

bool in_loop_block(const llvm::Instruction& i) {
  const std::string name = i.getParent()->getName().str();
  return name == "loop" || name == "body" || name == "latch";
}

TEST(LoopExitValues, AFlagOnlyTheExitsReadLeavesTheLoop) {
  llvm::LLVMContext ctx;
  auto m = parse(ctx, loop_function("f"));
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

// Both functions, the one as written and the one after the pass, run on the host: the same return value and
// the same state for every iteration count and every iteration the early exit may be taken in.
TEST(LoopExitValues, TheLoopComputesWhatItDidBefore) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  ASSERT_TRUE(!!jit) << llvm::toString(jit.takeError());
  for (const char* name : {"as_written", "after_pass"}) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = parse(*ctx, loop_function(name));
    ASSERT_TRUE(m);
    if (std::string(name) == "after_pass") run_pass(*m->getFunction(name));
    ASSERT_FALSE(llvm::verifyModule(*m, &llvm::errs()));
    auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)));
    ASSERT_FALSE(err) << llvm::toString(std::move(err));
  }
  using Fn = uint64_t (*)(uint64_t*, uint64_t, uint64_t);
  auto address = [&](const char* name) {
    auto sym = (*jit)->lookup(name);
    EXPECT_TRUE(!!sym);
    return sym ? sym->toPtr<Fn>() : nullptr;
  };
  Fn want = address("as_written"), got = address("after_pass");
  ASSERT_TRUE(want && got);
  unsigned early_exits_after_the_first_iteration = 0;
  for (uint64_t n = 1; n <= 8; ++n)
    for (uint64_t stop = 0; stop <= n + 1; ++stop) {
      uint64_t a[2] = {0, 5}, b[2] = {0, 5}; // x, then the flag byte (5: no value the loop sets)
      const uint64_t ra = want(a, n, stop), rb = got(b, n, stop);
      EXPECT_EQ(ra, rb) << "n " << n << " stop " << stop;
      EXPECT_EQ(a[0], b[0]) << "n " << n << " stop " << stop;
      EXPECT_EQ(a[1] & 0xff, b[1] & 0xff) << "n " << n << " stop " << stop;
      early_exits_after_the_first_iteration += ra != 0 && ra < n;
    }
  EXPECT_GT(early_exits_after_the_first_iteration, 10u);
}

} // namespace
