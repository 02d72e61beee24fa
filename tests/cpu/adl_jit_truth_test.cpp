// How the IR emitters' runtime compares truth values (adljit::Ctx::bool64, the ADL's `bool`s as 0/1) with
// constants: as the comparison they came from or its inverse (the first tier runs no InstCombine), for
// CBZ's `IsZero(x) == iszero` or `!(x < y)`.
#include "adl_jit_emitting.h"
#include <gtest/gtest.h>

namespace {

using vplat::adljit::Ctx;

using Emitting = EmittingXY;

llvm::CmpInst::Predicate predicate_of(llvm::Value* v) {
  auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(v);
  return cmp ? cmp->getPredicate() : llvm::CmpInst::BAD_ICMP_PREDICATE;
}

TEST(AdlJitTruth, ATruthValueComparedWithOneOrZeroIsItsComparisonOrTheInverse) {
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* less = c.b.CreateICmpULT(e.x(), e.y());
  llvm::Value* flag = c.bool64(less);
  EXPECT_EQ(c.icmp(llvm::CmpInst::ICMP_EQ, flag, c.k64(1)), less);
  EXPECT_EQ(c.icmp(llvm::CmpInst::ICMP_NE, c.k64(0), flag), less);
  llvm::Value* not_less = c.icmp(llvm::CmpInst::ICMP_EQ, flag, c.k64(0));
  EXPECT_EQ(predicate_of(not_less), llvm::CmpInst::ICMP_UGE);
  EXPECT_EQ(llvm::cast<llvm::ICmpInst>(not_less)->getOperand(0), e.x());
  EXPECT_EQ(predicate_of(c.icmp(llvm::CmpInst::ICMP_NE, flag, c.k64(1))), llvm::CmpInst::ICMP_UGE);
  // No truth value equals 2.
  EXPECT_EQ(c.icmp(llvm::CmpInst::ICMP_EQ, flag, c.k64(2)), c.b.getFalse());
  EXPECT_EQ(c.icmp(llvm::CmpInst::ICMP_NE, flag, c.k64(2)), c.b.getTrue());
  EXPECT_EQ(c.truth(flag), less);
}

TEST(AdlJitTruth, OtherComparisonsAreLeftAsWritten) {
  Emitting e;
  Ctx& c = *e.c;
  // A value that is not a truth value, and an ordering of truth values.
  EXPECT_EQ(predicate_of(c.icmp(llvm::CmpInst::ICMP_EQ, e.x(), c.k64(1))), llvm::CmpInst::ICMP_EQ);
  llvm::Value* flag = c.bool64(c.b.CreateICmpULT(e.x(), e.y()));
  EXPECT_EQ(predicate_of(c.icmp(llvm::CmpInst::ICMP_ULT, flag, c.k64(1))), llvm::CmpInst::ICMP_ULT);
}

} // namespace
