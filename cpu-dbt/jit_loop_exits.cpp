#include "cpu-dbt/jit_loop_exits.h"
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <vector>

namespace vplat::cpu {
namespace {

// Integer instructions without side effects that cost a host instruction or two wherever they are placed.
bool movable(const llvm::Instruction& i) {
  if (!i.getType()->isIntegerTy()) return false;
  if (llvm::isa<llvm::BinaryOperator>(i)) return !i.isIntDivRem();
  return llvm::isa<llvm::ICmpInst>(i) || llvm::isa<llvm::ZExtInst>(i) || llvm::isa<llvm::SExtInst>(i) ||
         llvm::isa<llvm::TruncInst>(i) || llvm::isa<llvm::SelectInst>(i);
}

class Rewriter {
public:
  explicit Rewriter(llvm::Function& f) : f_(f), dt_(f) {}

  bool run() {
    if (!find_loop()) return false;
    bool changed = rewrite_exit_only_phis();
    changed |= sink_exit_only_values();
    return changed;
  }

private:
  static constexpr int kMaxDepth = 6, kMaxNodes = 24;

  llvm::Function& f_;
  llvm::DominatorTree dt_;
  llvm::BasicBlock *header_ = nullptr, *latch_ = nullptr, *entry_ = nullptr;
  llvm::SmallPtrSet<llvm::BasicBlock*, 32> loop_;
  llvm::DenseMap<llvm::Value*, llvm::PHINode*> carried_; // the latch's value of a header phi -> that phi
  llvm::PHINode* first_ = nullptr;                       // true in the first iteration

  bool in_loop(const llvm::Value* v) const {
    auto* i = llvm::dyn_cast<llvm::Instruction>(v);
    return i && loop_.count(i->getParent());
  }

  // One back edge, to a header with one other predecessor; the loop is what reaches the latch from there.
  bool find_loop() {
    for (llvm::BasicBlock& bb : f_)
      for (llvm::BasicBlock* p : llvm::predecessors(&bb))
        if (dt_.isReachableFromEntry(p) && dt_.dominates(&bb, p)) {
          if (header_) return false;
          header_ = &bb;
          latch_ = p;
        }
    if (!header_) return false;
    for (llvm::BasicBlock* p : llvm::predecessors(header_)) {
      if (p == latch_) continue;
      if (entry_) return false;
      entry_ = p;
    }
    if (!entry_ || llvm::pred_size(header_) != 2) return false;
    loop_.insert(header_);
    std::vector<llvm::BasicBlock*> work{latch_};
    while (!work.empty()) {
      llvm::BasicBlock* bb = work.back();
      work.pop_back();
      if (!loop_.insert(bb).second) continue;
      for (llvm::BasicBlock* p : llvm::predecessors(bb)) work.push_back(p);
    }
    return true;
  }

  // Whether `v`, as the latch computes it, can be computed again at the top of the next iteration.
  bool rebuildable(llvm::Value* v, const llvm::PHINode* self, int depth, int& nodes) const {
    if (llvm::isa<llvm::Constant>(v) || !in_loop(v)) return true; // the same value in every iteration
    if (auto it = carried_.find(v); it != carried_.end() && it->second != self) return true;
    auto* i = llvm::cast<llvm::Instruction>(v);
    if (!movable(*i) || depth == 0 || ++nodes > kMaxNodes) return false;
    for (llvm::Value* op : i->operands())
      if (!rebuildable(op, self, depth - 1, nodes)) return false;
    return true;
  }

  llvm::Value* rebuild(llvm::Value* v, const llvm::PHINode* self, llvm::Instruction* before,
                       llvm::DenseMap<llvm::Value*, llvm::Value*>& done) {
    if (llvm::isa<llvm::Constant>(v) || !in_loop(v)) return v;
    if (auto it = carried_.find(v); it != carried_.end() && it->second != self) return it->second;
    if (auto it = done.find(v); it != done.end()) return it->second;
    auto* copy = llvm::cast<llvm::Instruction>(v)->clone();
    for (unsigned k = 0; k < copy->getNumOperands(); ++k)
      copy->setOperand(k, rebuild(copy->getOperand(k), self, before, done));
    copy->insertBefore(before);
    done[v] = copy;
    return copy;
  }

  bool rewrite_exit_only_phis() {
    for (llvm::PHINode& q : header_->phis()) carried_.try_emplace(q.getIncomingValueForBlock(latch_), &q);
    std::vector<llvm::PHINode*> phis;
    for (llvm::PHINode& p : header_->phis()) phis.push_back(&p);
    bool changed = false;
    for (llvm::PHINode* p : phis) {
      if (p->use_empty() || llvm::any_of(p->users(), [&](llvm::User* u) { return in_loop(u); })) continue;
      llvm::Value* next = p->getIncomingValueForBlock(latch_);
      int nodes = 0;
      if (next == p || !rebuildable(next, p, kMaxDepth, nodes)) continue;
      if (!first_) {
        first_ = llvm::PHINode::Create(llvm::Type::getInt1Ty(f_.getContext()), 2, "first_iteration",
                                       &header_->front());
        first_->addIncoming(llvm::ConstantInt::getTrue(f_.getContext()), entry_);
        first_->addIncoming(llvm::ConstantInt::getFalse(f_.getContext()), latch_);
      }
      llvm::Instruction* at = &*header_->getFirstInsertionPt();
      llvm::DenseMap<llvm::Value*, llvm::Value*> done;
      llvm::Value* again = rebuild(next, p, at, done);
      llvm::Value* value =
          llvm::SelectInst::Create(first_, p->getIncomingValueForBlock(entry_), again, p->getName(), at);
      if (auto it = carried_.find(next); it != carried_.end() && it->second == p) carried_.erase(it);
      p->replaceAllUsesWith(value);
      p->eraseFromParent();
      changed = true;
    }
    return changed;
  }

  // Each instruction of the loop that only blocks outside it use is computed again in each of those blocks
  // (ahead of its first use there), until none is left.
  bool sink_exit_only_values() {
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      for (llvm::BasicBlock* bb : loop_)
        for (llvm::Instruction& i : llvm::make_early_inc_range(llvm::reverse(*bb))) {
          if (!movable(i) || i.use_empty()) continue;
          if (llvm::any_of(i.users(),
                           [&](llvm::User* u) { return in_loop(u) || llvm::isa<llvm::PHINode>(u); }))
            continue;
          llvm::DenseMap<llvm::BasicBlock*, llvm::Instruction*> copies;
          for (llvm::Use& use : llvm::make_early_inc_range(i.uses())) {
            llvm::BasicBlock* where = llvm::cast<llvm::Instruction>(use.getUser())->getParent();
            llvm::Instruction*& copy = copies[where];
            if (!copy) {
              copy = i.clone();
              copy->setName(i.getName());
              for (llvm::Instruction& first : *where)
                if (llvm::is_contained(first.operands(), &i)) {
                  copy->insertBefore(&first);
                  break;
                }
            }
            use.set(copy);
          }
          i.eraseFromParent();
          changed = again = true;
        }
    }
    return changed;
  }
};

} // namespace

llvm::PreservedAnalyses LoopExitValues::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  if (!Rewriter(f).run()) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
