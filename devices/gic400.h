// Arm GIC-400: a GICv2 distributor and CPU interfaces, without the Security Extensions (as a GIC seen by
// a kernel running in Non-secure state with no EL3 firmware to configure groups: every interrupt is
// Group 0 and signalled as IRQ). Facts: GICv2 architecture specification (IHI 0048B), GIC-400 TRM.
//
// Interrupt sources call set_level(); CPUs receive their IRQ line through the callback given at
// construction. All entry points take the GIC's lock, so device threads (the GPU's job manager) may raise
// interrupts while CPUs run.
#pragma once
#include "devices/device.h"
#include <array>
#include <functional>
#include <mutex>
#include <vector>

namespace vplat::dev {

class Gic400 {
public:
  static constexpr int kNumIrqs = 256; // ITLinesNumber = 7; Juno uses SPIs up to INTID 201
  static constexpr int kMaxCpus = 8;
  static constexpr uint32_t kSpurious = 1023;

  Gic400(int num_cpus, std::function<void(int cpu, bool irq)> cpu_irq);

  // Distributor (4 KiB at GICD) and CPU interface (8 KiB at GICC) windows. The CPU interface is banked
  // per CPU; `current_cpu` says which CPU is accessing it (set by the platform before each access).
  MmioDevice& distributor() { return dist_; }
  MmioDevice& cpu_interface() { return cpuif_; }
  void set_current_cpu(int cpu) { current_cpu_ = cpu; }

  // Level of an interrupt input: SPIs (32..255) are shared; PPIs (16..31) are per CPU.
  void set_spi(int intid, bool level);
  void set_ppi(int cpu, int intid, bool level);
  IrqLine spi_line(int intid) {
    return IrqLine([this, intid](bool l) { set_spi(intid, l); });
  }
  IrqLine ppi_line(int cpu, int intid) {
    return IrqLine([this, cpu, intid](bool l) { set_ppi(cpu, intid, l); });
  }

  // Whether `cpu` has an interrupt it would take (for WFI wake-up).
  bool irq_pending(int cpu);

  uint64_t dist_read(int cpu, uint64_t offset);
  void dist_write(int cpu, uint64_t offset, unsigned size, uint64_t value);
  uint64_t cpu_read(int cpu, uint64_t offset);
  void cpu_write(int cpu, uint64_t offset, uint64_t value);

private:
  struct Irq {
    bool enabled = false, pending = false, active = false, level = false, edge = false;
    uint8_t priority = 0, targets = 0;
  };
  struct Cpu {
    std::array<Irq, 32> banked{};            // SGIs and PPIs
    std::array<uint8_t, 16> sgi_sources{};   // pending SGIs per source CPU (bit n: from CPU n)
    std::array<uint8_t, 16> sgi_active_src{};
    uint32_t ctlr = 0, pmr = 0, bpr = 2;
    std::vector<std::pair<uint32_t, uint8_t>> active_stack; // (intid, priority) in acknowledge order
    bool irq_out = false;
  };

  class Dist : public MmioDevice {
  public:
    explicit Dist(Gic400& g) : g_(g) {}
    uint64_t read(uint64_t o, unsigned) override { return g_.dist_read(g_.current_cpu_, o); }
    void write(uint64_t o, unsigned s, uint64_t v) override { g_.dist_write(g_.current_cpu_, o, s, v); }
    std::string name() const override { return "gic400-distributor"; }

  private:
    Gic400& g_;
  };
  class CpuIf : public MmioDevice {
  public:
    explicit CpuIf(Gic400& g) : g_(g) {}
    uint64_t read(uint64_t o, unsigned) override { return g_.cpu_read(g_.current_cpu_, o); }
    void write(uint64_t o, unsigned, uint64_t v) override { g_.cpu_write(g_.current_cpu_, o, v); }
    std::string name() const override { return "gic400-cpu-interface"; }

  private:
    Gic400& g_;
  };

  int num_cpus_;
  std::function<void(int, bool)> cpu_irq_;
  std::recursive_mutex lock_;
  uint32_t dist_ctlr_ = 0;
  std::array<Irq, kNumIrqs> spis_{};
  std::array<Cpu, kMaxCpus> cpus_{};
  int current_cpu_ = 0;
  Dist dist_{*this};
  CpuIf cpuif_{*this};

  Irq& irq(int cpu, int intid) { return intid < 32 ? cpus_[cpu].banked[intid] : spis_[intid]; }
  bool is_pending(int cpu, int intid);
  bool targets(int cpu, int intid);
  uint8_t running_priority(int cpu) const;
  uint32_t highest_pending(int cpu, uint8_t* prio);
  void update();
  uint32_t acknowledge(int cpu);
  void end_of_interrupt(int cpu, uint32_t value);
  void deactivate(int cpu, uint32_t value);
  void send_sgi(int cpu, uint32_t value);
};

} // namespace vplat::dev
