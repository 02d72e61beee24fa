// The JIT tiers' alias analysis for the state (cpu-dbt/jit_state_alias.h): what it says of two accesses at
// constant offsets from the state, worked out from their byte ranges by hand, and that it leaves everything
// else to LLVM's analyses.
#include "cpu-dbt/jit_state_alias.h"
#include "tests/cpu/ir_pass_test_support.h"
#include <gtest/gtest.h>
#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/MemoryLocation.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <map>
#include <string>

namespace {

// Loads named after their bytes: %s<offset>_<size> reads `size` bytes at `offset` from the state; %other
// reads through another pointer argument, %derived through an address computed from a loaded value, and
// %second_arg at offset 0 of the second argument.
const char* kLoads = R"(
define void @f(ptr %s, ptr %p) {
  %a0 = getelementptr inbounds i8, ptr %s, i64 0
  %a8 = getelementptr inbounds i8, ptr %s, i64 8
  %a12 = getelementptr i8, ptr %s, i64 12
  %a16 = getelementptr inbounds i8, ptr %s, i64 16
  %s0_8 = load i64, ptr %s
  %s0_8b = load i64, ptr %a0
  %s0_4 = load i32, ptr %a0
  %s8_8 = load i64, ptr %a8
  %s12_1 = load i8, ptr %a12
  %s16_16 = load i128, ptr %a16
  %other = load i64, ptr %p
  %base = load ptr, ptr %a8
  %d = getelementptr inbounds i8, ptr %base, i64 8
  %derived = load i64, ptr %d
  %q = getelementptr inbounds i8, ptr %p, i64 0
  %second_arg = load i64, ptr %q
  ret void
}
)";

// The answers of an alias analysis made of StateAlias alone (MayAlias: it leaves the pair to the others).
class StateAliasTest : public testing::Test {
protected:
  void SetUp() override {
    module_ = vplat::test::parse_ir(ctx_, kLoads);
    ASSERT_TRUE(module_);
    f_ = module_->getFunction("f");
    for (llvm::Instruction& i : f_->getEntryBlock())
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&i)) loads_[ld->getName().str()] = ld;
    fam_.registerPass([] {
      llvm::AAManager aa;
      aa.registerFunctionAnalysis<vplat::cpu::StateAlias>();
      return aa;
    });
    fam_.registerPass([] { return vplat::cpu::StateAlias(); });
    pb_.registerFunctionAnalyses(fam_);
  }
  llvm::AliasResult alias(const std::string& x, const std::string& y) {
    EXPECT_TRUE(loads_.count(x) && loads_.count(y)) << x << " " << y;
    llvm::AAResults& aa = fam_.getResult<llvm::AAManager>(*f_);
    return aa.alias(llvm::MemoryLocation::get(loads_[x]), llvm::MemoryLocation::get(loads_[y]));
  }
  llvm::LLVMContext ctx_;
  std::unique_ptr<llvm::Module> module_;
  llvm::Function* f_ = nullptr;
  std::map<std::string, llvm::LoadInst*> loads_;
  llvm::PassBuilder pb_;
  llvm::FunctionAnalysisManager fam_;
};

TEST_F(StateAliasTest, DisjointBytesOfTheStateDoNotAlias) {
  EXPECT_EQ(alias("s0_8", "s8_8"), llvm::AliasResult::NoAlias); // [0,8) and [8,16)
  EXPECT_EQ(alias("s8_8", "s0_8"), llvm::AliasResult::NoAlias);
  EXPECT_EQ(alias("s0_4", "s12_1"), llvm::AliasResult::NoAlias);  // [0,4) and [12,13)
  EXPECT_EQ(alias("s16_16", "s8_8"), llvm::AliasResult::NoAlias); // [16,32) and [8,16)
  EXPECT_EQ(alias("s16_16", "s12_1"), llvm::AliasResult::NoAlias);
}

TEST_F(StateAliasTest, TheSameBytesMustAlias) {
  EXPECT_EQ(alias("s0_8", "s0_8b"), llvm::AliasResult::MustAlias); // the state itself and offset 0 of it
}

TEST_F(StateAliasTest, OverlapsAndOtherPointersAreLeftToTheOtherAnalyses) {
  EXPECT_EQ(alias("s0_8", "s0_4"), llvm::AliasResult::MayAlias);  // [0,8) and [0,4)
  EXPECT_EQ(alias("s8_8", "s12_1"), llvm::AliasResult::MayAlias); // [8,16) and [12,13)
  EXPECT_EQ(alias("other", "s0_8"), llvm::AliasResult::MayAlias);
  EXPECT_EQ(alias("derived", "s16_16"), llvm::AliasResult::MayAlias);
  EXPECT_EQ(alias("second_arg", "other"), llvm::AliasResult::MayAlias); // not the state (argument 0)
}

} // namespace
