// First-tier IR pass: stores to the state that later stores overwrite on every path before anything reads
// them.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// The emitters store each instruction's results (registers, flag bytes, the next PC) to the state, and a
// later instruction of the block often stores the same place again, in the same basic block or in each of the
// ways a branch goes on (NZCV written by a compare and again by the next one after a conditional branch).
// LLVM's DSE removes such stores with MemorySSA and post-dominators, which cost the first tier ~5-15% of its
// compile time. This pass knows the one thing that matters here: the function's first argument is the state,
// and an access at a constant offset from it touches only those bytes. A backward walk over each basic block,
// from what its successors all overwrite before reading (to a fixed point over the CFG), removes a store to a
// constant offset of the state when a later store covers its bytes on every path before
// - a load of the state that overlaps them,
// - any other instruction that may read memory, unless its `!noalias` scope is the store's `!alias.scope`
//   (guest memory accesses and the memory helpers touch no guest register),
// - a return (the run loop reads the state) or an atomic or volatile store.
struct OverwrittenStateStores : llvm::PassInfoMixin<OverwrittenStateStores> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
