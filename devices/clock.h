// Virtual time. By default time is deterministic: it advances with the instructions the CPUs retire
// (one counter tick per instruction at the generic timer's 50 MHz), and an idle CPU (WFI) skips ahead to
// the next timer deadline. The same inputs then give the same outputs, whatever the host's speed.
#pragma once
#include <cstdint>

namespace vplat::dev {

class VirtualClock {
public:
  static constexpr uint64_t kFrequency = 50'000'000; // Juno's generic timer runs at 50 MHz

  uint64_t ticks() const { return ticks_; }
  void advance(uint64_t t) { ticks_ += t; }
  void advance_to(uint64_t t) {
    if (t > ticks_) ticks_ = t;
  }
  uint64_t nanoseconds() const { return ticks_ * (1'000'000'000 / kFrequency); }

private:
  uint64_t ticks_ = 0;
};

} // namespace vplat::dev
