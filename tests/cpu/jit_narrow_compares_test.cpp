// The IR pass of both JIT tiers that makes 64-bit compares of 32-bit values 32-bit compares
// (cpu-dbt/jit_narrow_compares.h): which compares it rewrites, and that the function computes what it did.
#include "cpu-dbt/jit_narrow_compares.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <cstdint>
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <string>
#include <vector>

namespace {

// (9 predicates of 7 shapes: 63 bits of the result.)
const std::vector<std::string> kPredicates = {"eq", "ult", "ugt", "ule", "uge", "slt", "sgt", "sle", "sge"};

// Each predicate on each shape of operands the emitters make for a 32-bit compare, and two shapes the pass
// must leave (a whole 64-bit register; a zero extension against an unmasked value): bit k of the result is
// compare k.
const char* const kShapes[][2] = {
    {"%am", "%bm"},        // both low halves masked
    {"%am", "2147483648"}, // a masked low half and a constant of 32 bits (2^31)
    {"%az", "%bz"},        // both zero-extended from i32
    {"%a8", "%bm"},        // a byte zero-extended and a masked low half
    {"%as", "%bs"},        // both sign-extended from i32
    {"%a", "%bm"},         // a whole register: left as it is
    {"%az", "%b"},         // left as it is
};
constexpr int kLeftAlone = 2; // the last shapes

std::string compares(const std::string& name) {
  std::string ir = "define i64 @" + name + R"((i64 %a, i64 %b) {
  %am = and i64 %a, 4294967295
  %bm = and i64 %b, 4294967295
  %a32 = trunc i64 %a to i32
  %b32 = trunc i64 %b to i32
  %az = zext i32 %a32 to i64
  %bz = zext i32 %b32 to i64
  %as = sext i32 %a32 to i64
  %bs = sext i32 %b32 to i64
  %a8t = trunc i64 %a to i8
  %a8 = zext i8 %a8t to i64
)";
  std::string acc = "0";
  int k = 0;
  for (const auto& shape : kShapes)
    for (const std::string& p : kPredicates) {
      const std::string n = std::to_string(k);
      ir += "  %c" + n + " = icmp " + p + " i64 " + shape[0] + ", " + shape[1] + "\n";
      ir += "  %z" + n + " = zext i1 %c" + n + " to i64\n";
      ir += "  %s" + n + " = shl i64 %z" + n + ", " + n + "\n";
      ir += "  %r" + n + " = or i64 " + acc + ", %s" + n + "\n";
      acc = "%r" + n;
      ++k;
    }
  return ir + "  ret i64 " + acc + "\n}\n";
}

void run_pass(llvm::Function& f) {
  vplat::test::run_function_pass<vplat::cpu::NarrowCompares>(f);
}

TEST(NarrowCompares, ComparesOf32BitValuesAreMadeOn32Bits) {
  llvm::LLVMContext ctx;
  auto m = vplat::test::parse_ir(ctx, compares("f"));
  ASSERT_TRUE(m);
  llvm::Function& f = *m->getFunction("f");
  run_pass(f);
  ASSERT_FALSE(llvm::verifyFunction(f, &llvm::errs()));
  unsigned narrow = 0, wide = 0;
  for (llvm::Instruction& i : f.getEntryBlock())
    if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&i))
      (cmp->getOperand(0)->getType()->isIntegerTy(32) ? narrow : wide) += 1;
  const unsigned shapes = sizeof(kShapes) / sizeof(kShapes[0]);
  EXPECT_EQ(narrow, (shapes - kLeftAlone) * kPredicates.size());
  EXPECT_EQ(wide, kLeftAlone * kPredicates.size());
}

// Both functions, as written and after the pass, run on the host for operands around 2^31 and 2^32, with
// high halves set and clear: every compare gives the same truth value.
TEST(NarrowCompares, TheFunctionComputesWhatItDidBefore) {
  using Fn = uint64_t (*)(uint64_t, uint64_t);
  auto code = vplat::test::compile_before_and_after<Fn>(compares, run_pass);
  Fn want = code.as_written, got = code.after_pass;
  ASSERT_TRUE(want && got);
  const uint64_t values[] = {0,          1,           5,           0x7fffffff,         0x80000000,
                             0xffffffff, 0x100000000, 0x17fffffff, 0xffffffff80000000, 0x123456789abcdef0,
                             ~0ull - 4,  ~0ull};
  for (uint64_t a : values)
    for (uint64_t b : values) EXPECT_EQ(want(a, b), got(a, b)) << std::hex << a << " " << b;
}

} // namespace
