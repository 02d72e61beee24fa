// First-tier IR pass: truth values that went through the state and back.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// Flags are bytes in the state, and a conditional branch tests the bytes an earlier instruction stored.
// Without InstCombine (the first tier runs none: its compile time), each test went from the compare's i1
// through zero extensions and truncations to another compare, and the branch's next PC through a select, a
// store of NPC and a load of it (the last SimplifyCFG makes the select and the store). Within each basic
// block this pass folds
// - a compare for equality of a value that can only be 0 or 1 (an i1 zero-extended, or truncated back to no
//   fewer than one bit) with 0 or 1, and of a select of two different constants with one of them, to the i1
//   or its negation;
// - a truncation of a zero-extended i1 to a zero extension to the narrower type;
// - a load right after a store to the same address (only loads between them) to the stored value;
// - a store that a store of the same type to the same address follows before anything reads memory.
struct BooleanRoundTrips : llvm::PassInfoMixin<BooleanRoundTrips> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
