// Virtual time. By default time is deterministic: it advances with the instructions the CPUs retire (at a
// fixed number of instructions per tick of the generic timer's 50 MHz counter: the modelled CPU speed), and
// an idle CPU (WFI) skips ahead to the next timer deadline. The same inputs then give the same outputs,
// whatever the host's speed.
#pragma once
#include <cstdint>

namespace vplat::dev {

class VirtualClock {
public:
  static constexpr uint64_t kFrequency = 50'000'000; // Juno's generic timer runs at 50 MHz

  // A CPU retires `insns_per_tick` instructions per tick (1: a 50 MIPS CPU; 20: 1000 MIPS).
  explicit VirtualClock(uint64_t insns_per_tick = 1) : per_tick_(insns_per_tick ? insns_per_tick : 1) {}
  uint64_t insns_per_tick() const { return per_tick_; }

  // Now, as the CPU that is running sees it: the platform runs the CPUs one quantum at a time and advances
  // the clock once per round, so while a CPU runs, the time its accesses see (counter reads, device
  // registers) is the round's start plus the instructions it has retired since.
  // CPUs take their quanta of a round one after another from the same start, so a later CPU's own progress
  // may be behind what an earlier one already showed a device: time never goes back for anyone who looks.
  uint64_t ticks() const {
    uint64_t t = ticks_ + (insns_ + (progress_ ? progress_(progress_ctx_) - progress_start_ : 0)) / per_tick_;
    if (t < seen_) t = seen_;
    seen_ = t;
    return t;
  }
  void advance(uint64_t t) { ticks_ += t; }
  // Time for `n` instructions retired (a part of a tick is kept for the next ones).
  void retire(uint64_t n) {
    insns_ += n;
    ticks_ += insns_ / per_tick_;
    insns_ %= per_tick_;
  }
  void advance_to(uint64_t t) {
    if (t > ticks_) {
      ticks_ = t;
      insns_ = 0;
    }
  }
  uint64_t nanoseconds() const { return ticks() * (1'000'000'000 / kFrequency); }

  // While a CPU runs a quantum: `progress(ctx)` is its instructions retired so far (a count that only grows).
  // The platform ends the quantum before it advances the clock by the round's length, which is at least any
  // CPU's progress in it, so time never goes backwards.
  using Progress = uint64_t (*)(const void* ctx);
  void begin_quantum(Progress progress, const void* ctx) {
    progress_ = progress;
    progress_ctx_ = ctx;
    progress_start_ = progress(ctx);
  }
  void end_quantum() { progress_ = nullptr; }

private:
  uint64_t per_tick_;
  uint64_t ticks_ = 0;
  uint64_t insns_ = 0; // retired since the last whole tick
  Progress progress_ = nullptr;
  const void* progress_ctx_ = nullptr;
  uint64_t progress_start_ = 0;
  mutable uint64_t seen_ = 0; // the latest time ticks() returned (read on the CPU thread only)
};

} // namespace vplat::dev
