// IR pass of the first tier: guest registers loaded where paths join, from what each path stored.
#pragma once

#include <llvm/IR/PassManager.h>

namespace vplat::cpu {

// The first tier keeps guest registers in the state (the function's first argument) and relies on EarlyCSE
// to forward a store to a later load, which it does only along one path. Jump threading copies the code
// after an inlined load or store (where its fast and slow paths join) into both paths, so the register the
// load wrote is stored on each path and loaded again, through a phi of the two addresses, where they join;
// a conditional compare (CCMP) stores the flags on two paths the same way. This pass replaces such a load
// by a phi of the values the paths stored: for a load at the top of a block with several predecessors
// (before anything in the block that may write memory), of an integer at a constant offset into the state
// (through a phi of such addresses too), each predecessor must have stored at least that many bytes at that
// offset last, in itself or in the blocks it alone is reached from, with nothing after the store that may
// write those bytes: another call, or a store not known to be elsewhere (at another constant offset, or a
// guest memory access whose `!noalias` names the load's `!alias.scope`, the registers' scope). The stores
// stay; a narrower load takes the stored value's low bytes (the host is little-endian).
struct ForwardStoresToJoins : llvm::PassInfoMixin<ForwardStoresToJoins> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
