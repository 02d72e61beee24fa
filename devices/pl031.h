// Arm PrimeCell real-time clock (PL031). Facts: PL031 TRM (DDI 0224). The seconds counter starts at a
// fixed epoch in deterministic mode (so runs repeat exactly), and counts virtual seconds.
#pragma once
#include "devices/clock.h"
#include "devices/device.h"

namespace vplat::dev {

class Pl031 : public MmioDevice {
public:
  Pl031(const VirtualClock& clock, IrqLine irq, uint32_t epoch_seconds)
      : clock_(clock), irq_(std::move(irq)), epoch_(epoch_seconds), last_seen_(epoch_seconds) {}
  uint64_t read(uint64_t offset, unsigned size) override;
  void write(uint64_t offset, unsigned size, uint64_t value) override;
  std::string name() const override { return "pl031"; }

  // Re-evaluates the match interrupt; call when time moves.
  void update();

private:
  const VirtualClock& clock_;
  IrqLine irq_;
  uint32_t epoch_;
  uint32_t load_ = 0, match_ = 0, mask_ = 0, raw_ = 0;
  uint64_t load_ticks_ = 0;
  bool loaded_ = false;
  uint32_t last_seen_;
  uint32_t now() const;
};

} // namespace vplat::dev
