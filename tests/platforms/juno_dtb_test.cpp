// The generated device tree, read back with libfdt. Expected values are Juno r2's (reference/juno.md)
// and the Linux DT bindings (arm,gic-400, arm,armv8-timer, arm,pl011, arm,psci-0.2).
#include "platforms/juno_board.h"
#include <gtest/gtest.h>
extern "C" {
#include <libfdt.h>
}

namespace {

struct Dtb {
  std::vector<uint8_t> blob;
  explicit Dtb(const vplat::juno::DtbConfig& c) : blob(vplat::juno::build_dtb(c)) {}
  const void* fdt() const { return blob.data(); }
  int node(const char* path) const { return fdt_path_offset(fdt(), path); }
  std::vector<uint32_t> cells(const char* path, const char* prop) const {
    int len = 0;
    auto* p = static_cast<const fdt32_t*>(fdt_getprop(fdt(), node(path), prop, &len));
    std::vector<uint32_t> v;
    for (int i = 0; p && i < len / 4; ++i) v.push_back(fdt32_to_cpu(p[i]));
    return v;
  }
  std::string str(const char* path, const char* prop) const {
    auto* p = static_cast<const char*>(fdt_getprop(fdt(), node(path), prop, nullptr));
    return p ? p : "";
  }
};

} // namespace

TEST(JunoDtb, IsValidAndDescribesTheBoard) {
  vplat::juno::DtbConfig c;
  c.cpus = 6;
  c.bootargs = "console=ttyAMA0";
  Dtb d(c);
  ASSERT_EQ(fdt_check_header(d.fdt()), 0);
  EXPECT_EQ(d.str("/", "compatible"), "arm,juno-r2");
  EXPECT_EQ(d.str("/chosen", "bootargs"), "console=ttyAMA0");
  EXPECT_EQ(d.str("/chosen", "stdout-path"), "serial0:115200n8");
  EXPECT_EQ(d.str("/psci", "method"), "smc");
  EXPECT_EQ(d.str("/cpus/cpu@0", "compatible"), "arm,cortex-a72");
  EXPECT_EQ(d.str("/cpus/cpu@103", "compatible"), "arm,cortex-a53");
  EXPECT_EQ(d.cells("/cpus/cpu@101", "reg"), (std::vector<uint32_t>{0, 0x101}));
  EXPECT_EQ(d.cells("/interrupt-controller@2c010000", "reg"),
            (std::vector<uint32_t>{0, 0x2c010000, 0, 0x1000, 0, 0x2c02f000, 0, 0x2000}));
  // PL011 on SPI 83, level-high; timer PPIs 13, 14, 11, 10, level-low, all six CPUs.
  EXPECT_EQ(d.cells("/uart@7ff80000", "interrupts"), (std::vector<uint32_t>{0, 83, 4}));
  EXPECT_EQ(d.cells("/timer", "interrupts"),
            (std::vector<uint32_t>{1, 13, 0x3f08, 1, 14, 0x3f08, 1, 11, 0x3f08, 1, 10, 0x3f08}));
  EXPECT_EQ(d.str("/aliases", "serial0"), "/uart@7ff80000");
  EXPECT_LT(d.node("/virtio@1c130000"), 0); // absent without a disk
  EXPECT_LT(d.node("/gpu@2d000000"), 0);
}

TEST(JunoDtb, MemoryBanksFollowTheJunoMap) {
  vplat::juno::DtbConfig c;
  c.ram_size = 4ull << 30;
  Dtb d(c);
  EXPECT_EQ(d.cells("/memory@80000000", "reg"), (std::vector<uint32_t>{0, 0x80000000, 0, 0x7f000000}));
  EXPECT_EQ(d.cells("/memory@880000000", "reg"), (std::vector<uint32_t>{8, 0x80000000, 0, 0x81000000}));
  c.ram_size = 1ull << 30;
  Dtb small(c);
  EXPECT_LT(small.node("/memory@880000000"), 0);
}

TEST(JunoDtb, InitrdAndOptionalDevices) {
  vplat::juno::DtbConfig c;
  c.initrd = {{0x88000000, 0x88123456}};
  c.virtio_disk = true;
  c.gpu = true;
  Dtb d(c);
  EXPECT_EQ(d.cells("/chosen", "linux,initrd-start"), (std::vector<uint32_t>{0, 0x88000000}));
  EXPECT_EQ(d.cells("/chosen", "linux,initrd-end"), (std::vector<uint32_t>{0, 0x88123456}));
  EXPECT_EQ(d.str("/virtio@1c130000", "compatible"), "virtio,mmio");
  EXPECT_EQ(d.cells("/gpu@2d000000", "interrupts"), (std::vector<uint32_t>{0, 33, 4, 0, 34, 4, 0, 32, 4}));
}

