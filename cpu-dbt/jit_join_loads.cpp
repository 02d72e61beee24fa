#include "cpu-dbt/jit_join_loads.h"
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <vector>

namespace vplat::cpu {
namespace {

// How far up a chain of single predecessors a path's last store is looked for.
constexpr unsigned kMaxBlocksUp = 4;

struct Finder {
  const llvm::DataLayout& dl;
  llvm::Value* state;

  // The constant byte offset of `p` into the state, if it is one.
  bool offset_of(llvm::Value* p, int64_t& offset) const {
    llvm::APInt off(dl.getIndexTypeSizeInBits(p->getType()), 0);
    if (p->stripAndAccumulateConstantOffsets(dl, off, /*AllowNonInbounds=*/true) != state) return false;
    offset = off.getSExtValue();
    return true;
  }

  // The value `bytes` bytes wide at `offset` of the state as the end of `pred` leaves it, if a store there
  // says so; null if unknown. `scope`: the load's alias scope (guest memory stores are outside it).
  llvm::Value* stored_at_end(llvm::BasicBlock* pred, llvm::BasicBlock* join, int64_t offset, uint64_t bytes,
                             llvm::MDNode* scope) const {
    llvm::BasicBlock* bb = pred;
    for (unsigned up = 0; up < kMaxBlocksUp; ++up) {
      for (auto it = bb->rbegin(); it != bb->rend(); ++it) {
        llvm::Instruction& i = *it;
        if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i)) {
          if (!st->isSimple()) return nullptr;
          const uint64_t size = dl.getTypeStoreSize(st->getValueOperand()->getType());
          int64_t at = 0;
          if (offset_of(st->getPointerOperand(), at)) {
            if (at == offset && size >= bytes && st->getValueOperand()->getType()->isIntegerTy())
              return st->getValueOperand();
            if (at < offset + static_cast<int64_t>(bytes) && offset < at + static_cast<int64_t>(size))
              return nullptr; // overlaps, not the same value
            continue;
          }
          if (scope && st->getMetadata(llvm::LLVMContext::MD_noalias) == scope) continue; // guest memory
          return nullptr;
        }
        if (i.mayWriteToMemory()) return nullptr;
      }
      llvm::BasicBlock* up_bb = bb->getSinglePredecessor();
      if (!up_bb || up_bb == join || up_bb == pred) return nullptr;
      bb = up_bb;
    }
    return nullptr;
  }
};

} // namespace

llvm::PreservedAnalyses ForwardStoresToJoins::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  if (f.arg_empty() || !f.getArg(0)->getType()->isPointerTy()) return llvm::PreservedAnalyses::all();
  Finder find{f.getParent()->getDataLayout(), f.getArg(0)};
  bool changed = false;
  for (llvm::BasicBlock& bb : f) {
    llvm::SmallVector<llvm::BasicBlock*, 4> preds(llvm::predecessors(&bb));
    if (preds.size() < 2) continue;
    // The loads before anything in the block that may write memory other than stores at constant offsets
    // (which a load must not overlap: `written` before it) and guest memory stores.
    struct Candidate {
      llvm::LoadInst* load;
      size_t written; // how many of `ranges` precede it
    };
    std::vector<Candidate> loads;
    struct Written {
      int64_t from = 0, to = 0;        // bytes [from, to) of the state, or
      llvm::MDNode* noalias = nullptr; // a guest memory store's `!noalias`
    };
    std::vector<Written> ranges; // what the block stored so far
    for (llvm::Instruction& i : bb) {
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&i); st && st->isSimple()) {
        int64_t at = 0;
        if (find.offset_of(st->getPointerOperand(), at)) {
          const auto size = static_cast<int64_t>(find.dl.getTypeStoreSize(st->getValueOperand()->getType()));
          ranges.push_back({at, at + size, nullptr});
          continue;
        }
        if (llvm::MDNode* noalias = st->getMetadata(llvm::LLVMContext::MD_noalias)) {
          ranges.push_back({0, 0, noalias}); // a guest memory store: the loads after it must be in its scope
          continue;
        }
        break;
      }
      if (i.mayWriteToMemory()) break;
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && ld->isSimple() && ld->getType()->isIntegerTy())
        loads.push_back({ld, ranges.size()});
    }
    for (const Candidate& cand : loads) {
      llvm::LoadInst* ld = cand.load;
      const uint64_t bytes = find.dl.getTypeStoreSize(ld->getType());
      llvm::MDNode* scope = ld->getMetadata(llvm::LLVMContext::MD_alias_scope);
      auto* ptr_phi = llvm::dyn_cast<llvm::PHINode>(ld->getPointerOperand());
      if (ptr_phi && ptr_phi->getParent() != &bb) ptr_phi = nullptr;
      llvm::DenseMap<llvm::BasicBlock*, llvm::Value*> value; // per predecessor
      bool all = true;
      for (llvm::BasicBlock* p : preds) {
        if (value.count(p)) continue;
        llvm::Value* ptr = ptr_phi ? ptr_phi->getIncomingValueForBlock(p) : ld->getPointerOperand();
        int64_t offset = 0;
        bool clear = find.offset_of(ptr, offset);
        for (size_t r = 0; clear && r < cand.written; ++r) {
          const Written& w = ranges[r];
          clear = w.noalias ? scope && w.noalias == scope
                            : w.to <= offset || offset + static_cast<int64_t>(bytes) <= w.from;
        }
        llvm::Value* v = clear ? find.stored_at_end(p, &bb, offset, bytes, scope) : nullptr;
        if (!v) {
          all = false;
          break;
        }
        value[p] = v;
      }
      if (!all) continue; // nothing made yet: instructions are added only once every way gave a value
      for (auto& [p, v] : value) {
        if (v->getType() == ld->getType()) continue;
        // The low bytes: a value stored extended is its operand (a W register's result, stored as 64 bits).
        auto* ext = llvm::dyn_cast<llvm::CastInst>(v);
        if (ext &&
            (ext->getOpcode() == llvm::Instruction::ZExt || ext->getOpcode() == llvm::Instruction::SExt) &&
            ext->getOperand(0)->getType() == ld->getType())
          v = ext->getOperand(0);
        else
          v = llvm::IRBuilder<>(p->getTerminator()).CreateTrunc(v, ld->getType());
      }
      auto* phi = llvm::PHINode::Create(ld->getType(), static_cast<unsigned>(preds.size()), "",
                                        &*bb.getFirstInsertionPt());
      for (llvm::BasicBlock* p : preds) phi->addIncoming(value[p], p);
      phi->takeName(ld);
      ld->replaceAllUsesWith(phi);
      ld->eraseFromParent();
      changed = true;
    }
  }
  if (!changed) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
