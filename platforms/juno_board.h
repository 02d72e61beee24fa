// The Juno r2 board as vplat models it: its memory map, interrupt numbers and CPUs, in one table that
// both instantiates the devices and generates the device tree, so the two cannot disagree.
// Facts: Linux arch/arm64/boot/dts/arm/juno-r2.dts, juno-base.dtsi, juno-motherboard.dtsi (see
// ../shared/reference/juno.md). vplat places a Mali-G71 where Juno has its Mali-T624.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vplat::juno {

constexpr uint64_t kDram0Base = 0x80000000, kDram0Size = 0x7f000000; // 2 GiB less 16 MiB for secure firmware
constexpr uint64_t kDram1Base = 0x880000000, kDram1Size = 0x180000000;
constexpr uint64_t kGicdBase = 0x2c010000, kGicdSize = 0x1000;
constexpr uint64_t kGiccBase = 0x2c02f000, kGiccSize = 0x2000;
constexpr unsigned kMaxCpus = 6;
// Two Cortex-A72 (cluster 0) then four Cortex-A53 (cluster 1), as Juno numbers them.
constexpr uint64_t kCpuMpidr[kMaxCpus] = {0x0, 0x1, 0x100, 0x101, 0x102, 0x103};
constexpr bool cpu_is_a72(unsigned i) { return i < 2; }

enum class DeviceKind { Pl011, Pl031, VirtioMmio, MaliG71 };

struct BoardDevice {
  DeviceKind kind;
  const char* node;       // node name stem: "uart" -> uart@7ff80000
  uint64_t base, size;
  int spi[3];             // SPI numbers (INTID - 32); -1 where unused
};

// The memory-mapped devices. virtio-mmio has no Juno counterpart; it sits in an unused part of the
// IOFPGA window with free SPIs.
inline constexpr BoardDevice kDevices[] = {
    {DeviceKind::Pl011, "uart", 0x7ff80000, 0x1000, {83, -1, -1}},
    {DeviceKind::Pl031, "rtc", 0x1c170000, 0x1000, {68, -1, -1}},
    {DeviceKind::VirtioMmio, "virtio", 0x1c130000, 0x200, {40, -1, -1}},
    {DeviceKind::MaliG71, "gpu", 0x2d000000, 0x10000, {33, 34, 32}}, // job, mmu, gpu
};

// The GPU's fixed clock in the device tree; the model's cycle counter counts at the same rate
// (juno_machine.cpp checks that they agree).
constexpr uint32_t kGpuClockHz = 800'000'000;

constexpr int kTimerPpis[4] = {13, 14, 11, 10}; // secure phys, non-secure phys, virtual, hypervisor

struct DtbConfig {
  unsigned cpus = 1;
  uint64_t ram_size = 2ull << 30;
  std::string bootargs;
  std::optional<std::pair<uint64_t, uint64_t>> initrd; // [start, end)
  bool virtio_disk = false;
  bool gpu = false;
  std::vector<uint8_t> rng_seed; // /chosen/rng-seed; none when empty
};

// The seed bytes boot firmware would hand the kernel, from a number: 32 bytes, the first four outputs of
// SplitMix64 started at `seed`, each big-endian. Any well-mixed expansion would do; this one is easy to
// check independently.
std::vector<uint8_t> rng_seed_bytes(uint64_t seed);
// 32 bytes from the host's entropy source (std::random_device).
std::vector<uint8_t> host_rng_seed_bytes();

// RAM banks for a given RAM size: DRAM0 first, the rest in DRAM1.
std::vector<std::pair<uint64_t, uint64_t>> ram_banks(uint64_t ram_size);

// A flattened device tree blob (DTB) describing the board.
std::vector<uint8_t> build_dtb(const DtbConfig& config);

} // namespace vplat::juno
