// The Juno machine: RAM, bus, devices, CPUs and the run loop that drives them, built from the board table
// in juno_board.h. CPUs run round-robin on one host thread in quanta of instructions; virtual time advances
// with the instructions retired and skips ahead when every CPU waits for an interrupt, so a run is
// deterministic for the same inputs.
#pragma once
#include "cpu-dbt/a64_core.h"
#include "devices/bus.h"
#include "devices/clock.h"
#include "devices/generic_timer.h"
#include "devices/gic400.h"
#include "devices/pl011.h"
#include "devices/pl031.h"
#include "devices/virtio_blk.h"
#include "gpu-bifrost/compute_cores.h"
#include "gpu-bifrost/mali_g71.h"
#include "instrumentation/stats.h"
#include "platforms/cli.h"
#include "platforms/console.h"
#include "platforms/gdbstub.h"
#include "platforms/juno_board.h"
#include "platforms/psci.h"
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vplat {

// The device tree's description of the board the options ask for (without an initrd: its place is decided
// when the images are loaded).
juno::DtbConfig dtb_config(const Options& options);

class JunoMachine : public cpu::MemoryPort, public cpu::CoreHooks, public gdb::Target {
public:
  enum class Outcome { PowerOff, Reset, Quit };

  // Builds the machine and loads the guest. On bad input (missing or corrupt image, too little RAM) returns
  // nullptr with a one-line reason in `error`.
  static std::unique_ptr<JunoMachine> create(const Options& options, std::string& error);
  ~JunoMachine() override;

  // Runs the guest until it powers off, resets or the user quits. With a `debugger`, its listening socket is
  // polled now and then (never per instruction) and a GDB that connects stops the machine and drives it until
  // it detaches; with `wait_for_debugger` the first instruction runs only once a GDB has connected. A GDB
  // that kills the session ends the run with Quit.
  Outcome run(gdb::GdbStub* debugger = nullptr, bool wait_for_debugger = false);

  // gdb::Target: one thread per CPU. Registers are the running context's (SP is that of the current EL and
  // SPSel, CPSR is PSTATE in SPSR format); memory goes through the CPU's current stage 1 translation and
  // reaches RAM only. Virtual time stands still while GDB has the machine stopped.
  int num_cpus() override { return static_cast<int>(cores_.size()); }
  gdb::Registers read_registers(int cpu) override;
  void write_registers(int cpu, const gdb::Registers& r) override;
  bool read_memory(int cpu, uint64_t va, void* buf, size_t n) override;
  bool write_memory(int cpu, uint64_t va, const void* buf, size_t n) override;
  Stop resume(bool step, int cpu, const std::vector<uint64_t>& breakpoints,
              const std::function<bool()>& should_stop, int& stopped_cpu) override;

  // cpu::MemoryPort
  uint8_t* ram_pointer(uint64_t page) override { return bus_.ram_pointer(page, 4096); }
  bool read(uint64_t pa, unsigned size, uint64_t& value) override { return bus_.read(pa, size, value); }
  bool write(uint64_t pa, unsigned size, uint64_t value) override { return bus_.write(pa, size, value); }
  // cpu::CoreHooks
  uint64_t timer_read(cpu::Core& core, cpu::TimerReg reg) override;
  void timer_write(cpu::Core& core, cpu::TimerReg reg, uint64_t value) override;
  bool firmware_call(cpu::Core& core) override;

  cpu::Core& core(unsigned i) { return *cores_[i]; }
  uint64_t instructions() const { return instructions_; }
  // Writes the statistics the options ask for (--stats, --stats-csv, --stats-summary, --trace-timeline);
  // false with `error` set when a file cannot be written. run() calls it when the guest stops.
  bool write_stats(std::string& error);

private:
  explicit JunoMachine(const Options& options);
  bool load(std::string& error);
  unsigned index_of(const cpu::Core& core) const;
  void update_timers();
  void feed_console_input(int wait_ms);
  void console_byte(uint8_t b); // to the console, and with --console-log to the log with virtual times
  // Breakpoint state of a debugger's continue; see round().
  struct DebugRun {
    const std::vector<uint64_t>& breakpoints;
    std::vector<bool> started; // the CPU has run since the continue (its first instruction is not checked)
  };
  struct RoundResult {
    bool any_running; // some CPU ran and is not waiting for an interrupt
    int breakpoint;   // CPU stopped at a breakpoint, or -1
  };
  // Instructions each core runs in this round (see kQuantum, kSoloQuantum).
  uint64_t quantum(bool debugging) const;
  // Virtual time (ticks) of the next timer deadline or GPU job result; UINT64_MAX: none.
  uint64_t next_device_event() const;
  // One round: each runnable CPU runs a quantum, then virtual time, timers and the console catch up. With
  // `debug`, a CPU about to execute a breakpoint address ends the round early.
  RoundResult round(DebugRun* debug);

  Options options_;
  dev::Bus bus_;
  dev::VirtualClock clock_;
  Console console_;
  std::FILE* console_log_ = nullptr; // --console-log
  bool console_log_line_start_ = true;
  std::unique_ptr<dev::Gic400> gic_;
  std::unique_ptr<dev::Pl011> uart_;
  std::unique_ptr<dev::Pl031> rtc_;
  std::unique_ptr<dev::VirtioBlk> disk_;
  // The shader cores compute jobs run on; declared before the GPU, so the GPU (whose job manager may be
  // inside them) goes first.
  std::unique_ptr<gpu::bifrost::ComputeCores> compute_;
  std::unique_ptr<gpu::MaliG71> gpu_;
  std::vector<std::unique_ptr<dev::GenericTimer>> timers_;
  std::vector<std::unique_ptr<cpu::Core>> cores_;
  cpu::CoreGroup group_;
  std::unique_ptr<Psci> psci_;
  std::vector<bool> waiting_; // in WFI until an interrupt
  std::string pending_input_;
  std::optional<Outcome> outcome_;
  uint64_t instructions_ = 0;
  std::FILE* trace_ = nullptr; // --trace output (stderr or --trace-file)
  bool trace_owned_ = false;
  uint64_t rounds_ = 0;
  uint64_t console_flushed_at_ = 0;                // virtual time of the last console flush
  std::unique_ptr<stats::Collector> stats_;        // when any statistics option is given
  std::vector<uint64_t> idle_since_;               // per CPU: virtual time it entered WFI (timeline)
  std::vector<std::vector<uint64_t>> insn_counts_; // --cpu-stats: per CPU, per instruction id
};

} // namespace vplat