// /chosen/rng-seed (dt-schema's chosen.yaml: seed bytes for the kernel's RNG, which Linux credits as entropy
// and then erases from the tree): a number gives the first four outputs of SplitMix64 started there. The
// values for 0 are the published ones of the reference implementation (Vigna's splitmix64.c).
TEST(JunoDtb, RngSeedIsSplitMix64OfTheNumber) {
  const std::vector<uint32_t> from_zero = {0xe220a839, 0x7b1dcdaf, 0x6e789e6a, 0xa1b965f4,
                                           0x06c45d18, 0x8009454f, 0xf88bb8a8, 0x724c81ec};
  vplat::juno::DtbConfig c;
  c.rng_seed = vplat::juno::rng_seed_bytes(0);
  EXPECT_EQ(Dtb(c).cells("/chosen", "rng-seed"), from_zero);
  c.rng_seed = vplat::juno::rng_seed_bytes(1);
  const auto from_one = Dtb(c).cells("/chosen", "rng-seed");
  EXPECT_EQ(from_one.size(), 8u);
  EXPECT_NE(from_one, from_zero);
  // From the host: 32 bytes, different each time (equal with probability 2^-256).
  const auto host = vplat::juno::host_rng_seed_bytes();
  EXPECT_EQ(host.size(), 32u);
  EXPECT_NE(host, vplat::juno::host_rng_seed_bytes());
  c.rng_seed.clear();
  int len = -1;
  const Dtb none(c);
  EXPECT_EQ(fdt_getprop(none.fdt(), none.node("/chosen"), "rng-seed", &len), nullptr);
}

// The GPU node against Documentation/devicetree/bindings/gpu/arm,mali-bifrost.yaml: node name gpu@..., two
// compatibles ending in "arm,mali-bifrost", one 64 KiB reg window, three interrupts named job/mmu/gpu (Juno
// SPIs 33/34/32, level-high), and a clock (panfrost fails to probe without one).
TEST(JunoDtb, GpuNodeFollowsTheBifrostBinding) {
  vplat::juno::DtbConfig c;
  c.gpu = true;
  Dtb d(c);
  int len = 0;
  auto* compat = static_cast<const char*>(fdt_getprop(d.fdt(), d.node("/gpu@2d000000"), "compatible", &len));
  ASSERT_NE(compat, nullptr);
  EXPECT_EQ(std::string(compat, static_cast<size_t>(len)), std::string("arm,juno-mali\0arm,mali-bifrost\0", 31));
  EXPECT_EQ(d.cells("/gpu@2d000000", "reg"), (std::vector<uint32_t>{0, 0x2d000000, 0, 0x10000}));
  auto* names = static_cast<const char*>(fdt_getprop(d.fdt(), d.node("/gpu@2d000000"), "interrupt-names", &len));
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(std::string(names, static_cast<size_t>(len)), std::string("job\0mmu\0gpu\0", 12));
  auto clocks = d.cells("/gpu@2d000000", "clocks");
  ASSERT_EQ(clocks.size(), 1u);
  int clk = fdt_node_offset_by_phandle(d.fdt(), clocks[0]);
  ASSERT_GE(clk, 0);
  EXPECT_STREQ(static_cast<const char*>(fdt_getprop(d.fdt(), clk, "compatible", nullptr)), "fixed-clock");
  EXPECT_EQ(d.cells("/clk-gpu", "clock-frequency"), (std::vector<uint32_t>{800000000}));
  // The supply: a fixed regulator (without one the OPP and regulator cores complain at probe).
  auto supply = d.cells("/gpu@2d000000", "mali-supply");
  ASSERT_EQ(supply.size(), 1u);
  int reg = fdt_node_offset_by_phandle(d.fdt(), supply[0]);
  ASSERT_GE(reg, 0);
  EXPECT_STREQ(static_cast<const char*>(fdt_getprop(d.fdt(), reg, "compatible", nullptr)), "regulator-fixed");
  EXPECT_NE(fdt_getprop(d.fdt(), reg, "regulator-always-on", nullptr), nullptr);
  // Without the GPU neither the node nor its clock and supply are there.
  c.gpu = false;
  Dtb none(c);
  EXPECT_LT(none.node("/gpu@2d000000"), 0);
  EXPECT_LT(none.node("/clk-gpu"), 0);
  EXPECT_LT(none.node("/regulator-vgpu"), 0);
}
