// The IR-building primitives of adl_jit.h. Each mirrors the adlrt function (adl_runtime.h) or the C++
// the interpreter backend emits for the same operator, so both tiers compute the same bits.
#include "generator/runtime/adl_jit.h"
#include <algorithm>
#include <llvm/IR/MDBuilder.h>

namespace vplat::adljit {

Ctx::Ctx(llvm::IRBuilder<>& builder, llvm::Value* state_ptr)
    : b(builder), ctx(builder.getContext()), i8(builder.getInt8Ty()), i64(builder.getInt64Ty()),
      i128(builder.getInt128Ty()), ptr(builder.getPtrTy()), state(state_ptr) {}

Value* Ctx::k128(unsigned __int128 v) {
  uint64_t words[2] = {static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64)};
  return llvm::ConstantInt::get(ctx, llvm::APInt(128, words));
}

// 32-bit values are made by zero- or sign-extending an i32 rather than by masking or shifting an i64:
// 0xffffffff fits no x86 immediate, so each AND with it needed the mask in a register, while FastISel
// selects a 32-bit x86 operation (which zeroes the upper half for free, a load folded into it) from i32
// IR. Narrower widths keep the AND (their masks are immediates) or use a sign extension.
Value* Ctx::cu(int w, Value* v) {
  if (w >= 64) return v;
  if (w == 32 && !is_const(v)) return b.CreateZExt(low32(v, 0), i64);
  return b.CreateAnd(v, k64((uint64_t(1) << w) - 1));
}

Value* Ctx::cs(int w, Value* v) {
  if (w >= 64) return v;
  if ((w == 32 || w == 16 || w == 8) && !is_const(v))
    return b.CreateSExt(w == 32 ? low32(v, 0) : b.CreateTrunc(v, b.getIntNTy(w)), i64);
  return b.CreateAShr(b.CreateShl(v, k64(64 - w)), k64(64 - w));
}

// ADL's `x & 0xffffffff` is the same zero extension as cu(32, x).
Value* Ctx::band(Value* x, Value* y) {
  if (x->getType() == i64) {
    if (is_const(y) && const_u64(y) == 0xffffffff) return cu(32, x);
    if (is_const(x) && const_u64(x) == 0xffffffff) return cu(32, y);
  }
  return b.CreateAnd(x, y);
}

// The low half of an i64, computed in i32 where the i64 value comes from operations whose low 32 bits
// depend only on their operands' low 32 bits. `depth` bounds the recursion; an operation is rebuilt only
// where the value has no other user, so nothing is computed twice. What it replaces is left dead for the
// optimiser to remove. (Loads stay 64-bit here, so that a register stored as an i64 can be forwarded to
// them; the block translator narrows those left afterwards.)
Value* Ctx::low32(Value* v, int depth) {
  llvm::Type* i32 = b.getInt32Ty();
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v)) return llvm::ConstantInt::get(i32, k->getZExtValue());
  if (auto* z = llvm::dyn_cast<llvm::ZExtInst>(v); z && z->getSrcTy() == i32) return z->getOperand(0);
  if (auto* z = llvm::dyn_cast<llvm::SExtInst>(v); z && z->getSrcTy() == i32) return z->getOperand(0);
  const bool sole_use = depth == 0 ? v->use_empty() : v->hasOneUse();
  if (depth < 4 && sole_use && v->getType() == i64) {
    if (auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v)) {
      Value *l = op->getOperand(0), *r = op->getOperand(1);
      switch (op->getOpcode()) {
      case llvm::Instruction::Add:
      case llvm::Instruction::Sub:
      case llvm::Instruction::Mul:
      case llvm::Instruction::And:
      case llvm::Instruction::Or:
      case llvm::Instruction::Xor:
        return b.CreateBinOp(op->getOpcode(), low32(l, depth + 1), low32(r, depth + 1));
      case llvm::Instruction::Shl:
      case llvm::Instruction::AShr:
        if (is_const(r) && const_u64(r) == 0) return low32(l, depth + 1);
        if (op->getOpcode() == llvm::Instruction::Shl && is_const(r) && const_u64(r) < 32)
          return b.CreateShl(low32(l, depth + 1), const_u64(r));
        break;
      case llvm::Instruction::LShr:
        if (is_const(r) && const_u64(r) == 0) return low32(l, depth + 1);
        // Bits shifted in from the upper half are zero when the operand was zero-extended from 32 bits.
        if (auto* z = llvm::dyn_cast<llvm::ZExtInst>(l);
            z && z->getSrcTy() == i32 && is_const(r) && const_u64(r) < 32)
          return b.CreateLShr(z->getOperand(0), const_u64(r));
        break;
      default:
        break;
      }
    }
  }
  return b.CreateTrunc(v, i32);
}

