#include "cpu-dbt/jit_overflow_flags.h"
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Local.h>
#include <map>
#include <vector>

namespace vplat::cpu {

namespace {

using namespace llvm::PatternMatch;

unsigned width(const llvm::Value* v) {
  return v->getType()->getIntegerBitWidth();
}

// `v` without the extensions and truncations that keep its low `w` bits.
llvm::Value* strip(llvm::Value* v, unsigned w) {
  for (;;) {
    auto* cast = llvm::dyn_cast<llvm::CastInst>(v);
    if (!cast || !cast->getType()->isIntegerTy() || !cast->getSrcTy()->isIntegerTy()) return v;
    const bool keeps = llvm::isa<llvm::ZExtInst>(cast) || llvm::isa<llvm::SExtInst>(cast) ||
                       llvm::isa<llvm::TruncInst>(cast);
    if (!keeps || width(cast) < w || width(cast->getOperand(0)) < w) return v;
    v = cast->getOperand(0);
  }
}

// Whether the low `w` bits of `a` and `b` are the same value.
bool same_low(llvm::Value* a, llvm::Value* b, unsigned w) {
  a = strip(a, w);
  b = strip(b, w);
  if (a == b) return true;
  auto* ka = llvm::dyn_cast<llvm::ConstantInt>(a);
  auto* kb = llvm::dyn_cast<llvm::ConstantInt>(b);
  return ka && kb && ka->getValue().trunc(w) == kb->getValue().trunc(w);
}

// The operands of a signed less-than `x < y` at width 32 or 64, as values whose low `w` bits they are.
struct SignedLess {
  llvm::Value* x = nullptr;
  llvm::Value* y = nullptr;
  unsigned w = 0;
};

// Operand `v` of a 64-bit signed compare that compares the low halves: `shl v, 32`, or a constant with a
// clear low half (its high half the operand).
llvm::Value* high_half_of(llvm::Value* v) {
  llvm::Value* x = nullptr;
  if (match(v, m_Shl(m_Value(x), m_SpecificInt(32)))) return x;
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v); k && k->getValue().countTrailingZeros() >= 32)
    return llvm::ConstantInt::get(v->getType(), k->getValue().ashr(32));
  return nullptr;
}

// Operand `v` of a 64-bit signed compare that compares sign-extended i32 values: the i32, or a constant
// that one sign-extends to.
llvm::Value* sign_extended_from(llvm::Value* v) {
  llvm::Value* x = nullptr;
  if (match(v, m_SExt(m_Value(x))) && width(x) == 32) return x;
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v); k && k->getValue().isSignedIntN(32)) return v;
  return nullptr;
}

// Where `v` is a signed less-than as 0 or 1 (zero-extended, never sign-extended: that is 0 or -1).
bool signed_less(llvm::Value* v, SignedLess& out) {
  while (auto* z = llvm::dyn_cast<llvm::ZExtInst>(v)) v = z->getOperand(0);
  auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(v);
  if (!cmp) return false;
  llvm::Value *a = cmp->getOperand(0), *b = cmp->getOperand(1);
  if (!a->getType()->isIntegerTy()) return false; // pointers
  if (cmp->getPredicate() == llvm::CmpInst::ICMP_SGT)
    std::swap(a, b);
  else if (cmp->getPredicate() != llvm::CmpInst::ICMP_SLT)
    return false;
  if (width(a) == 32) {
    out = {a, b, 32};
    return true;
  }
  if (width(a) != 64) return false;
  llvm::Value *x = high_half_of(a), *y = high_half_of(b);
  if (x && y && !(llvm::isa<llvm::Constant>(a) && llvm::isa<llvm::Constant>(b))) {
    out = {x, y, 32};
    return true;
  }
  x = sign_extended_from(a);
  y = sign_extended_from(b);
  if (x && y && (!llvm::isa<llvm::Constant>(x) || !llvm::isa<llvm::Constant>(y)) &&
      (llvm::isa<llvm::SExtInst>(a) || llvm::isa<llvm::SExtInst>(b))) {
    out = {x, y, 32};
    return true;
  }
  out = {a, b, 64};
  return true;
}

