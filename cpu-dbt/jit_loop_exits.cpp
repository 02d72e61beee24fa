#include "cpu-dbt/jit_loop_exits.h"
#include <cstdlib>
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
    bool changed = find_loop() && rewrite_exit_only_phis();
    changed |= sink_to_rarer_uses();
    return changed;
  }

private:
  static constexpr int kMaxDepth = 6, kMaxNodes = 24;

  llvm::Function& f_;
  llvm::DominatorTree dt_;
  llvm::BasicBlock *header_ = nullptr, *entry_ = nullptr;
  std::vector<llvm::BasicBlock*> latches_; // the back edges' blocks
  llvm::SmallPtrSet<llvm::BasicBlock*, 32> loop_;
  // Per latch: its value of a header phi -> that phi.
  std::vector<llvm::DenseMap<llvm::Value*, llvm::PHINode*>> carried_;
  // Which way the header was entered: with one latch, true from the entry ("first iteration"); with more,
  // 0 from the entry and k + 1 from latches_[k].
  llvm::PHINode* from_ = nullptr;

  bool in_loop(const llvm::Value* v) const {
    auto* i = llvm::dyn_cast<llvm::Instruction>(v);
    return i && loop_.count(i->getParent());
  }

  // Back edges to one header, which has one other predecessor; the loop is what reaches the latches from
  // there. (A block jumps back to its start from each branch that goes there: a loop that tests several
  // things in turn has a back edge per test.)
  bool find_loop() {
    for (llvm::BasicBlock& bb : f_)
      for (llvm::BasicBlock* p : llvm::predecessors(&bb))
        if (dt_.isReachableFromEntry(p) && dt_.dominates(&bb, p)) {
          if (header_ && header_ != &bb) return false;
          header_ = &bb;
          if (!llvm::is_contained(latches_, p)) latches_.push_back(p);
        }
    if (!header_) return false;
    for (llvm::BasicBlock* p : llvm::predecessors(header_)) {
      if (llvm::is_contained(latches_, p)) continue;
      if (entry_ && entry_ != p) return false;
      entry_ = p;
    }
    if (!entry_ || llvm::pred_size(header_) != latches_.size() + 1) return false;
    loop_.insert(header_);
    std::vector<llvm::BasicBlock*> work(latches_.begin(), latches_.end());
    while (!work.empty()) {
      llvm::BasicBlock* bb = work.back();
      work.pop_back();
      if (!loop_.insert(bb).second) continue;
      for (llvm::BasicBlock* p : llvm::predecessors(bb)) work.push_back(p);
    }
    return true;
  }

  // Whether `v`, as latch k computes it, can be computed again at the top of the next iteration.
  bool rebuildable(llvm::Value* v, const llvm::PHINode* self, size_t k, int depth, int& nodes) const {
    if (llvm::isa<llvm::Constant>(v) || !in_loop(v)) return true; // the same value in every iteration
    if (auto it = carried_[k].find(v); it != carried_[k].end() && it->second != self) return true;
    auto* i = llvm::cast<llvm::Instruction>(v);
    if (!movable(*i) || depth == 0 || ++nodes > kMaxNodes) return false;
    for (llvm::Value* op : i->operands())
      if (!rebuildable(op, self, k, depth - 1, nodes)) return false;
    return true;
  }

  llvm::Value* rebuild(llvm::Value* v, const llvm::PHINode* self, size_t k, llvm::Instruction* before,
                       llvm::DenseMap<llvm::Value*, llvm::Value*>& done) {
    if (llvm::isa<llvm::Constant>(v) || !in_loop(v)) return v;
    if (auto it = carried_[k].find(v); it != carried_[k].end() && it->second != self) return it->second;
    if (auto it = done.find(v); it != done.end()) return it->second;
    auto* copy = llvm::cast<llvm::Instruction>(v)->clone();
    for (unsigned j = 0; j < copy->getNumOperands(); ++j)
      copy->setOperand(j, rebuild(copy->getOperand(j), self, k, before, done));
    copy->insertBefore(before);
    done[v] = copy;
    return copy;
  }

  void make_from() {
    auto& ctx = f_.getContext();
    const bool one = latches_.size() == 1;
    from_ = llvm::PHINode::Create(one ? llvm::Type::getInt1Ty(ctx) : llvm::Type::getInt32Ty(ctx),
                                  llvm::pred_size(header_), one ? "first_iteration" : "entered_from",
                                  &header_->front());
    for (llvm::BasicBlock* p : llvm::predecessors(header_)) {
      const auto k = static_cast<uint64_t>(llvm::find(latches_, p) - latches_.begin());
      from_->addIncoming(one ? llvm::ConstantInt::getBool(ctx, p == entry_)
                             : llvm::ConstantInt::get(from_->getType(), p == entry_ ? 0 : k + 1),
                         p);
    }
  }

  bool rewrite_exit_only_phis() {
    carried_.resize(latches_.size());
    for (size_t k = 0; k < latches_.size(); ++k)
      for (llvm::PHINode& q : header_->phis())
        carried_[k].try_emplace(q.getIncomingValueForBlock(latches_[k]), &q);
    std::vector<llvm::PHINode*> phis;
    for (llvm::PHINode& p : header_->phis()) phis.push_back(&p);
    bool changed = false;
    for (llvm::PHINode* p : phis) {
      if (p->use_empty() || llvm::any_of(p->users(), [&](llvm::User* u) { return in_loop(u); })) continue;
      bool ok = true;
      for (size_t k = 0; k < latches_.size() && ok; ++k) {
        llvm::Value* next = p->getIncomingValueForBlock(latches_[k]);
        int nodes = 0;
        ok = next != p && rebuildable(next, p, k, kMaxDepth, nodes);
      }
      if (!ok) continue;
      if (!from_) make_from();
      llvm::Instruction* at = &*header_->getFirstInsertionPt();
      llvm::Value* value = p->getIncomingValueForBlock(entry_);
      for (size_t k = 0; k < latches_.size(); ++k) {
        llvm::DenseMap<llvm::Value*, llvm::Value*> done;
        llvm::Value* again = rebuild(p->getIncomingValueForBlock(latches_[k]), p, k, at, done);
        if (latches_.size() == 1) {
          value = llvm::SelectInst::Create(from_, value, again, p->getName(), at);
          break;
        }
        llvm::Value* taken = new llvm::ICmpInst(at, llvm::ICmpInst::ICMP_EQ, from_,
                                                llvm::ConstantInt::get(from_->getType(), k + 1));
        value = llvm::SelectInst::Create(taken, again, value, p->getName(), at);
      }
      for (auto& carried : carried_)
        for (auto it = carried.begin(); it != carried.end(); ++it)
          if (it->second == p) carried.erase(it);
      p->replaceAllUsesWith(value);
      p->eraseFromParent();
      changed = true;
    }
    return changed;
  }

  // Where a use of an instruction needs its value: a phi's at the end of the block the value comes from.
  static llvm::BasicBlock* use_block(const llvm::Use& use) {
    auto* user = llvm::cast<llvm::Instruction>(use.getUser());
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) return phi->getIncomingBlock(use);
    return user->getParent();
  }

  // Whether a path from one of `targets` reaches one of them again (itself included) without passing
  // through `def`: then copies of an instruction of `def` placed in them could run more often than it did.
  bool copies_may_repeat(llvm::BasicBlock* def, const llvm::SmallPtrSetImpl<llvm::BasicBlock*>& targets) {
    for (llvm::BasicBlock* t : targets) {
      llvm::SmallPtrSet<llvm::BasicBlock*, 32> seen;
      std::vector<llvm::BasicBlock*> work(llvm::succ_begin(t), llvm::succ_end(t));
      while (!work.empty()) {
        llvm::BasicBlock* bb = work.back();
        work.pop_back();
        if (bb == def || !seen.insert(bb).second) continue;
        if (targets.count(bb)) return true;
        work.insert(work.end(), llvm::succ_begin(bb), llvm::succ_end(bb));
      }
    }
    return false;
  }

  // A cheap pure instruction whose uses are all in other blocks is computed again in each of them (at the
  // end of a block a phi's value comes from), when no path runs two of the copies without running the
  // instruction's own block in between: every path then computes it at most as often as before, and those
  // that use it nowhere (a loop's fast path, when only exits and back edges read a flag) not at all.
  // Repeated until none is left, so the instructions that only those copies use follow them.
  bool sink_to_rarer_uses() {
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      for (llvm::BasicBlock& bb : f_)
        for (llvm::Instruction& i : llvm::make_early_inc_range(llvm::reverse(bb))) {
          if (!movable(i) || i.use_empty()) continue;
          llvm::SmallPtrSet<llvm::BasicBlock*, 8> targets;
          bool local = false;
          for (const llvm::Use& use : i.uses()) {
            llvm::BasicBlock* where = use_block(use);
            local |= where == &bb;
            targets.insert(where);
          }
          if (local) continue;
          // A copy serves the blocks its block dominates too.
          llvm::DenseMap<llvm::BasicBlock*, llvm::BasicBlock*> served_by;
          llvm::SmallPtrSet<llvm::BasicBlock*, 8> tops;
          for (llvm::BasicBlock* t : targets) {
            llvm::BasicBlock* top = t;
            for (llvm::BasicBlock* u : targets)
              if (u != top && dt_.dominates(u, top)) top = u;
            served_by[t] = top;
            tops.insert(top);
          }
          if (copies_may_repeat(&bb, tops)) continue;
          llvm::DenseMap<llvm::BasicBlock*, llvm::Instruction*> copies;
          for (llvm::BasicBlock* where : tops) {
            // Ahead of the first instruction there that reads it, or the end (for a phi's value).
            llvm::Instruction* at = where->getTerminator();
            for (llvm::Instruction& user : *where)
              if (!llvm::isa<llvm::PHINode>(user) && llvm::is_contained(user.operands(), &i)) {
                at = &user;
                break;
              }
            llvm::Instruction* copy = i.clone();
            copy->setName(i.getName());
            copy->insertBefore(at);
            copies[where] = copy;
          }
          for (llvm::Use& use : llvm::make_early_inc_range(i.uses()))
            use.set(copies[served_by[use_block(use)]]);
          i.eraseFromParent();
          changed = again = true;
        }
    }
    return changed;
  }
};

