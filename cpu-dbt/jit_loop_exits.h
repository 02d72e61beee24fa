// Second-tier IR pass for translated blocks that loop to their own start.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// In a block that loops, the state cache carries every guest register and flag from one iteration to the
// next, and so each iteration computes all four flags of its last flag-setting instruction (and the next PC
// of its branch), although only the block's exits read them: the branch that loops tests its own
// comparison. This pass moves such values out of the loop:
// - a loop-header phi that only the exits read, whose value from the latch is a small pure expression of
//   values that are loop-invariant or carried by other header phis, becomes that expression rebuilt from
//   those phis (selected against the phi's value on entry by a "first iteration" phi);
// - pure cheap instructions of the loop whose users are all outside it (the exits' write-backs) are
//   recomputed in the blocks that use them.
// Functions without exactly one natural loop, entered from one block, are left as they are.
struct LoopExitValues : llvm::PassInfoMixin<LoopExitValues> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
