// The memory helpers archdesc/bifrost/message.adl declares: segment-relative loads and stores (global, WLS, TLS,
// UBO) and atomics. Every access ends in GpuMmu, so a shader reaches nothing but guest RAM through its page
// tables. Atomics translate the word's address and then operate on the guest RAM bytes with host atomics
// (std::atomic_ref), so workgroups running on different host threads see each read-modify-write whole.
#include "gpu-bifrost/mali_regs.h"
#include "gpu-bifrost/shader_thread.h"
#include <atomic>

namespace vplat::gen::bifrost {

namespace {

namespace g = vplat::gpu;

// GPU exception codes for shader faults (panfrost_device.c's exception table); which one the hardware raises
// for an out-of-window segment offset is not public, these are the closest by name.
constexpr uint32_t kInstrTlsFault = 0x54;
constexpr uint32_t kInstrAlignFault = 0x56;
constexpr uint32_t kAddrRangeFault = 0x5a;

enum Seg : uint64_t { kSegGlobal = 1, kSegWls = 2, kSegStream = 3, kSegUbo = 4, kSegTl = 7 };

void raise_mmu(State& s, g::bifrost::ShaderThread& t) {
  s.FAULT = t.mmu_fault.exception ? t.mmu_fault.exception : g::exc::JOB_BUS_FAULT;
}

// The GPU virtual address an access of `bytes` at segment address `addr` touches, or false with FAULT set.
bool resolve(State& s, uint64_t seg, uint64_t addr, uint64_t bytes, uint64_t& va) {
  auto& t = g::bifrost::thread_of(s);
  auto in_window = [&](const g::bifrost::SegmentWindow& w, uint32_t code) {
    if (w.size < bytes || addr > w.size - bytes) {
      s.FAULT = code;
      return false;
    }
    va = w.base + addr;
    return true;
  };
  switch (seg) {
  case kSegGlobal:
  case kSegStream: va = addr; return true;
  case kSegWls: return in_window(t.wls, kAddrRangeFault);
  case kSegTl: return in_window(t.tls, kInstrTlsFault);
  case kSegUbo: {
    // addr = {UBO index : byte offset}.
    uint64_t index = addr >> 32, offset = addr & 0xffffffffu;
    uint64_t desc = 0;
    if (index >= t.ubo_count) {
      s.FAULT = kAddrRangeFault;
      return false;
    }
    if (!t.mmu || !t.mmu->read(t.as, t.ubo_table + 8 * index, &desc, 8, t.mmu_fault, g::Access::Read)) {
      raise_mmu(s, t);
      return false;
    }
    uint64_t size = ((desc & 0xfff) + 1) * 16;
    if (offset + bytes > size) {
      s.FAULT = kAddrRangeFault;
      return false;
    }
    va = ((desc >> 12) << 4) + offset;
    return true;
  }
  default: s.FAULT = 0x51; return false; // reserved segment: the decoder's guards keep these out
  }
}

uint32_t apply(uint64_t op, uint32_t old, uint32_t arg, uint32_t compare) {
  switch (op) {
  case 2: return old + arg;
  case 3: return arg;                              // exchange
  case 4: return old == compare ? arg : old;       // compare-exchange
  case 8: return static_cast<int32_t>(arg) < static_cast<int32_t>(old) ? arg : old;
  case 9: return static_cast<int32_t>(arg) > static_cast<int32_t>(old) ? arg : old;
  case 10: return arg < old ? arg : old;
  case 11: return arg > old ? arg : old;
  case 12: return old & arg;
  case 13: return old | arg;
  case 14: return old ^ arg;
  default: return old;
  }
}

} // namespace

uint64_t seg_load(State& s, uint64_t seg, uint64_t addr, uint64_t bytes) {
  auto& t = g::bifrost::thread_of(s);
  uint64_t va;
  if (!resolve(s, seg, addr, bytes, va)) return 0;
  uint32_t v = 0;
  if (!t.mmu || !t.mmu->read(t.as, va, &v, bytes, t.mmu_fault, g::Access::Read)) {
    raise_mmu(s, t);
    return 0;
  }
  return v;
}

void seg_store(State& s, uint64_t seg, uint64_t addr, uint64_t bytes, uint64_t value) {
  auto& t = g::bifrost::thread_of(s);
  uint64_t va;
  if (seg == kSegUbo) { // read-only segment; the decoder's guards keep stores out, this keeps the helper honest
    s.FAULT = 0x51;
    return;
  }
  if (!resolve(s, seg, addr, bytes, va)) return;
  uint32_t v = static_cast<uint32_t>(value);
  if (!t.mmu || !t.mmu->write(t.as, va, &v, bytes, t.mmu_fault)) raise_mmu(s, t);
}

uint64_t seg_atomic(State& s, uint64_t seg, uint64_t addr, uint64_t op, uint64_t arg, uint64_t compare) {
  auto& t = g::bifrost::thread_of(s);
  uint64_t va;
  if (!resolve(s, seg, addr, 4, va)) return 0;
  if (va & 3) {
    s.FAULT = kInstrAlignFault;
    return 0;
  }
  uint8_t* p = t.mmu ? t.mmu->host_pointer(t.as, va, 4, g::Access::Atomic, t.mmu_fault) : nullptr;
  if (!p) {
    raise_mmu(s, t);
    return 0;
  }
  // Guest RAM is page-aligned host memory, so a 4-byte-aligned guest address is a 4-byte-aligned host address.
  std::atomic_ref<uint32_t> word(*reinterpret_cast<uint32_t*>(p));
  uint32_t old = word.load(std::memory_order_relaxed);
  uint32_t a = static_cast<uint32_t>(arg), c = static_cast<uint32_t>(compare);
  while (!word.compare_exchange_weak(old, apply(op, old, a, c), std::memory_order_seq_cst,
                                     std::memory_order_relaxed)) {
  }
  return old;
}

uint64_t seg_base(State& s, uint64_t seg) {
  auto& t = g::bifrost::thread_of(s);
  return seg == kSegWls ? t.wls.base : seg == kSegTl ? t.tls.base : 0;
}

} // namespace vplat::gen::bifrost
