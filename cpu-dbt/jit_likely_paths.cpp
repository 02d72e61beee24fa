#include "cpu-dbt/jit_likely_paths.h"
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/IR/ProfDataUtils.h>
#include <vector>

namespace vplat::cpu {

bool unlikely_successor(const llvm::Instruction& terminator, unsigned successor) {
  uint64_t weight_true = 0, weight_false = 0;
  if (terminator.getNumSuccessors() != 2 ||
      !llvm::extractBranchWeights(terminator, weight_true, weight_false))
    return false;
  const uint64_t mine = successor == 0 ? weight_true : weight_false,
                 other = successor == 0 ? weight_false : weight_true;
  return mine * kUnlikely < other;
}

llvm::SmallPtrSet<const llvm::BasicBlock*, 32> likely_blocks(const llvm::Function& f) {
  llvm::SmallPtrSet<const llvm::BasicBlock*, 32> seen;
  if (f.empty()) return seen;
  llvm::SmallVector<const llvm::BasicBlock*, 32> work{&f.getEntryBlock()};
  while (!work.empty()) {
    const llvm::BasicBlock* bb = work.pop_back_val();
    if (!seen.insert(bb).second) continue;
    const llvm::Instruction* term = bb->getTerminator();
    for (unsigned i = 0, n = term->getNumSuccessors(); i < n; ++i)
      if (!unlikely_successor(*term, i)) work.push_back(term->getSuccessor(i));
  }
  return seen;
}

bool split_logical_branches(llvm::Function& f, llvm::function_ref<bool(const llvm::Instruction&)> which) {
  using namespace llvm::PatternMatch;
  std::vector<llvm::BranchInst*> todo;
  for (llvm::BasicBlock& bb : f) {
    auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    if (!br || !br->isConditional() || br->getSuccessor(0) == br->getSuccessor(1)) continue;
    auto* both = llvm::dyn_cast<llvm::Instruction>(br->getCondition());
    if (both && both->hasOneUse() && both->getParent() == &bb &&
        (match(both, m_LogicalAnd(m_Value(), m_Value())) || match(both, m_LogicalOr(m_Value(), m_Value()))) &&
        which(*both))
      todo.push_back(br);
  }
  for (llvm::BranchInst* br : todo) {
    llvm::BasicBlock* bb = br->getParent();
    llvm::BasicBlock *yes = br->getSuccessor(0), *no = br->getSuccessor(1);
    auto* both = llvm::cast<llvm::Instruction>(br->getCondition());
    llvm::Value *first = nullptr, *second = nullptr;
    const bool is_and = match(both, m_LogicalAnd(m_Value(first), m_Value(second)));
    if (!is_and) match(both, m_LogicalOr(m_Value(first), m_Value(second)));
    llvm::BasicBlock* then = llvm::BasicBlock::Create(f.getContext(), "", &f, bb->getNextNode());
    llvm::BranchInst* inner = llvm::BranchInst::Create(yes, no, second, then);
    inner->copyMetadata(*br, {llvm::LLVMContext::MD_prof});
    br->setCondition(first);
    br->setSuccessor(is_and ? 0 : 1, then);
    both->eraseFromParent();
    if (auto* i = llvm::dyn_cast<llvm::Instruction>(second);
        i && i != first && !llvm::isa<llvm::PHINode>(i) && i->hasOneUse() && i->getParent() == bb)
      i->moveBefore(inner);
    // `then` reaches the successor the first value does not decide, with the values `bb` gave it.
    llvm::BasicBlock* shared = is_and ? no : yes;
    for (llvm::PHINode& phi : shared->phis()) phi.addIncoming(phi.getIncomingValueForBlock(bb), then);
    (is_and ? yes : no)->replacePhiUsesWith(bb, then);
  }
  return !todo.empty();
}

llvm::PreservedAnalyses FullSelectionOnLikelyPaths::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  // The full selector splits such a branch itself when it sees the AND or OR as the condition, which the
  // compare put in front of it below would hide.
  const bool split = split_logical_branches(f, [](const llvm::Instruction&) { return true; });
  bool changed = split;
  for (const llvm::BasicBlock* likely : likely_blocks(f)) {
    auto* br = llvm::dyn_cast<llvm::BranchInst>(const_cast<llvm::BasicBlock*>(likely)->getTerminator());
    if (!br) continue; // returns and tail calls: the fast selector leaves them to the full one anyway
    if (br->isConditional()) {
      llvm::Value* c = br->getCondition();
      br->setCondition(new llvm::ICmpInst(br, llvm::ICmpInst::ICMP_NE, c,
                                          llvm::ConstantInt::getFalse(c->getContext()), "likely"));
      changed = true;
    } else if (br != &*br->getParent()->getFirstNonPHIOrDbg()) {
      new llvm::FenceInst(f.getContext(), llvm::AtomicOrdering::SequentiallyConsistent,
                          llvm::SyncScope::SingleThread, br);
      changed = true;
    }
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  if (split) return llvm::PreservedAnalyses::none();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
