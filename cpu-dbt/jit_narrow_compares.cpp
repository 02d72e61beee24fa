#include "cpu-dbt/jit_narrow_compares.h"
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Local.h>
#include <vector>

namespace vplat::cpu {

namespace {

using namespace llvm::PatternMatch;

bool masked(llvm::Value* v) {
  return match(v, m_And(m_Value(), m_SpecificInt(0xffffffffull)));
}

// `v` as the i32 whose zero extension it is, made before `at`; null if `v` may have high bits set.
llvm::Value* low_half(llvm::Value* v, llvm::Instruction* at) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(v->getContext());
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v))
    return k->getValue().isIntN(32) ? llvm::ConstantInt::get(i32, k->getZExtValue()) : nullptr;
  llvm::Value* x = nullptr;
  if (match(v, m_And(m_Value(x), m_SpecificInt(0xffffffffull)))) return new llvm::TruncInst(x, i32, "", at);
  if (match(v, m_ZExt(m_Value(x))) && x->getType()->getIntegerBitWidth() <= 32)
    return x->getType() == i32 ? x : new llvm::ZExtInst(x, i32, "", at);
  return nullptr;
}

// The narrow compare in place of `wide`, or null (and nothing made) where there is none.
llvm::ICmpInst* narrowed(llvm::ICmpInst* wide) {
  llvm::Value *a = wide->getOperand(0), *b = wide->getOperand(1), *x = nullptr, *y = nullptr;
  if (match(a, m_SExt(m_Value(x))) && match(b, m_SExt(m_Value(y))) && x->getType()->isIntegerTy(32) &&
      y->getType()->isIntegerTy(32))
    return new llvm::ICmpInst(wide, wide->getPredicate(), x, y);
  const bool both_zext = match(a, m_ZExt(m_Value())) && match(b, m_ZExt(m_Value()));
  if (!masked(a) && !masked(b) && !both_zext) return nullptr;
  llvm::Value* low_a = low_half(a, wide);
  llvm::Value* low_b = low_a ? low_half(b, wide) : nullptr;
  if (!low_b) {
    if (low_a) llvm::RecursivelyDeleteTriviallyDeadInstructions(low_a);
    return nullptr;
  }
  const llvm::CmpInst::Predicate p = wide->isSigned() ? wide->getUnsignedPredicate() : wide->getPredicate();
  return new llvm::ICmpInst(wide, p, low_a, low_b);
}

} // namespace

llvm::PreservedAnalyses NarrowCompares::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  std::vector<llvm::ICmpInst*> wide; // found first: the rewrite erases what they leave unused
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& inst : bb)
      if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst);
          cmp && cmp->getOperand(0)->getType()->isIntegerTy(64))
        wide.push_back(cmp);
  bool changed = false;
  for (llvm::ICmpInst* cmp : wide) {
    llvm::ICmpInst* narrow = narrowed(cmp);
    if (!narrow) continue;
    narrow->takeName(cmp);
    cmp->replaceAllUsesWith(narrow);
    llvm::RecursivelyDeleteTriviallyDeadInstructions(cmp);
    changed = true;
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace vplat::cpu
