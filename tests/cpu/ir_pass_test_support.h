// What the tests of the JIT tier's IR passes share: IR from text, and a function compiled for the host both
// as written and after a pass, so that a test can call both and compare.
#pragma once

#include <functional>
#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <memory>
#include <string>

namespace vplat::test {

inline std::unique_ptr<llvm::Module> parse_ir(llvm::LLVMContext& ctx, const std::string& text) {
  llvm::SMDiagnostic err;
  auto m = llvm::parseAssemblyString(text, err, ctx);
  EXPECT_TRUE(m) << err.getMessage().str();
  return m;
}

// Runs function pass `Pass` on `f` as the JIT tier's pipeline would: with every analysis manager, since
// some of LLVM's passes (the SLP vectorizer's alias queries) reach module analyses through the proxies.
template <typename Pass> void run_function_pass(llvm::Function& f) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  Pass().run(f, fam);
}

// `make(name)` is the IR of a function called `name`; "as_written" is compiled as it is, "after_pass" after
// `pass`. Null addresses (and a test failure) if either does not compile.
template <typename Fn> struct BeforeAndAfter {
  std::unique_ptr<llvm::orc::LLJIT> jit; // owns the code
  Fn as_written = nullptr, after_pass = nullptr;
};
template <typename Fn>
BeforeAndAfter<Fn> compile_before_and_after(const std::function<std::string(const std::string&)>& make,
                                            const std::function<void(llvm::Function&)>& pass) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  BeforeAndAfter<Fn> r;
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) {
    ADD_FAILURE() << llvm::toString(jit.takeError());
    return r;
  }
  r.jit = std::move(*jit);
  for (const char* name : {"as_written", "after_pass"}) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto m = parse_ir(*ctx, make(name));
    if (!m) return r;
    if (std::string(name) == "after_pass") pass(*m->getFunction(name));
    if (llvm::verifyModule(*m, &llvm::errs())) {
      ADD_FAILURE() << name << " does not verify";
      return r;
    }
    if (auto err = r.jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
      ADD_FAILURE() << llvm::toString(std::move(err));
      return r;
    }
  }
  auto address = [&](const char* name) -> Fn {
    auto sym = r.jit->lookup(name);
    if (!sym) {
      ADD_FAILURE() << llvm::toString(sym.takeError());
      return nullptr;
    }
    return sym->template toPtr<Fn>();
  };
  r.as_written = address("as_written");
  r.after_pass = address("after_pass");
  return r;
}

} // namespace vplat::test