Value* Ctx::to64(Value* v) {
  return v->getType() == i128 ? b.CreateTrunc(v, i64) : v;
}

Value* Ctx::to128(Value* v, bool sign) {
  if (v->getType() == i128) return v;
  return sign ? b.CreateSExt(v, i128) : b.CreateZExt(v, i128);
}

// The i1 that `v` widens, if it is a truth value (bool64).
static Value* widened_bit(Value* v) {
  auto* z = llvm::dyn_cast<llvm::ZExtInst>(v);
  return z && z->getOperand(0)->getType()->isIntegerTy(1) ? z->getOperand(0) : nullptr;
}

Value* Ctx::truth(Value* v) {
  if (Value* bit = widened_bit(v)) return bit;
  return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

Value* Ctx::icmp(llvm::CmpInst::Predicate p, Value* x, Value* y) {
  if (p == llvm::CmpInst::ICMP_EQ || p == llvm::CmpInst::ICMP_NE) {
    if (llvm::isa<llvm::ConstantInt>(x)) std::swap(x, y);
    Value* bit = widened_bit(x);
    auto* k = llvm::dyn_cast<llvm::ConstantInt>(y);
    if (bit && k) {
      if (k->getValue().ugt(1)) return b.getInt1(p == llvm::CmpInst::ICMP_NE);
      if (k->isOne() == (p == llvm::CmpInst::ICMP_EQ)) return bit; // == 1, != 0
      if (auto* c = llvm::dyn_cast<llvm::ICmpInst>(bit))
        return b.CreateICmp(c->getInversePredicate(), c->getOperand(0), c->getOperand(1));
      return b.CreateNot(bit);
    }
  }
  return b.CreateICmp(p, x, y);
}

// A constant shift amount (the common case: from a decode-time field) is decided here, leaving no select
// for the optimiser to fold.
Value* Ctx::shl64(Value* a, Value* n) {
  if (is_const(n)) return const_u64(n) >= 64 ? k64(0) : const_u64(n) == 0 ? a : b.CreateShl(a, n);
  Value* big = b.CreateICmpUGE(n, k64(64));
  return b.CreateSelect(big, k64(0), b.CreateShl(a, b.CreateAnd(n, k64(63))));
}

Value* Ctx::lshr64(Value* a, Value* n) {
  if (is_const(n)) return const_u64(n) >= 64 ? k64(0) : const_u64(n) == 0 ? a : b.CreateLShr(a, n);
  Value* big = b.CreateICmpUGE(n, k64(64));
  return b.CreateSelect(big, k64(0), b.CreateLShr(a, b.CreateAnd(n, k64(63))));
}

Value* Ctx::ashr64(Value* a, Value* n) {
  if (is_const(n)) return const_u64(n) == 0 ? a : b.CreateAShr(a, std::min<uint64_t>(const_u64(n), 63));
  Value* big = b.CreateICmpUGE(n, k64(64));
  return b.CreateAShr(a, b.CreateSelect(big, k64(63), n));
}

Value* Ctx::shl128(Value* a, Value* n) {
  Value* big = b.CreateICmpUGE(n, k64(128));
  Value* n128 = b.CreateZExt(b.CreateAnd(n, k64(127)), i128);
  return b.CreateSelect(big, k128(0), b.CreateShl(a, n128));
}

Value* Ctx::lshr128(Value* a, Value* n) {
  Value* big = b.CreateICmpUGE(n, k64(128));
  Value* n128 = b.CreateZExt(b.CreateAnd(n, k64(127)), i128);
  return b.CreateSelect(big, k128(0), b.CreateLShr(a, n128));
}

// Division: the divisor is replaced by 1 where the result does not come from the hardware division, so
// that the emitted udiv/sdiv never divides by zero or overflows.
Value* Ctx::udiv(Value* a, Value* d) {
  llvm::Type* t = a->getType();
  Value* zero = llvm::ConstantInt::get(t, 0);
  Value* dz = b.CreateICmpEQ(d, zero);
  Value* safe = b.CreateSelect(dz, llvm::ConstantInt::get(t, 1), d);
  return b.CreateSelect(dz, zero, b.CreateUDiv(a, safe));
}

Value* Ctx::urem(Value* a, Value* d) {
  llvm::Type* t = a->getType();
  Value* dz = b.CreateICmpEQ(d, llvm::ConstantInt::get(t, 0));
  Value* safe = b.CreateSelect(dz, llvm::ConstantInt::get(t, 1), d);
  return b.CreateSelect(dz, a, b.CreateURem(a, safe));
}

Value* Ctx::sdiv(Value* a, Value* d) {
  llvm::Type* t = a->getType();
  Value* zero = llvm::ConstantInt::get(t, 0);
  Value* dz = b.CreateICmpEQ(d, zero);
  Value* dm1 = b.CreateICmpEQ(d, llvm::ConstantInt::getSigned(t, -1));
  Value* safe = b.CreateSelect(b.CreateOr(dz, dm1), llvm::ConstantInt::get(t, 1), d);
  Value* q = b.CreateSDiv(a, safe);
  return b.CreateSelect(dz, zero, b.CreateSelect(dm1, b.CreateSub(zero, a), q));
}

Value* Ctx::srem(Value* a, Value* d) {
  llvm::Type* t = a->getType();
  Value* zero = llvm::ConstantInt::get(t, 0);
  Value* dz = b.CreateICmpEQ(d, zero);
  Value* dm1 = b.CreateICmpEQ(d, llvm::ConstantInt::getSigned(t, -1));
  Value* safe = b.CreateSelect(b.CreateOr(dz, dm1), llvm::ConstantInt::get(t, 1), d);
  Value* r = b.CreateSRem(a, safe);
  return b.CreateSelect(dz, a, b.CreateSelect(dm1, zero, r));
}

Value* Ctx::bit64(Value* a, Value* i) {
  return b.CreateAnd(lshr64(a, i), k64(1));
}

Value* Ctx::bit128(Value* a, Value* i) {
  return b.CreateAnd(to64(lshr128(a, i)), k64(1));
}

// A zero operand is defined for ctlz here (64), as CLZ's is.
Value* Ctx::clz64(Value* x) {
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
}
Value* Ctx::bitreverse64(Value* x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, x);
}
Value* Ctx::bswap64(Value* x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::bswap, x);
}
Value* Ctx::popcount64(Value* x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
}

