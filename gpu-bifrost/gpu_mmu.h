// The Mali GPU MMU: per address space translation of GPU virtual addresses through the legacy "Mali LPAE"
// page tables that Linux's io-pgtable (ARM_MALI_LPAE) writes for panfrost, with a small TLB per address
// space. Facts (../shared/reference/mali-g71.md section 3, io-pgtable-arm.c, panfrost_regs.h):
//  - always 4 levels, 4 KiB granule, 48-bit VA: indexes VA[47:39], [38:30], [29:21], [20:12];
//  - descriptor type [1:0]: 3 = table at levels 0..2; 1 = leaf (block at levels 1..2, page at level 3);
//    anything else is invalid (translation fault);
//  - leaf attributes: read permission bit 6, write permission bit 7, execute-never bits 53/54; no access flag;
//  - TRANSTAB = table base [47:12] | ADRMODE [1:0] (0 unmapped, 2 identity, 3 table); TRANSCFG mode 0 means
//    "use TRANSTAB's mode" (legacy), 1 unmapped, 2 identity.
// The engine only translates and caches; the device (mali_g71.cpp) turns faults into register state and IRQs.
// Memory goes through devices::Bus RAM only (copy_from/copy_to): a GPU access never reaches anything else.
#pragma once
#include "devices/bus.h"
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_set>

namespace vplat::gpu {

// AS_FAULTSTATUS[9:8] access type encoding.
enum class Access : uint8_t { Atomic = 0, Execute = 1, Read = 2, Write = 3 };

struct MmuFault {
  enum class Kind : uint8_t { None, Mmu, Bus };
  Kind kind = Kind::None;
  uint32_t exception = 0; // exception code (exc::*)
  uint64_t va = 0;        // faulting GPU virtual address
  Access access = Access::Read;
  bool bus_fault_irq = false; // a page-table walk bus error: reported on the AS's bus-fault IRQ bit (as + 16)
  // FAULTSTATUS as the register holds it: exception type [7:0], access type [9:8], source id [31:16] = 0.
  uint32_t status() const { return exception | (static_cast<uint32_t>(access) << 8); }
};

class GpuMmu {
public:
  static constexpr unsigned kAddressSpaces = 8;
  static constexpr unsigned kTlbEntries = 16;
  static constexpr unsigned kVaBits = 48;
  static constexpr unsigned kPaBits = 40;

  explicit GpuMmu(dev::Bus& bus) : bus_(bus) { reset(); }

  // Back to the reset state: every address space unmapped, TLBs empty.
  void reset();

  // AS_COMMAND UPDATE: the address space starts using these TRANSTAB/MEMATTR/TRANSCFG values; its TLB is
  // invalidated (the new tables may differ in anything).
  void update(unsigned as, uint64_t transtab, uint64_t memattr, uint64_t transcfg);
  // UNLOCK, FLUSH_PT, FLUSH_MEM: invalidate the AS's TLB. The model invalidates all of it rather than just
  // the locked region: a superset of what the hardware guarantees, so a correct driver cannot tell.
  void invalidate(unsigned as);

  // Translates one address for one kind of access. On failure returns false and fills `fault`
  // (kind Mmu: translation/permission/address-size/page-table bus fault).
  bool translate(unsigned as, uint64_t va, Access access, uint64_t& pa, MmuFault& fault);

  // Reads/writes `len` bytes of GPU virtual memory, page by page. A physical address outside RAM gives a
  // fault of kind Bus (the access failed after translation: the job sees a bus fault).
  bool read(unsigned as, uint64_t va, void* dst, size_t len, MmuFault& fault, Access access = Access::Read);
  bool write(unsigned as, uint64_t va, const void* src, size_t len, MmuFault& fault);
  // Host pointer to the guest RAM behind [va, va+len) (which must not cross a page), for read-modify-write
  // accesses that must be atomic against other host threads (shader atomics). nullptr with `fault` filled when
  // the translation fails or the physical range is not RAM (kind Bus).
  uint8_t* host_pointer(unsigned as, uint64_t va, size_t len, Access access, MmuFault& fault);

  struct Stats {
    uint64_t tlb_hits = 0, tlb_misses = 0, walks = 0;
  };
  const Stats& stats() const { return stats_; }
  // Distinct (address space, page) translations made through page tables since the MMU was built (statistics:
  // the GPU pages a run touched). A set insert per TLB miss only.
  size_t pages_translated() const { return pages_.size(); }
  uint64_t transtab(unsigned as) const { return as < kAddressSpaces ? spaces_[as].transtab : 0; }
  // The address space translates nothing (TRANSTAB/TRANSCFG mode "unmapped": never enabled, or disabled
  // by the driver to kill the jobs using it).
  bool translation_disabled(unsigned as) const {
    return as >= kAddressSpaces || mode_of(spaces_[as]) == Mode::Unmapped;
  }

private:
  struct TlbEntry {
    bool valid = false;
    uint64_t vpage = 0; // va >> 12
    uint64_t ppage = 0; // pa >> 12
    uint8_t level = 3;  // the lookup level of the leaf, for permission-fault codes
    bool r = false, w = false, x = false;
  };
  struct Space {
    uint64_t transtab = 0, memattr = 0, transcfg = 0;
    std::array<TlbEntry, kTlbEntries> tlb{};
    unsigned next_victim = 0;
  };
  enum class Mode { Unmapped, Identity, Table };

  dev::Bus& bus_;
  std::array<Space, kAddressSpaces> spaces_{};
  Stats stats_;
  std::unordered_set<uint64_t> pages_; // address space << 52 | virtual page

  static Mode mode_of(const Space& s);
  bool walk(Space& s, uint64_t va, Access access, TlbEntry& out, MmuFault& fault);
  static bool permitted(const TlbEntry& e, Access access);
};

} // namespace vplat::gpu
