// The IR pass of both JIT tiers that makes a subtraction's N and V flags from the overflow intrinsic
// (cpu-dbt/jit_overflow_flags.h): which flag computations it rewrites, and that the function computes what it
// did.
#include "cpu-dbt/jit_overflow_flags.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <string>

namespace {

// The shapes the emitters and the passes before this one leave for `sub_with_flags`
// (archdesc/aarch64/base.adl): N = bit W-1 of the difference, V = N xor (x < y signed). Each block of the
// function computes one shape's N and V into bits 2k and 2k+1 of the result. The last three are not overflow
// flags and stay as they are: the sign of a difference xored with an unsigned compare, with a signed compare
// of other operands, and with one against another constant.
const char* const kFunction = R"(define i64 @NAME(i64 %a, i64 %b) {
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  ; 0: first tier, W registers (NarrowCompares has made the compare an i32 one)
  %d0 = sub i32 %a32, %b32
  %d0z = zext i32 %d0 to i64
  %s0 = lshr i64 %d0z, 31
  %n0 = and i64 %s0, 1
  %l0 = icmp slt i32 %a32, %b32
  %l0z = zext i1 %l0 to i64
  %v0 = xor i64 %n0, %l0z
  ; 1: first tier, W register and a constant the compare kept in 64 bits
  %d1 = sub i32 %a32, 7
  %d1z = zext i32 %d1 to i64
  %s1 = lshr i64 %d1z, 31
  %n1 = and i64 %s1, 1
  %a1s = sext i32 %a32 to i64
  %l1 = icmp slt i64 %a1s, 7
  %l1z = zext i1 %l1 to i64
  %v1 = xor i64 %n1, %l1z
  ; 2: second tier, W registers: a 64-bit difference, the signed compare of the low halves shifted up
  %d2 = sub i64 %a, %b
  %s2 = lshr i64 %d2, 31
  %n2 = and i64 %s2, 1
  %a2h = shl i64 %a, 32
  %b2h = shl i64 %b, 32
  %l2 = icmp slt i64 %a2h, %b2h
  %l2z = zext i1 %l2 to i64
  %v2 = xor i64 %n2, %l2z
  ; 3: second tier, W register and a constant: the difference as an add of its negation
  %d3 = add i64 %a, 4294967294
  %s3 = lshr i64 %d3, 31
  %n3 = and i64 %s3, 1
  %l3 = icmp sgt i32 2, %a32
  %l3z = zext i1 %l3 to i64
  %v3 = xor i64 %l3z, %n3
  ; 4: X registers, the flags as i8 the way the state stores them
  %d4 = sub i64 %a, %b
  %n4w = lshr i64 %d4, 63
  %n4 = trunc i64 %n4w to i8
  %l4 = icmp slt i64 %a, %b
  %l4z = zext i1 %l4 to i8
  %v4 = xor i8 %n4, %l4z
  %n4e = zext i8 %n4 to i64
  %v4e = zext i8 %v4 to i64
  ; 5: an unsigned compare: left
  %d5 = sub i64 %a, %b
  %n5 = lshr i64 %d5, 63
  %l5 = icmp ult i64 %a, %b
  %l5z = zext i1 %l5 to i64
  %v5 = xor i64 %n5, %l5z
  ; 6: a signed compare of other operands: left
  %d6 = sub i64 %a, %b
  %n6 = lshr i64 %d6, 63
  %l6 = icmp slt i64 %b, %a
  %l6z = zext i1 %l6 to i64
  %v6 = xor i64 %n6, %l6z
  %r0 = shl i64 %v0, 1
  %r1 = or i64 %r0, %n0
  %r2 = shl i64 %v1, 3
  %r3 = or i64 %r1, %r2
  %r4 = shl i64 %n1, 2
  %r5 = or i64 %r3, %r4
  %r6 = shl i64 %v2, 5
  %r7 = or i64 %r5, %r6
  %r8 = shl i64 %n2, 4
  %r9 = or i64 %r7, %r8
  %r10 = shl i64 %v3, 7
  %r11 = or i64 %r9, %r10
  %r12 = shl i64 %n3, 6
  %r13 = or i64 %r11, %r12
  %r14 = shl i64 %v4e, 9
  %r15 = or i64 %r13, %r14
  %r16 = shl i64 %n4e, 8
  %r17 = or i64 %r15, %r16
  %r18 = shl i64 %v5, 11
  %r19 = or i64 %r17, %r18
  %r20 = shl i64 %n5, 10
  %r21 = or i64 %r19, %r20
  %r22 = shl i64 %v6, 13
  %r23 = or i64 %r21, %r22
  %r24 = shl i64 %n6, 12
  %r25 = or i64 %r23, %r24
  ; 7: the sign of a - 3 against a < 2: left
  %d7 = add i64 %a, 4294967293
  %s7 = lshr i64 %d7, 31
  %n7 = and i64 %s7, 1
  %l7 = icmp slt i32 %a32, 2
  %l7z = zext i1 %l7 to i64
  %v7 = xor i64 %n7, %l7z
  %r26 = shl i64 %v7, 15
  %r27 = or i64 %r25, %r26
  %r28 = shl i64 %n7, 14
  %r29 = or i64 %r27, %r28
  ret i64 %r29
}
)";

std::string function(const std::string& name) {
  std::string ir = kFunction;
  ir.replace(ir.find("NAME"), 4, name);
  return ir;
}

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::OverflowFlags>(f);
}

TEST(OverflowFlags, SubtractionFlagsComeFromTheOverflowIntrinsic) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned calls32 = 0, calls64 = 0, xors = 0;
  for (llvm::Instruction& i : f.getEntryBlock()) {
    if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
        call && call->getIntrinsicID() == llvm::Intrinsic::ssub_with_overflow)
      (call->getArgOperand(0)->getType()->isIntegerTy(32) ? calls32 : calls64) += 1;
    if (i.getOpcode() == llvm::Instruction::Xor) ++xors;
  }
  EXPECT_EQ(calls32, 4u); // shapes 0-3
  EXPECT_EQ(calls64, 1u); // shape 4
  EXPECT_EQ(xors, 3u);    // shapes 5, 6 and 7, left
}

// Both functions, as written and after the pass, run on the host for operands at the edges of the signed
// and unsigned ranges of both widths, with high halves set and clear: every flag is the same.
TEST(OverflowFlags, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(function, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  const uint64_t values[] = {0,
                             1,
                             2,
                             7,
                             8,
                             0x7fffffff,
                             0x80000000,
                             0x80000006,
                             0xffffffff,
                             0x100000000,
                             0x17fffffff,
                             0x7fffffffffffffff,
                             0x8000000000000000,
                             0xffffffff80000000,
                             0x123456789abcdef0,
                             ~0ull - 4,
                             ~0ull};
  for (uint64_t a : values)
    for (uint64_t b : values) EXPECT_EQ(want(a, b), got(a, b)) << std::hex << a << " " << b;
}

} // namespace
