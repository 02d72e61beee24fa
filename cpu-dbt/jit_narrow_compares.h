// IR pass of both JIT tiers: 64-bit compares of values that fit in 32 bits, as 32-bit compares.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// A compare of 32-bit registers (CMP Wn, Wm; CBZ Wn; the flags of a 32-bit SUBS) reaches the IR as a compare
// of 64-bit values: the registers' low halves masked (`and x, 0xffffffff`, what the second tier's InstCombine
// leaves), zero-extended, or sign-extended (the first tier, which runs no InstCombine). x86 code generation
// makes a 32-bit copy of each masked or extended side before a 64-bit compare; an i32 compare of the low
// halves is one instruction. This pass rewrites
// - a compare of two values below 2^32 (masked, zero-extended from at most 32 bits, or constants), at least
//   one side masked or both zero-extended, as the i32 compare of their low halves, a signed predicate as the
//   unsigned one (both sides are non-negative as i64);
// - a compare of two i32 values sign-extended, as the compare of the i32 values (sign extension keeps their
//   order, signed and unsigned).
struct NarrowCompares : llvm::PassInfoMixin<NarrowCompares> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
