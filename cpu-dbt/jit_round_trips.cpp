#include "cpu-dbt/jit_round_trips.h"
#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>
#include <vector>

namespace vplat::cpu {

namespace {

// The i1 that `v` holds zero-extended or truncated (to at least one bit), or null.
llvm::Value* bit_source(llvm::Value* v) {
  while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) {
    if (!llvm::isa<llvm::ZExtInst>(cast) && !llvm::isa<llvm::TruncInst>(cast)) return nullptr;
    v = cast->getOperand(0);
    if (v->getType()->isIntegerTy(1)) return v;
  }
  return nullptr;
}
llvm::Value* negated(llvm::Value* x, llvm::Instruction* before) {
  if (auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(x); bin && bin->getOpcode() == llvm::Instruction::Xor)
    if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(bin->getOperand(1)); k && k->isOne())
      return bin->getOperand(0);
  return llvm::BinaryOperator::CreateNot(x, "", before);
}

} // namespace

llvm::PreservedAnalyses BooleanRoundTrips::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  bool changed = false;
  std::vector<llvm::WeakTrackingVH> dead;
  for (llvm::BasicBlock& bb : f) {
    llvm::StoreInst* last_store = nullptr; // the last instruction that touched memory, if a plain store
    // The last store to each address that nothing has read since.
    llvm::SmallDenseMap<llvm::Value*, llvm::StoreInst*, 16> unread;
    for (llvm::Instruction& inst : bb) {
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&inst); st && st->isSimple()) {
        // A store that the next one to the same address overwrites before anything reads memory.
        llvm::StoreInst*& earlier = unread[st->getPointerOperand()];
        if (earlier && earlier->getValueOperand()->getType() == st->getValueOperand()->getType()) {
          llvm::Value* stored = earlier->getValueOperand();
          earlier->eraseFromParent();
          if (llvm::isa<llvm::Instruction>(stored)) dead.push_back(stored);
          changed = true;
        }
        earlier = st;
      } else if (inst.mayReadOrWriteMemory()) {
        unread.clear();
      }
      if (auto* tr = llvm::dyn_cast<llvm::TruncInst>(&inst)) {
        // trunc (zext i1 x): zext i1 x to the narrower type.
        if (auto* ext = llvm::dyn_cast<llvm::ZExtInst>(tr->getOperand(0));
            ext && ext->getOperand(0)->getType()->isIntegerTy(1)) {
          tr->replaceAllUsesWith(new llvm::ZExtInst(ext->getOperand(0), tr->getType(), "", tr));
          dead.push_back(tr);
          changed = true;
        }
        continue;
      }
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
        if (last_store && ld->isSimple() && last_store->isSimple() &&
            ld->getPointerOperand() == last_store->getPointerOperand() &&
            ld->getType() == last_store->getValueOperand()->getType()) {
          ld->replaceAllUsesWith(last_store->getValueOperand());
          dead.push_back(ld);
          changed = true;
        }
        continue; // a load changes no memory
      }
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
        last_store = st;
        continue;
      }
      if (inst.mayWriteToMemory()) last_store = nullptr;
      auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst);
      if (!cmp || !cmp->isEquality()) continue;
      auto* k = llvm::dyn_cast<llvm::ConstantInt>(cmp->getOperand(1));
      if (!k) continue;
      const bool eq = cmp->getPredicate() == llvm::CmpInst::ICMP_EQ;
      llvm::Value* to = nullptr;
      if (llvm::Value* bit = bit_source(cmp->getOperand(0)); bit && (k->isZero() || k->isOne())) {
        // (x == 1) and (x != 0) are x; (x == 0) and (x != 1) its negation.
        to = eq == k->isOne() ? bit : negated(bit, cmp);
      } else if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(cmp->getOperand(0))) {
        auto* a = llvm::dyn_cast<llvm::ConstantInt>(sel->getTrueValue());
        auto* b = llvm::dyn_cast<llvm::ConstantInt>(sel->getFalseValue());
        if (a && b && a != b && (k == a || k == b))
          to = eq == (k == a) ? sel->getCondition() : negated(sel->getCondition(), cmp);
      }
      if (!to) continue;
      cmp->replaceAllUsesWith(to);
      dead.push_back(cmp);
      changed = true;
    }
  }
  for (llvm::WeakTrackingVH& v : dead)
    if (v) llvm::RecursivelyDeleteTriviallyDeadInstructions(v);
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace vplat::cpu