// The vector type of `esize`-bit elements of an i128 and the element index, when `vector_lanes` is set
// and the element lies wholly inside the 128 bits; nullptr otherwise.
static llvm::FixedVectorType* lane_vector(Ctx& c, Value* esize, Value* i, uint64_t& index) {
  if (!c.vector_lanes || !Ctx::is_const(esize) || !Ctx::is_const(i)) return nullptr;
  const uint64_t e = Ctx::const_u64(esize);
  index = Ctx::const_u64(i);
  if ((e != 8 && e != 16 && e != 32 && e != 64) || index >= 128 / e) return nullptr;
  return llvm::FixedVectorType::get(llvm::IntegerType::get(c.ctx, static_cast<unsigned>(e)),
                                    static_cast<unsigned>(128 / e));
}

static Value* element_mask(Ctx& c, Value* esize) {
  return c.b.CreateSelect(c.b.CreateICmpUGE(esize, c.k64(64)), c.k64(~uint64_t(0)),
                          c.b.CreateSub(c.shl64(c.k64(1), esize), c.k64(1)));
}

Value* Ctx::lane(Value* v, Value* esize, Value* i) {
  uint64_t index = 0;
  if (llvm::FixedVectorType* vt = lane_vector(*this, esize, i, index)) {
    Value* e = b.CreateExtractElement(b.CreateBitCast(v, vt), k64(index));
    return e->getType() == i64 ? e : b.CreateZExt(e, i64);
  }
  return band(to64(lshr128(v, b.CreateMul(i, esize))), element_mask(*this, esize));
}

