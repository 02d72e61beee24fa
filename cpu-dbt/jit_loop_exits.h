// Second-tier IR pass: values only exits and back edges read leave the paths that do not.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// In a block that loops, the state cache carries every guest register and flag from one iteration to the
// next, and so each iteration computes all four flags of its last flag-setting instruction (and the next PC
// of its branch), although only the block's exits read them: the branch that loops tests its own
// comparison. This pass moves such values out of the way:
// - a loop-header phi that only the exits read, whose value from each back edge is a small pure expression
//   of values that are loop-invariant or carried by other header phis, becomes those expressions rebuilt
//   from those phis, selected by which way the header was entered (a "first iteration" phi with one back
//   edge; with several, as when a loop tests several things and jumps back from each, a phi numbering
//   them);
// - in any block, looping or not, a pure cheap instruction whose uses are all in other blocks is computed
//   again in each of them (a phi's use at the end of the block its value comes from) when no path runs two
//   of those copies without running the instruction's own block in between, so no path computes it more
//   often than before and the paths that do not use it (a loop's fast path, when only exits and back edges
//   read a flag; a block's way through, when only side exits do) not at all.
// The first applies to functions with one natural loop entered from one block.
struct LoopExitValues : llvm::PassInfoMixin<LoopExitValues> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
