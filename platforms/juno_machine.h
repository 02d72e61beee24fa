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
#include "platforms/cli.h"
#include "platforms/console.h"
#include "platforms/psci.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vplat {

class JunoMachine : public cpu::MemoryPort, public cpu::CoreHooks {
public:
  enum class Outcome { PowerOff, Reset, Quit };

  // Builds the machine and loads the guest. On bad input (missing or corrupt image, too little RAM) returns
  // nullptr with a one-line reason in `error`.
  static std::unique_ptr<JunoMachine> create(const Options& options, std::string& error);
  ~JunoMachine() override;

  Outcome run();

  // cpu::MemoryPort
  uint8_t* ram_pointer(uint64_t page) override { return bus_.ram_pointer(page, 4096); }
  bool read(uint64_t pa, unsigned size, uint64_t& value) override { return bus_.read(pa, size, value); }
  bool write(uint64_t pa, unsigned size, uint64_t value) override { return bus_.write(pa, size, value); }
  // cpu::CoreHooks
  uint64_t timer_read(cpu::Core& core, cpu::TimerReg reg) override;
  void timer_write(cpu::Core& core, cpu::TimerReg reg, uint64_t value) override;
  bool firmware_call(cpu::Core& core) override;

  unsigned num_cpus() const { return static_cast<unsigned>(cores_.size()); }
  cpu::Core& core(unsigned i) { return *cores_[i]; }
  uint64_t instructions() const { return instructions_; }

private:
  explicit JunoMachine(const Options& options);
  bool load(std::string& error);
  unsigned index_of(const cpu::Core& core) const;
  void update_timers();
  void feed_console_input(int wait_ms);

  Options options_;
  dev::Bus bus_;
  dev::VirtualClock clock_;
  Console console_;
  std::unique_ptr<dev::Gic400> gic_;
  std::unique_ptr<dev::Pl011> uart_;
  std::unique_ptr<dev::Pl031> rtc_;
  std::unique_ptr<dev::VirtioBlk> disk_;
  std::vector<std::unique_ptr<dev::GenericTimer>> timers_;
  std::vector<std::unique_ptr<cpu::Core>> cores_;
  cpu::CoreGroup group_;
  std::unique_ptr<Psci> psci_;
  std::vector<bool> waiting_; // in WFI until an interrupt
  std::string pending_input_;
  std::optional<Outcome> outcome_;
  uint64_t instructions_ = 0;
};

} // namespace vplat
