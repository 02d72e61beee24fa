#include "cpu-dbt/jit_state_alias.h"
#include <llvm/IR/Argument.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

namespace vplat::cpu {

llvm::AnalysisKey StateAlias::Key;

std::optional<std::pair<const llvm::Argument*, uint64_t>> state_offset(const llvm::Value* ptr) {
  uint64_t offset = 0;
  if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(ptr)) {
    auto* k = gep->getNumIndices() == 1 ? llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1)) : nullptr;
    if (!k || k->isNegative() || !gep->getSourceElementType()->isIntegerTy(8)) return std::nullopt;
    offset = k->getZExtValue();
    ptr = gep->getPointerOperand();
  }
  auto* arg = llvm::dyn_cast<llvm::Argument>(ptr);
  if (!arg || arg->getArgNo() != 0) return std::nullopt;
  return std::make_pair(arg, offset);
}

llvm::AliasResult StateAliasResult::alias(const llvm::MemoryLocation& a, const llvm::MemoryLocation& b,
                                          llvm::AAQueryInfo&, const llvm::Instruction*) {
  if (!a.Size.hasValue() || !b.Size.hasValue()) return llvm::AliasResult::MayAlias;
  auto x = state_offset(a.Ptr), y = state_offset(b.Ptr);
  if (!x || !y || x->first != y->first) return llvm::AliasResult::MayAlias;
  const uint64_t xe = x->second + a.Size.getValue(), ye = y->second + b.Size.getValue();
  if (xe <= y->second || ye <= x->second) return llvm::AliasResult::NoAlias;
  if (x->second == y->second && a.Size == b.Size && a.Size.isPrecise()) return llvm::AliasResult::MustAlias;
  return llvm::AliasResult::MayAlias;
}

} // namespace vplat::cpu
