#include "cpu-dbt/jit_vector_lanes.h"
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>
#include <vector>

namespace vplat::cpu {
namespace {

// InstCombine folds element 0 of a register seen as a vector into a truncation of the register, so that
// element 0 of an operation no longer looks like elements 1 to N-1 and SLP builds the operand element by
// element. Where the register is also seen as a vector of that element type, the truncation becomes that
// vector's element 0 again.
bool restore_element_zero(llvm::Function& f) {
  std::vector<llvm::TruncInst*> truncs;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb)
      if (auto* t = llvm::dyn_cast<llvm::TruncInst>(&i); t && t->getSrcTy()->isIntegerTy(128))
        truncs.push_back(t);
  bool changed = false;
  for (llvm::TruncInst* t : truncs) {
    llvm::Value* reg = t->getOperand(0);
    llvm::FixedVectorType* vt = nullptr;
    for (llvm::User* u : reg->users())
      if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(u))
        if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(cast->getDestTy());
            v && v->getElementType() == t->getDestTy())
          vt = v;
    if (!vt) continue;
    // One view of the register as that vector, where the register is defined, for every element read of it:
    // SLP recognises elements of one value as a vector it already has.
    llvm::BasicBlock::iterator at;
    if (auto* def = llvm::dyn_cast<llvm::Instruction>(reg))
      at = llvm::isa<llvm::PHINode>(def) ? def->getParent()->getFirstInsertionPt()
                                         : std::next(def->getIterator());
    else
      at = f.getEntryBlock().getFirstInsertionPt();
    llvm::IRBuilder<> b(at->getParent(), at);
    auto* view = llvm::cast<llvm::Instruction>(b.CreateBitCast(reg, vt));
    std::vector<llvm::BitCastInst*> others;
    for (llvm::User* u : reg->users())
      if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(u); cast && cast != view && cast->getDestTy() == vt)
        others.push_back(cast);
    for (llvm::BitCastInst* cast : others) {
      cast->replaceAllUsesWith(view);
      cast->eraseFromParent();
    }
    b.SetInsertPoint(t);
    t->replaceAllUsesWith(b.CreateExtractElement(view, b.getInt64(0)));
    t->eraseFromParent();
    changed = true;
  }
  return changed;
}

} // namespace

llvm::PreservedAnalyses VectorLanes::run(llvm::Function& f, llvm::FunctionAnalysisManager& am) {
  bool lanes = false;
  for (llvm::BasicBlock& bb : f) {
    for (llvm::Instruction& i : bb)
      if (llvm::isa<llvm::InsertElementInst>(i) || llvm::isa<llvm::ExtractElementInst>(i)) {
        lanes = true;
        break;
      }
    if (lanes) break;
  }
  if (!lanes) return llvm::PreservedAnalyses::all();
  if (restore_element_zero(f)) {
    llvm::PreservedAnalyses kept;
    kept.preserveSet<llvm::CFGAnalyses>();
    am.invalidate(f, kept);
  }
  llvm::SLPVectorizerPass().run(f, am);
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

} // namespace vplat::cpu