Value* Ctx::with_lane(Value* v, Value* esize, Value* i, Value* x) {
  uint64_t index = 0;
  if (llvm::FixedVectorType* vt = lane_vector(*this, esize, i, index)) {
    Value* e = x->getType() == vt->getElementType() ? x : b.CreateTrunc(x, vt->getElementType());
    return b.CreateBitCast(b.CreateInsertElement(b.CreateBitCast(v, vt), e, k64(index)), i128);
  }
  Value* m = element_mask(*this, esize);
  Value* at = b.CreateMul(i, esize);
  Value* keep = b.CreateNot(shl128(b.CreateZExt(m, i128), at));
  return b.CreateOr(b.CreateAnd(v, keep), shl128(b.CreateZExt(band(x, m), i128), at));
}

// ---------------------------------------------------------------------------------------- state

static llvm::Type* storage_type(Ctx& c, int bits) {
  return llvm::IntegerType::get(c.ctx, bits);
}

static Value* widen(Ctx& c, Value* v, int bits, bool sign) {
  if (bits == 128 || bits == 64) return v;
  return sign ? c.b.CreateSExt(v, c.i64) : c.b.CreateZExt(v, c.i64);
}

void Ctx::enable_state_cache(llvm::BasicBlock* load_bb, std::function<bool(size_t offset)> cacheable) {
  cache_load_bb_ = load_bb;
  cacheable_ = std::move(cacheable);
  cached_.clear();
  state_calls_ = false;
}

bool Ctx::overlaps_cache(size_t offset, int bits) const {
  for (const CachedVar& v : cached_)
    if (offset < v.offset + size_t(v.bits / 8) && v.offset < offset + size_t(bits / 8)) return true;
  return false;
}

Ctx::CachedVar* Ctx::cached(size_t offset, int bits) {
  if (!cache_load_bb_ || (cacheable_ && !cacheable_(offset))) return nullptr;
  for (CachedVar& v : cached_)
    if (v.offset == offset) return v.bits == bits ? &v : nullptr;
  // A new variable is loaded at the function's start: after a helper call (which may have written the state
  // through its pointer) that value could be stale, so from then on new variables stay in memory. Not a
  // local-only one: no helper reads or writes it, and the function sets it before it reads it.
  const bool local_only = local_only_ && local_only_(offset);
  if (overlaps_cache(offset, bits) || (state_calls_ && !local_only)) return nullptr;
  llvm::Type* t = storage_type(*this, bits);
  llvm::AllocaInst* var = local(t);
  llvm::IRBuilder<> lb(cache_load_bb_->getTerminator());
  llvm::LoadInst* ld = lb.CreateLoad(t, lb.CreateConstInBoundsGEP1_64(i8, state, offset));
  tag_register(ld, offset);
  lb.CreateStore(ld, var);
  cached_.push_back({offset, bits, var, false, local_only});
  return &cached_.back();
}

void Ctx::write_back(llvm::IRBuilder<>& at, bool all) {
  write_back_some(at, all ? std::vector<bool>(cached_.size(), true) : written_so_far());
}

std::vector<bool> Ctx::written_so_far() const {
  std::vector<bool> which;
  for (const CachedVar& v : cached_) which.push_back(v.written);
  return which;
}

