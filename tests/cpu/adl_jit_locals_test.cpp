// What the IR emitters' runtime knows about ADL locals at translation time (adljit::Ctx::load/store): a load
// gives the value stored on every path to it, so values that depend only on decode-time fields stay
// constants (an access size decides whether a load or store is inlined); otherwise it reads the local.
#include "adl_jit_emitting.h"
#include <gtest/gtest.h>
#include <optional>

namespace {

using vplat::adljit::Ctx;
using vplat::adljit::FrameScope;

// One function `void f(ptr state, i64 x)` being built, inside the frame of one instruction.
struct Emitting : EmittingFunction {
  std::optional<FrameScope> frame;
  Emitting() : EmittingFunction(1) { frame.emplace(*c, nullptr); }
  llvm::Value* runtime_value() { return runtime_arg(0); }
  // A local that `value` was stored to.
  llvm::AllocaInst* local_holding(uint64_t value) {
    llvm::AllocaInst* a = c->local(c->i64);
    c->store(a, c->k64(value));
    return a;
  }
  // The constant `v` folded to, if it did.
  static std::optional<uint64_t> folded(llvm::Value* v) {
    if (!Ctx::is_const(v)) return std::nullopt;
    return Ctx::const_u64(v);
  }
};

TEST(AdlJitLocals, ALoadAfterAStoreOnTheStraightPathIsTheStoredValue) {
  Emitting e;
  llvm::AllocaInst* scale = e.local_holding(2);
  EXPECT_EQ(Emitting::folded(e.c->load(scale)), 2u);
}

TEST(AdlJitLocals, AnIfDecidedAtDecodeTimeKeepsTheValueItsArmStored) {
  // LDP/STP: scale = 2; if (opc == 2) { scale = 3; } with opc a decode-time field.
  for (uint64_t opc : {0u, 2u}) {
    Emitting e;
    llvm::AllocaInst* scale = e.local_holding(2);
    e.c->emit_if(
        e.c->k64(opc == 2), [&] { e.c->store(scale, e.c->k64(3)); }, nullptr);
    EXPECT_EQ(Emitting::folded(e.c->load(scale)), opc == 2 ? 3u : 2u) << "opc " << opc;
  }
}

TEST(AdlJitLocals, AfterARunTimeIfWhoseArmsStoredDifferentValuesTheLocalIsRead) {
  Emitting e;
  llvm::AllocaInst* x = e.local_holding(2);
  e.c->emit_if(
      e.runtime_value(), [&] { e.c->store(x, e.c->k64(3)); }, nullptr);
  EXPECT_TRUE(llvm::isa<llvm::LoadInst>(e.c->load(x)));
}

TEST(AdlJitLocals, AfterARunTimeIfWhoseArmsStoredTheSameValueThatValueIsKnown) {
  Emitting e;
  llvm::AllocaInst* x = e.c->local(e.c->i64);
  e.c->emit_if(
      e.runtime_value(), [&] { e.c->store(x, e.c->k64(7)); }, [&] { e.c->store(x, e.c->k64(7)); });
  EXPECT_EQ(Emitting::folded(e.c->load(x)), 7u);
}

TEST(AdlJitLocals, AnArmThatReturnedDoesNotReachTheMerge) {
  // if (runtime) { x = 3; return; } — after the if, only the path that stored nothing new continues.
  Emitting e;
  llvm::AllocaInst* x = e.local_holding(2);
  e.c->emit_if(
      e.runtime_value(),
      [&] {
        e.c->store(x, e.c->k64(3));
        e.c->ret(nullptr);
      },
      nullptr);
  ASSERT_FALSE(e.c->frame->done);
  EXPECT_EQ(Emitting::folded(e.c->load(x)), 2u);
}

TEST(AdlJitLocals, AStoreInsideOneArmIsNotSeenInTheOther) {
  Emitting e;
  llvm::AllocaInst* x = e.local_holding(2);
  llvm::Value* seen_in_else = nullptr;
  e.c->emit_if(
      e.runtime_value(), [&] { e.c->store(x, e.c->k64(3)); }, [&] { seen_in_else = e.c->load(x); });
  ASSERT_TRUE(seen_in_else);
  EXPECT_EQ(Emitting::folded(seen_in_else), 2u);
}

} // namespace
