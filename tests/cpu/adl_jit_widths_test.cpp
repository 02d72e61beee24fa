// How the IR emitters' runtime builds 32-bit results (adljit::Ctx::cu, cs, low32): as extensions of i32
// operations, which x86 selects without a 0xffffffff mask, and never by narrowing an operation whose low
// half depends on its operand's upper half.
#include "adl_jit_emitting.h"
#include <gtest/gtest.h>

namespace {

using vplat::adljit::Ctx;

using Emitting = EmittingXY;

// The i32 value `v` zero- (or sign-) extends, or nullptr.
llvm::Value* extended_from_i32(llvm::Value* v) {
  auto* cast = llvm::dyn_cast<llvm::CastInst>(v);
  if (!cast || (!llvm::isa<llvm::ZExtInst>(cast) && !llvm::isa<llvm::SExtInst>(cast))) return nullptr;
  return cast->getSrcTy()->isIntegerTy(32) ? cast->getOperand(0) : nullptr;
}

unsigned opcode(llvm::Value* v) {
  auto* i = llvm::dyn_cast<llvm::Instruction>(v);
  return i ? i->getOpcode() : 0;
}

TEST(AdlJitWidths, A32BitAddOfTwoWRegistersIsAnI32AddZeroExtended) {
  // ADD Wd, Wn, Wm: cu(32, cu(32, Xn) + cu(32, Xm)).
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* r = c.cu(32, c.b.CreateAdd(c.cu(32, e.x()), c.cu(32, e.y())));
  llvm::Value* sum = extended_from_i32(r);
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(opcode(sum), llvm::Instruction::Add);
  EXPECT_TRUE(sum->getType()->isIntegerTy(32));
}

TEST(AdlJitWidths, AndWithTheLow32BitMaskIsTheSameZeroExtension) {
  Emitting e;
  Ctx& c = *e.c;
  EXPECT_NE(extended_from_i32(c.band(e.x(), c.k64(0xffffffff))), nullptr);
  EXPECT_NE(extended_from_i32(c.band(c.k64(0xffffffff), e.x())), nullptr);
  // Any other mask stays an AND.
  EXPECT_EQ(opcode(c.band(e.x(), c.k64(0xffff))), llvm::Instruction::And);
}

TEST(AdlJitWidths, ARightShiftOfAFull64BitValueStays64Bit) {
  // The low half of x >> 3 holds bits 34:32 of x: an i32 shift of trunc(x) would lose them.
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* r = c.cu(32, c.lshr64(e.x(), c.k64(3)));
  llvm::Value* low = extended_from_i32(r);
  ASSERT_NE(low, nullptr);
  ASSERT_EQ(opcode(low), llvm::Instruction::Trunc);
  llvm::Value* shifted = llvm::cast<llvm::TruncInst>(low)->getOperand(0);
  EXPECT_EQ(opcode(shifted), llvm::Instruction::LShr);
  EXPECT_TRUE(shifted->getType()->isIntegerTy(64));
}

TEST(AdlJitWidths, ARightShiftOfAZeroExtendedValueIsAnI32Shift) {
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* low = extended_from_i32(c.cu(32, c.lshr64(c.cu(32, e.x()), c.k64(3))));
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(opcode(low), llvm::Instruction::LShr);
  EXPECT_TRUE(low->getType()->isIntegerTy(32));
}

TEST(AdlJitWidths, AValueUsedElsewhereIsTruncatedNotRebuilt) {
  // ADDS Wd: the 64-bit sum also feeds the carry; narrowing it would compute the add twice.
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* sum = c.b.CreateAdd(c.cu(32, e.x()), c.cu(32, e.y()));
  llvm::Value* carry = c.b.CreateLShr(sum, c.k64(32));
  llvm::Value* low = extended_from_i32(c.cu(32, sum));
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(opcode(low), llvm::Instruction::Trunc);
  EXPECT_EQ(llvm::cast<llvm::TruncInst>(low)->getOperand(0), sum);
  EXPECT_NE(carry, nullptr);
}

TEST(AdlJitWidths, SignExtensionFrom32BitsIsAnI32SignExtension) {
  Emitting e;
  Ctx& c = *e.c;
  llvm::Value* r = c.cs(32, e.x());
  EXPECT_TRUE(llvm::isa<llvm::SExtInst>(r));
  EXPECT_NE(extended_from_i32(r), nullptr);
}

TEST(AdlJitWidths, ConstantShiftAmountsAreDecidedWhileBuilding) {
  Emitting e;
  Ctx& c = *e.c;
  EXPECT_EQ(c.lshr64(e.x(), c.k64(0)), e.x());
  EXPECT_EQ(c.shl64(e.x(), c.k64(0)), e.x());
  EXPECT_EQ(opcode(c.lshr64(e.x(), c.k64(5))), llvm::Instruction::LShr);
  EXPECT_EQ(opcode(c.ashr64(e.x(), c.k64(70))), llvm::Instruction::AShr); // fills with the sign: by 63
  ASSERT_TRUE(Ctx::is_const(c.shl64(e.x(), c.k64(64))));
  EXPECT_EQ(Ctx::const_u64(c.shl64(e.x(), c.k64(64))), 0u);
  // A run-time amount keeps the ADL's total semantics (>= 64 gives 0) in a select.
  EXPECT_EQ(opcode(c.lshr64(e.x(), e.y())), llvm::Instruction::Select);
}

TEST(AdlJitWidths, AConstantConditionBuildsOnlyItsArm) {
  Emitting e;
  Ctx& c = *e.c;
  bool other_built = false;
  llvm::Value* r = c.select_pure(
      c.k64(1), [&] { return e.x(); },
      [&] {
        other_built = true;
        return e.y();
      });
  EXPECT_EQ(r, e.x());
  EXPECT_FALSE(other_built);
  EXPECT_EQ(opcode(c.select_pure(
                e.x(), [&] { return e.x(); }, [&] { return e.y(); })),
            llvm::Instruction::Select);
}

} // namespace