// `v` is `add phi, c` for an integer constant c (which it returns), else null.
const llvm::ConstantInt* step_of(llvm::Value* v, const llvm::PHINode* phi) {
  auto* add = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (!add || add->getOpcode() != llvm::Instruction::Add || add->getOperand(0) != phi) return nullptr;
  return llvm::dyn_cast<llvm::ConstantInt>(add->getOperand(1));
}

// A block's two counters, the instructions retired and the budget left, step by the same count in opposite
// directions on every back edge, so their sum stays what it was on entry: the retired count is that sum
// minus the budget left, which only the exits need. Pairs of header phis `p`, `q` whose incoming values are
// `p + c` and `q - c` on every edge but one, where the loop compares q (or its steps) and not p, become
// one: p's uses read (p0 + q0) - q, summed where the loop is entered, and each use subtracts where it is
// (the uses of p's steps subtract q's), so no instruction of the loop computes p any more.
bool merge_opposite_counters(llvm::Function& f) {
  bool changed = false;
  llvm::DominatorTree dt(f); // (the pass adds instructions, never blocks)
  for (llvm::BasicBlock& header : f) {
    std::vector<llvm::PHINode*> phis;
    for (llvm::PHINode& phi : header.phis())
      if (phi.getType()->isIntegerTy()) phis.push_back(&phi);
    for (size_t a = 0; a < phis.size(); ++a)
      for (size_t b = 0; b < phis.size(); ++b) {
        llvm::PHINode *p = phis[a], *q = phis[b];
        if (!p || !q || p == q || p->getType() != q->getType()) continue;
        int entry = -1;
        bool ok = true;
        for (unsigned k = 0; ok && k < p->getNumIncomingValues(); ++k) {
          llvm::BasicBlock* from = p->getIncomingBlock(k);
          const llvm::ConstantInt* cp = step_of(p->getIncomingValue(k), p);
          const llvm::ConstantInt* cq = step_of(q->getIncomingValueForBlock(from), q);
          if (cp && cq && (cp->getValue() + cq->getValue()).isZero()) continue;
          ok = entry < 0 && llvm::count(llvm::predecessors(&header), from) == 1;
          entry = static_cast<int>(k);
        }
        if (!ok || entry < 0) continue;
        llvm::BasicBlock* from = p->getIncomingBlock(static_cast<unsigned>(entry));
        // The one the loop tests (the budget) stays; the other (the retired count) goes.
        auto tested = [&](llvm::PHINode* phi) {
          auto compared = [](llvm::Value* v) {
            return llvm::any_of(v->users(), [](llvm::User* u) { return llvm::isa<llvm::ICmpInst>(u); });
          };
          if (compared(phi)) return true;
          for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
            if (phi->getIncomingBlock(k) != from && compared(phi->getIncomingValue(k))) return true;
          return false;
        };
        if (tested(p) || !tested(q)) continue;
        // Each use of p's step on an edge is rebuilt from q's step on that edge, so q's step must come
        // first. The block's own counters step together; a guest register counted up beside another
        // counted down (a pointer and a length) may step after some uses of the other's step.
        bool steps_in_order = true;
        for (unsigned k = 0; steps_in_order && k < p->getNumIncomingValues(); ++k) {
          if (k == static_cast<unsigned>(entry)) continue;
          auto* q_step = llvm::cast<llvm::Instruction>(q->getIncomingValueForBlock(p->getIncomingBlock(k)));
          for (const llvm::Use& use : p->getIncomingValue(k)->uses())
            if (use.getUser() != p && !dt.dominates(q_step, use)) {
              steps_in_order = false;
              break;
            }
        }
        if (!steps_in_order) continue;
        llvm::IRBuilder<> at_entry(from->getTerminator());
        llvm::Value* sum = at_entry.CreateAdd(p->getIncomingValue(static_cast<unsigned>(entry)),
                                              q->getIncomingValueForBlock(from), "counters");
        // Each use computes it where it is (a phi's at the end of the block its value comes from): most are
        // exits, and a copy in the header would run in every iteration. A step's uses subtract q's step,
        // so that q's value from before the step is not live after it (both would need a register).
        auto rebuild_uses = [&](llvm::Value* of, llvm::Value* counterpart) {
          for (llvm::Use& use : llvm::make_early_inc_range(of->uses())) {
            auto* user = llvm::cast<llvm::Instruction>(use.getUser());
            if (user == p) continue;
            llvm::Instruction* before = user;
            if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user))
              before = phi->getIncomingBlock(use)->getTerminator();
            use.set(llvm::IRBuilder<>(before).CreateSub(sum, counterpart, of->getName()));
          }
        };
        for (unsigned k = 0; k < p->getNumIncomingValues(); ++k)
          if (k != static_cast<unsigned>(entry))
            rebuild_uses(p->getIncomingValue(k), q->getIncomingValueForBlock(p->getIncomingBlock(k)));
        rebuild_uses(p, q);
        llvm::SmallPtrSet<llvm::Instruction*, 4> steps; // (back edges may share one)
        for (unsigned k = 0; k < p->getNumIncomingValues(); ++k)
          if (k != static_cast<unsigned>(entry))
            steps.insert(llvm::cast<llvm::Instruction>(p->getIncomingValue(k)));
        p->eraseFromParent();
        for (llvm::Instruction* step : steps)
          if (step->use_empty()) step->eraseFromParent();
        phis[a] = nullptr;
        changed = true;
      }
  }
  return changed;
}

} // namespace

llvm::PreservedAnalyses LoopExitValues::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  // VPLAT_JIT_ONE_COUNTER=0: both counters stay, for comparisons.
  static const bool one_counter = [] {
    const char* v = std::getenv("VPLAT_JIT_ONE_COUNTER");
    return !v || *v != '0';
  }();
  const bool merged = one_counter && merge_opposite_counters(f);
  if (!Rewriter(f).run() && !merged) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