// Where `v` is bit w-1 of some value (0 or 1), that value; else null.
llvm::Value* sign_bit_of(llvm::Value* v, unsigned w) {
  // Truncations and extensions of a 0/1 value.
  while (auto* cast = llvm::dyn_cast<llvm::CastInst>(v)) {
    if (!llvm::isa<llvm::ZExtInst>(cast) && !llvm::isa<llvm::TruncInst>(cast)) break;
    v = cast->getOperand(0);
  }
  llvm::Value* s = nullptr;
  if (match(v, m_And(m_LShr(m_Value(s), m_SpecificInt(w - 1)), m_SpecificInt(1)))) return s;
  if (match(v, m_LShr(m_Value(s), m_SpecificInt(w - 1)))) {
    llvm::Value* inner = nullptr;
    if (width(s) == w || (match(s, m_ZExt(m_Value(inner))) && width(inner) == w)) return s;
  }
  return nullptr;
}

// The operands of `s` if its low `w` bits are x - y: (x, y) as `s` has them (sub), or (x, -constant) (add).
bool difference_of(llvm::Value* s, const SignedLess& less, llvm::Value*& x, llvm::Value*& y) {
  s = strip(s, less.w);
  llvm::Value *p = nullptr, *q = nullptr;
  if (match(s, m_Sub(m_Value(p), m_Value(q))) && same_low(p, less.x, less.w) && same_low(q, less.y, less.w)) {
    x = p;
    y = q;
    return true;
  }
  llvm::ConstantInt* k = nullptr;
  auto* ky = llvm::dyn_cast<llvm::ConstantInt>(strip(less.y, less.w));
  if (ky && match(s, m_Add(m_Value(p), m_ConstantInt(k))) && same_low(p, less.x, less.w) &&
      (k->getValue().trunc(less.w) + ky->getValue().trunc(less.w)).isZero()) {
    x = p;
    y = ky;
    return true;
  }
  return false;
}

struct Found {
  llvm::BinaryOperator* v; // N xor (x < y)
  llvm::Value* n;          // its N operand
  llvm::Instruction* diff; // the subtraction N is the sign of
  llvm::Value* x;
  llvm::Value* y;
  unsigned w;
};

} // namespace

llvm::PreservedAnalyses OverflowFlags::run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
  std::vector<Found> found;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& inst : bb) {
      auto* v = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
      if (!v || v->getOpcode() != llvm::Instruction::Xor || !v->getType()->isIntegerTy()) continue;
      for (unsigned side = 0; side < 2; ++side) {
        SignedLess less;
        if (!signed_less(v->getOperand(side), less)) continue;
        llvm::Value* n = v->getOperand(1 - side);
        llvm::Value* s = sign_bit_of(n, less.w);
        llvm::Value *x = nullptr, *y = nullptr;
        if (!s || !difference_of(s, less, x, y)) continue;
        auto* diff = llvm::dyn_cast<llvm::Instruction>(strip(s, less.w));
        if (!diff) continue;
        found.push_back({v, n, diff, x, y, less.w});
        break;
      }
    }
  if (found.empty()) return llvm::PreservedAnalyses::all();
  // One intrinsic call per subtraction, right after it (it dominates every use of N); N replaced once all
  // the xors that read it are.
  std::map<llvm::Instruction*, llvm::Value*> calls;
  std::map<llvm::Value*, llvm::Value*> new_n;
  for (const Found& m : found) {
    llvm::Value*& call = calls[m.diff];
    llvm::IRBuilder<> b(m.diff->getNextNode());
    llvm::Type* iw = b.getIntNTy(m.w);
    if (!call) {
      auto narrow = [&](llvm::Value* v) {
        v = strip(v, m.w);
        if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v))
          return static_cast<llvm::Value*>(b.getInt(k->getValue().trunc(m.w)));
        return b.CreateTrunc(v, iw);
      };
      call = b.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_with_overflow, narrow(m.x), narrow(m.y));
    }
    b.SetInsertPoint(llvm::cast<llvm::Instruction>(call)->getNextNode());
    llvm::Value*& n = new_n[m.n];
    if (!n)
      n = b.CreateZExt(b.CreateICmpSLT(b.CreateExtractValue(call, 0), llvm::ConstantInt::get(iw, 0)),
                       m.n->getType());
    llvm::IRBuilder<> at_v(m.v);
    m.v->replaceAllUsesWith(at_v.CreateZExt(at_v.CreateExtractValue(call, 1), m.v->getType()));
  }
  llvm::SmallVector<llvm::WeakTrackingVH, 16> dead;
  for (auto& [old_n, n] : new_n) {
    old_n->replaceAllUsesWith(n);
    dead.push_back(old_n);
  }
  for (const Found& m : found) dead.push_back(m.v);
  llvm::RecursivelyDeleteTriviallyDeadInstructionsPermissive(dead);
  return llvm::PreservedAnalyses::none();
}

} // namespace vplat::cpu
