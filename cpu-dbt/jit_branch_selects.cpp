#include "cpu-dbt/jit_branch_selects.h"
#include <llvm/ADT/STLExtras.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

namespace vplat::cpu {
namespace {

// Which way of `br` (whose two ways are two blocks) every path into `at` took last: 1 the true way, 0 the
// false way, -1 unknown (a block with several predecessors on the way back). The walk is bounded: exits are
// a few blocks past their branch.
int way_to(const llvm::BasicBlock* at, const llvm::BranchInst* br) {
  const llvm::BasicBlock* from = br->getParent();
  for (unsigned steps = 0; at && steps < 64; ++steps) {
    const llvm::BasicBlock* pred = at->getSinglePredecessor();
    if (pred == from) return at == br->getSuccessor(0) ? 1 : 0;
    at = pred;
  }
  return -1;
}

} // namespace

llvm::PreservedAnalyses SelectsOnBranchConditions::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  bool changed = false;
  for (llvm::BasicBlock& bb : f) {
    auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) continue;
    for (llvm::Instruction& inst : llvm::make_early_inc_range(bb)) {
      auto* sel = llvm::dyn_cast<llvm::SelectInst>(&inst);
      if (!sel || sel->getCondition() != br->getCondition()) continue;
      for (llvm::Use& use : llvm::make_early_inc_range(sel->uses())) {
        auto* user = llvm::cast<llvm::Instruction>(use.getUser());
        int way = -1;
        if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) {
          const llvm::BasicBlock* from = phi->getIncomingBlock(use);
          // Along an edge out of the branch's block the edge says which way; further on, the walk back.
          way = from == &bb ? (phi->getParent() == br->getSuccessor(0) ? 1 : 0) : way_to(from, br);
        } else if (user->getParent() != &bb) {
          way = way_to(user->getParent(), br);
        }
        if (way < 0) continue;
        use.set(way ? sel->getTrueValue() : sel->getFalseValue());
        changed = true;
      }
      if (sel->use_empty()) sel->eraseFromParent();
    }
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
