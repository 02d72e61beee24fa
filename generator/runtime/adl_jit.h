// What the generated IR emitters (adlc --jit, generator/emit_llvm.cpp) build LLVM IR with. Values follow
// the interpreter's representation exactly (adl_runtime.h): every integer type lives in an i64, canonical
// (zero-extended when unsigned, sign-extended when signed), u128 in an i128. IRBuilder folds operations on
// constants as it builds them, and every `if` whose condition folded is decided here in C++, so code that
// depends only on decode-time fields leaves no trace in the IR (partial evaluation).
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <unordered_map>
#include <vector>

namespace vplat::adljit {

using llvm::Value;

// Emission state for one function being built (a translated block); the block translator fills the
// fields marked "set by the caller".
class Ctx {
public:
  Ctx(llvm::IRBuilder<>& builder, llvm::Value* state_ptr);

  llvm::IRBuilder<>& b;
  llvm::LLVMContext& ctx;
  llvm::Type *i8, *i64, *i128, *ptr;
  llvm::Value* state; // pointer to the State struct
  // Set by the caller: where a raised guest exception goes. Made on first use (most instructions never need
  // it, and every basic block costs compile time) by `make_fault_bb` when fault_bb is null.
  llvm::BasicBlock* fault_bb = nullptr;
  std::function<llvm::BasicBlock*()> make_fault_bb;
  llvm::BasicBlock* fault_block() { return fault_bb ? fault_bb : fault_bb = make_fault_bb(); }
  // Set by the caller: the address of the instruction being emitted. Reads of the PC state variable fold
  // to it; NPC is written normally.
  uint64_t pc = 0;
  size_t pc_offset = SIZE_MAX, fault_flag_offset = SIZE_MAX;
  bool unsupported = false; // an emitter met something it cannot translate

  // ---- constants
  Value* k64(uint64_t v) { return llvm::ConstantInt::get(i64, v); }
  Value* k128(unsigned __int128 v);
  static bool is_const(Value* v) { return llvm::isa<llvm::ConstantInt>(v); }
  static uint64_t const_u64(Value* v) { return llvm::cast<llvm::ConstantInt>(v)->getZExtValue(); }

  // ---- representation (mirrors adlrt::cu / cs and emit_cpp's conversions)
  Value* cu(int w, Value* v);        // clear bits above w
  Value* cs(int w, Value* v);        // sign-extend from bit w-1
  Value* low32(Value* v, int depth); // trunc to i32, in 32-bit operations where that is cheaper
  Value* band(Value* x, Value* y);   // ADL `&`
  Value* to64(Value* v);             // u128 -> low 64 bits; i64 unchanged
  Value* to128(Value* v, bool sign); // i64 -> i128 (sign- or zero-extended); i128 unchanged
  Value* truth(Value* v);            // i64 0/1 (or any i64/i128) -> i1 (non-zero)
  Value* bool64(Value* i1v) { return b.CreateZExt(i1v, i64); }
  // ADL comparisons. A truth value (bool64) compared with a constant (`IsZero(x) == iszero` with iszero a
  // decode-time field, `!(a < b)`) gives the comparison it came from, or its inverse, rather than a
  // compare of its widened value: the first tier runs no InstCombine.
  Value* icmp(llvm::CmpInst::Predicate p, Value* x, Value* y);

  // ---- operators with the ADL's total semantics
  Value* shl64(Value* a, Value* n); // n >= 64 gives 0
  Value* lshr64(Value* a, Value* n);
  Value* ashr64(Value* a, Value* n); // n >= 64 fills with the sign
  Value* shl128(Value* a, Value* n); // n (i64) >= 128 gives 0
  Value* lshr128(Value* a, Value* n);
  Value* udiv(Value* a, Value* b_); // /0 gives 0
  Value* urem(Value* a, Value* b_); // %0 gives the dividend
  Value* sdiv(Value* a, Value* b_); // also MIN / -1 gives MIN
  Value* srem(Value* a, Value* b_);
  Value* bit64(Value* a, Value* i); // i >= 64 gives 0
  Value* bit128(Value* a, Value* i);
  // The builtin functions (adlrt::clz64 ...), as the intrinsics LLVM selects the host's instruction for and
  // folds (a count of leading zeros of a reversed value is one of trailing zeros: RBIT then CLZ).
  Value* clz64(Value* x);
  Value* bitreverse64(Value* x);
  Value* bswap64(Value* x);
  Value* popcount64(Value* x);

