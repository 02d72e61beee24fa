// Arm Mali-G71 (Bifrost, job manager) device model: the GPU control, job control and MMU register blocks
// in one 64 KiB MMIO window, three interrupt lines (job, mmu, gpu), the GPU MMU and a job manager that runs
// job chains. Built so that Linux's unmodified panfrost driver probes and drives it as it drives silicon.
// Facts: ../shared/reference/mali-g71.md (register map, values, probe sequence, job submission, page tables).
//
// Modelling choices (each is a behaviour the driver accepts; see the comments where they are implemented):
//  - power transitions, resets and cache flushes complete at once (READY is set when PWRON is written, and
//    PWRTRANS reads 0), raising POWER_CHANGED_SINGLE/ALL, RESET_COMPLETED and CLEAN_CACHES_COMPLETED;
//  - AS commands complete at once, but AS_STATUS reads AS_ACTIVE once after each command, so the driver's
//    "wait until not active" poll sees a command in flight and then its completion;
//  - job chains run on the job manager's host threads (job_manager.h: per-slot current + _NEXT job, stops,
//    MMU-fault stalls); their results become visible at deterministic virtual times, when the machine calls
//    service() (it asks next_event() how far its idle skip may jump);
//  - JOB_INT_JS_STATE reads live (bit s: slot s has a chain, running or stalled; bit s + 16: a START waits
//    in its _NEXT registers), which satisfies both the IRQ handler's clear-then-read and the reset path's
//    poll in panfrost_job.c.
#pragma once
#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/device.h"
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/job_chain.h"
#include "gpu-bifrost/job_manager.h"
#include "gpu-bifrost/shader_core_iface.h"
#include "gpu-bifrost/mali_regs.h"
#include "instrumentation/stats.h"
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace vplat::gpu {

class MaliG71 : public dev::MmioDevice {
public:
  static constexpr uint64_t kWindowSize = 0x10000;
  // The GPU clock the cycle counter counts at (a G71 runs at 550-1037 MHz in shipping SoCs).
  static constexpr uint64_t kGpuClockHz = 800'000'000;

  // shader_cores: 1..32 (SHADER_PRESENT = (1 << cores) - 1); anything else throws std::invalid_argument.
  MaliG71(dev::Bus& bus, dev::IrqLine job_irq, dev::IrqLine mmu_irq, dev::IrqLine gpu_irq,
          unsigned shader_cores = 8);

  uint64_t read(uint64_t offset, unsigned size) override;
  void write(uint64_t offset, unsigned size, uint64_t value) override;
  std::string name() const override { return "mali-g71"; }

  // The time base of TIMESTAMP (the system counter, which panfrost reports with the CPU timer's frequency)
  // and CYCLE_COUNT. Without one both read 0.
  void set_clock(const dev::VirtualClock* clock);

  // Writes one line per register access to `out` (nullptr: off): virtual seconds since machine start (the
  // guest's dmesg clock starts a little later, when its clocksource registers),
  // R/W, the register's name and offset, the value, and command values by name; and one line per job
  // event ("gpu job JSn ...": chain start, each job with its decoded header and, for compute jobs, the
  // invocation sizes and descriptor pointers, MMU-fault stalls, chain end with status/head/tail), stamped
  // with the virtual time it became visible.
  void set_trace(std::FILE* out);

  // Job manager hand-off (see job_manager.h): the earliest virtual time at which a job result may become
  // visible (UINT64_MAX: none pending), and making visible everything due at `now` (may wait for the job
  // manager's threads; never for a job stalled on an MMU fault).
  uint64_t next_event();
  void service(uint64_t now);
  // The shader cores Compute jobs run on ([GPU-SC]); without one a Compute job ends in JOB_CONFIG_FAULT.
  void set_shader_core(ShaderCore* core);

  // Statistics: jobs (with the shader cores' per-job counters) and, when the collector keeps a timeline, job
  // and interrupt intervals go to `collector` as they become visible. Register accesses, interrupt assertions
  // and MMU faults are always counted (device_counters()).
  void set_stats(stats::Collector* collector);
  stats::GpuDeviceCounters device_counters();

  unsigned shader_cores() const { return config_.shader_cores; }
  // The register table (names, kinds, reset values) for tracing and tests; nullptr for an unknown offset.
  const RegDesc* describe(uint32_t offset) const;
  const std::vector<RegDesc>& registers() const { return table_; }
  const GpuMmu& mmu() const { return mmu_; }

private:
  static constexpr unsigned kWords = kWindowSize / 4;
  // Reads of AS_STATUS that report AS_ACTIVE after a command.
  static constexpr unsigned kAsBusyReads = 1;

  dev::Bus& bus_;
  dev::IrqLine job_irq_, mmu_irq_, gpu_irq_;
  GpuConfig config_;
  std::vector<RegDesc> table_;
  std::vector<int32_t> index_; // word offset -> table_ index, -1 where no register exists
  std::array<uint32_t, kWords> regs_{};
  GpuMmu mmu_;
  std::mutex mmu_mu_; // the MMU is shared with the job manager's threads
  JobManager jm_;
  const dev::VirtualClock* clock_ = nullptr;
  std::array<unsigned, kNumAddressSpaces> as_busy_reads_{};
  bool cycle_running_ = false;
  uint64_t cycle_base_ = 0, cycle_start_ticks_ = 0;
  std::mutex mu_;
  std::FILE* trace_ = nullptr;
  stats::Collector* stats_ = nullptr;
  std::vector<uint64_t> reg_reads_, reg_writes_; // by table_ index
  std::array<uint64_t, 3> irq_asserts_{};        // job, mmu, gpu
  std::array<bool, 3> irq_level_{};
  std::array<uint64_t, 3> irq_since_{};
  std::map<uint32_t, uint64_t> mmu_faults_;      // by exception code: a job's fault counts once
  std::array<bool, kNumJobSlots> fault_stalled_{}; // the slot's running chain has stalled on a fault
  void record_job(const JobManager::Event& ev, uint32_t status);
  void trace(char dir, uint32_t off, unsigned size, uint64_t value);
  uint64_t read_locked(uint64_t offset, unsigned size);
  void write_locked(uint64_t offset, unsigned size, uint64_t value);

  void reset();
  uint32_t read32(uint32_t off);
  void write32(uint32_t off, uint32_t value);
  uint32_t& r(uint32_t off) { return regs_[off / 4]; }
  uint64_t get64(uint32_t off) const { return regs_[off / 4] | (uint64_t{regs_[off / 4 + 1]} << 32); }
  void set64(uint32_t off, uint64_t v) {
    regs_[off / 4] = static_cast<uint32_t>(v);
    regs_[off / 4 + 1] = static_cast<uint32_t>(v >> 32);
  }
  uint64_t ticks() const { return clock_ ? clock_->ticks() : 0; }
  uint64_t cycle_count() const;
  void gpu_command(uint32_t cmd);
  void power(uint32_t off, uint32_t value);
  uint64_t cycle_count_at(uint64_t t) const;
  // Moves a queued _NEXT job into the slot if it is free (and has no unacknowledged error) at time `now`.
  void try_take_next(unsigned slot, uint64_t now);
  void js_command(unsigned slot, uint32_t cmd);
  void apply(const JobManager::Event& ev);
  uint32_t js_state();
  void trace_job(uint64_t time, unsigned slot, const std::string& what);
  void as_command(unsigned as, uint32_t cmd);
  void report_mmu_fault(unsigned as, const MmuFault& f);
  void update_irqs();
};

} // namespace vplat::gpu
