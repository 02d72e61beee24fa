#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/mali_regs.h"
#include <algorithm>
#include <cstring>

namespace vplat::gpu {

namespace {
constexpr uint64_t kPageSize = 4096;
constexpr uint64_t kDescType = 0x3;
constexpr uint64_t kTypeTable = 0x3;
constexpr uint64_t kTypeLeaf = 0x1;
constexpr uint64_t kAttrRead = 1ull << 6;
constexpr uint64_t kAttrWrite = 1ull << 7;
constexpr uint64_t kAttrXn = 3ull << 53;
// Output address field of a descriptor: bits [47:12].
constexpr uint64_t kAddrMask = 0x0000fffffffff000ull;
constexpr uint64_t kTranstabAdrmodeMask = 0x3;
constexpr uint64_t kTranscfgAdrmodeMask = 0xf;

MmuFault make_fault(uint32_t code, uint64_t va, Access access) {
  MmuFault f;
  f.kind = MmuFault::Kind::Mmu;
  f.exception = code;
  f.va = va;
  f.access = access;
  return f;
}
} // namespace

void GpuMmu::reset() {
  for (auto& s : spaces_) s = Space{};
  stats_ = Stats{};
}

void GpuMmu::update(unsigned as, uint64_t transtab, uint64_t memattr, uint64_t transcfg) {
  if (as >= kAddressSpaces) return;
  Space& s = spaces_[as];
  s.transtab = transtab;
  s.memattr = memattr;
  s.transcfg = transcfg;
  invalidate(as);
}

void GpuMmu::invalidate(unsigned as) {
  if (as >= kAddressSpaces) return;
  for (auto& e : spaces_[as].tlb) e.valid = false;
}

GpuMmu::Mode GpuMmu::mode_of(const Space& s) {
  // TRANSCFG (Bifrost) overrides TRANSTAB's mode when it is non-zero. Only its unmapped and identity modes
  // are modelled; the AArch64 table formats (6, 8) need GPUs with AARCH64_MMU, which G71 lacks, so they
  // translate nothing (every access faults).
  switch (s.transcfg & kTranscfgAdrmodeMask) {
  case 0: break;
  case 2: return Mode::Identity;
  default: return Mode::Unmapped;
  }
  switch (s.transtab & kTranstabAdrmodeMask) {
  case 2: return Mode::Identity;
  case 3: return Mode::Table;
  default: return Mode::Unmapped; // 0 unmapped; 1 is reserved
  }
}

bool GpuMmu::permitted(const TlbEntry& e, Access access) {
  switch (access) {
  case Access::Read: return e.r;
  case Access::Write: return e.w;
  case Access::Execute: return e.r && e.x;
  case Access::Atomic: return e.r && e.w;
  }
  return false;
}

bool GpuMmu::walk(Space& s, uint64_t va, Access access, TlbEntry& out, MmuFault& fault) {
  stats_.walks++;
  uint64_t table = s.transtab & kAddrMask;
  for (unsigned level = 0; level < 4; level++) {
    unsigned shift = 39 - 9 * level;
    uint64_t index = (va >> shift) & 0x1ff;
    uint64_t desc = 0;
    if (!bus_.copy_from(table + index * 8, &desc, 8)) {
      // The table itself is not in RAM: a bus error during the walk.
      fault = make_fault(exc::TRANSTAB_BUS_FAULT_0 + level, va, access);
      fault.bus_fault_irq = true;
      return false;
    }
    uint64_t type = desc & kDescType;
    uint64_t next = desc & kAddrMask;
    if (type == kTypeTable && level < 3) {
      if (next >> kPaBits) {
        fault = make_fault(exc::ADDR_SIZE_FAULT_OUT0 + level, va, access);
        return false;
      }
      table = next;
      continue;
    }
    // A leaf: a block at levels 1 and 2, a page at level 3. Level 0 has no blocks (512 GiB), and type 3 at
    // level 3 is not a page in this format (Mali pages are type 1); both are invalid.
    if (type != kTypeLeaf || level == 0) {
      fault = make_fault(exc::TRANSLATION_FAULT_0 + level, va, access);
      return false;
    }
    if (next >> kPaBits) {
      fault = make_fault(exc::ADDR_SIZE_FAULT_OUT0 + level, va, access);
      return false;
    }
    // The block's base plus the VA bits below the level's shift, down to page granularity.
    uint64_t block_mask = (1ull << shift) - 1;
    uint64_t pa = (next & ~block_mask) | (va & block_mask);
    out.valid = true;
    out.vpage = va >> 12;
    out.ppage = pa >> 12;
    out.level = static_cast<uint8_t>(level);
    out.r = desc & kAttrRead;
    out.w = desc & kAttrWrite;
    out.x = !(desc & kAttrXn);
    return true;
  }
  return false; // not reached: level 3 always returns
}

bool GpuMmu::translate(unsigned as, uint64_t va, Access access, uint64_t& pa, MmuFault& fault) {
  if (as >= kAddressSpaces) {
    fault = make_fault(exc::TRANSLATION_FAULT_0, va, access);
    return false;
  }
  Space& s = spaces_[as];
  if (va >> kVaBits) {
    fault = make_fault(exc::ADDR_SIZE_FAULT_IN0, va, access);
    return false;
  }
  switch (mode_of(s)) {
  case Mode::Unmapped: fault = make_fault(exc::TRANSLATION_FAULT_0, va, access); return false;
  case Mode::Identity:
    if (va >> kPaBits) {
      fault = make_fault(exc::ADDR_SIZE_FAULT_OUT0, va, access);
      return false;
    }
    pa = va;
    return true;
  case Mode::Table: break;
  }
  uint64_t vpage = va >> 12;
  const TlbEntry* hit = nullptr;
  for (const auto& e : s.tlb)
    if (e.valid && e.vpage == vpage) {
      hit = &e;
      break;
    }
  TlbEntry fresh;
  if (hit) {
    stats_.tlb_hits++;
  } else {
    stats_.tlb_misses++;
    if (!walk(s, va, access, fresh, fault)) return false;
    pages_.insert(static_cast<uint64_t>(&s - spaces_.data()) << 52 | vpage);
    // Only valid translations are cached (a fault is re-walked next time, after the driver fixes the tables).
    s.tlb[s.next_victim] = fresh;
    s.next_victim = (s.next_victim + 1) % kTlbEntries;
    hit = &fresh;
  }
  if (!permitted(*hit, access)) {
    fault = make_fault(exc::PERMISSION_FAULT_0 + hit->level, va, access);
    return false;
  }
  pa = (hit->ppage << 12) | (va & (kPageSize - 1));
  return true;
}

bool GpuMmu::read(unsigned as, uint64_t va, void* dst, size_t len, MmuFault& fault, Access access) {
  auto* out = static_cast<uint8_t*>(dst);
  while (len) {
    size_t chunk = std::min<uint64_t>(len, kPageSize - (va & (kPageSize - 1)));
    uint64_t pa;
    if (!translate(as, va, access, pa, fault)) return false;
    if (!bus_.copy_from(pa, out, chunk)) {
      fault = MmuFault{MmuFault::Kind::Bus, exc::JOB_BUS_FAULT, va, access, false};
      return false;
    }
    out += chunk;
    va += chunk;
    len -= chunk;
  }
  return true;
}

uint8_t* GpuMmu::host_pointer(unsigned as, uint64_t va, size_t len, Access access, MmuFault& fault) {
  uint64_t pa;
  if (!translate(as, va, access, pa, fault)) return nullptr;
  uint8_t* p = (va & (kPageSize - 1)) + len <= kPageSize ? bus_.ram_pointer(pa, len) : nullptr;
  if (!p) fault = MmuFault{MmuFault::Kind::Bus, exc::JOB_BUS_FAULT, va, access, false};
  return p;
}

bool GpuMmu::write(unsigned as, uint64_t va, const void* src, size_t len, MmuFault& fault) {
  auto* in = static_cast<const uint8_t*>(src);
  while (len) {
    size_t chunk = std::min<uint64_t>(len, kPageSize - (va & (kPageSize - 1)));
    uint64_t pa;
    if (!translate(as, va, Access::Write, pa, fault)) return false;
    if (!bus_.copy_to(pa, in, chunk)) {
      fault = MmuFault{MmuFault::Kind::Bus, exc::JOB_BUS_FAULT, va, Access::Write, false};
      return false;
    }
    in += chunk;
    va += chunk;
    len -= chunk;
  }
  return true;
}

} // namespace vplat::gpu
