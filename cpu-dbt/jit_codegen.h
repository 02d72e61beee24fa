// The JIT's code generator: LLVM IR module -> relocatable object, for ORC's IRCompileLayer.
#pragma once

#include <functional>
#include <llvm/ExecutionEngine/Orc/IRCompileLayer.h>
#include <llvm/Target/TargetMachine.h>
#include <memory>

namespace vplat::cpu {

// Like ORC's SimpleCompiler, except that the code generator's pass pipeline is built once and run on every
// module, instead of being built and torn down for each. Building it (TargetPassConfig adding and
// scheduling ~100 passes) and destroying it cost ~2 M host instructions a module: on small first-tier
// modules, about a fifth of their code generation. LLVM's AsmPrinter, MachineModuleInfo and MCContext
// reset themselves at the end of each module (llc -run-twice relies on it), and the objects are the same
// bytes as a fresh pipeline's (jit_codegen_test.cpp).
//
// Some of LLVM's options decide which passes a pipeline gets (the register allocator, passes the first
// tier leaves out); `variant` names the set of those in effect when a module is compiled, and each
// variant gets a pipeline of its own. Modules are compiled one at a time (a lock), in any thread.
class ReusedPipelineCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  ReusedPipelineCompiler(std::unique_ptr<llvm::TargetMachine> tm, std::function<unsigned()> variant);
  ~ReusedPipelineCompiler() override;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override;

private:
  struct Pipelines;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::function<unsigned()> variant_;
  std::unique_ptr<Pipelines> pipelines_;
};

} // namespace vplat::cpu