  // ---- vector elements (ADL lane / with_lane; adlrt::lane). With `vector_lanes` set and an element of 8,
  // 16, 32 or 64 bits at a constant index, as extractelement / insertelement on the i128 seen as a vector,
  // which LLVM's SLP vectorizer turns into whole-vector operations; otherwise as shifts and masks (what the
  // first tier's code generator, without SLP, handles best).
  bool vector_lanes = false; // set by the caller
  Value* lane(Value* v, Value* esize, Value* i);
  Value* with_lane(Value* v, Value* esize, Value* i, Value* x);

  // ---- state access by offset; `bits` is the storage width (8, 16, 32, 64, 128)
  Value* load_state(size_t offset, int bits, bool sign);
  void store_state(size_t offset, int bits, Value* v);
  Value* elem_ptr(size_t offset, int bits, Value* index);
  Value* load_elem(size_t offset, int bits, bool sign, Value* index);
  void store_elem(size_t offset, int bits, Value* index, Value* v);

  // ---- state cache. With it enabled, the state variables `cacheable` selects (at a constant address) live
  // in allocas (promoted to SSA values by the optimiser) for the whole function being built: each is loaded
  // once, before the first instruction (in `load_bb`, ahead of its terminator; in the registers' alias scope,
  // so that a later pass may move the load to where it is used: cpu-dbt/jit_state_loads.h), and reaches the
  // state only where the caller writes it back (exits, calls of helpers that read it). Accesses at a run-time
  // index or of another width go to memory, with the cache written back before and reloaded after.
  void enable_state_cache(llvm::BasicBlock* load_bb, std::function<bool(size_t offset)> cacheable);
  bool state_cache_enabled() const { return cache_load_bb_ != nullptr; }
  // Cached variables that nothing outside the function reads and no helper reads or writes (a next PC that
  // the run loop sets before every instruction it runs): never written back nor reloaded, and made even after
  // a helper call (the function sets one before it reads it). Set before the
  // first instruction.
  void set_local_only(std::function<bool(size_t offset)> local_only) { local_only_ = std::move(local_only); }
  // Stores the cached variables written so far (`all`: every one) to the state. A variable's alloca always
  // holds its current value, so storing any of them is always right; `written` only saves stores, and only
  // where every instruction of the function has been emitted (a block that loops reaches a point with what
  // later instructions wrote in the previous iteration).
  void write_back(llvm::IRBuilder<>& at, bool all = false);
  // Which cached variables (in the order they were first used) the instructions emitted so far write; and a
  // write-back of those `which` marks. Where the function cannot come back to code emitted earlier (no
  // loop), a point needs only what was written before it.
  std::vector<bool> written_so_far() const;
  void write_back_some(llvm::IRBuilder<>& at, const std::vector<bool>& which);
  // The same, storing each variable's value as it was at `then` (read there: an earlier point on every path
  // to `at`), for an exit that leaves before the instruction that was being emitted at `then` had run.
  void write_back_as_at(llvm::IRBuilder<>& at, const std::vector<bool>& which, llvm::Instruction* then);
  // Reloads the cached variables from the state after something outside the function changed it.
  void reload(llvm::IRBuilder<>& at);

  // ---- the guest registers as an alias scope. Once set, loads and stores of the state variables
  // `is_register` selects (at a constant address) carry the scope, and `not_registers` marks an access or a
  // call that reads and writes none of them (guest memory, the memory helpers): the optimiser then forwards
  // register values across guest loads and stores, as it would across any unrelated memory access.
  void set_register_scope(std::function<bool(size_t offset)> is_register);
  void not_registers(llvm::Instruction* access);
  // A load of something outside the state's registers that only helpers other than keeps_registers' change
  // (mode flags the core caches): in the register scope, so that guest memory accesses do not reload it.
  void like_registers(llvm::LoadInst* load);

