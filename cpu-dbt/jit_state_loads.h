// Second-tier IR pass: loads of the state moved from the block's start to where their values are used.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// The second tier's state cache (adljit::Ctx::enable_state_cache) loads every guest register and flag a
// block uses once, at the block's start, whichever path then uses it: a block whose hot path leaves by an
// early side exit loads (and, as the values live across the whole function, often spills to the stack and
// reloads) registers that only its later instructions read. This pass moves each load of the state at a
// constant offset to the nearest block that dominates all its uses, when
// - the load's block is on no cycle (a loop's header keeps what its phis read from the entry) and that block
//   is not either (a load is never moved into a loop: where all uses are in one, it goes to the nearest
//   block ahead of the loop that dominates them), and
// - nothing on any path between the two may write the bytes it reads (stores of the state at overlapping
//   offsets; calls and other writes unless alias analysis says they leave it alone, as it does for the
//   guest memory accesses and memory helpers, whose `!noalias` scope is the registers').
struct StateLoadsWhereUsed : llvm::PassInfoMixin<StateLoadsWhereUsed> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
