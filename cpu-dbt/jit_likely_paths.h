// Which ways through a translated block are likely, and the second tier's instruction selection by them.
#pragma once

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/PassManager.h>

namespace llvm {
class BasicBlock;
class Instruction;
} // namespace llvm

namespace vplat::cpu {

// Both tiers mark the ways a block rarely takes with branch weights: the slow paths of inlined loads and
// stores, exceptions, exits on attention or at the budget's end. A successor is unlikely when the weights
// make it at least kUnlikely times less likely than the other way.
constexpr uint64_t kUnlikely = 16;
bool unlikely_successor(const llvm::Instruction& terminator, unsigned successor);

// The blocks of `f` reached from its entry along edges that are not unlikely.
llvm::SmallPtrSet<const llvm::BasicBlock*, 32> likely_blocks(const llvm::Function& f);

// Each branch on the logical AND or OR (an `and`/`or` of i1, or its `select` form) of two truth values that
// `which` accepts, computed in the branch's block for it alone, becomes two branches: on the first value,
// and then, in a block of its own, on the second. Both keep the branch's weights. True if any changed.
bool split_logical_branches(llvm::Function& f, llvm::function_ref<bool(const llvm::Instruction&)> which);

// Second tier, the last IR pass before code generation, which runs with fast instruction selection
// enabled. LLVM's fast selector takes a basic block's instructions from the last up, and leaves the block
// to the full selector (SelectionDAG) from the first instruction it cannot select: when that is the
// terminator, the whole block. This pass makes sure that happens in every block on a likely path and in
// no other, so that the code the block runs is selected in full (folded loads, fused compares and
// branches), and the rest, about two thirds of its IR (exits' write-backs and chaining, slow paths), fast:
// - a conditional branch on a likely path branches on `icmp ne i1 %c, false`, a compare of truth values,
//   which the fast selector does not make and the full one folds away;
// - an unconditional branch on a likely path, after other instructions, gets a single-thread fence
//   before it, which the fast selector does not make and which makes no code;
// - first, a branch on the logical AND or OR of two truth values becomes two branches (the full selector
//   does that itself for a condition it sees as such, which the compare in front would hide: a loop's
//   back edge on "next iteration covered, and the guest's branch not taken" had become two set-on-
//   condition instructions, an OR and a jump).
// On four kernels with every block at the second tier (bench/jit-code.sh), compile work -8 to -12%, and
// host instructions per guest instruction in their code the same or fewer (rc 8.461 -> 8.397, lz 9.051
// -> 8.859, gz 6.644 -> 6.637, calls 10.400 -> 10.442).
struct FullSelectionOnLikelyPaths : llvm::PassInfoMixin<FullSelectionOnLikelyPaths> {
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
};

} // namespace vplat::cpu
