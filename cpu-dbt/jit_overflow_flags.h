// IR pass of both JIT tiers: the N and V flags of a subtraction from the overflow intrinsic.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// The ADL states a subtraction's flags as comparisons of its operands (archdesc/aarch64/base.adl,
// `sub_with_flags`): N is the sign bit of the difference, V is N xor (x < y signed). Where they are
// materialised (stored at a block's exits, or by every flag-setting instruction in the first tier), x86 code
// made N with a shift and V with a second compare, a set-on-less and an xor, after the subtraction; the
// subtraction's own sign and overflow bits are both. This pass finds `N xor zext(x <s y)` where N is bit W-1
// of a value whose low W bits are x - y (W = 32 or 64; x and y as the IR has them: iW values, their sign
// extensions, `shl v, 32` for a 32-bit sign comparison, constants) and makes both from
// `llvm.ssub.with.overflow.iW(x, y)`: V its overflow bit, N its result's sign.
struct OverflowFlags : llvm::PassInfoMixin<OverflowFlags> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