void Ctx::write_back_some(llvm::IRBuilder<>& at, const std::vector<bool>& which) {
  for (size_t i = 0; i < which.size() && i < cached_.size(); ++i)
    if (which[i] && !cached_[i].local_only)
      at.CreateStore(at.CreateLoad(cached_[i].var->getAllocatedType(), cached_[i].var),
                     at.CreateConstInBoundsGEP1_64(i8, state, cached_[i].offset));
}

void Ctx::write_back_as_at(llvm::IRBuilder<>& at, const std::vector<bool>& which, llvm::Instruction* then) {
  llvm::IRBuilder<> rb(then);
  for (size_t i = 0; i < which.size() && i < cached_.size(); ++i)
    if (which[i] && !cached_[i].local_only)
      at.CreateStore(rb.CreateLoad(cached_[i].var->getAllocatedType(), cached_[i].var),
                     at.CreateConstInBoundsGEP1_64(i8, state, cached_[i].offset));
}

void Ctx::reload(llvm::IRBuilder<>& at) {
  for (CachedVar& v : cached_)
    if (!v.local_only)
      at.CreateStore(
          at.CreateLoad(v.var->getAllocatedType(), at.CreateConstInBoundsGEP1_64(i8, state, v.offset)),
          v.var);
}

void Ctx::set_register_scope(std::function<bool(size_t offset)> is_register) {
  llvm::MDBuilder md(ctx);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("state");
  register_scope_ = llvm::MDNode::get(ctx, {md.createAnonymousAliasScope(domain, "registers")});
  is_register_ = std::move(is_register);
}

void Ctx::tag_register(llvm::Instruction* access, size_t offset) {
  if (register_scope_ && is_register_(offset))
    access->setMetadata(llvm::LLVMContext::MD_alias_scope, register_scope_);
}

void Ctx::not_registers(llvm::Instruction* access) {
  if (register_scope_) access->setMetadata(llvm::LLVMContext::MD_noalias, register_scope_);
}

void Ctx::like_registers(llvm::LoadInst* load) {
  if (register_scope_) load->setMetadata(llvm::LLVMContext::MD_alias_scope, register_scope_);
}

Value* Ctx::load_state(size_t offset, int bits, bool sign) {
  if (offset == pc_offset) return k64(pc);
  if (CachedVar* v = cached(offset, bits))
    return widen(*this, b.CreateLoad(v->var->getAllocatedType(), v->var), bits, sign);
  if (overlaps_cache(offset, bits))
    write_back(b, true); // another width than the cached one: memory must be current
  Value* p = b.CreateConstInBoundsGEP1_64(i8, state, offset);
  llvm::LoadInst* ld = b.CreateLoad(storage_type(*this, bits), p);
  tag_register(ld, offset);
  return widen(*this, ld, bits, sign);
}

void Ctx::store_state(size_t offset, int bits, Value* v) {
  if (bits < 64) v = b.CreateTrunc(v, storage_type(*this, bits));
  if (CachedVar* cv = cached(offset, bits)) {
    b.CreateStore(v, cv->var);
    cv->written = true;
    return;
  }
  const bool overlap = overlaps_cache(offset, bits);
  if (overlap) write_back(b, true);
  tag_register(b.CreateStore(v, b.CreateConstInBoundsGEP1_64(i8, state, offset)), offset);
  if (overlap) reload(b);
}

Value* Ctx::elem_ptr(size_t offset, int bits, Value* index) {
  Value* base = b.CreateConstInBoundsGEP1_64(i8, state, offset);
  return b.CreateInBoundsGEP(storage_type(*this, bits), base, index);
}

Value* Ctx::load_elem(size_t offset, int bits, bool sign, Value* index) {
  // A constant index names one state variable.
  if (is_const(index)) return load_state(offset + const_u64(index) * size_t(bits / 8), bits, sign);
  // A run-time index may reach any element: memory must be current.
  if (cache_load_bb_) write_back(b, true);
  llvm::LoadInst* ld = b.CreateLoad(storage_type(*this, bits), elem_ptr(offset, bits, index));
  return widen(*this, ld, bits, sign);
}

