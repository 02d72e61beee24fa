// virtio-mmio transport, version 2 ("modern"), with split virtqueues. Facts: Virtio 1.1 (OASIS, 2019),
// section 2 (device status, feature bits, split virtqueues) and section 4.2.2 (MMIO register layout).
//
// A device type (block, ...) derives from VirtioMmio and supplies its ID, feature bits, configuration
// space and a handler for queue notifications. The transport owns the register file, feature negotiation,
// the queues and the interrupt line.
//
// Error policy (the spec leaves the choice to the device; this is ours):
//  * A violation of the transport or ring format -- queue size zero, above QueueNumMax or not a power of
//    two; a ring not wholly inside RAM or misaligned; an available-ring index jumping by more than the queue
//    size; a head or next index outside the table; a chain that loops or is longer than its table; a
//    buffer not wholly inside RAM; an indirect table of bad length, nested, or chained with NEXT; a
//    device-readable descriptor after a device-writable one -- means the queue can no longer be trusted.
//    The device then sets DEVICE_NEEDS_RESET (Status bit 0x40), stops processing every queue until the
//    driver resets it, and, once DRIVER_OK is set, raises a configuration-change interrupt (2.1.2).
//    No byte of the offending request is transferred and no used entry is written for it.
//  * A well-formed chain carrying a request the device type cannot honour (unknown type, out-of-range
//    sector, write to a read-only disk, ...) is completed normally with an error status in the request
//    (the device type decides; see virtio_blk.h).
// All guest memory is reached through Bus::ram_pointer with a length, so nothing outside guest RAM is
// ever read or written; every guest-supplied value is copied once into host variables before it is checked.
// Accesses are expected from one thread at a time (the CPU thread doing the MMIO access).
#pragma once
#include "devices/bus.h"
#include "devices/device.h"
#include <array>
#include <cstdint>
#include <vector>

namespace vplat::dev {

namespace virtio {
// Register offsets (4.2.2).
enum Reg : uint32_t {
  kMagicValue = 0x000,
  kVersion = 0x004,
  kDeviceId = 0x008,
  kVendorId = 0x00c,
  kDeviceFeatures = 0x010,
  kDeviceFeaturesSel = 0x014,
  kDriverFeatures = 0x020,
  kDriverFeaturesSel = 0x024,
  kQueueSel = 0x030,
  kQueueNumMax = 0x034,
  kQueueNum = 0x038,
  kQueueReady = 0x044,
  kQueueNotify = 0x050,
  kInterruptStatus = 0x060,
  kInterruptAck = 0x064,
  kStatus = 0x070,
  kQueueDescLow = 0x080,
  kQueueDescHigh = 0x084,
  kQueueDriverLow = 0x090,
  kQueueDriverHigh = 0x094,
  kQueueDeviceLow = 0x0a0,
  kQueueDeviceHigh = 0x0a4,
  kConfigGeneration = 0x0fc,
  kConfig = 0x100,
};
constexpr uint32_t kMagic = 0x74726976; // "virt" little-endian
constexpr uint32_t kMmioVersion = 2;
constexpr uint32_t kVendor = 0x544c5056; // "VPLT" little-endian; drivers do not interpret it

// Device status bits (2.1).
constexpr uint32_t kStatusAcknowledge = 1, kStatusDriver = 2, kStatusDriverOk = 4, kStatusFeaturesOk = 8,
                   kStatusNeedsReset = 64, kStatusFailed = 128;
// InterruptStatus bits (4.2.2).
constexpr uint32_t kIntUsedBuffer = 1, kIntConfigChange = 2;
// Device-independent feature bits (6).
constexpr unsigned kFIndirectDesc = 28, kFEventIdx = 29, kFVersion1 = 32, kFRingPacked = 34;
// Split-ring flags (2.6.5, 2.6.6, 2.6.8).
constexpr uint16_t kDescNext = 1, kDescWrite = 2, kDescIndirect = 4;
constexpr uint16_t kAvailNoInterrupt = 1;
} // namespace virtio

// One device-side buffer segment of a descriptor chain, already resolved to host memory inside guest RAM.
struct VirtqSegment {
  uint8_t* host;
  uint32_t len;
  bool device_writable;
};

// A validated descriptor chain: the device-readable segments come first, then the device-writable ones.
struct VirtqChain {
  uint16_t head = 0;
  std::vector<VirtqSegment> segs;
  uint64_t readable = 0, writable = 0; // byte totals of each kind

