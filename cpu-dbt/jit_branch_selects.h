// First-tier IR pass: a select on a conditional branch's own condition, where the branch decides it.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// A conditional branch's next PC ends up as a select on the branch's condition (the last SimplifyCFG merges
// the two ways' stores of NPC), and only the block's exits read it; the first tier runs no GVN, which would
// see that past the branch the condition is known. So every conditional branch on a first-tier fast path
// kept the compare's truth value in a register, two constants and a conditional move. This pass gives each
// use of such a select that is reached only through one way of the branch (the use's block, or for a phi
// the block its value comes from, is that way's first block or joined to it by blocks of one predecessor
// each) the select's value for that way, and removes the select once nothing else uses it. Uses in the
// branch's own block and past joins keep the select.
struct SelectsOnBranchConditions : llvm::PassInfoMixin<SelectsOnBranchConditions> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