void Ctx::store_elem(size_t offset, int bits, Value* index, Value* v) {
  if (is_const(index)) return store_state(offset + const_u64(index) * size_t(bits / 8), bits, v);
  if (bits < 64) v = b.CreateTrunc(v, storage_type(*this, bits));
  if (cache_load_bb_) write_back(b, true);
  b.CreateStore(v, elem_ptr(offset, bits, index));
  if (cache_load_bb_) reload(b);
}

// ---------------------------------------------------------------------------------------- helpers

Value* Ctx::call_helper(void* fn_addr, Ret ret, bool with_state, std::initializer_list<Value*> args,
                        bool may_fault) {
  std::vector<Value*> a(args);
  Value* result = nullptr;
  if (inline_call && inline_call(fn_addr, a, result)) return result;
  return call_helper_direct(fn_addr, ret, with_state, a, may_fault);
}

Value* Ctx::call_helper_direct(void* fn_addr, Ret ret, bool with_state, const std::vector<Value*>& args,
                               bool may_fault) {
  std::vector<llvm::Type*> params;
  std::vector<Value*> vals;
  if (with_state) {
    params.push_back(ptr);
    vals.push_back(state);
  }
  for (Value* a : args) {
    params.push_back(a->getType());
    vals.push_back(a);
  }
  const Wrapper wrapper =
      preserving_wrapper && with_state && ret != Ret::I128 ? preserving_wrapper(fn_addr) : Wrapper{};
  llvm::Type* rt = wrapper.fn || ret == Ret::Void ? b.getVoidTy() : ret == Ret::I64 ? i64 : i128;
  auto* ft = llvm::FunctionType::get(rt, params, false);
  Value* callee = b.CreateIntToPtr(k64(reinterpret_cast<uintptr_t>(wrapper.fn ? wrapper.fn : fn_addr)), ptr);
  if (before_call) before_call();
  if (with_state && around_call) around_call(fn_addr, false);
  Value* r = last_call = b.CreateCall(ft, callee, vals);
  if (wrapper.fn) {
    last_call->setCallingConv(llvm::CallingConv::PreserveMost);
    if (ret == Ret::I64)
      r = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i8, state, wrapper.result_offset));
  }
  if (with_state && around_call) around_call(fn_addr, true);
  if (with_state && !(keeps_registers && keeps_registers(fn_addr))) state_calls_ = true;
  if (may_fault) check_fault(fn_addr);
  return r;
}

void Ctx::check_fault(void* helper) {
  Value* exc = b.CreateLoad(i8, b.CreateConstInBoundsGEP1_64(i8, state, fault_flag_offset));
  auto* cont = llvm::BasicBlock::Create(ctx, "ok", fn());
  llvm::BasicBlock* exit = fault_exit_for ? fault_exit_for(helper) : nullptr;
  b.CreateCondBr(b.CreateICmpNE(exc, llvm::ConstantInt::get(i8, 0)), exit ? exit : fault_block(), cont,
                 llvm::MDBuilder(ctx).createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(cont);
}

llvm::AllocaInst* Ctx::local(llvm::Type* t) {
  llvm::BasicBlock& entry = fn()->getEntryBlock();
  llvm::IRBuilder<> eb(&entry, entry.begin());
  return eb.CreateAlloca(t);
}

// ---------------------------------------------------------------------------------------- control

void Ctx::emit_if(Value* cond, const std::function<void()>& then_fn, const std::function<void()>& else_fn) {
  Value* c = truth(cond);
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(c)) {
    if (!k->isZero())
      then_fn();
    else if (else_fn)
      else_fn();
    return;
  }
  llvm::Function* f = fn();
  auto* then_bb = llvm::BasicBlock::Create(ctx, "then", f);
  auto* else_bb = llvm::BasicBlock::Create(ctx, "else", f);
  auto* merge = llvm::BasicBlock::Create(ctx, "endif", f);
  b.CreateCondBr(c, then_bb, else_bb);
  bool saved = frame->done;
  ++frame->dynamic_depth;
  const Known before = known_;
  b.SetInsertPoint(then_bb);
  then_fn();
  bool then_done = frame->done;
  if (!then_done) b.CreateBr(merge);
  Known after_then = std::move(known_);
  known_ = before;
  frame->done = saved;
  b.SetInsertPoint(else_bb);
  if (else_fn) else_fn();
  bool else_done = frame->done;
  if (!else_done) b.CreateBr(merge);
  --frame->dynamic_depth;
  frame->done = then_done && else_done;
  // An arm that returned does not reach the merge.
  if (frame->done)
    known_.clear();
  else if (then_done)
    ; // known_ is the else arm's
  else if (else_done)
    known_ = std::move(after_then);
  else
    known_ = meet(std::move(after_then), known_);
  b.SetInsertPoint(merge);
  // Both arms returned: nothing follows on this path (the generated code checks frame->done).
  if (frame->done) b.CreateUnreachable();
}