  // ---- helpers implemented in C++ (called through their address)
  enum class Ret { Void, I64, I128 };
  Value* call_helper(void* fn, Ret ret, bool with_state, std::initializer_list<Value*> args, bool may_fault);
  // The call itself, without inline_call.
  Value* call_helper_direct(void* fn, Ret ret, bool with_state, const std::vector<Value*>& args,
                            bool may_fault);
  // Set by the caller: emits an inline version of a helper call (e.g. a soft-TLB fast path) and returns
  // true, or returns false to leave the call as it is. `result` is the call's value (nullptr for void).
  std::function<bool(void* fn, const std::vector<Value*>& args, Value*& result)> inline_call;
  // Set by the caller (or empty): emitted before every helper call, e.g. to write back what a helper that
  // raises an exception or reads the clock needs to see.
  std::function<void()> before_call;
  // Set by the caller (or empty): emitted before (after = false) and after (after = true) every call of a
  // helper that takes the state, e.g. to write the state cache back and reload it.
  std::function<void(void* fn, bool after)> around_call;
  // Set by the caller (or empty): true for a helper that takes the state but reads and writes none of the
  // cacheable variables (the memory helpers), so that variables first used after a call of it are still
  // cached (loaded at the function's start: nothing changed them in between).
  std::function<bool(void* fn)> keeps_registers;
  // Set by the caller (or empty): another function to call for helper `fn`, in LLVM's preserve_most
  // convention, that calls it and stores its value (if any) at `result_offset` in the state (`fn` null: call
  // the helper itself in the C convention). Not returned: LLVM 16 restores RAX over a preserve_most
  // function's return value.
  struct Wrapper {
    void* fn = nullptr;
    size_t result_offset = 0;
  };
  std::function<Wrapper(void* fn)> preserving_wrapper;
  llvm::CallInst* last_call = nullptr; // the call call_helper_direct made last
  // Set by the caller (or empty): where a fault raised by helper `fn` leaves the instruction, when that is
  // not fault_block() (nullptr: fault_block()).
  std::function<llvm::BasicBlock*(void* fn)> fault_exit_for;
  void check_fault(void* fn); // after helper `fn` that may fault: a raised exception leaves the instruction

  // ---- variables that are assigned after their declaration
  llvm::AllocaInst* local(llvm::Type* t);
  // A load of a local gives the value last stored to it when every path here passes that store (a store on
  // the straight path, or the same value on both arms of a run-time `if`): a constant assigned under a
  // decode-time condition stays a constant, e.g. the size of an access, which decides whether the access
  // is inlined. Other loads read the alloca.
  Value* load(llvm::AllocaInst* a) {
    if (auto it = known_.find(a); it != known_.end()) return it->second;
    return b.CreateLoad(a->getAllocatedType(), a);
  }
  void forget_locals() { known_.clear(); } // a new instruction: earlier locals are dead
  void store(llvm::AllocaInst* a, Value* v) {
    b.CreateStore(v, a);
    if (v->getType() == a->getAllocatedType())
      known_[a] = v;
    else
      known_.erase(a);
  }

  // ---- control flow. `done` is true once the current path has returned (ADL `return`), so that the
  // generated code stops emitting statements on it.
  struct Frame {
    bool done = false;
    int dynamic_depth = 0; // nesting of ifs whose condition is only known at run time
    llvm::BasicBlock* ret_bb = nullptr;
    llvm::AllocaInst* slot = nullptr;
    Value* direct = nullptr;        // the value of a return reached unconditionally
    llvm::Type* ret_type = nullptr; // nullptr: void
  };
  Frame* frame = nullptr;
  void emit_if(Value* cond, const std::function<void()>& then_fn, const std::function<void()>& else_fn);
  // c ? a : b, evaluating only the arm that is needed when an arm has side effects.
  Value* select_lazy(Value* cond, const std::function<Value*()>& a, const std::function<Value*()>& b_);
  // c ? a : b where neither arm has side effects: a select of both, or only the arm a constant `c` picks.
  Value* select_pure(Value* cond, const std::function<Value*()>& a, const std::function<Value*()>& b_);
  void ret(Value* v);    // ADL return (v nullptr for void)
  Value* finish_frame(); // after the body: the function's value

private:
  llvm::Function* fn() { return b.GetInsertBlock()->getParent(); }
  struct CachedVar {
    size_t offset;
    int bits;
    llvm::AllocaInst* var;
    bool written;
    bool local_only;
  };
  CachedVar* cached(size_t offset, int bits);
  bool overlaps_cache(size_t offset, int bits) const;
  std::vector<CachedVar> cached_;
  using Known = std::unordered_map<llvm::AllocaInst*, Value*>;
  Known known_; // see load()
  static Known meet(Known a, const Known& b);
  llvm::BasicBlock* cache_load_bb_ = nullptr;
  std::function<bool(size_t offset)> cacheable_;
  std::function<bool(size_t offset)> local_only_;
  bool state_calls_ = false; // a helper that takes the state was called
  llvm::MDNode* register_scope_ = nullptr;
  std::function<bool(size_t offset)> is_register_;
  void tag_register(llvm::Instruction* access, size_t offset);
};

// Runs an inlined ADL function body with its own return frame.
struct FrameScope {
  Ctx& c;
  Ctx::Frame f;
  Ctx::Frame* saved;
  FrameScope(Ctx& ctx, llvm::Type* ret) : c(ctx), saved(ctx.frame) {
    f.ret_type = ret;
    if (!saved) c.forget_locals();
    c.frame = &f;
  }
  ~FrameScope() { c.frame = saved; }
};

} // namespace vplat::adljit
