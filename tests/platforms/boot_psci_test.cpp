// Boot layout per the arm64 boot protocol, and PSCI function results per Arm DEN 0022 (PSCI 1.0).
#include "platforms/boot_layout.h"
#include "platforms/psci.h"
#include <gtest/gtest.h>

using vplat::Psci;

TEST(BootLayout, KernelThenDtbThenInitrdIn2MiBRegions) {
  std::string err;
  auto l = vplat::plan_boot(0x80000000, 1ull << 30, 0, 0x2300000, 0x3000, 0x100000, err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->kernel_load, 0x80000000u);
  EXPECT_EQ(l->kernel_end, 0x82300000u);
  EXPECT_EQ(l->dtb, 0x82400000u); // next 2 MiB boundary
  EXPECT_EQ(l->initrd_start, 0x82600000u);
  EXPECT_EQ(l->initrd_end, 0x82700000u);
}

TEST(BootLayout, TextOffsetIsHonoured) {
  std::string err;
  auto l = vplat::plan_boot(0x80000000, 1ull << 30, 0x80000, 0x1000000, 0x1000, 0, err);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kernel_load, 0x80080000u);
  EXPECT_EQ(l->initrd_start, l->initrd_end);
}

TEST(BootLayout, InitrdLargerThanRamIsRefused) {
  std::string err;
  EXPECT_FALSE(vplat::plan_boot(0x80000000, 64ull << 20, 0, 32ull << 20, 0x1000, 64ull << 20, err));
  EXPECT_NE(err.find("RAM"), std::string::npos);
  EXPECT_FALSE(vplat::plan_boot(0x80000000, 1ull << 30, 0, 1 << 20, 3ull << 20, 0, err));
}

namespace {
struct PsciFixture {
  std::vector<std::string> log;
  Psci psci{{0x0, 0x1, 0x100},
            {[this](unsigned i, uint64_t e, uint64_t c) { log.push_back("on " + std::to_string(i) + " " + std::to_string(e) + " " + std::to_string(c)); },
             [this](unsigned i) { log.push_back("off " + std::to_string(i)); },
             [this] { log.push_back("system off"); }, [this] { log.push_back("reset"); }}};
};
} // namespace

TEST(Psci, VersionAndFeatures) {
  PsciFixture f;
  EXPECT_EQ(f.psci.call(0, Psci::kVersion, 0, 0, 0), 0x10000u);
  EXPECT_EQ(f.psci.call(0, Psci::kFeatures, Psci::kCpuOn64, 0, 0), 0u);
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, Psci::kFeatures, 0xc4000001, 0, 0)), -1); // CPU_SUSPEND
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, 0x84000099, 0, 0, 0)), -1);
}

TEST(Psci, CpuOnStatesAndErrors) {
  PsciFixture f;
  EXPECT_EQ(f.psci.call(0, Psci::kAffinityInfo64, 0x100, 0, 0), 1u); // OFF
  EXPECT_EQ(f.psci.call(0, Psci::kCpuOn64, 0x100, 0x80001000, 42), 0u);
  ASSERT_EQ(f.log.size(), 1u);
  EXPECT_EQ(f.log[0], "on 2 2147487744 42");
  EXPECT_EQ(f.psci.call(0, Psci::kAffinityInfo64, 0x100, 0, 0), 2u); // ON_PENDING
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, Psci::kCpuOn64, 0x100, 0, 0)), -5);
  f.psci.mark_on(2);
  EXPECT_EQ(f.psci.call(0, Psci::kAffinityInfo64, 0x100, 0, 0), 0u); // ON
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, Psci::kCpuOn64, 0x100, 0, 0)), -4);
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, Psci::kCpuOn64, 0x2, 0, 0)), -2); // no such MPIDR
  EXPECT_EQ(static_cast<int64_t>(f.psci.call(0, Psci::kAffinityInfo64, 0x100, 1, 0)), -2);
  f.psci.call(2, Psci::kCpuOff, 0, 0, 0);
  EXPECT_EQ(f.psci.call(0, Psci::kAffinityInfo64, 0x100, 0, 0), 1u);
  EXPECT_EQ(f.log.back(), "off 2");
}

TEST(Psci, Smc32ArgumentsAreTruncated) {
  PsciFixture f;
  EXPECT_EQ(f.psci.call(0, Psci::kCpuOn32, 0xffffffff00000001ull, 0x1234, 0), 0u);
  EXPECT_EQ(f.log.back(), "on 1 4660 0");
}

TEST(Psci, SystemOffAndReset) {
  PsciFixture f;
  f.psci.call(0, Psci::kSystemOff, 0, 0, 0);
  f.psci.call(0, Psci::kSystemReset, 0, 0, 0);
  EXPECT_EQ(f.log, (std::vector<std::string>{"system off", "reset"}));
}