Ctx::Known Ctx::meet(Known a, const Known& b) {
  for (auto it = a.begin(); it != a.end();) {
    auto other = b.find(it->first);
    it = other != b.end() && other->second == it->second ? std::next(it) : a.erase(it);
  }
  return a;
}

Value* Ctx::select_pure(Value* cond, const std::function<Value*()>& a, const std::function<Value*()>& bf) {
  Value* c = truth(cond);
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(c)) return k->isZero() ? bf() : a();
  Value* va = a();
  Value* vb = bf();
  return b.CreateSelect(c, va, vb);
}

Value* Ctx::select_lazy(Value* cond, const std::function<Value*()>& a, const std::function<Value*()>& bf) {
  Value* c = truth(cond);
  if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(c)) return k->isZero() ? bf() : a();
  llvm::Function* f = fn();
  auto* a_bb = llvm::BasicBlock::Create(ctx, "sel.a", f);
  auto* b_bb = llvm::BasicBlock::Create(ctx, "sel.b", f);
  auto* merge = llvm::BasicBlock::Create(ctx, "sel", f);
  b.CreateCondBr(c, a_bb, b_bb);
  const Known before = known_; // an expression assigns no local of its own frame
  b.SetInsertPoint(a_bb);
  Value* va = a();
  known_ = before;
  llvm::BasicBlock* a_end = b.GetInsertBlock();
  b.CreateBr(merge);
  b.SetInsertPoint(b_bb);
  Value* vb = bf();
  llvm::BasicBlock* b_end = b.GetInsertBlock();
  b.CreateBr(merge);
  known_ = before;
  b.SetInsertPoint(merge);
  llvm::PHINode* phi = b.CreatePHI(va->getType(), 2);
  phi->addIncoming(va, a_end);
  phi->addIncoming(vb, b_end);
  return phi;
}

void Ctx::ret(Value* v) {
  Frame& fr = *frame;
  if (fr.dynamic_depth == 0 && !fr.ret_bb) {
    fr.direct = v;
    fr.done = true;
    return;
  }
  if (!fr.ret_bb) fr.ret_bb = llvm::BasicBlock::Create(ctx, "ret", fn());
  if (fr.ret_type && !fr.slot) fr.slot = local(fr.ret_type);
  if (fr.ret_type) b.CreateStore(v, fr.slot);
  b.CreateBr(fr.ret_bb);
  fr.done = true;
}

Value* Ctx::finish_frame() {
  Frame& fr = *frame;
  if (!fr.ret_bb) return fr.direct;
  // A return inside a run-time `if` happened: every path meets in ret_bb.
  if (!fr.done) {
    if (fr.direct && fr.ret_type) b.CreateStore(fr.direct, fr.slot);
    b.CreateBr(fr.ret_bb);
  }
  b.SetInsertPoint(fr.ret_bb);
  return fr.ret_type ? static_cast<Value*>(b.CreateLoad(fr.ret_type, fr.slot)) : nullptr;
}

} // namespace vplat::adljit
