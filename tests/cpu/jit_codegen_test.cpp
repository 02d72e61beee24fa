// The JIT's code generator with one pipeline for all modules (cpu-dbt/jit_codegen.h): every module's
// object is byte for byte what ORC's SimpleCompiler, with a pipeline made for that module alone, emits.
#include "cpu-dbt/jit_codegen.h"

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <string>
#include <vector>

namespace {

using vplat::cpu::ReusedPipelineCompiler;

// Modules with what translated blocks have: loads and stores through a pointer argument, branches to
// several exits, a loop, a call through a constant address, a tail call, 64-bit constants, a switch.
const char* const kModules[] = {
    R"(
define i64 @sum(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s1, %loop ]
  %a = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %a
  %s1 = add i64 %s, %v
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %out, label %loop
out:
  ret i64 %s1
}
)",
    R"(
define ghccc i64 @block(ptr %state, i64 %left) {
entry:
  %x1 = getelementptr i8, ptr %state, i64 8
  %v = load i64, ptr %x1
  %c = icmp ult i64 %v, 81985529216486895
  br i1 %c, label %small, label %big
small:
  %m = mul i64 %v, 3
  store i64 %m, ptr %x1
  %r = call i64 inttoptr (i64 1311768467463790320 to ptr)(ptr %state, i64 %m)
  ret i64 %r
big:
  %t = tail call ghccc i64 @block(ptr %state, i64 %left)
  ret i64 %t
}
)",
    R"(
define i32 @pick(i32 %k, ptr %out) {
entry:
  switch i32 %k, label %other [ i32 0, label %zero
                                i32 1, label %one
                                i32 7, label %seven ]
zero:
  store i8 1, ptr %out
  ret i32 10
one:
  store i16 2, ptr %out
  ret i32 20
seven:
  store i32 3, ptr %out
  ret i32 70
other:
  %w = shl i32 %k, 3
  ret i32 %w
}
@table = internal constant [4 x i64] [i64 1, i64 2, i64 3, i64 4]
define i64 @lookup(i64 %i) {
  %p = getelementptr [4 x i64], ptr @table, i64 0, i64 %i
  %v = load i64, ptr %p
  ret i64 %v
}
)",
};

std::unique_ptr<llvm::TargetMachine> host_machine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  EXPECT_TRUE(static_cast<bool>(builder));
  if (!builder) return nullptr;
  auto tm = builder->createTargetMachine();
  EXPECT_TRUE(static_cast<bool>(tm));
  return tm ? std::move(*tm) : nullptr;
}

// Each compile gets a module of its own, in a context of its own, as the JIT's compiles do (the code
// generator changes the module it is given).
struct Parsed {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  Parsed(const char* text, const llvm::TargetMachine& tm) {
    llvm::SMDiagnostic error;
    module = llvm::parseAssemblyString(text, error, context);
    if (!module)
      ADD_FAILURE() << error.getMessage().str();
    else
      module->setDataLayout(tm.createDataLayout());
  }
};

std::string object_of(llvm::orc::IRCompileLayer::IRCompiler& compile, llvm::Module& m) {
  auto object = compile(m);
  if (!object) {
    ADD_FAILURE() << llvm::toString(object.takeError());
    return {};
  }
  return (*object)->getBuffer().str();
}

TEST(ReusedPipeline, EachModuleGetsTheObjectAFreshPipelineMakes) {
  auto fresh_tm = host_machine();
  auto reused_tm = host_machine();
  ASSERT_TRUE(fresh_tm && reused_tm);
  llvm::orc::SimpleCompiler fresh(*fresh_tm);
  std::vector<std::string> expected;
  for (const char* text : kModules) {
    Parsed p(text, *fresh_tm);
    ASSERT_TRUE(p.module);
    expected.push_back(object_of(fresh, *p.module));
    ASSERT_FALSE(expected.back().empty());
  }
  ASSERT_NE(expected[0], expected[1]);
  ReusedPipelineCompiler reused(std::move(reused_tm), nullptr);
  // Every module after every other one, and each twice in a row.
  for (size_t i : {0, 1, 2, 0, 2, 1, 1, 0, 0}) {
    Parsed p(kModules[i], *fresh_tm);
    ASSERT_TRUE(p.module);
    EXPECT_EQ(object_of(reused, *p.module), expected[i]) << "module " << i;
  }
}

TEST(ReusedPipeline, VariantsInTurnEachKeepTheirOwn) {
  auto fresh_tm = host_machine();
  auto reused_tm = host_machine();
  ASSERT_TRUE(fresh_tm && reused_tm);
  llvm::orc::SimpleCompiler fresh(*fresh_tm);
  unsigned variant = 0;
  ReusedPipelineCompiler reused(std::move(reused_tm), [&] { return variant; });
  // Three pipelines, each taking up a module after the others ran theirs.
  for (unsigned round = 0; round < 9; ++round) {
    variant = round % 3;
    const size_t i = round % 2;
    Parsed a(kModules[i], *fresh_tm), b(kModules[i], *fresh_tm);
    ASSERT_TRUE(a.module && b.module);
    EXPECT_EQ(object_of(reused, *a.module), object_of(fresh, *b.module)) << "round " << round;
  }
}

} // namespace
