#include "cpu-dbt/jit_codegen.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/MCContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <map>
#include <mutex>

namespace vplat::cpu {

namespace {

struct Pipeline {
  llvm::SmallVector<char, 0> bytes; // the object being written; emptied before each module
  llvm::raw_svector_ostream out{bytes};
  llvm::legacy::PassManager passes;
};

} // namespace

struct ReusedPipelineCompiler::Pipelines {
  std::mutex lock;
  std::map<unsigned, std::unique_ptr<Pipeline>> by_variant;
};

ReusedPipelineCompiler::ReusedPipelineCompiler(std::unique_ptr<llvm::TargetMachine> tm,
                                               std::function<unsigned()> variant)
    : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(tm->Options)), tm_(std::move(tm)),
      variant_(std::move(variant)), pipelines_(std::make_unique<Pipelines>()) {}

ReusedPipelineCompiler::~ReusedPipelineCompiler() = default;

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> ReusedPipelineCompiler::operator()(llvm::Module& m) {
  std::lock_guard<std::mutex> guard(pipelines_->lock);
  std::unique_ptr<Pipeline>& p = pipelines_->by_variant[variant_ ? variant_() : 0];
  if (!p) {
    auto made = std::make_unique<Pipeline>();
    llvm::MCContext* mc = nullptr;
    if (tm_->addPassesToEmitMC(made->passes, mc, made->out))
      return llvm::make_error<llvm::StringError>("the host target cannot emit machine code",
                                                 llvm::inconvertibleErrorCode());
    p = std::move(made);
  }
  p->bytes.clear();
  p->passes.run(m);
  auto object = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(p->bytes.data(), p->bytes.size()),
                                                     m.getModuleIdentifier() + "-jitted-objectbuffer");
  // As SimpleCompiler does: a malformed object is an error here rather than in the linker.
  if (auto parsed = llvm::object::ObjectFile::createObjectFile(object->getMemBufferRef()); !parsed)
    return parsed.takeError();
  return object;
}

} // namespace vplat::cpu
