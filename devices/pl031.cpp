#include "devices/pl031.h"

namespace vplat::dev {

namespace {
constexpr uint8_t kIdBytes[8] = {0x31, 0x10, 0x04, 0x00, 0x0d, 0xf0, 0x05, 0xb1};
}

uint32_t Pl031::now() const {
  uint64_t since = clock_.ticks() - load_ticks_;
  uint32_t base = loaded_ ? load_ : epoch_;
  return base + static_cast<uint32_t>(since / VirtualClock::kFrequency);
}

void Pl031::update() {
  // The interrupt is an event: the counter reaching the match value. Time may have jumped several seconds
  // (an idle CPU skips ahead), so any match passed since the last look counts.
  uint32_t n = now();
  if (n != last_seen_) {
    if (static_cast<uint32_t>(match_ - last_seen_ - 1) < static_cast<uint32_t>(n - last_seen_)) raw_ = 1;
    last_seen_ = n;
  }
  irq_.set(raw_ & mask_);
}

uint64_t Pl031::read(uint64_t offset, unsigned) {
  switch (offset) {
  case 0x00: return now();
  case 0x04: return match_;
  case 0x08: return load_;
  case 0x0c: return 1; // RTCCR.RTCStart: the counter always runs
  case 0x10: return mask_;
  case 0x14: return raw_;
  case 0x18: return raw_ & mask_;
  default:
    if (offset >= 0xfe0 && offset < 0x1000 && (offset & 3) == 0) return kIdBytes[(offset - 0xfe0) / 4];
    return 0;
  }
}

void Pl031::write(uint64_t offset, unsigned, uint64_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  switch (offset) {
  case 0x04: match_ = v; break;
  case 0x08:
    load_ = v;
    load_ticks_ = clock_.ticks();
    loaded_ = true;
    last_seen_ = v;
    break;
  case 0x10: mask_ = v & 1; break;
  case 0x1c: raw_ &= ~v; break;
  default: break;
  }
  update();
}

} // namespace vplat::dev
