#include "cpu-dbt/jit_state_stores.h"
#include "cpu-dbt/jit_state_alias.h"
#include <algorithm>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>
#include <optional>
#include <tuple>
#include <vector>

namespace vplat::cpu {

namespace {

// Bytes [begin, end) of the state that a later store (whose `!alias.scope` is `scope`) overwrites before
// anything reads them.
struct Span {
  uint64_t begin, end;
  llvm::MDNode* scope;
  bool operator<(const Span& o) const {
    return std::tie(begin, end, scope) < std::tie(o.begin, o.end, o.scope);
  }
  bool operator==(const Span& o) const { return begin == o.begin && end == o.end && scope == o.scope; }
};
using Spans = llvm::SmallVector<Span, 16>;

bool covered(const Spans& spans, uint64_t begin, uint64_t end) {
  return llvm::any_of(spans, [&](const Span& s) { return s.begin <= begin && end <= s.end; });
}

class Walk {
public:
  Walk(llvm::Function& f)
      : state_(f.arg_size() && f.getArg(0)->getType()->isPointerTy() ? f.getArg(0) : nullptr),
        dl_(f.getParent()->getDataLayout()) {}

  // The bytes of the state that `ptr` addresses with `type`: the state itself or a constant offset from it.
  std::optional<std::pair<uint64_t, uint64_t>> range(llvm::Value* ptr, llvm::Type* type) const {
    auto at = state_offset(ptr);
    if (!at || at->first != state_) return std::nullopt;
    return std::make_pair(at->second, at->second + dl_.getTypeStoreSize(type).getFixedValue());
  }

  // Walks `bb` backward from `spans` (what every way on from it overwrites first) to what it and every way
  // on overwrite before reading; with `erase`, removes the stores found overwritten.
  void block(llvm::BasicBlock& bb, Spans& spans, bool erase) {
    for (llvm::Instruction& inst : llvm::make_early_inc_range(llvm::reverse(bb))) {
      if (llvm::isa<llvm::ReturnInst>(inst) || llvm::isa<llvm::UnreachableInst>(inst)) {
        spans.clear(); // the run loop reads the state
        continue;
      }
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        if (!st->isSimple()) {
          spans.clear();
          continue;
        }
        auto r = range(st->getPointerOperand(), st->getValueOperand()->getType());
        if (!r) continue; // stores elsewhere read nothing
        if (covered(spans, r->first, r->second)) {
          if (erase) {
            for (llvm::Value* operand : {st->getValueOperand(), st->getPointerOperand()})
              if (auto* v = llvm::dyn_cast<llvm::Instruction>(operand)) dead.push_back(v);
            st->eraseFromParent();
            ++erased;
          }
          continue;
        }
        spans.push_back({r->first, r->second, st->getMetadata(llvm::LLVMContext::MD_alias_scope)});
        continue;
      }
      if (!inst.mayReadOrWriteMemory()) continue;
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&inst); ld && ld->isUnordered()) {
        if (auto r = range(ld->getPointerOperand(), ld->getType())) {
          llvm::erase_if(spans, [&](const Span& s) { return s.begin < r->second && r->first < s.end; });
          continue;
        }
      }
      if (inst.mayWriteToMemory() && !llvm::isa<llvm::CallBase>(inst)) {
        spans.clear(); // atomic or volatile accesses, fences
        continue;
      }
      if (!inst.mayReadFromMemory()) continue;
      llvm::MDNode* not_in = inst.getMetadata(llvm::LLVMContext::MD_noalias);
      if (!not_in) {
        spans.clear();
        continue;
      }
      llvm::erase_if(spans, [&](const Span& s) { return s.scope != not_in; });
    }
  }

  std::vector<llvm::WeakTrackingVH> dead; // stored values and addresses whose store went
  unsigned erased = 0;

private:
  llvm::Argument* state_;
  const llvm::DataLayout& dl_;
};

} // namespace

llvm::PreservedAnalyses OverwrittenStateStores::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  if (f.isDeclaration()) return llvm::PreservedAnalyses::all();
  Walk walk(f);
  // What each basic block overwrites before reading, from its start on every way on, to a fixed point. A way
  // back to a block not walked yet counts as overwriting everything (so that a store before a loop that
  // every way out of the loop overwrites goes); any fixed point holds for every way that ends, and a way that
  // never ends reads nothing. Without one in kMaxRounds, nothing goes.
  llvm::DenseMap<llvm::BasicBlock*, Spans> at_start;
  auto at_end = [&](llvm::BasicBlock& bb) {
    Spans out;
    bool first = true;
    for (llvm::BasicBlock* next : llvm::successors(&bb)) {
      auto it = at_start.find(next);
      if (it == at_start.end()) continue;
      if (first) {
        out = it->second;
        first = false;
      } else {
        llvm::erase_if(out, [&](const Span& s) { return !covered(it->second, s.begin, s.end); });
      }
    }
    return out;
  };
  const std::vector<llvm::BasicBlock*> order(llvm::po_begin(&f), llvm::po_end(&f)); // successors first
  constexpr unsigned kMaxRounds = 8;
  bool fixed = false;
  for (unsigned round = 0; round < kMaxRounds && !fixed; ++round) {
    fixed = true;
    for (llvm::BasicBlock* bb : order) {
      Spans spans = at_end(*bb);
      walk.block(*bb, spans, false);
      std::sort(spans.begin(), spans.end());
      auto [it, added] = at_start.try_emplace(bb);
      if (added || spans != it->second) {
        it->second = std::move(spans);
        fixed = false;
      }
    }
  }
  if (!fixed) return llvm::PreservedAnalyses::all();
  for (llvm::BasicBlock* bb : order) {
    Spans spans = at_end(*bb);
    walk.block(*bb, spans, true);
  }
  for (llvm::WeakTrackingVH& v : walk.dead)
    if (v) llvm::RecursivelyDeleteTriviallyDeadInstructions(v);
  return walk.erased ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace vplat::cpu
