#include "devices/pl011.h"

namespace vplat::dev {

namespace {
// UARTPeriphID0-3 and UARTPCellID0-3 at 0xfe0..0xffc: a PL011 r1p5, the part Linux's driver matches.
constexpr uint8_t kIdBytes[8] = {0x11, 0x10, 0x14, 0x00, 0x0d, 0xf0, 0x05, 0xb1};
constexpr uint32_t kFlagTxEmpty = 1u << 7, kFlagRxFull = 1u << 6, kFlagRxEmpty = 1u << 4;
} // namespace

size_t Pl011::rx_trigger() const {
  if (!(lcr_h_ & 0x10)) return 1;
  // UARTIFLS.RXIFLSEL: 1/8, 1/4, 1/2, 3/4, 7/8 of 32 entries.
  static const size_t levels[] = {4, 8, 16, 24, 28};
  unsigned sel = (ifls_ >> 3) & 7;
  return sel < 5 ? levels[sel] : 16;
}

void Pl011::update_rx() {
  raw_ &= ~(kRxInt | kRxTimeoutInt);
  if (rx_.size() >= rx_trigger()) raw_ |= kRxInt;
  // A real UART raises the timeout interrupt after 32 idle bit periods; host input arrives in bursts, so
  // any data left below the trigger level is reported at once.
  if (!rx_.empty()) raw_ |= kRxTimeoutInt;
  update_irq();
}

bool Pl011::receive(uint8_t byte) {
  if (rx_.size() >= capacity()) {
    raw_ |= kOverrunInt;
    rsr_ |= 8;
    update_irq();
    return false;
  }
  rx_.push_back(byte);
  update_rx();
  return true;
}

uint64_t Pl011::read(uint64_t offset, unsigned) {
  switch (offset) {
  case 0x000: { // UARTDR
    if (rx_.empty()) return 0;
    uint16_t v = rx_.front();
    rx_.pop_front();
    update_rx();
    return v;
  }
  case 0x004: return rsr_;
  case 0x018: {
    uint32_t fr = kFlagTxEmpty;
    if (rx_.empty()) fr |= kFlagRxEmpty;
    if (rx_.size() >= capacity()) fr |= kFlagRxFull;
    return fr;
  }
  case 0x020: return ilpr_;
  case 0x024: return ibrd_;
  case 0x028: return fbrd_;
  case 0x02c: return lcr_h_;
  case 0x030: return cr_;
  case 0x034: return ifls_;
  case 0x038: return mask_;
  case 0x03c: return raw_;
  case 0x040: return raw_ & mask_;
  case 0x048: return dmacr_;
  default:
    if (offset >= 0xfe0 && offset < 0x1000 && (offset & 3) == 0) return kIdBytes[(offset - 0xfe0) / 4];
    return 0;
  }
}

void Pl011::write(uint64_t offset, unsigned, uint64_t value) {
  uint32_t v = static_cast<uint32_t>(value);
  switch (offset) {
  case 0x000:
    if (tx_) tx_(static_cast<uint8_t>(v));
    // The byte left at once, so the transmit FIFO is at or below any trigger level again.
    raw_ |= kTxInt;
    update_irq();
    break;
  case 0x004: rsr_ = 0; break; // UARTECR: any write clears the errors
  case 0x020: ilpr_ = v & 0xff; break;
  case 0x024: ibrd_ = v & 0xffff; break;
  case 0x028: fbrd_ = v & 0x3f; break;
  case 0x02c:
    // Toggling FIFO enable flushes the receive FIFO down to the new capacity.
    lcr_h_ = v & 0xff;
    while (rx_.size() > capacity()) rx_.pop_front();
    update_rx();
    break;
  case 0x030: cr_ = v & 0xff87; break;
  case 0x034: ifls_ = v & 0x3f; update_rx(); break;
  case 0x038: mask_ = v & 0x7ff; update_irq(); break;
  case 0x044: raw_ &= ~v; update_rx(); break; // UARTICR; level-based RX state is re-derived
  case 0x048: dmacr_ = v & 7; break;
  default: break;
  }
}

} // namespace vplat::dev
