#include "cpu-dbt/jit_state_loads.h"
#include "cpu-dbt/jit_state_alias.h"
#include <llvm/ADT/SCCIterator.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/MemoryLocation.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <vector>

namespace vplat::cpu {
namespace {

class Mover {
public:
  Mover(llvm::Function& f, llvm::FunctionAnalysisManager& am)
      : f_(f), dl_(f.getParent()->getDataLayout()), dt_(am.getResult<llvm::DominatorTreeAnalysis>(f)),
        aa_(am.getResult<llvm::AAManager>(f)) {
    for (auto scc = llvm::scc_begin(&f); !scc.isAtEnd(); ++scc)
      if (scc.hasCycle())
        for (llvm::BasicBlock* bb : *scc) cyclic_.insert(bb);
  }

  bool run() {
    std::vector<llvm::LoadInst*> loads;
    for (llvm::BasicBlock& bb : f_) {
      if (cyclic_.count(&bb) || !dt_.isReachableFromEntry(&bb)) continue;
      for (llvm::Instruction& i : bb)
        if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && ld->isSimple() && state_range(ld))
          loads.push_back(ld);
    }
    bool changed = false;
    for (llvm::LoadInst* ld : loads) changed |= move(ld);
    return changed;
  }

private:
  llvm::Function& f_;
  const llvm::DataLayout& dl_;
  llvm::DominatorTree& dt_;
  llvm::AAResults& aa_;
  llvm::SmallPtrSet<llvm::BasicBlock*, 16> cyclic_;

  // The state bytes [begin, end) an access of `type` at `ptr` touches, if at a constant offset.
  std::optional<std::pair<uint64_t, uint64_t>> range(const llvm::Value* ptr, llvm::Type* type) const {
    auto at = state_offset(ptr);
    if (!at || at->first != f_.getArg(0)) return std::nullopt;
    return std::make_pair(at->second, at->second + dl_.getTypeStoreSize(type).getFixedValue());
  }
  std::optional<std::pair<uint64_t, uint64_t>> state_range(const llvm::LoadInst* ld) const {
    if (f_.arg_size() == 0) return std::nullopt;
    return range(ld->getPointerOperand(), ld->getType());
  }

  // Whether `i` may write any of the bytes `ld` reads.
  bool clobbers(llvm::Instruction& i, llvm::LoadInst* ld, std::pair<uint64_t, uint64_t> bytes) {
    // A load writes nothing; an atomic one (the attention flags, which other threads set) orders nothing this
    // load must stay ahead of.
    if (!i.mayWriteToMemory() || llvm::isa<llvm::LoadInst>(i)) return false;
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i))
      if (auto r = range(st->getPointerOperand(), st->getValueOperand()->getType()))
        return r->first < bytes.second && bytes.first < r->second;
    return llvm::isModSet(aa_.getModRefInfo(&i, llvm::MemoryLocation::get(ld)));
  }

  // The block a value used at `u` must be available in (a phi's: the end of the block it comes from).
  static llvm::BasicBlock* use_block(const llvm::Use& u) {
    auto* user = llvm::cast<llvm::Instruction>(u.getUser());
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(user)) return phi->getIncomingBlock(u);
    return user->getParent();
  }

  // `to`, or where it is in a loop, the nearest block that dominates it ahead of the loop (never past
  // `from`).
  llvm::BasicBlock* outside_loops(llvm::BasicBlock* to, llvm::BasicBlock* from) const {
    while (to != from && cyclic_.count(to)) to = dt_.getNode(to)->getIDom()->getBlock();
    return to;
  }

  // Whether the bytes `ld` reads stay as they are from the load to the start of `to`, which its block
  // dominates: past the load in its own block, and in every block on a path from there to `to` (all such
  // paths run through the load's block, which is on no cycle, so none returns to it).
  bool unchanged_until(llvm::LoadInst* ld, llvm::BasicBlock* to) {
    const auto bytes = *state_range(ld);
    for (llvm::Instruction* i = ld->getNextNode(); i; i = i->getNextNode())
      if (clobbers(*i, ld, bytes)) return false;
    llvm::SmallPtrSet<llvm::BasicBlock*, 32> seen{ld->getParent(), to};
    llvm::SmallVector<llvm::BasicBlock*, 32> work(llvm::pred_begin(to), llvm::pred_end(to));
    while (!work.empty()) {
      llvm::BasicBlock* bb = work.pop_back_val();
      if (!seen.insert(bb).second || !dt_.isReachableFromEntry(bb)) continue;
      for (llvm::Instruction& i : *bb)
        if (clobbers(i, ld, bytes)) return false;
      work.append(llvm::pred_begin(bb), llvm::pred_end(bb));
    }
    return true;
  }

  bool move(llvm::LoadInst* ld) {
    llvm::BasicBlock* from = ld->getParent();
    llvm::BasicBlock* to = nullptr;
    for (llvm::Use& u : ld->uses()) to = to ? dt_.findNearestCommonDominator(to, use_block(u)) : use_block(u);
    if (!to) return false;
    to = outside_loops(to, from);
    if (to == from || !unchanged_until(ld, to)) return false;
    ld->moveBefore(&*to->getFirstInsertionPt());
    return true;
  }
};

} // namespace

llvm::PreservedAnalyses StateLoadsWhereUsed::run(llvm::Function& f, llvm::FunctionAnalysisManager& am) {
  if (!Mover(f, am).run()) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
