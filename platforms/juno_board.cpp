#include "platforms/juno_board.h"
#include <cstdio>
#include <random>
#include <stdexcept>
extern "C" {
#include <libfdt.h>
}

namespace vplat::juno {

namespace {

// GIC binding: interrupt specifier cells <type number flags>.
constexpr uint32_t kGicSpi = 0, kGicPpi = 1;
constexpr uint32_t kIrqLevelHigh = 4, kIrqLevelLow = 8;
enum Phandle : uint32_t { kGic = 1, kUartClock, kApbClock, kGpuClock, kGpuSupply };

class Writer {
public:
  explicit Writer(size_t size) : buf_(size) {
    check(fdt_create(buf_.data(), static_cast<int>(buf_.size())));
    check(fdt_finish_reservemap(buf_.data()));
  }
  void begin(const std::string& name) { check(fdt_begin_node(buf_.data(), name.c_str())); }
  void end() { check(fdt_end_node(buf_.data())); }
  void prop(const char* name, uint32_t v) { check(fdt_property_u32(buf_.data(), name, v)); }
  void prop(const char* name, const std::string& s) { check(fdt_property_string(buf_.data(), name, s.c_str())); }
  void empty(const char* name) { check(fdt_property(buf_.data(), name, nullptr, 0)); }
  // Several strings in one property ("a\0b\0").
  void strings(const char* name, std::initializer_list<const char*> list) {
    std::string all;
    for (auto* s : list) {
      all += s;
      all += '\0';
    }
    check(fdt_property(buf_.data(), name, all.data(), static_cast<int>(all.size())));
  }
  void bytes(const char* name, const std::vector<uint8_t>& data) {
    check(fdt_property(buf_.data(), name, data.data(), static_cast<int>(data.size())));
  }
  void cells(const char* name, std::initializer_list<uint32_t> list) { cells(name, std::vector<uint32_t>(list)); }
  void cells(const char* name, const std::vector<uint32_t>& list) {
    std::vector<fdt32_t> be;
    for (uint32_t c : list) be.push_back(cpu_to_fdt32(c));
    check(fdt_property(buf_.data(), name, be.data(), static_cast<int>(be.size() * 4)));
  }
  void reg64(uint64_t base, uint64_t size) {
    cells("reg", {hi(base), lo(base), hi(size), lo(size)});
  }
  std::vector<uint8_t> finish() {
    check(fdt_finish(buf_.data()));
    buf_.resize(fdt_totalsize(buf_.data()));
    return std::move(buf_);
  }
  static uint32_t hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
  static uint32_t lo(uint64_t v) { return static_cast<uint32_t>(v); }

private:
  std::vector<uint8_t> buf_;
  static void check(int rc) {
    if (rc < 0) throw std::runtime_error(std::string("device tree generation failed: ") + fdt_strerror(rc));
  }
};

std::string node_name(const char* stem, uint64_t base) {
  char b[64];
  std::snprintf(b, sizeof b, "%s@%llx", stem, static_cast<unsigned long long>(base));
  return b;
}

void fixed_clock(Writer& w, const char* name, uint32_t hz, uint32_t phandle) {
  w.begin(name);
  w.prop("compatible", std::string("fixed-clock"));
  w.prop("#clock-cells", 0u);
  w.prop("clock-frequency", hz);
  w.prop("clock-output-names", std::string(name));
  w.prop("phandle", phandle);
  w.end();
}

} // namespace

std::vector<uint8_t> rng_seed_bytes(uint64_t seed) {
  std::vector<uint8_t> out;
  uint64_t state = seed;
  for (int i = 0; i < 4; ++i) {
    state += 0x9e3779b97f4a7c15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (int b = 56; b >= 0; b -= 8) out.push_back(static_cast<uint8_t>(z >> b));
  }
  return out;
}

std::vector<uint8_t> host_rng_seed_bytes() {
  std::random_device host;
  std::vector<uint8_t> out;
  while (out.size() < 32) {
    const uint32_t v = host();
    for (int b = 24; b >= 0; b -= 8) out.push_back(static_cast<uint8_t>(v >> b));
  }
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> ram_banks(uint64_t ram_size) {
  std::vector<std::pair<uint64_t, uint64_t>> banks;
  uint64_t first = ram_size < kDram0Size ? ram_size : kDram0Size;
  banks.push_back({kDram0Base, first});
  if (ram_size > first) banks.push_back({kDram1Base, std::min(ram_size - first, kDram1Size)});
  return banks;
}

std::vector<uint8_t> build_dtb(const DtbConfig& c) {
  Writer w(64 * 1024 + c.bootargs.size());
  w.begin("");
  w.strings("compatible", {"arm,juno-r2", "arm,juno", "arm,vexpress"});
  w.prop("model", std::string("ARM Juno development board (r2), vplat"));
  w.prop("interrupt-parent", static_cast<uint32_t>(kGic));
  w.prop("#address-cells", 2u);
  w.prop("#size-cells", 2u);

  w.begin("aliases");
  w.prop("serial0", "/" + node_name("uart", kDevices[0].base));
  w.end();

  w.begin("chosen");
  w.prop("stdout-path", std::string("serial0:115200n8"));
  if (!c.bootargs.empty()) w.prop("bootargs", c.bootargs);
  if (!c.rng_seed.empty()) w.bytes("rng-seed", c.rng_seed);
  if (c.initrd) {
    w.cells("linux,initrd-start", {Writer::hi(c.initrd->first), Writer::lo(c.initrd->first)});
    w.cells("linux,initrd-end", {Writer::hi(c.initrd->second), Writer::lo(c.initrd->second)});
  }
  w.end();

  w.begin("psci");
  w.strings("compatible", {"arm,psci-0.2"});
  w.prop("method", std::string("smc"));
  w.end();

  w.begin("cpus");
  w.prop("#address-cells", 2u);
  w.prop("#size-cells", 0u);
  for (unsigned i = 0; i < c.cpus && i < kMaxCpus; ++i) {
    w.begin(node_name("cpu", kCpuMpidr[i]));
    w.prop("device_type", std::string("cpu"));
    w.prop("compatible", std::string(cpu_is_a72(i) ? "arm,cortex-a72" : "arm,cortex-a53"));
    w.cells("reg", {Writer::hi(kCpuMpidr[i]), Writer::lo(kCpuMpidr[i])});
    w.prop("enable-method", std::string("psci"));
    w.prop("capacity-dmips-mhz", cpu_is_a72(i) ? 1024u : 485u);
    w.end();
  }
  w.end();

  for (auto [base, size] : ram_banks(c.ram_size)) {
    w.begin(node_name("memory", base));
    w.prop("device_type", std::string("memory"));
    w.reg64(base, size);
    w.end();
  }

  w.begin(node_name("interrupt-controller", kGicdBase));
  w.strings("compatible", {"arm,gic-400", "arm,cortex-a15-gic"});
  w.prop("#interrupt-cells", 3u);
  w.prop("#address-cells", 0u);
  w.empty("interrupt-controller");
  w.cells("reg", {0, Writer::lo(kGicdBase), 0, Writer::lo(kGicdSize), 0, Writer::lo(kGiccBase), 0,
                  Writer::lo(kGiccSize)});
  w.prop("phandle", static_cast<uint32_t>(kGic));
  w.end();

  w.begin("timer");
  w.prop("compatible", std::string("arm,armv8-timer"));
  uint32_t cpu_mask = ((1u << c.cpus) - 1) << 8; // GIC_CPU_MASK_SIMPLE
  std::vector<uint32_t> timer_irqs;
  for (int ppi : kTimerPpis) timer_irqs.insert(timer_irqs.end(), {kGicPpi, static_cast<uint32_t>(ppi), cpu_mask | kIrqLevelLow});
  w.cells("interrupts", timer_irqs);
  w.end();

  fixed_clock(w, "clk-uart", 7372800, kUartClock);
  fixed_clock(w, "clk-apb", 100000000, kApbClock);
  // panfrost needs a clock (devm_clk_get fails without one); a fixed clock has no rate to manage.
  if (c.gpu) {
    fixed_clock(w, "clk-gpu", kGpuClockHz, kGpuClock);
    // The GPU's supply rail. Without a mali-supply the driver still probes, but the OPP core logs an error and
    // the regulator core a warning ("using dummy regulator"); a fixed, always-on rail is what a board without
    // GPU voltage scaling has. Its driver (reg-fixed-voltage) is a module in Debian's kernel; the guest image
    // built with --with-gpu loads it before panfrost.
    w.begin("regulator-vgpu");
    w.prop("compatible", std::string("regulator-fixed"));
    w.prop("regulator-name", std::string("vdd_gpu"));
    w.prop("regulator-min-microvolt", 800000u);
    w.prop("regulator-max-microvolt", 800000u);
    w.empty("regulator-always-on");
    w.prop("phandle", static_cast<uint32_t>(kGpuSupply));
    w.end();
  }

  for (const auto& d : kDevices) {
    if (d.kind == DeviceKind::VirtioMmio && !c.virtio_disk) continue;
    if (d.kind == DeviceKind::MaliG71 && !c.gpu) continue;
    w.begin(node_name(d.node, d.base));
    w.reg64(d.base, d.size);
    switch (d.kind) {
    case DeviceKind::Pl011:
      w.strings("compatible", {"arm,pl011", "arm,primecell"});
      w.cells("interrupts", {kGicSpi, static_cast<uint32_t>(d.spi[0]), kIrqLevelHigh});
      w.cells("clocks", {kUartClock, kApbClock});
      w.strings("clock-names", {"uartclk", "apb_pclk"});
      break;
    case DeviceKind::Pl031:
      w.strings("compatible", {"arm,pl031", "arm,primecell"});
      w.cells("interrupts", {kGicSpi, static_cast<uint32_t>(d.spi[0]), kIrqLevelHigh});
      w.cells("clocks", {kApbClock});
      w.strings("clock-names", {"apb_pclk"});
      break;
    case DeviceKind::VirtioMmio:
      w.strings("compatible", {"virtio,mmio"});
      w.cells("interrupts", {kGicSpi, static_cast<uint32_t>(d.spi[0]), kIrqLevelHigh});
      w.empty("dma-coherent");
      break;
    case DeviceKind::MaliG71:
      // The arm,mali-bifrost binding: an SoC-specific compatible, then "arm,mali-bifrost" (what panfrost
      // matches; the model and revision are read from GPU_ID). Interrupts in the binding's order job, mmu,
      // gpu. dma-coherent: the GPU sees RAM exactly as the CPUs do (no caches are modelled), so the driver
      // needs no cache maintenance.
      w.strings("compatible", {"arm,juno-mali", "arm,mali-bifrost"});
      w.cells("interrupts", {kGicSpi, static_cast<uint32_t>(d.spi[0]), kIrqLevelHigh, kGicSpi,
                             static_cast<uint32_t>(d.spi[1]), kIrqLevelHigh, kGicSpi, static_cast<uint32_t>(d.spi[2]),
                             kIrqLevelHigh});
      w.strings("interrupt-names", {"job", "mmu", "gpu"});
      w.cells("clocks", {kGpuClock});
      w.cells("mali-supply", {kGpuSupply});
      w.empty("dma-coherent");
      break;
    }
    w.end();
  }
  w.end();
  return w.finish();
}

} // namespace vplat::juno
