// A function being built with the IR emitters' runtime (adljit::Ctx), for tests of what it emits:
// `void f(ptr state, i64 a0, i64 a1, ...)` with the context at its entry block.
#pragma once
#include "generator/runtime/adl_jit.h"
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <memory>
#include <vector>

struct EmittingFunction {
  llvm::LLVMContext ctx;
  llvm::Module mod{"m", ctx};
  llvm::IRBuilder<> b{ctx};
  llvm::Function* fn;
  std::unique_ptr<vplat::adljit::Ctx> c;
  // `runtime_args` i64 arguments after the state pointer: values known only at run time.
  explicit EmittingFunction(unsigned runtime_args) {
    std::vector<llvm::Type*> params{b.getPtrTy()};
    params.insert(params.end(), runtime_args, b.getInt64Ty());
    auto* ft = llvm::FunctionType::get(b.getVoidTy(), params, false);
    fn = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "f", &mod);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    c = std::make_unique<vplat::adljit::Ctx>(b, fn->getArg(0));
  }
  llvm::Value* runtime_arg(unsigned i) { return fn->getArg(i + 1); }
};

// `void f(ptr state, i64 x, i64 y)`: two values known only at run time.
struct EmittingXY : EmittingFunction {
  EmittingXY() : EmittingFunction(2) {}
  llvm::Value* x() { return runtime_arg(0); }
  llvm::Value* y() { return runtime_arg(1); }
};
