// Arm PrimeCell UART (PL011), as the Linux amba-pl011 driver uses it. Facts: PL011 TRM (DDI 0183).
// Transmission is instantaneous: written bytes go straight to the host sink, so the transmit FIFO is
// always empty. Received bytes wait in a 32-entry FIFO (1 entry when FIFOs are disabled).
#pragma once
#include "devices/device.h"
#include <deque>
#include <functional>

namespace vplat::dev {

class Pl011 : public MmioDevice {
public:
  Pl011(IrqLine irq, std::function<void(uint8_t)> tx_sink) : irq_(std::move(irq)), tx_(std::move(tx_sink)) {}

  uint64_t read(uint64_t offset, unsigned size) override;
  void write(uint64_t offset, unsigned size, uint64_t value) override;
  std::string name() const override { return "pl011"; }

  // Queues a byte from the host console. Returns false (byte dropped, overrun flagged) if the FIFO is full.
  bool receive(uint8_t byte);
  bool can_receive() const { return rx_.size() < capacity(); }

  // Interrupt bits (UARTRIS/UARTMIS/UARTIMSC/UARTICR).
  static constexpr uint32_t kRxInt = 1u << 4, kTxInt = 1u << 5, kRxTimeoutInt = 1u << 6, kOverrunInt = 1u << 10;

private:
  IrqLine irq_;
  std::function<void(uint8_t)> tx_;
  std::deque<uint16_t> rx_; // data byte plus error bits 11:8
  uint32_t raw_ = 0, mask_ = 0;
  uint32_t lcr_h_ = 0, cr_ = 0x300, ifls_ = 0x12, ibrd_ = 0, fbrd_ = 0, ilpr_ = 0, dmacr_ = 0, rsr_ = 0;

  size_t capacity() const { return (lcr_h_ & 0x10) ? 32 : 1; }
  size_t rx_trigger() const;
  void update_rx();
  void update_irq() { irq_.set((raw_ & mask_) != 0); }
};

} // namespace vplat::dev
