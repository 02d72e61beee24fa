// Alias analysis for translated blocks: accesses at constant offsets from the state.
#pragma once

#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/IR/Argument.h>
#include <llvm/IR/PassManager.h>

#include <cstdint>
#include <optional>
#include <utility>

namespace vplat::cpu {

// The argument and offset of an address of the state: a block function's first argument itself, or a
// `getelementptr i8` of it by a constant that is not negative. Nothing for any other address.
std::optional<std::pair<const llvm::Argument*, uint64_t>> state_offset(const llvm::Value* ptr);

// Every block function takes the state as its first argument, and nearly all its loads and stores of the
// state are at a constant offset from it (`getelementptr inbounds i8, ptr %state, i64 C`). Two such accesses
// whose bytes do not overlap do not alias, and two of the same bytes must alias. LLVM's BasicAA finds the
// same by decomposing both addresses at every query, which MemorySSA's clobber walks (EarlyCSE, DSE) and
// GVN ask for by the thousand per block; answered here first, they cost a compare.
class StateAliasResult : public llvm::AAResultBase {
public:
  llvm::AliasResult alias(const llvm::MemoryLocation& a, const llvm::MemoryLocation& b,
                          llvm::AAQueryInfo& info, const llvm::Instruction* at);
  bool invalidate(llvm::Function&, const llvm::PreservedAnalyses&,
                  llvm::FunctionAnalysisManager::Invalidator&) {
    return false; // holds no state
  }
};

class StateAlias : public llvm::AnalysisInfoMixin<StateAlias> {
  friend llvm::AnalysisInfoMixin<StateAlias>;
  static llvm::AnalysisKey Key;

public:
  using Result = StateAliasResult;
  Result run(llvm::Function&, llvm::FunctionAnalysisManager&) { return Result(); }
};

} // namespace vplat::cpu