  // Copy bytes [offset, offset+n) of the readable stream to dst; false if the stream is shorter.
  bool read(uint64_t offset, void* dst, uint64_t n) const;
  // Copy src to bytes [offset, offset+n) of the writable stream; false if the stream is shorter.
  bool write(uint64_t offset, const void* src, uint64_t n) const;
  // Calls fn(host, len) for each piece of [offset, offset+n) of the readable (writable_part=false) or
  // writable stream, in order; stops and returns false as soon as fn does. Caller checks the range first.
  template <class F> bool for_each(bool writable_part, uint64_t offset, uint64_t n, F&& fn) const {
    for (const auto& s : segs) {
      if (s.device_writable != writable_part || n == 0) continue;
      if (offset >= s.len) {
        offset -= s.len;
        continue;
      }
      uint64_t take = s.len - offset;
      if (take > n) take = n;
      if (!fn(s.host + offset, take)) return false;
      n -= take;
      offset = 0;
    }
    return n == 0;
  }
};

class VirtioMmio : public MmioDevice {
public:
  VirtioMmio(Bus& bus, IrqLine irq, unsigned num_queues, uint16_t queue_num_max);
  uint64_t read(uint64_t offset, unsigned size) override;
  void write(uint64_t offset, unsigned size, uint64_t value) override;

  // Observers for tests and the board.
  uint32_t status() const { return status_; }
  uint32_t interrupt_status() const { return int_status_; }
  uint64_t negotiated_features() const { return driver_features_; }

protected:
  // The device type's identity, its feature bits (device-independent ones included), its configuration
  // space (bytes, little-endian), and what it does with a notified queue.
  virtual uint32_t device_id() const = 0;
  virtual uint64_t device_features() const = 0;
  virtual const std::vector<uint8_t>& config_space() const = 0;
  // Handle one available chain of queue q. Return the number of bytes written into the chain's
  // device-writable part (the used-ring length), or a negative value if the request is malformed beyond
  // an error status (the transport then enters DEVICE_NEEDS_RESET without completing the chain).
  virtual int64_t handle_request(unsigned q, const VirtqChain& chain) = 0;
  // Device-type state to clear on a reset.
  virtual void reset_device() {}

  // Enter the error state (see the policy above). `why` is logged once per reset to stderr.
  void device_error(const char* why);

  Bus& bus_;

private:
  struct Queue {
    uint32_t num = 0;
    bool ready = false;
    uint64_t desc = 0, driver = 0, device = 0;
    // Resolved when the queue is made ready (RAM regions never move).
    uint8_t *desc_host = nullptr, *avail_host = nullptr, *used_host = nullptr;
    uint16_t last_avail = 0, used_idx = 0;
  };

  IrqLine irq_;
  uint16_t queue_num_max_;
  std::vector<Queue> queues_;
  uint32_t status_ = 0, int_status_ = 0;
  uint32_t device_features_sel_ = 0, driver_features_sel_ = 0, queue_sel_ = 0;
  uint64_t driver_features_ = 0;
  bool driver_features_bad_ = false; // a nonzero write to a feature word beyond 63
  bool error_logged_ = false;

  void reset();
  void set_status(uint32_t value);
  void make_ready(Queue& q);
  void notify(unsigned index);
  bool pop_chain(Queue& q, uint16_t head, VirtqChain& chain);
  void update_irq() { irq_.set(int_status_ != 0); }
  Queue* selected() { return queue_sel_ < queues_.size() ? &queues_[queue_sel_] : nullptr; }
};

} // namespace vplat::dev
