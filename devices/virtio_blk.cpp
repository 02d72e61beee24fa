#include "devices/virtio_blk.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace vplat::dev {

using namespace virtio_blk;

namespace {
constexpr uint64_t kSector = 512;
constexpr char kSerial[] = "vplat-disk";

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("virtio-blk: disk image '" + path + "': " + why);
}

template <class T> void put(std::vector<uint8_t>& v, size_t off, T x) { std::memcpy(v.data() + off, &x, sizeof x); }
} // namespace

VirtioBlk::VirtioBlk(Bus& bus, IrqLine irq, const std::string& image_path, bool read_only)
    : VirtioMmio(bus, std::move(irq), 1, kQueueSize), read_only_(read_only) {
  fd_ = ::open(image_path.c_str(), (read_only_ ? O_RDONLY : O_RDWR) | O_CLOEXEC);
  if (fd_ < 0 && !read_only_ && (errno == EACCES || errno == EROFS || errno == EPERM)) {
    // Not writable for us: serve it read-only and say so with VIRTIO_BLK_F_RO rather than refuse.
    fd_ = ::open(image_path.c_str(), O_RDONLY | O_CLOEXEC);
    read_only_ = true;
  }
  if (fd_ < 0) fail(image_path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd_, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
    ::close(fd_);
    fail(image_path, "not a regular file or block device");
  }
  const off_t end = ::lseek(fd_, 0, SEEK_END); // also right for block devices, whose st_size is 0
  if (end < 0) {
    const int e = errno;
    ::close(fd_);
    fail(image_path, std::strerror(e));
  }
  capacity_ = static_cast<uint64_t>(end) / kSector;

  // struct virtio_blk_config (5.2.4), 60 bytes in Virtio 1.1. Only the fields of offered features are
  // meaningful; the rest read as zero.
  config_.assign(60, 0);
  put<uint64_t>(config_, 0, capacity_); // capacity, in 512-byte sectors whatever blk_size says
  put<uint32_t>(config_, 12, kSegMax);  // seg_max
  put<uint32_t>(config_, 20, 512);      // blk_size
}

VirtioBlk::~VirtioBlk() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t VirtioBlk::device_features() const {
  uint64_t f = (1ull << virtio::kFVersion1) | (1ull << virtio::kFIndirectDesc) | (1ull << kFSegMax) |
               (1ull << kFBlkSize) | (1ull << kFFlush);
  if (read_only_) f |= 1ull << kFRo;
  return f;
}

uint8_t VirtioBlk::transfer(bool to_guest, const VirtqChain& chain, uint64_t sector, uint64_t bytes) {
  if (bytes % kSector) return kSIoErr;
  if (sector > capacity_ || bytes / kSector > capacity_ - sector) return kSIoErr;
  if (!to_guest && read_only_) return kSIoErr; // 5.2.6.2: fail writes to a read-only device, write nothing
  uint64_t off = sector * kSector;
  // IN data is the writable stream before the status byte; OUT data is the readable stream after the
  // 16-byte header.
  const bool ok = chain.for_each(to_guest, to_guest ? 0 : 16, bytes, [&](uint8_t* p, uint64_t len) {
    while (len) {
      const ssize_t r = to_guest ? ::pread(fd_, p, len, static_cast<off_t>(off))
                                 : ::pwrite(fd_, p, len, static_cast<off_t>(off));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false; // an error, or the file shrank under us
      p += r;
      len -= static_cast<uint64_t>(r);
      off += static_cast<uint64_t>(r);
    }
    return true;
  });
  return ok ? kSOk : kSIoErr;
}

int64_t VirtioBlk::handle_request(unsigned, const VirtqChain& chain) {
  if (chain.writable == 0) {
    device_error("block request without a status byte");
    return -1;
  }
  // The status is the last writable byte (5.2.6); the descriptor layout is not assumed (2.6.4).
  const uint64_t status_off = chain.writable - 1;
  uint8_t status = kSIoErr;
  bool data_written = false; // whether the writable stream before the status is fully written
  uint8_t hdr[16];
  if (chain.read(0, hdr, sizeof hdr)) {
    uint32_t type;
    uint64_t sector;
    std::memcpy(&type, hdr, 4);
    std::memcpy(&sector, hdr + 8, 8); // hdr + 4 is the reserved field, ignored
    switch (type) {
    case kTIn:
      status = transfer(true, chain, sector, status_off);
      data_written = status == kSOk;
      break;
    case kTOut: status = transfer(false, chain, sector, chain.readable - 16); break;
    case kTFlush: status = read_only_ || ::fdatasync(fd_) == 0 ? kSOk : kSIoErr; break;
    case kTGetId: {
      // 20 bytes, zero-padded, no terminator when the ID fills them (5.2.6). A larger buffer is zeroed
      // to its end so the used length can cover it (in place: segments may alias, so the total can
      // exceed RAM); a smaller one gets a truncated ID.
      chain.for_each(true, 0, status_off, [](uint8_t* p, uint64_t len) {
        std::memset(p, 0, len);
        return true;
      });
      chain.write(0, kSerial, std::min<uint64_t>(sizeof kSerial - 1, status_off));
      status = kSOk;
      data_written = true;
      break;
    }
    default: status = kSUnsupp; break;
    }
  }
  chain.write(status_off, &status, 1);
  // 2.6.8.1: len counts bytes written from the start of the writable part. When only the status was
  // written behind an untouched data buffer, that prefix is empty.
  return data_written || status_off == 0 ? static_cast<int64_t>(chain.writable) : 0;
}

} // namespace vplat::dev
