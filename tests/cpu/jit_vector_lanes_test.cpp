// The second tier's pass for SIMD element operations (cpu-dbt/jit_vector_lanes.h): a byte-wise compare of two
// vector registers, in the shape the emitters and InstCombine leave it, becomes one vector compare and still
// computes what the element-by-element code computes.
#include "cpu-dbt/jit_vector_lanes.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <string>

namespace {

// CMEQ Vd.16B, Vn.16B, Vm.16B on registers at %s + 0 and %s + 16, result at %s + 32, as InstCombine leaves
// it: element 0 of n is read as a truncation of the register (its form of extractelement 0 of a bitcast), the
// others as elements of the register seen as <16 x i8>.
std::string byte_compare_function(const std::string& name) {
  std::string t = "define void @" + name + R"((ptr %s) {
  %pm = getelementptr inbounds i8, ptr %s, i64 16
  %pd = getelementptr inbounds i8, ptr %s, i64 32
  %n = load i128, ptr %s
  %m = load i128, ptr %pm
  %nv = bitcast i128 %n to <16 x i8>
  %mv = bitcast i128 %m to <16 x i8>
  %n0 = trunc i128 %n to i8
)";
  std::string prev = "poison";
  for (int i = 0; i < 16; ++i) {
    const std::string k = std::to_string(i);
    if (i) t += "  %n" + k + " = extractelement <16 x i8> %nv, i64 " + k + "\n";
    t += "  %m" + k + " = extractelement <16 x i8> %mv, i64 " + k + "\n";
    // InstCombine puts a cast second: element 0 compares m with n, the others n with m.
    t += "  %c" + k + " = icmp eq i8 " + (i ? "%n" + k + ", %m" + k : "%m0, %n0") + "\n";
    t += "  %x" + k + " = sext i1 %c" + k + " to i8\n";
    t += "  %r" + k + " = insertelement <16 x i8> " + prev + ", i8 %x" + k + ", i64 " + k + "\n";
    prev = "%r" + k;
  }
  t += "  %d = bitcast <16 x i8> " + prev + " to i128\n  store i128 %d, ptr %pd\n  ret void\n}\n";
  return t;
}

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::VectorLanes>(f);
}

TEST(VectorLanes, SixteenByteComparesBecomeOneVectorCompare) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, byte_compare_function("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  EXPECT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned vector_compares = 0, scalar_compares = 0, inserts = 0;
  for (llvm::BasicBlock& bb : f)
    for (llvm::Instruction& i : bb) {
      if (llvm::isa<llvm::ICmpInst>(i)) ++(i.getType()->isVectorTy() ? vector_compares : scalar_compares);
      inserts += llvm::isa<llvm::InsertElementInst>(i);
    }
  EXPECT_EQ(vector_compares, 1u);
  EXPECT_EQ(scalar_compares, 0u);
  // Both operands are the registers as vectors, not vectors built element by element (with element 0 left
  // as a truncation, SLP does not see that n is a vector it has).
  EXPECT_EQ(inserts, 0u);
}

TEST(VectorLanes, TheVectorCompareComputesWhatTheElementsDid) {
  auto fns = vplat::test::compile_before_and_after<void (*)(uint8_t*)>(byte_compare_function, run_pass);
  ASSERT_TRUE(fns.as_written && fns.after_pass);
  uint32_t seed = 7;
  for (int round = 0; round < 200; ++round) {
    alignas(16) uint8_t a[48], b[48];
    for (int i = 0; i < 32; ++i) {
      seed = seed * 1103515245u + 12345u;
      // Equal bytes often enough that every element sees both outcomes.
      a[i] = static_cast<uint8_t>((seed >> 16) & 3);
    }
    std::memcpy(b, a, sizeof a);
    fns.as_written(a);
    fns.after_pass(b);
    for (int i = 0; i < 16; ++i) {
      const uint8_t want = a[i] == a[16 + i] ? 0xff : 0x00; // the CPU's byte compare
      EXPECT_EQ(a[32 + i], want) << "element " << i;
      EXPECT_EQ(b[32 + i], want) << "element " << i << " after the pass";
    }
  }
}

} // namespace
