// Shared helpers for the Mali-G71 tests: guest RAM on a Bus, page tables built the way Linux's io-pgtable
// (ARM_MALI_LPAE) builds them for panfrost, and job descriptors packed by hand from Mesa's v6.xml layout.
#pragma once
#include "devices/bus.h"
#include <cstdint>
#include <cstring>
#include <gtest/gtest.h>

namespace gputest {

constexpr uint64_t kRamBase = 0x80000000;
constexpr uint64_t kRamSize = 64ull << 20;
constexpr uint64_t kTableArea = kRamBase + 0x100000; // page tables live here (bump allocated)
constexpr uint64_t kDataPa = kRamBase + 0x400000;    // what tests map their buffers to

// Descriptor bits as io-pgtable writes them for ARM_MALI_LPAE.
constexpr uint64_t kTable = 0x3;
constexpr uint64_t kLeaf = 0x1;
constexpr uint64_t kAttrIdx1 = 1ull << 2; // cached (IOMMU_CACHE)
constexpr uint64_t kRead = 1ull << 6;
constexpr uint64_t kWrite = 1ull << 7;
constexpr uint64_t kShOuter = 2ull << 8;
constexpr uint64_t kXn = 3ull << 53;
constexpr uint64_t kRw = kAttrIdx1 | kRead | kWrite | kShOuter;
constexpr uint64_t kRo = kAttrIdx1 | kRead | kShOuter;

class PageTables {
public:
  explicit PageTables(vplat::dev::Bus& bus) : bus_(bus) { pgd_ = alloc(); }
  uint64_t pgd() const { return pgd_; }

  // Maps one leaf at `level` (3 = 4 KiB page, 2 = 2 MiB block, 1 = 1 GiB block).
  void map(uint64_t va, uint64_t pa, uint64_t attrs, unsigned level = 3) {
    uint64_t table = pgd_;
    for (unsigned l = 0; l < level; l++) {
      uint64_t slot = table + ((va >> (39 - 9 * l)) & 0x1ff) * 8;
      uint64_t d = get(slot);
      if ((d & 3) != kTable) {
        d = alloc() | kTable;
        set(slot, d);
      }
      table = d & 0x0000fffffffff000ull;
    }
    set(table + ((va >> (39 - 9 * level)) & 0x1ff) * 8, pa | attrs | kLeaf);
  }
  // Writes a raw descriptor at `level` for `va` (creating the tables above it).
  void raw(uint64_t va, unsigned level, uint64_t desc) {
    uint64_t table = pgd_;
    for (unsigned l = 0; l < level; l++) {
      uint64_t slot = table + ((va >> (39 - 9 * l)) & 0x1ff) * 8;
      uint64_t d = get(slot);
      if ((d & 3) != kTable) {
        d = alloc() | kTable;
        set(slot, d);
      }
      table = d & 0x0000fffffffff000ull;
    }
    set(table + ((va >> (39 - 9 * level)) & 0x1ff) * 8, desc);
  }

private:
  vplat::dev::Bus& bus_;
  uint64_t pgd_ = 0, next_ = kTableArea;
  uint64_t alloc() {
    uint64_t p = next_;
    next_ += 4096;
    uint8_t zero[4096] = {};
    EXPECT_TRUE(bus_.copy_to(p, zero, sizeof zero));
    return p;
  }
  uint64_t get(uint64_t pa) {
    uint64_t v = 0;
    EXPECT_TRUE(bus_.copy_from(pa, &v, 8));
    return v;
  }
  void set(uint64_t pa, uint64_t v) { EXPECT_TRUE(bus_.copy_to(pa, &v, 8)); }
};

// A v6 job header: word 4 = Is64b | Type << 1 | Barrier << 8 | Index << 16; word 5 = dep1 | dep2 << 16.
inline void put_header(vplat::dev::Bus& bus, uint64_t pa, uint32_t type, uint16_t index, uint64_t next,
                       uint16_t dep1 = 0, uint16_t dep2 = 0, bool barrier = false, bool is64 = true) {
  uint8_t h[32] = {};
  uint32_t w4 = (is64 ? 1u : 0u) | (type << 1) | (barrier ? 1u << 8 : 0u) | (uint32_t{index} << 16);
  uint32_t w5 = dep1 | (uint32_t{dep2} << 16);
  std::memcpy(h + 16, &w4, 4);
  std::memcpy(h + 20, &w5, 4);
  std::memcpy(h + 24, &next, 8);
  ASSERT_TRUE(bus.copy_to(pa, h, sizeof h));
}

// Write Value payload at +32: Address (64), Type (32) at +8, Immediate Value (64) at +16.
inline void put_write_value(vplat::dev::Bus& bus, uint64_t job_pa, uint64_t target, uint32_t type, uint64_t imm) {
  uint8_t p[24] = {};
  std::memcpy(p, &target, 8);
  std::memcpy(p + 8, &type, 4);
  std::memcpy(p + 16, &imm, 8);
  ASSERT_TRUE(bus.copy_to(job_pa + 32, p, sizeof p));
}

inline uint32_t ram32(vplat::dev::Bus& bus, uint64_t pa) {
  uint32_t v = 0;
  EXPECT_TRUE(bus.copy_from(pa, &v, 4));
  return v;
}
inline uint64_t ram64(vplat::dev::Bus& bus, uint64_t pa) {
  uint64_t v = 0;
  EXPECT_TRUE(bus.copy_from(pa, &v, 8));
  return v;
}

} // namespace gputest
