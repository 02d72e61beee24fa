// The Armv8 generic timer of one CPU: the EL1 physical and virtual timers that Linux uses, driven by the
// virtual clock, each raising its PPI while its condition holds. Facts: Arm ARM D11 (The Generic Timer).
// The CPU model reads and writes these registers through its system-register helpers.
#pragma once
#include "devices/clock.h"
#include "devices/device.h"
#include <cstdint>

namespace vplat::dev {

class GenericTimer {
public:
  // PPI INTIDs as Juno wires them: physical NS EL1 = PPI 14 (INTID 30), virtual = PPI 11 (INTID 27).
  static constexpr int kPhysIntid = 30, kVirtIntid = 27, kHypIntid = 26, kSecureIntid = 29;

  GenericTimer(const VirtualClock& clock, IrqLine phys, IrqLine virt)
      : clock_(clock), phys_irq_(std::move(phys)), virt_irq_(std::move(virt)) {}

  uint64_t physical_count() const { return clock_.ticks(); }
  uint64_t virtual_count() const { return clock_.ticks() - cntvoff; }

  struct Timer {
    uint32_t ctl = 0; // ENABLE (bit 0), IMASK (bit 1); ISTATUS (bit 2) is computed
    uint64_t cval = 0;
  };
  Timer phys, virt;
  uint64_t cntvoff = 0;
  uint32_t cntkctl = 0;

  // CTL as read: with ISTATUS.
  uint32_t read_ctl(const Timer& t, uint64_t count) const { return (t.ctl & 3) | (fired(t, count) ? 4 : 0); }
  // TVAL is the signed 32-bit distance to CVAL.
  uint32_t read_tval(const Timer& t, uint64_t count) const { return static_cast<uint32_t>(t.cval - count); }
  void write_tval(Timer& t, uint64_t count, uint32_t tval) {
    t.cval = count + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(tval)));
  }

  // Re-evaluates both interrupt outputs; call after register writes and whenever time moves.
  void update();
  // The physical count at which the next enabled, unmasked timer fires, or UINT64_MAX if none.
  uint64_t next_deadline() const;

private:
  const VirtualClock& clock_;
  IrqLine phys_irq_, virt_irq_;
  static bool fired(const Timer& t, uint64_t count) { return (t.ctl & 1) && count >= t.cval; }
};

} // namespace vplat::dev
