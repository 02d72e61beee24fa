#include "devices/virtio_mmio.h"
#include <atomic>
#include <cstdio>
#include <cstring>

namespace vplat::dev {

using namespace virtio;

namespace {
// Ring layouts (2.6): a descriptor is {le64 addr, le32 len, le16 flags, le16 next}; the available ring is
// {le16 flags, le16 idx, le16 ring[N], le16 used_event}; the used ring {le16 flags, le16 idx,
// {le32 id, le32 len} ring[N], le16 avail_event}. The host is little-endian like the virtio format.
constexpr uint64_t kDescSize = 16;
// Bound on an indirect table so a hostile length cannot make one request walk millions of entries. Linux
// never builds one longer than seg_max + 2 entries.
constexpr uint32_t kMaxIndirect = 1024;

template <class T> T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> void store(uint8_t* p, T v) { std::memcpy(p, &v, sizeof v); }
} // namespace

bool VirtqChain::read(uint64_t offset, void* dst, uint64_t n) const {
  if (offset > readable || n > readable - offset) return false;
  auto* out = static_cast<uint8_t*>(dst);
  return for_each(false, offset, n, [&](uint8_t* p, uint64_t len) {
    std::memcpy(out, p, len);
    out += len;
    return true;
  });
}

bool VirtqChain::write(uint64_t offset, const void* src, uint64_t n) const {
  if (offset > writable || n > writable - offset) return false;
  auto* in = static_cast<const uint8_t*>(src);
  return for_each(true, offset, n, [&](uint8_t* p, uint64_t len) {
    std::memcpy(p, in, len);
    in += len;
    return true;
  });
}

VirtioMmio::VirtioMmio(Bus& bus, IrqLine irq, unsigned num_queues, uint16_t queue_num_max)
    : bus_(bus), irq_(std::move(irq)), queue_num_max_(queue_num_max), queues_(num_queues) {}

void VirtioMmio::reset() {
  status_ = 0;
  int_status_ = 0;
  device_features_sel_ = driver_features_sel_ = queue_sel_ = 0;
  driver_features_ = 0;
  driver_features_bad_ = false;
  error_logged_ = false;
  for (auto& q : queues_) q = Queue{};
  reset_device();
  update_irq();
}

void VirtioMmio::device_error(const char* why) {
  if (status_ & kStatusNeedsReset) return;
  if (!error_logged_) {
    std::fprintf(stderr, "vplat: %s: %s; device needs reset\n", name().c_str(), why);
    error_logged_ = true;
  }
  status_ |= kStatusNeedsReset;
  // 2.1.2: after setting DEVICE_NEEDS_RESET with DRIVER_OK set, the device must send a configuration
  // change notification. Before DRIVER_OK the driver will see the bit when it reads Status.
  if (status_ & kStatusDriverOk) {
    int_status_ |= kIntConfigChange;
    update_irq();
  }
}

uint64_t VirtioMmio::read(uint64_t offset, unsigned size) {
  if (offset >= kConfig) {
    // Device configuration space: the driver uses accesses as wide as the field (4.2.2.2), so any
    // 1/2/4/8-byte access inside the space is answered; beyond it reads zero.
    const auto& cfg = config_space();
    const uint64_t off = offset - kConfig;
    if (off > cfg.size() || size > cfg.size() - off) return 0;
    uint64_t v = 0;
    std::memcpy(&v, cfg.data() + off, size);
    return v;
  }
  // Registers take aligned 32-bit accesses only (4.2.2.2); anything else reads as zero.
  if (size != 4 || (offset & 3)) return 0;
  const Queue* q = queue_sel_ < queues_.size() ? &queues_[queue_sel_] : nullptr;
  switch (offset) {
  case kMagicValue: return kMagic;
  case kVersion: return kMmioVersion;
  case kDeviceId: return device_id();
  case kVendorId: return kVendor;
  case kDeviceFeatures:
    return device_features_sel_ < 2 ? static_cast<uint32_t>(device_features() >> (32 * device_features_sel_)) : 0;
  case kQueueNumMax: return q ? queue_num_max_ : 0; // zero: no such queue
  case kQueueReady: return q && q->ready ? 1 : 0;
  case kInterruptStatus: return int_status_;
  case kStatus: return status_;
  case kConfigGeneration: return 0; // the configuration never changes after construction
  default: return 0;                // write-only and unallocated registers
  }
}

void VirtioMmio::write(uint64_t offset, unsigned size, uint64_t value) {
  if (offset >= kConfig) return; // no writable configuration fields in the device types we model
  if (size != 4 || (offset & 3)) return;
  const uint32_t v = static_cast<uint32_t>(value);
  Queue* q = selected();
  // Queue layout registers are ignored while the queue is live: the driver must not change them then
  // (4.2.2.3), and honouring it would move the rings under requests in flight.
  Queue* idle = q && !q->ready ? q : nullptr;
  switch (offset) {
  case kDeviceFeaturesSel: device_features_sel_ = v; break;
  case kDriverFeaturesSel: driver_features_sel_ = v; break;
  case kDriverFeatures:
    if (status_ & kStatusFeaturesOk) break; // features are frozen once accepted
    if (driver_features_sel_ < 2) {
      const unsigned shift = 32 * driver_features_sel_;
      driver_features_ = (driver_features_ & ~(0xffffffffull << shift)) | (uint64_t{v} << shift);
    } else if (v != 0) {
      driver_features_bad_ = true; // a bit above 63: never offered
    }
    break;
  case kQueueSel: queue_sel_ = v; break;
  case kQueueNum:
    if (idle) idle->num = v;
    break;
  case kQueueReady:
    if (!q) break;
    if (v & 1) {
      if (!q->ready) make_ready(*q);
    } else {
      q->ready = false;
      q->desc_host = q->avail_host = q->used_host = nullptr;
    }
    break;
  case kQueueNotify: notify(v & 0xffff); break;
  case kInterruptAck:
    int_status_ &= ~v;
    update_irq();
    break;
  case kStatus: set_status(v); break;
  case kQueueDescLow:
    if (idle) idle->desc = (idle->desc & ~0xffffffffull) | v;
    break;
  case kQueueDescHigh:
    if (idle) idle->desc = (idle->desc & 0xffffffffull) | (uint64_t{v} << 32);
    break;
  case kQueueDriverLow:
    if (idle) idle->driver = (idle->driver & ~0xffffffffull) | v;
    break;
  case kQueueDriverHigh:
    if (idle) idle->driver = (idle->driver & 0xffffffffull) | (uint64_t{v} << 32);
    break;
  case kQueueDeviceLow:
    if (idle) idle->device = (idle->device & ~0xffffffffull) | v;
    break;
  case kQueueDeviceHigh:
    if (idle) idle->device = (idle->device & 0xffffffffull) | (uint64_t{v} << 32);
    break;
  default: break;
  }
}

void VirtioMmio::set_status(uint32_t value) {
  if (value == 0) {
    reset();
    return;
  }
  // DEVICE_NEEDS_RESET belongs to the device; the driver only adds bits (2.1.1) so keep the old ones.
  uint32_t next = (value & ~kStatusNeedsReset) | (status_ & kStatusNeedsReset);
  if ((next & kStatusFeaturesOk) && !(status_ & kStatusFeaturesOk)) {
    // 3.1.1 step 5-6: the device leaves FEATURES_OK clear if it cannot accept the driver's subset; the
    // driver reads Status back to find out. Bits never offered are refused, and so is a driver without
    // VERSION_1, which this legacy-free device requires (6.1).
    const bool ok = !driver_features_bad_ && (driver_features_ & ~device_features()) == 0 &&
                    (driver_features_ >> kFVersion1 & 1);
    if (!ok) next &= ~kStatusFeaturesOk;
  }
  const bool driver_ok_now = (next & kStatusDriverOk) && !(status_ & kStatusDriverOk);
  status_ = next;
  if (driver_ok_now && (status_ & kStatusNeedsReset)) {
    int_status_ |= kIntConfigChange;
    update_irq();
  }
}

void VirtioMmio::make_ready(Queue& q) {
  // 2.6: a split queue's size is a power of two; 4.2.2.3: at most QueueNumMax. Alignments from 2.6 table.
  const uint32_t n = q.num;
  if (n == 0 || n > queue_num_max_ || (n & (n - 1))) return device_error("queue size zero, too large or not a power of two");
  if ((q.desc & 15) || (q.driver & 1) || (q.device & 3)) return device_error("misaligned virtqueue");
  uint8_t* d = bus_.ram_pointer(q.desc, kDescSize * n);
  uint8_t* a = bus_.ram_pointer(q.driver, 6 + 2ull * n);
  uint8_t* u = bus_.ram_pointer(q.device, 6 + 8ull * n);
  if (!d || !a || !u) return device_error("virtqueue outside RAM");
  q.desc_host = d;
  q.avail_host = a;
  q.used_host = u;
  q.last_avail = q.used_idx = 0;
  q.ready = true;
}

bool VirtioMmio::pop_chain(Queue& q, uint16_t head, VirtqChain& chain) {
  chain = VirtqChain{};
  chain.head = head;
  const bool indirect_ok = driver_features_ >> kFIndirectDesc & 1;
  const uint8_t* table = q.desc_host;
  uint32_t table_size = q.num;
  uint32_t idx = head, visited = 0;
  bool in_indirect = false;
  for (;;) {
    if (idx >= table_size) return device_error("descriptor index outside the table"), false;
    // A chain visits each entry of its table at most once (2.6.5.2: no longer than the queue size), so
    // one visit more means a loop.
    if (++visited > table_size) return device_error("descriptor chain loops"), false;
    const uint8_t* e = table + kDescSize * idx;
    const uint64_t addr = load<uint64_t>(e);
    const uint32_t len = load<uint32_t>(e + 8);
    const uint16_t flags = load<uint16_t>(e + 12);
    const uint16_t next = load<uint16_t>(e + 14);
    if (flags & kDescIndirect) {
      // 2.6.5.3.1: only with the feature, never inside an indirect table, never with NEXT, and the table
      // is a whole number of descriptors.
      if (!indirect_ok) return device_error("indirect descriptor without VIRTIO_F_INDIRECT_DESC"), false;
      if (in_indirect) return device_error("nested indirect descriptor"), false;
      if (flags & kDescNext) return device_error("indirect descriptor with NEXT"), false;
      if (len == 0 || len % kDescSize || len / kDescSize > kMaxIndirect)
        return device_error("bad indirect table length"), false;
      const uint8_t* t = bus_.ram_pointer(addr, len);
      if (!t) return device_error("indirect table outside RAM"), false;
      table = t;
      table_size = len / kDescSize;
      idx = 0;
      visited = 0;
      in_indirect = true;
      continue;
    }
    if (len != 0) {
      uint8_t* p = bus_.ram_pointer(addr, len);
      if (!p) return device_error("buffer outside RAM"), false;
      const bool w = flags & kDescWrite;
      // 2.6.4.2: device-writable elements come after all device-readable ones.
      if (!w && chain.writable) return device_error("device-readable buffer after a device-writable one"), false;
      chain.segs.push_back({p, len, w});
      (w ? chain.writable : chain.readable) += len;
    }
    if (!(flags & kDescNext)) return true;
    idx = next;
  }
}

void VirtioMmio::notify(unsigned index) {
  // 3.1.1 / 2.1.2: no buffers are consumed before DRIVER_OK or while the device needs a reset.
  if (!(status_ & kStatusDriverOk) || (status_ & kStatusNeedsReset)) return;
  if (index >= queues_.size() || !queues_[index].ready) return;
  Queue& q = queues_[index];
  bool used_any = false;
  while (!(status_ & kStatusNeedsReset)) {
    const uint16_t avail_idx = load<uint16_t>(q.avail_host + 2);
    // Ring entries written before the index must be seen after it (2.6.13's driver-side barrier).
    std::atomic_thread_fence(std::memory_order_acquire);
    const uint16_t pending = static_cast<uint16_t>(avail_idx - q.last_avail);
    if (pending == 0) break;
    if (pending > q.num) {
      device_error("available ring index moved by more than the queue size");
      break;
    }
    const uint16_t head = load<uint16_t>(q.avail_host + 4 + 2 * (q.last_avail % q.num));
    VirtqChain chain;
    if (!pop_chain(q, head, chain)) break;
    const int64_t len = handle_request(index, chain);
    if (len < 0) {
      device_error("malformed request");
      break;
    }
    ++q.last_avail;
    uint8_t* elem = q.used_host + 4 + 8 * (q.used_idx % q.num);
    store<uint32_t>(elem, head);
    store<uint32_t>(elem + 4, static_cast<uint32_t>(len));
    // The element must be visible before the index that publishes it.
    std::atomic_thread_fence(std::memory_order_release);
    store<uint16_t>(q.used_host + 2, ++q.used_idx);
    used_any = true;
  }
  // Without VIRTIO_F_EVENT_IDX (not offered) the driver suppresses interrupts with the available ring's
  // NO_INTERRUPT flag (2.6.7).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (used_any && !(load<uint16_t>(q.avail_host) & kAvailNoInterrupt)) {
    int_status_ |= kIntUsedBuffer;
    update_irq();
  }
}

} // namespace vplat::dev
