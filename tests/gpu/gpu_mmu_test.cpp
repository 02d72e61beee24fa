// GPU MMU: page-table walks at every level through tables built as io-pgtable's Mali LPAE format builds
// them, permissions, every fault type, and the TLB. Expected values follow from the format (VA split
// [47:39]/[38:30]/[29:21]/[20:12]) and panfrost's exception codes, worked out by hand.
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/mali_regs.h"
#include "gpu_test_util.h"

using namespace vplat;
using namespace vplat::gpu;
using namespace gputest;

namespace {

constexpr uint64_t kTranstabTable = 0x3 | (1u << 2); // ADRMODE_TABLE | READ_INNER, as panfrost writes it

class GpuMmuTest : public ::testing::Test {
protected:
  dev::Bus bus;
  std::unique_ptr<PageTables> pt;
  std::unique_ptr<GpuMmu> mmu;
  void SetUp() override {
    bus.add_ram(kRamBase, kRamSize);
    pt = std::make_unique<PageTables>(bus);
    mmu = std::make_unique<GpuMmu>(bus);
  }
  void enable(unsigned as = 0) { mmu->update(as, pt->pgd() | kTranstabTable, 0x888d88, 0); }
  bool tr(uint64_t va, Access a, uint64_t& pa, MmuFault& f, unsigned as = 0) { return mmu->translate(as, va, a, pa, f); }
};

TEST_F(GpuMmuTest, PageAtLevel3) {
  pt->map(0x2000000, kDataPa, kRw);
  enable();
  uint64_t pa = 0;
  MmuFault f;
  ASSERT_TRUE(tr(0x2000123, Access::Read, pa, f));
  EXPECT_EQ(pa, kDataPa + 0x123);
  ASSERT_TRUE(tr(0x2000ffc, Access::Write, pa, f));
  EXPECT_EQ(pa, kDataPa + 0xffc);
  // The neighbouring page is not mapped: its level-3 descriptor is 0.
  EXPECT_FALSE(tr(0x2001000, Access::Read, pa, f));
  EXPECT_EQ(f.kind, MmuFault::Kind::Mmu);
  EXPECT_EQ(f.exception, 0xc3u);
  EXPECT_EQ(f.va, 0x2001000u);
  EXPECT_EQ(f.status(), 0xc3u | (2u << 8));
}

TEST_F(GpuMmuTest, BlocksAtLevels1And2) {
  // 2 MiB block at VA 0x40000000 + 2M -> PA kRamBase + 2M (2 MiB aligned); 1 GiB block at VA 0x80_0000_0000.
  pt->map(0x40200000, kRamBase + 0x200000, kRw, 2);
  pt->map(0x8000000000ull, kRamBase, kRo, 1);
  enable();
  uint64_t pa;
  MmuFault f;
  ASSERT_TRUE(tr(0x40200000 + 0x1abcde, Access::Read, pa, f));
  EXPECT_EQ(pa, kRamBase + 0x200000 + 0x1abcde);
  ASSERT_TRUE(tr(0x8000000000ull + 0x3456789, Access::Read, pa, f));
  EXPECT_EQ(pa, kRamBase + 0x3456789);
  // The 1 GiB block is read-only: a write is a permission fault at level 1.
  EXPECT_FALSE(tr(0x8000000000ull + 0x10, Access::Write, pa, f));
  EXPECT_EQ(f.exception, 0xc9u);
  EXPECT_EQ(f.status(), 0xc9u | (3u << 8));
}

TEST_F(GpuMmuTest, TranslationFaultAtEachLevel) {
  uint64_t pa;
  MmuFault f;
  enable();
  // Level 0: empty PGD.
  EXPECT_FALSE(tr(0x1000000000ull, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc0u);
  // Level 1: L0 entry present, L1 entry invalid (type 2 is "invalid" in kbase's naming).
  pt->raw(0x2000000000ull, 1, 0x2);
  EXPECT_FALSE(tr(0x2000000000ull, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc1u);
  // Level 2: descriptor 0.
  pt->raw(0x3000000000ull, 2, 0);
  EXPECT_FALSE(tr(0x3000000000ull, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc2u);
  // Level 3: type 3 is a table, not a page, in this format at the last level.
  pt->raw(0x4000000000ull, 3, kDataPa | kRw | 0x3);
  EXPECT_FALSE(tr(0x4000000000ull, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc3u);
  // A leaf at level 0 (a 512 GiB block) does not exist.
  pt->raw(0x5000000000ull + (1ull << 39) * 2, 0, kRamBase | kRw | kLeaf);
  EXPECT_FALSE(tr(0x5000000000ull + (1ull << 39) * 2, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc0u);
}

TEST_F(GpuMmuTest, Permissions) {
  pt->map(0x10000, kDataPa, kRo);
  pt->map(0x11000, kDataPa + 0x1000, kWrite | kShOuter);      // write-only
  pt->map(0x12000, kDataPa + 0x2000, kRw | kXn);              // no-exec
  pt->map(0x13000, kDataPa + 0x3000, kRw);                    // executable
  enable();
  uint64_t pa;
  MmuFault f;
  EXPECT_TRUE(tr(0x10000, Access::Read, pa, f));
  EXPECT_FALSE(tr(0x10000, Access::Write, pa, f));
  EXPECT_EQ(f.exception, 0xcbu);
  EXPECT_FALSE(tr(0x10000, Access::Atomic, pa, f)); // atomics need read and write
  EXPECT_EQ(f.status(), 0xcbu | (0u << 8));
  EXPECT_FALSE(tr(0x11000, Access::Read, pa, f));
  EXPECT_EQ(f.status(), 0xcbu | (2u << 8));
  EXPECT_TRUE(tr(0x11000, Access::Write, pa, f));
  EXPECT_FALSE(tr(0x12000, Access::Execute, pa, f));
  EXPECT_EQ(f.status(), 0xcbu | (1u << 8));
  EXPECT_TRUE(tr(0x13000, Access::Execute, pa, f));
  EXPECT_EQ(pa, kDataPa + 0x3000);
}

TEST_F(GpuMmuTest, AddressSizeAndBusFaults) {
  enable();
  uint64_t pa;
  MmuFault f;
  // VA beyond 48 bits.
  EXPECT_FALSE(tr(1ull << 48, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xe0u);
  // An output address beyond the 40 PA bits MMU_FEATURES reports, in a level-3 page.
  pt->map(0x20000, 1ull << 40, kRw);
  EXPECT_FALSE(tr(0x20000, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xe7u);
  // A level-1 table pointer outside RAM: the walk's read of it is a bus error at level 2.
  pt->raw(0x7000000000ull, 1, 0x10000000ull | kTable);
  EXPECT_FALSE(tr(0x7000000000ull, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xd2u);
  EXPECT_TRUE(f.bus_fault_irq);
  // A page whose physical address is outside RAM translates, but the data access fails as a bus error.
  pt->map(0x30000, 0x10000000, kRw);
  ASSERT_TRUE(tr(0x30000, Access::Read, pa, f));
  uint32_t v;
  EXPECT_FALSE(mmu->read(0, 0x30000, &v, 4, f));
  EXPECT_EQ(f.kind, MmuFault::Kind::Bus);
  EXPECT_EQ(f.exception, exc::JOB_BUS_FAULT);
}

TEST_F(GpuMmuTest, UnmappedIdentityAndTranscfgModes) {
  uint64_t pa;
  MmuFault f;
  // Reset state: unmapped.
  EXPECT_FALSE(tr(kRamBase, Access::Read, pa, f));
  EXPECT_EQ(f.exception, 0xc0u);
  // TRANSTAB ADRMODE 2: identity.
  mmu->update(0, 0x2, 0, 0);
  ASSERT_TRUE(tr(kRamBase + 0x1234, Access::Write, pa, f));
  EXPECT_EQ(pa, kRamBase + 0x1234);
  // TRANSCFG ADRMODE 1 (unmapped) overrides TRANSTAB.
  mmu->update(0, pt->pgd() | kTranstabTable, 0, 1);
  EXPECT_FALSE(tr(0x2000000, Access::Read, pa, f));
  // Address spaces are independent.
  pt->map(0x2000000, kDataPa, kRw);
  enable(3);
  EXPECT_TRUE(tr(0x2000000, Access::Read, pa, f, 3));
  EXPECT_FALSE(tr(0x2000000, Access::Read, pa, f, 2));
}

TEST_F(GpuMmuTest, TlbCachesUntilInvalidated) {
  pt->map(0x2000000, kDataPa, kRw);
  enable();
  uint64_t pa;
  MmuFault f;
  ASSERT_TRUE(tr(0x2000010, Access::Read, pa, f));
  EXPECT_EQ(mmu->stats().walks, 1u);
  ASSERT_TRUE(tr(0x2000020, Access::Read, pa, f));
  EXPECT_EQ(mmu->stats().walks, 1u);
  EXPECT_EQ(mmu->stats().tlb_hits, 1u);
  // The driver remaps the page without flushing: the TLB still has the old translation.
  pt->map(0x2000000, kDataPa + 0x5000, kRw);
  ASSERT_TRUE(tr(0x2000000, Access::Read, pa, f));
  EXPECT_EQ(pa, kDataPa);
  // FLUSH_PT/UNLOCK/FLUSH_MEM invalidate: the new mapping is seen.
  mmu->invalidate(0);
  ASSERT_TRUE(tr(0x2000000, Access::Read, pa, f));
  EXPECT_EQ(pa, kDataPa + 0x5000);
  // Unmapping and flushing gives a fault again (faults are not cached either).
  pt->raw(0x2000000, 3, 0);
  mmu->invalidate(0);
  EXPECT_FALSE(tr(0x2000000, Access::Read, pa, f));
  pt->map(0x2000000, kDataPa, kRw);
  EXPECT_TRUE(tr(0x2000000, Access::Read, pa, f));
}

TEST_F(GpuMmuTest, ReadWriteSplitAcrossPages) {
  // Two virtually contiguous pages backed by non-contiguous physical pages.
  pt->map(0x100000, kDataPa + 0x3000, kRw);
  pt->map(0x101000, kDataPa + 0x1000, kRw);
  enable();
  uint64_t v = 0x1122334455667788ull;
  MmuFault f;
  ASSERT_TRUE(mmu->write(0, 0x100ffc, &v, 8, f));
  EXPECT_EQ(ram32(bus, kDataPa + 0x3ffc), 0x55667788u);
  EXPECT_EQ(ram32(bus, kDataPa + 0x1000), 0x11223344u);
  uint64_t back = 0;
  ASSERT_TRUE(mmu->read(0, 0x100ffc, &back, 8, f));
  EXPECT_EQ(back, v);
}

} // namespace
