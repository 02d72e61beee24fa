// virtio block device (device ID 2) on the virtio-mmio transport. Facts: Virtio 1.1 section 5.2.
//
// One request queue of up to 256 entries. Backing store: a raw image file, read with pread and written
// with pwrite, opened read-write, or read-only (offering VIRTIO_BLK_F_RO) when asked to or when the file
// cannot be opened for writing. The capacity is the file size in whole 512-byte sectors (a trailing
// partial sector is not reachable). Requests are processed synchronously when the driver writes
// QueueNotify, so runs are deterministic.
//
// Request outcomes (5.2.6): IN, OUT, FLUSH and GET_ID (serial "vplat-disk") are served; other types get
// VIRTIO_BLK_S_UNSUPP; a transfer reaching beyond the capacity, a data length that is not a multiple of
// 512, a header shorter than 16 bytes, a write to a read-only disk or a host I/O error get
// VIRTIO_BLK_S_IOERR with no data transferred (for a failed host read the buffer contents are undefined).
// A chain with no device-writable byte has nowhere to put the status and sends the device to
// DEVICE_NEEDS_RESET (see virtio_mmio.h).
// Used-ring length (2.6.8.1: bytes written from the start of the writable part): the whole writable
// length when data and status were written, or when the status is the only writable byte; 0 when only
// the status was written behind an untouched data buffer. (QEMU 7.2 always reports the whole writable
// length; Linux's driver does not look at it.)
#pragma once
#include "devices/virtio_mmio.h"
#include <string>

namespace vplat::dev {

namespace virtio_blk {
// Feature bits (5.2.3).
constexpr unsigned kFSegMax = 2, kFRo = 5, kFBlkSize = 6, kFFlush = 9;
// Request types and status values (5.2.6).
constexpr uint32_t kTIn = 0, kTOut = 1, kTFlush = 4, kTGetId = 8;
constexpr uint8_t kSOk = 0, kSIoErr = 1, kSUnsupp = 2;
constexpr uint32_t kIdBytes = 20;
constexpr uint16_t kQueueSize = 256;
// Largest number of data segments in one request: the queue size less the header and status
// descriptors (what Linux and QEMU assume too).
constexpr uint32_t kSegMax = kQueueSize - 2;
} // namespace virtio_blk

class VirtioBlk : public VirtioMmio {
public:
  // Throws std::runtime_error naming the file if it cannot be opened or is not a regular file or block
  // device. read_only forces a read-only disk even when the file is writable.
  VirtioBlk(Bus& bus, IrqLine irq, const std::string& image_path, bool read_only = false);
  ~VirtioBlk() override;
  VirtioBlk(const VirtioBlk&) = delete;
  VirtioBlk& operator=(const VirtioBlk&) = delete;

  std::string name() const override { return "virtio-blk"; }
  uint64_t capacity_sectors() const { return capacity_; }
  bool read_only() const { return read_only_; }

protected:
  uint32_t device_id() const override { return 2; }
  uint64_t device_features() const override;
  const std::vector<uint8_t>& config_space() const override { return config_; }
  int64_t handle_request(unsigned q, const VirtqChain& chain) override;

private:
  int fd_ = -1;
  bool read_only_;
  uint64_t capacity_ = 0;
  std::vector<uint8_t> config_;

  uint8_t transfer(bool to_guest, const VirtqChain& chain, uint64_t sector, uint64_t bytes);
};

} // namespace vplat::dev
