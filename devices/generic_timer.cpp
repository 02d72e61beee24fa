#include "devices/generic_timer.h"
#include <algorithm>

namespace vplat::dev {

void GenericTimer::update() {
  phys_irq_.set(fired(phys, physical_count()) && !(phys.ctl & 2));
  virt_irq_.set(fired(virt, virtual_count()) && !(virt.ctl & 2));
}

uint64_t GenericTimer::next_deadline() const {
  uint64_t d = UINT64_MAX;
  if ((phys.ctl & 3) == 1) d = std::min(d, phys.cval);
  if ((virt.ctl & 3) == 1) {
    // The virtual timer compares CVAL with physical count - CNTVOFF.
    uint64_t at = virt.cval + cntvoff;
    if (at >= virt.cval) d = std::min(d, at);
  }
  return d;
}

} // namespace vplat::dev
