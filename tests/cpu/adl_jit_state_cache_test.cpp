// The IR emitters' state cache (adljit::Ctx::enable_state_cache): state variables live in locals for the
// whole function and reach the state only at write-backs; a variable marked local-only (the next PC, which
// nothing outside a translated block reads) never does.
#include "adl_jit_emitting.h"
#include <gtest/gtest.h>
#include <llvm/IR/Instructions.h>
#include <set>

namespace {

constexpr size_t kX0 = 0, kX1 = 8, kNextPc = 16;

// `void f(ptr state, i64 x, i64 y)` with the cache's loads in `entry` and the instructions in `body`.
struct Caching : EmittingXY {
  llvm::BasicBlock* body;
  explicit Caching(bool next_pc_local_only) {
    body = llvm::BasicBlock::Create(ctx, "body", fn);
    b.CreateBr(body);
    c->enable_state_cache(&fn->getEntryBlock(), [](size_t) { return true; });
    if (next_pc_local_only) c->set_local_only([](size_t offset) { return offset == kNextPc; });
    b.SetInsertPoint(body);
  }
  // Offsets in the state of the stores (or loads) in `bb`.
  std::set<size_t> offsets(llvm::BasicBlock* bb, bool stores) {
    std::set<size_t> found;
    for (llvm::Instruction& i : *bb) {
      llvm::Value* ptr = nullptr;
      if (auto* s = llvm::dyn_cast<llvm::StoreInst>(&i); s && stores) ptr = s->getPointerOperand();
      if (auto* l = llvm::dyn_cast<llvm::LoadInst>(&i); l && !stores) ptr = l->getPointerOperand();
      if (!ptr) continue;
      if (ptr == fn->getArg(0)) {
        found.insert(0);
      } else if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(ptr);
                 gep && gep->getPointerOperand() == fn->getArg(0)) {
        found.insert(llvm::cast<llvm::ConstantInt>(gep->getOperand(1))->getZExtValue());
      }
    }
    return found;
  }
  // Writes X0 and the next PC, then a write-back and a reload in blocks of their own.
  void write_both_then_write_back_and_reload(llvm::BasicBlock*& written_back, llvm::BasicBlock*& reloaded) {
    c->store_state(kX0, 64, x());
    c->store_state(kNextPc, 64, y());
    written_back = llvm::BasicBlock::Create(ctx, "write_back", fn);
    b.CreateBr(written_back);
    b.SetInsertPoint(written_back);
    c->write_back(b);
    reloaded = llvm::BasicBlock::Create(ctx, "reload", fn);
    b.CreateBr(reloaded);
    b.SetInsertPoint(reloaded);
    c->reload(b);
    b.CreateRetVoid();
  }
};

TEST(AdlJitStateCache, AWriteBackStoresEveryVariableWritten) {
  Caching e(false);
  llvm::BasicBlock *written_back, *reloaded;
  e.write_both_then_write_back_and_reload(written_back, reloaded);
  EXPECT_EQ(e.offsets(written_back, true), (std::set<size_t>{kX0, kNextPc}));
  EXPECT_EQ(e.offsets(reloaded, false), (std::set<size_t>{kX0, kNextPc}));
}

TEST(AdlJitStateCache, ALocalOnlyVariableIsNeitherWrittenBackNorReloaded) {
  Caching e(true);
  llvm::BasicBlock *written_back, *reloaded;
  e.write_both_then_write_back_and_reload(written_back, reloaded);
  EXPECT_EQ(e.offsets(written_back, true), (std::set<size_t>{kX0}));
  EXPECT_EQ(e.offsets(reloaded, false), (std::set<size_t>{kX0}));
  // Its local keeps the value written: the reload sets X0's local only.
  size_t stores = 0;
  for (llvm::Instruction& i : *reloaded) stores += llvm::isa<llvm::StoreInst>(i);
  EXPECT_EQ(stores, 1u);
}

TEST(AdlJitStateCache, VariablesOnlyReadAreNotWrittenBack) {
  Caching e(true);
  e.c->load_state(kX1, 64, false);
  e.c->store_state(kX0, 64, e.x());
  llvm::BasicBlock* written_back = llvm::BasicBlock::Create(e.ctx, "write_back", e.fn);
  e.b.CreateBr(written_back);
  e.b.SetInsertPoint(written_back);
  e.c->write_back(e.b);
  e.b.CreateRetVoid();
  EXPECT_EQ(e.offsets(written_back, true), (std::set<size_t>{kX0}));
}

void a_helper() {}

// A helper that takes the state may have written it, so a variable first used after such a call stays in
// memory (its local would start from the value loaded before the call); a local-only one is still kept in a
// local: the function sets it before it reads it, and no helper touches it.
TEST(AdlJitStateCache, AfterAHelperCallOnlyALocalOnlyVariableIsStillCached) {
  Caching e(true);
  e.c->call_helper(reinterpret_cast<void*>(&a_helper), vplat::adljit::Ctx::Ret::Void, true, {}, false);
  e.c->store_state(kX0, 64, e.x());
  e.c->store_state(kNextPc, 64, e.y());
  EXPECT_EQ(e.offsets(e.body, true), (std::set<size_t>{kX0}));
  llvm::BasicBlock* written_back = llvm::BasicBlock::Create(e.ctx, "write_back", e.fn);
  e.b.CreateBr(written_back);
  e.b.SetInsertPoint(written_back);
  e.c->write_back(e.b, true);
  e.b.CreateRetVoid();
  EXPECT_TRUE(e.offsets(written_back, true).empty());
}

} // namespace
