// Stage-1 translation on page tables built by hand; expected addresses and fault codes follow the Arm ARM
// (D5.2 translation tables, D5.4 permissions, ISS encodings in D17).
#include "cpu-dbt/a64_mmu.h"
#include <gtest/gtest.h>
#include <cstring>
#include <map>

using namespace vplat::cpu;

namespace {

// A sparse physical memory holding the tables.
struct Tables {
  std::map<uint64_t, uint64_t> words;
  void set(uint64_t table, unsigned index, uint64_t desc) { words[table + 8 * index] = desc; }
  PhysRead64 reader() {
    return [this](uint64_t pa, uint64_t& v) {
      if (pa >= 0x100000000ull) return false;
      auto it = words.find(pa);
      v = it == words.end() ? 0 : it->second;
      return true;
    };
  }
};

constexpr uint64_t kTable = 3, kPage = 3, kBlock = 1, kAF = 1ull << 10;
constexpr uint64_t kApEl0 = 1ull << 6, kApRO = 1ull << 7, kUXN = 1ull << 54, kPXN = 1ull << 53;

// TCR: T0SZ = T1SZ = 16 (48-bit), 4K granules for both halves (TG1 = 0b10), 40-bit IPS.
constexpr uint64_t kTcr48 = 16 | (16ull << 16) | (2ull << 30) | (2ull << 32);

struct Fixture {
  Tables t;
  TranslationRegs regs;
  Fixture() {
    regs.sctlr = 1;
    regs.tcr = kTcr48;
    regs.ttbr0 = 0x1000;
    regs.ttbr1 = 0x8000 | (5ull << 48);
    // TTBR0: VA 0x0000_0000_4020_3000 -> L0[0] L1[1] L2[1] L3[3]
    t.set(0x1000, 0, 0x2000 | kTable);
    t.set(0x2000, 1, 0x3000 | kTable);
    t.set(0x3000, 1, 0x4000 | kTable);
    t.set(0x4000, 3, 0x00abc000 | kPage | kAF | kApEl0);
    // A read-only, EL1-only page next to it, and one without the access flag.
    t.set(0x4000, 4, 0x00abd000 | kPage | kAF | kApRO);
    t.set(0x4000, 5, 0x00abe000 | kPage | kApEl0);
    // A 2 MiB block at L2[2] (VA 0x4040_0000), EL0 read-write but EL1-execute-never by PXN.
    t.set(0x3000, 2, 0x40000000 | kBlock | kAF | kApEl0 | kPXN);
    // TTBR1: VA 0xffff_0000_0000_0000 + 1 GiB block at L1[0] of L0[0]
    t.set(0x8000, 0, 0x9000 | kTable);
    t.set(0x9000, 0, 0x80000000 | kBlock | kAF | kUXN | (1ull << 11));
  }
  Translation tr(uint64_t va, Access a = Access::Read, unsigned el = 1) { return translate(regs, va, a, el, t.reader()); }
};

} // namespace

TEST(Mmu, MmuOffIsFlat) {
  Fixture f;
  f.regs.sctlr = 0;
  auto r = f.tr(0x12345678, Access::Fetch, 0);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.pa, 0x12345678u);
  EXPECT_EQ(f.tr(1ull << 40).fault, fsc::kAddressSize);
}

TEST(Mmu, FourLevelPageWalk) {
  Fixture f;
  auto r = f.tr(0x0000000040203123ull);
  ASSERT_TRUE(r.ok) << int(r.fault);
  EXPECT_EQ(r.pa, 0x00abc123u);
  EXPECT_EQ(r.page_mask, 0xfffu);
  EXPECT_TRUE(permits(r, Access::Write, 0));
  EXPECT_FALSE(permits(r, Access::Fetch, 1)); // writable at EL0, so never executable at EL1
}

TEST(Mmu, BlocksTranslateWholeRanges) {
  Fixture f;
  auto r = f.tr(0x0000000040456789ull, Access::Read, 0);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.pa, 0x40056789u);
  EXPECT_EQ(r.page_mask, 0x1fffffu);
  auto k = f.tr(0xffff000012345678ull);
  ASSERT_TRUE(k.ok);
  EXPECT_EQ(k.pa, 0x92345678u);
  EXPECT_FALSE(k.global);
  EXPECT_EQ(k.asid, 0); // TCR.A1 = 0: the ASID comes from TTBR0
  f.regs.tcr |= 1ull << 22;
  EXPECT_EQ(f.tr(0xffff000012345678ull).asid, 5);
}

TEST(Mmu, FaultsCarryTheirLevel) {
  Fixture f;
  EXPECT_EQ(f.tr(0x0000008000000000ull).fault, fsc::kTranslation + 0); // L0[1] empty
  EXPECT_EQ(f.tr(0x0000000000000000ull).fault, fsc::kTranslation + 1); // L1[0] empty
  EXPECT_EQ(f.tr(0x0000000040206000ull).fault, fsc::kTranslation + 3); // L3[6] empty
  EXPECT_EQ(f.tr(0x0000000040205000ull).fault, fsc::kAccessFlag + 3);
  EXPECT_EQ(f.tr(0x0000000040204000ull, Access::Write).fault, fsc::kPermission + 3);
  EXPECT_EQ(f.tr(0x0000000040204000ull, Access::Read, 0).fault, fsc::kPermission + 3);
  EXPECT_EQ(f.tr(0x0000000040400000ull, Access::Fetch, 1).fault, fsc::kPermission + 2);
  EXPECT_EQ(f.tr(0xffff000000000000ull, Access::Fetch, 0).fault, fsc::kPermission + 1);
}

TEST(Mmu, AddressesOutsideBothRangesFaultAtLevelZero) {
  Fixture f;
  EXPECT_EQ(f.tr(0x0001000000000000ull).fault, fsc::kTranslation);
  EXPECT_EQ(f.tr(0xfffe000000000000ull).fault, fsc::kTranslation);
  f.regs.tcr |= 1ull << 7; // EPD0: no walks through TTBR0
  EXPECT_EQ(f.tr(0x0000000040203000ull).fault, fsc::kTranslation);
}

TEST(Mmu, TopByteIgnoredForDataOnly) {
  Fixture f;
  f.regs.tcr |= 1ull << 37; // TBI0
  EXPECT_TRUE(f.tr(0x5a00000040203000ull).ok);
  EXPECT_EQ(f.tr(0x5a00000040203000ull, Access::Fetch).fault, fsc::kTranslation);
}

TEST(Mmu, SmallerInputRangeStartsAtLevelOne) {
  Fixture f;
  f.regs.tcr = (f.regs.tcr & ~0x3full) | 25; // T0SZ = 25: 39-bit, start at level 1 of table 0x2000
  f.regs.ttbr0 = 0x2000;
  auto r = f.tr(0x0000000040203010ull & ((1ull << 39) - 1));
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.pa, 0x00abc010u);
}

TEST(Mmu, WalkIntoNothingIsAnExternalAbortOnTheWalk) {
  Fixture f;
  f.t.set(0x4000, 7, 0x00abf000 | kPage | kAF);
  f.t.set(0x3000, 3, 0x200000000ull | kTable); // table beyond the tables' memory
  EXPECT_EQ(f.tr(0x0000000040600000ull).fault, fsc::kExternalWalk + 3);
}
