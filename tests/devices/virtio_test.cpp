// virtio-mmio transport and virtio-blk, driven the way a driver does it. Expected register values, bit
// positions, layouts and request outcomes come from Virtio 1.1 (sections 2, 3.1, 4.2.2, 5.2); expected
// disk contents come from the pattern the test writes into its own temporary image.
#include "devices/bus.h"
#include "devices/virtio_blk.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace vd = vplat::dev;

namespace {

constexpr uint64_t kRam = 0x40000000, kRamSize = 1 << 20;
constexpr uint64_t kDesc = kRam + 0x1000, kAvail = kRam + 0x2000, kUsed = kRam + 0x3000;
constexpr uint64_t kIndirect = kRam + 0x4000, kHdr = kRam + 0x5000, kStatus = kRam + 0x5100;
constexpr uint64_t kData = kRam + 0x10000;
constexpr uint32_t kSectors = 64;

// Register offsets and bits written out from the spec rather than taken from the device's header.
enum : uint32_t {
  MAGIC = 0x0, VERSION = 0x4, DEVICE_ID = 0x8, VENDOR = 0xc, DEV_FEAT = 0x10, DEV_FEAT_SEL = 0x14,
  DRV_FEAT = 0x20, DRV_FEAT_SEL = 0x24, QSEL = 0x30, QNUM_MAX = 0x34, QNUM = 0x38, QREADY = 0x44,
  QNOTIFY = 0x50, ISR = 0x60, IACK = 0x64, STATUS = 0x70, QDESC_LO = 0x80, QDESC_HI = 0x84,
  QDRV_LO = 0x90, QDRV_HI = 0x94, QDEV_LO = 0xa0, QDEV_HI = 0xa4, CFG_GEN = 0xfc, CFG = 0x100,
};
constexpr uint32_t ACK = 1, DRIVER = 2, DRIVER_OK = 4, FEATURES_OK = 8, NEEDS_RESET = 64;
constexpr uint64_t F_SEG_MAX = 1ull << 2, F_RO = 1ull << 5, F_BLK_SIZE = 1ull << 6, F_FLUSH = 1ull << 9,
                   F_INDIRECT = 1ull << 28, F_EVENT_IDX = 1ull << 29, F_VERSION_1 = 1ull << 32,
                   F_RING_PACKED = 1ull << 34;
constexpr uint16_t NEXT = 1, WRITE = 2, INDIRECT = 4;
constexpr uint32_t T_IN = 0, T_OUT = 1, T_FLUSH = 4, T_GET_ID = 8;

uint8_t pattern(uint64_t offset) { return static_cast<uint8_t>(offset * 7 + offset / 512 + 1); }

struct TempImage {
  std::string path;
  explicit TempImage(uint64_t bytes) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "vplat-virtio-XXXXXX").string();
    int fd = mkstemp(tmpl.data());
    if (fd < 0) throw std::runtime_error("mkstemp");
    std::vector<uint8_t> buf(bytes);
    for (uint64_t i = 0; i < bytes; ++i) buf[i] = pattern(i);
    if (write(fd, buf.data(), bytes) != static_cast<ssize_t>(bytes)) throw std::runtime_error("write");
    close(fd);
    path = tmpl;
  }
  ~TempImage() { std::remove(path.c_str()); }
  std::vector<uint8_t> contents() const {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
  }
};

struct Driver {
  vd::Bus bus;
  bool irq = false;
  TempImage img;
  std::unique_ptr<vd::VirtioBlk> dev;
  uint16_t qsize = 0, avail_idx = 0;

  explicit Driver(bool read_only = false, uint64_t image_bytes = kSectors * 512) : img(image_bytes) {
    bus.add_ram(kRam, kRamSize);
    dev = std::make_unique<vd::VirtioBlk>(bus, vd::IrqLine([this](bool l) { irq = l; }), img.path, read_only);
  }
  uint32_t rd(uint32_t off) { return static_cast<uint32_t>(dev->read(off, 4)); }
  void wr(uint32_t off, uint32_t v) { dev->write(off, 4, v); }
  uint64_t device_features() {
    wr(DEV_FEAT_SEL, 1);
    uint64_t hi = rd(DEV_FEAT);
    wr(DEV_FEAT_SEL, 0);
    return hi << 32 | rd(DEV_FEAT);
  }
  // 3.1.1 steps 1-6. Returns whether the device kept FEATURES_OK.
  bool negotiate(uint64_t features) {
    wr(STATUS, 0);
    wr(STATUS, ACK);
    wr(STATUS, ACK | DRIVER);
    wr(DRV_FEAT_SEL, 0);
    wr(DRV_FEAT, static_cast<uint32_t>(features));
    wr(DRV_FEAT_SEL, 1);
    wr(DRV_FEAT, static_cast<uint32_t>(features >> 32));
    wr(STATUS, ACK | DRIVER | FEATURES_OK);
    return rd(STATUS) & FEATURES_OK;
  }
  void setup_queue(uint32_t num, uint64_t desc = kDesc, uint64_t avail = kAvail, uint64_t used = kUsed) {
    wr(QSEL, 0);
    wr(QNUM, num);
    wr(QDESC_LO, static_cast<uint32_t>(desc));
    wr(QDESC_HI, static_cast<uint32_t>(desc >> 32));
    wr(QDRV_LO, static_cast<uint32_t>(avail));
    wr(QDRV_HI, static_cast<uint32_t>(avail >> 32));
    wr(QDEV_LO, static_cast<uint32_t>(used));
    wr(QDEV_HI, static_cast<uint32_t>(used >> 32));
    wr(QREADY, 1);
    qsize = static_cast<uint16_t>(num);
    avail_idx = 0;
  }
  // Full bring-up; false if any step was refused.
  bool init(uint64_t features = F_VERSION_1 | F_SEG_MAX | F_BLK_SIZE | F_FLUSH | F_INDIRECT, uint32_t num = 16) {
    std::vector<uint8_t> zero(0x3000, 0);
    bus.copy_to(kDesc, zero.data(), zero.size()); // fresh rings, as a driver allocates them zeroed
    if (!negotiate(features)) return false;
    setup_queue(num);
    if (rd(QREADY) != 1) return false;
    wr(STATUS, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
    return rd(STATUS) == (ACK | DRIVER | FEATURES_OK | DRIVER_OK);
  }

  void put_desc(uint64_t table, unsigned i, uint64_t addr, uint32_t len, uint16_t flags, uint16_t next) {
    uint8_t d[16];
    std::memcpy(d, &addr, 8);
    std::memcpy(d + 8, &len, 4);
    std::memcpy(d + 12, &flags, 2);
    std::memcpy(d + 14, &next, 2);
    ASSERT_TRUE(bus.copy_to(table + 16 * i, d, 16));
  }
  void put_header(uint32_t type, uint64_t sector) {
    uint8_t h[16] = {};
    std::memcpy(h, &type, 4);
    std::memcpy(h + 8, &sector, 8);
    bus.copy_to(kHdr, h, 16);
  }
  void w16(uint64_t a, uint16_t v) { bus.copy_to(a, &v, 2); }
  uint16_t r16(uint64_t a) {
    uint16_t v = 0;
    bus.copy_from(a, &v, 2);
    return v;
  }
  uint32_t r32(uint64_t a) {
    uint32_t v = 0;
    bus.copy_from(a, &v, 4);
    return v;
  }
  uint8_t r8(uint64_t a) {
    uint8_t v = 0;
    bus.copy_from(a, &v, 1);
    return v;
  }
  // Publishes head in the available ring and notifies queue 0.
  void submit(uint16_t head, bool notify = true) {
    w16(kAvail + 4 + 2 * (avail_idx % qsize), head);
    w16(kAvail + 2, ++avail_idx);
    if (notify) wr(QNOTIFY, 0);
  }
  uint16_t used_idx() { return r16(kUsed + 2); }
  uint32_t used_id(unsigned i) { return r32(kUsed + 4 + 8 * (i % qsize)); }
  uint32_t used_len(unsigned i) { return r32(kUsed + 4 + 8 * (i % qsize) + 4); }

  // A request the way Linux lays it out: header, data, status in descriptors 0, 1, 2 (data omitted when
  // len is 0). Returns the status byte, 0xff if none was written.
  uint8_t request(uint32_t type, uint64_t sector, uint64_t data, uint32_t len, bool data_to_device) {
    put_header(type, sector);
    uint8_t marker = 0xff;
    bus.copy_to(kStatus, &marker, 1);
    put_desc(kDesc, 0, kHdr, 16, NEXT, 1);
    if (len) {
      put_desc(kDesc, 1, data, len, static_cast<uint16_t>(NEXT | (data_to_device ? 0 : WRITE)), 2);
      put_desc(kDesc, 2, kStatus, 1, WRITE, 0);
    } else {
      put_desc(kDesc, 0, kHdr, 16, NEXT, 2);
      put_desc(kDesc, 2, kStatus, 1, WRITE, 0);
    }
    submit(0);
    return r8(kStatus);
  }
};

} // namespace

TEST(VirtioMmio, IdentificationRegisters) {
  Driver d;
  EXPECT_EQ(d.rd(MAGIC), 0x74726976u);
  EXPECT_EQ(d.rd(VERSION), 2u);
  EXPECT_EQ(d.rd(DEVICE_ID), 2u); // 5: block device
  EXPECT_NE(d.rd(VENDOR), 0u);
  EXPECT_EQ(d.rd(STATUS), 0u);
  EXPECT_EQ(d.rd(CFG_GEN), 0u);
  d.wr(QSEL, 0);
  EXPECT_EQ(d.rd(QNUM_MAX), 256u);
  EXPECT_EQ(d.rd(QREADY), 0u);
  d.wr(QSEL, 1); // a queue the device does not have: QueueNumMax reads 0 (4.2.2)
  EXPECT_EQ(d.rd(QNUM_MAX), 0u);
  // Narrow or misaligned register accesses are not allowed (4.2.2.2) and must not reach anything.
  EXPECT_EQ(d.dev->read(MAGIC, 2), 0u);
  EXPECT_EQ(d.dev->read(MAGIC + 1, 4), 0u);
  d.dev->write(STATUS, 1, ACK);
  EXPECT_EQ(d.rd(STATUS), 0u);
}

TEST(VirtioMmio, OffersVersion1AndBlockFeatures) {
  Driver d;
  const uint64_t f = d.device_features();
  EXPECT_EQ(f, F_VERSION_1 | F_INDIRECT | F_SEG_MAX | F_BLK_SIZE | F_FLUSH);
  d.wr(DEV_FEAT_SEL, 2); // words beyond the 64 defined bits read zero
  EXPECT_EQ(d.rd(DEV_FEAT), 0u);
}

TEST(VirtioBlk, ConfigSpaceLayout) {
  Driver d;
  // 5.2.4: le64 capacity @0, le32 seg_max @12, le32 blk_size @20.
  EXPECT_EQ(d.dev->read(CFG + 0, 4), kSectors);
  EXPECT_EQ(d.dev->read(CFG + 4, 4), 0u);
  EXPECT_EQ(d.dev->read(CFG + 0, 8), kSectors);
  EXPECT_EQ(d.dev->read(CFG + 12, 4), 254u);
  EXPECT_EQ(d.dev->read(CFG + 20, 4), 512u);
  EXPECT_EQ(d.dev->read(CFG + 21, 1), 2u); // byte access: 512 = 0x0200, little-endian
  EXPECT_EQ(d.dev->read(CFG + 20, 2), 512u);
  EXPECT_EQ(d.dev->read(CFG + 0x1000, 4), 0u); // far beyond the structure
  d.dev->write(CFG + 0, 4, 0x1234);            // read-only field
  EXPECT_EQ(d.dev->read(CFG + 0, 4), kSectors);
}

TEST(VirtioBlk, CapacityIgnoresTrailingPartialSector) {
  Driver d(false, 3 * 512 + 100);
  EXPECT_EQ(d.dev->read(CFG, 8), 3u);
}

TEST(VirtioMmio, FeatureNegotiation) {
  Driver d;
  EXPECT_TRUE(d.negotiate(F_VERSION_1));
  EXPECT_EQ(d.dev->negotiated_features(), F_VERSION_1);
  EXPECT_FALSE(d.negotiate(F_VERSION_1 | F_EVENT_IDX)) << "EVENT_IDX was not offered";
  EXPECT_FALSE(d.negotiate(F_VERSION_1 | F_RING_PACKED)) << "RING_PACKED was not offered";
  EXPECT_FALSE(d.negotiate(F_SEG_MAX | F_BLK_SIZE)) << "a legacy driver (no VERSION_1) is refused";
  // A bit in feature word 2 (bits 64..95) was never offered either.
  d.negotiate(F_VERSION_1); // resets first
  d.wr(STATUS, 0);
  d.wr(STATUS, ACK | DRIVER);
  d.wr(DRV_FEAT_SEL, 1);
  d.wr(DRV_FEAT, 1);
  d.wr(DRV_FEAT_SEL, 2);
  d.wr(DRV_FEAT, 1);
  d.wr(STATUS, ACK | DRIVER | FEATURES_OK);
  EXPECT_EQ(d.rd(STATUS), ACK | DRIVER);
  // Once FEATURES_OK is accepted, later feature writes are ignored.
  ASSERT_TRUE(d.negotiate(F_VERSION_1 | F_FLUSH));
  d.wr(DRV_FEAT_SEL, 0);
  d.wr(DRV_FEAT, 0);
  EXPECT_EQ(d.dev->negotiated_features(), F_VERSION_1 | F_FLUSH);
}

TEST(VirtioBlk, ReadSectorsRaisesUsedBufferInterrupt) {
  Driver d;
  ASSERT_TRUE(d.init());
  EXPECT_FALSE(d.irq);
  EXPECT_EQ(d.request(T_IN, 5, kData, 3 * 512, false), 0); // VIRTIO_BLK_S_OK
  std::vector<uint8_t> got(3 * 512);
  d.bus.copy_from(kData, got.data(), got.size());
  for (uint64_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], pattern(5 * 512 + i)) << "byte " << i;
  EXPECT_EQ(d.used_idx(), 1);
  EXPECT_EQ(d.used_id(0), 0u);
  EXPECT_EQ(d.used_len(0), 3u * 512 + 1); // data plus status byte
  EXPECT_TRUE(d.irq);
  EXPECT_EQ(d.rd(ISR), 1u);
  d.wr(IACK, 1);
  EXPECT_FALSE(d.irq);
  EXPECT_EQ(d.rd(ISR), 0u);
}

TEST(VirtioBlk, WriteReachesTheImageAndReadsBack) {
  Driver d;
  ASSERT_TRUE(d.init());
  std::vector<uint8_t> buf(1024);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(0xa5 ^ i);
  d.bus.copy_to(kData, buf.data(), buf.size());
  EXPECT_EQ(d.request(T_OUT, kSectors - 2, kData, 1024, true), 0);
  EXPECT_EQ(d.used_len(0), 1u); // only the status byte is device-writable
  auto file = d.img.contents();
  ASSERT_EQ(file.size(), kSectors * 512u);
  EXPECT_TRUE(std::equal(buf.begin(), buf.end(), file.begin() + (kSectors - 2) * 512));
  EXPECT_EQ(file[(kSectors - 2) * 512 - 1], pattern((kSectors - 2) * 512 - 1)); // neighbour untouched
  EXPECT_EQ(d.request(T_FLUSH, 0, 0, 0, false), 0);
  std::vector<uint8_t> zero(1024, 0), back(1024);
  d.bus.copy_to(kData + 0x4000, zero.data(), zero.size());
  EXPECT_EQ(d.request(T_IN, kSectors - 2, kData + 0x4000, 1024, false), 0);
  d.bus.copy_from(kData + 0x4000, back.data(), back.size());
  EXPECT_EQ(back, buf);
  EXPECT_EQ(d.used_idx(), 3);
}

TEST(VirtioBlk, GetIdReturnsSerial) {
  Driver d;
  ASSERT_TRUE(d.init());
  std::vector<uint8_t> junk(20, 0xee);
  d.bus.copy_to(kData, junk.data(), junk.size());
  EXPECT_EQ(d.request(T_GET_ID, 0, kData, 20, false), 0);
  char id[20];
  d.bus.copy_from(kData, id, 20);
  char want[20] = "vplat-disk"; // zero-padded to 20 bytes
  EXPECT_EQ(std::memcmp(id, want, 20), 0);
  EXPECT_EQ(d.used_len(0), 21u);
}

TEST(VirtioBlk, UnsupportedAndOutOfRangeRequests) {
  Driver d;
  ASSERT_TRUE(d.init());
  EXPECT_EQ(d.request(99, 0, kData, 512, false), 2);                      // VIRTIO_BLK_S_UNSUPP
  EXPECT_EQ(d.request(11, 0, kData, 512, true), 2);                       // DISCARD: not offered
  EXPECT_EQ(d.request(T_IN, kSectors, kData, 512, false), 1);             // IOERR: first sector past end
  EXPECT_EQ(d.request(T_IN, kSectors - 1, kData, 1024, false), 1);        // straddles the end
  EXPECT_EQ(d.request(T_IN, ~0ull - 1, kData, 1024, false), 1);           // sector*512 would wrap
  EXPECT_EQ(d.request(T_OUT, 1ull << 55, kData, 512, true), 1);           // wraps when scaled by 512
  EXPECT_EQ(d.request(T_IN, 0, kData, 100, false), 1);                    // not whole sectors
  EXPECT_EQ(d.request(T_IN, kSectors - 1, kData, 512, false), 0);         // the last sector is fine
  EXPECT_EQ(d.request(T_OUT, kSectors, kData, 512, true), 1);             // would grow the image
  EXPECT_EQ(d.request(T_OUT, kSectors - 1, kData, 1024, true), 1);        // likewise, partly
  EXPECT_EQ(d.used_idx(), 10);
  EXPECT_EQ(d.used_len(2), 0u); // IN failed: nothing written from the start of the writable part
  EXPECT_EQ(d.rd(STATUS) & NEEDS_RESET, 0u);
  auto file = d.img.contents();
  ASSERT_EQ(file.size(), kSectors * 512u);
  for (uint64_t i = 0; i < file.size(); ++i) ASSERT_EQ(file[i], pattern(i)) << "image changed at " << i;
}

TEST(VirtioBlk, HeaderShorterThan16BytesIsIoError) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.put_header(T_IN, 0);
  d.put_desc(kDesc, 0, kHdr, 8, NEXT, 1);
  d.put_desc(kDesc, 1, kStatus, 1, WRITE, 0);
  d.submit(0);
  EXPECT_EQ(d.r8(kStatus), 1);
  EXPECT_EQ(d.used_idx(), 1);
}

TEST(VirtioBlk, FramingIsNotAssumed) {
  // 2.6.4: header split across two descriptors; data and status share one writable descriptor.
  Driver d;
  ASSERT_TRUE(d.init());
  d.put_header(T_IN, 2);
  d.put_desc(kDesc, 0, kHdr, 5, NEXT, 1);
  d.put_desc(kDesc, 1, kHdr + 5, 11, NEXT, 2);
  d.put_desc(kDesc, 2, kData, 513, WRITE, 0);
  d.submit(0);
  EXPECT_EQ(d.r8(kData + 512), 0);
  EXPECT_EQ(d.r8(kData), pattern(2 * 512));
  EXPECT_EQ(d.r8(kData + 511), pattern(2 * 512 + 511));
  EXPECT_EQ(d.used_len(0), 513u);
}

TEST(VirtioBlk, IndirectDescriptors) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.put_header(T_IN, 7);
  d.put_desc(kIndirect, 0, kHdr, 16, NEXT, 1);
  d.put_desc(kIndirect, 1, kData, 512, NEXT | WRITE, 2);
  d.put_desc(kIndirect, 2, kData + 0x2000, 512, NEXT | WRITE, 3); // scattered data
  d.put_desc(kIndirect, 3, kStatus, 1, WRITE, 0);
  d.put_desc(kDesc, 5, kIndirect, 4 * 16, INDIRECT, 0);
  d.submit(5);
  EXPECT_EQ(d.r8(kStatus), 0);
  EXPECT_EQ(d.r8(kData), pattern(7 * 512));
  EXPECT_EQ(d.r8(kData + 0x2000), pattern(8 * 512));
  EXPECT_EQ(d.r8(kData + 0x2000 + 511), pattern(8 * 512 + 511));
  EXPECT_EQ(d.used_id(0), 5u);
  EXPECT_EQ(d.used_len(0), 1025u);
}

TEST(VirtioMmio, RingWrapsAndBatchesInOneNotify) {
  Driver d;
  ASSERT_TRUE(d.init(F_VERSION_1, 4));
  // Ten requests through a queue of four, two per notification: ring slots and used entries wrap.
  for (unsigned n = 0; n < 10; n += 2) {
    for (unsigned k = 0; k < 2; ++k) {
      const uint64_t hdr = kHdr + 0x20 * k, data = kData + 0x1000 * k;
      uint8_t h[16] = {};
      uint64_t sector = n + k;
      std::memcpy(h + 8, &sector, 8);
      d.bus.copy_to(hdr, h, 16);
      d.put_desc(kDesc, 2 * k, hdr, 16, NEXT, static_cast<uint16_t>(2 * k + 1));
      d.put_desc(kDesc, 2 * k + 1, data, 513, WRITE, 0);
      d.submit(static_cast<uint16_t>(2 * k), false);
    }
    d.wr(QNOTIFY, 0);
    for (unsigned k = 0; k < 2; ++k) {
      EXPECT_EQ(d.used_id(n + k), 2 * k);
      EXPECT_EQ(d.r8(kData + 0x1000 * k), pattern((n + k) * 512));
      EXPECT_EQ(d.r8(kData + 0x1000 * k + 512), 0);
    }
  }
  EXPECT_EQ(d.used_idx(), 10);
}

TEST(VirtioMmio, NoInterruptFlagSuppressesInterrupt) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.w16(kAvail, 1); // VIRTQ_AVAIL_F_NO_INTERRUPT
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0);
  EXPECT_EQ(d.used_idx(), 1);
  EXPECT_FALSE(d.irq);
  EXPECT_EQ(d.rd(ISR), 0u);
}

TEST(VirtioMmio, NothingConsumedBeforeDriverOk) {
  Driver d;
  ASSERT_TRUE(d.negotiate(F_VERSION_1));
  d.setup_queue(16);
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0xff);
  EXPECT_EQ(d.used_idx(), 0);
  d.wr(STATUS, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
  d.wr(QNOTIFY, 0); // the pending request is picked up now
  EXPECT_EQ(d.used_idx(), 1);
  EXPECT_EQ(d.r8(kStatus), 0);
}

TEST(VirtioMmio, ResetClearsEverything) {
  Driver d;
  ASSERT_TRUE(d.init());
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0);
  ASSERT_TRUE(d.irq);
  d.wr(STATUS, 0);
  EXPECT_EQ(d.rd(STATUS), 0u);
  EXPECT_EQ(d.rd(ISR), 0u);
  EXPECT_FALSE(d.irq);
  d.wr(QSEL, 0);
  EXPECT_EQ(d.rd(QREADY), 0u);
  EXPECT_EQ(d.dev->negotiated_features(), 0u);
  // And the device works again from scratch, ring indices restarting at 0.
  ASSERT_TRUE(d.init());
  EXPECT_EQ(d.request(T_IN, 1, kData, 512, false), 0);
  EXPECT_EQ(d.used_idx(), 1);
}

TEST(VirtioMmio, QueueReadyZeroDisablesQueue) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.wr(QSEL, 0);
  d.wr(QREADY, 0);
  EXPECT_EQ(d.rd(QREADY), 0u); // what Linux's vm_del_vq checks
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0xff);
  EXPECT_EQ(d.used_idx(), 0);
}

// ---- Malformed driver behaviour: DEVICE_NEEDS_RESET plus a configuration-change interrupt ----

namespace {
void expect_needs_reset(Driver& d) {
  EXPECT_TRUE(d.rd(STATUS) & NEEDS_RESET);
  EXPECT_TRUE(d.rd(ISR) & 2) << "configuration change notification";
  EXPECT_TRUE(d.irq);
}
} // namespace

TEST(VirtioMalformed, BadQueueSizesAreRefused) {
  for (uint32_t num : {0u, 3u, 100u, 512u, 0x10000u}) {
    Driver d;
    ASSERT_TRUE(d.negotiate(F_VERSION_1));
    d.setup_queue(num);
    EXPECT_EQ(d.rd(QREADY), 0u) << num;
    EXPECT_TRUE(d.rd(STATUS) & NEEDS_RESET) << num;
    d.wr(STATUS, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
    expect_needs_reset(d); // DRIVER_OK arriving after the error gets the notification then
    // The broken queue is never used.
    d.qsize = 16;
    d.request(T_IN, 0, kData, 512, false);
    EXPECT_EQ(d.used_idx(), 0);
  }
}

TEST(VirtioMalformed, RingsOutsideRamOrMisaligned) {
  struct Case {
    uint64_t desc, avail, used;
  } cases[] = {
      {kRam + kRamSize - 16 * 8, kAvail, kUsed},  // descriptor table runs off the end of RAM
      {0x1000, kAvail, kUsed},                    // not RAM at all
      {kDesc, kRam + kRamSize - 4, kUsed},        // avail ring off the end
      {kDesc, kAvail, ~0ull - 7},                 // used ring address wraps
      {kDesc + 8, kAvail, kUsed},                 // descriptor table not 16-byte aligned
      {kDesc, kAvail + 1, kUsed},                 // avail not 2-byte aligned
      {kDesc, kAvail, kUsed + 2},                 // used not 4-byte aligned
  };
  for (const auto& c : cases) {
    Driver d;
    ASSERT_TRUE(d.negotiate(F_VERSION_1));
    d.setup_queue(16, c.desc, c.avail, c.used);
    EXPECT_EQ(d.rd(QREADY), 0u);
    EXPECT_TRUE(d.rd(STATUS) & NEEDS_RESET);
  }
}

TEST(VirtioMalformed, DescriptorOutsideRam) {
  Driver d;
  ASSERT_TRUE(d.init());
  EXPECT_EQ(d.request(T_IN, 0, kRam + kRamSize - 256, 512, false), 0xff); // straddles the end of RAM
  EXPECT_EQ(d.used_idx(), 0);
  expect_needs_reset(d);
  // Further notifications are ignored until reset.
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0xff);
  EXPECT_EQ(d.used_idx(), 0);
  // A reset recovers.
  ASSERT_TRUE(d.init());
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0);
}

TEST(VirtioMalformed, DescriptorAtHugeAddresses) {
  for (uint64_t addr : {0ull, 0x1000ull, ~0ull, ~0ull - 0x100, 1ull << 63}) {
    Driver d;
    ASSERT_TRUE(d.init());
    d.put_header(T_OUT, 0);
    d.put_desc(kDesc, 0, kHdr, 16, NEXT, 1);
    d.put_desc(kDesc, 1, addr, 0xffffffffu, NEXT, 2);
    d.put_desc(kDesc, 2, kStatus, 1, WRITE, 0);
    d.submit(0);
    expect_needs_reset(d);
    EXPECT_EQ(d.used_idx(), 0);
  }
}

TEST(VirtioMalformed, ChainLoop) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.put_header(T_IN, 0);
  d.put_desc(kDesc, 0, kHdr, 16, NEXT, 1);
  d.put_desc(kDesc, 1, kData, 512, NEXT | WRITE, 2);
  d.put_desc(kDesc, 2, kData + 512, 512, NEXT | WRITE, 1); // back to 1
  d.submit(0);
  expect_needs_reset(d);
  EXPECT_EQ(d.used_idx(), 0);
}

TEST(VirtioMalformed, SelfLoopOfZeroLengthDescriptors) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.put_desc(kDesc, 0, kHdr, 0, NEXT, 0);
  d.submit(0);
  expect_needs_reset(d);
}

TEST(VirtioMalformed, IndicesOutOfRange) {
  {
    Driver d; // next beyond the table
    ASSERT_TRUE(d.init());
    d.put_header(T_IN, 0);
    d.put_desc(kDesc, 0, kHdr, 16, NEXT, 16);
    d.submit(0);
    expect_needs_reset(d);
  }
  {
    Driver d; // head beyond the table
    ASSERT_TRUE(d.init());
    d.submit(40);
    expect_needs_reset(d);
  }
  {
    Driver d; // available index moved by more than the queue size
    ASSERT_TRUE(d.init());
    // Every slot names a valid read request, so only the index check can object.
    d.put_header(T_IN, 0);
    d.put_desc(kDesc, 0, kHdr, 16, NEXT, 1);
    d.put_desc(kDesc, 1, kData, 512, NEXT | WRITE, 2);
    d.put_desc(kDesc, 2, kStatus, 1, WRITE, 0);
    d.w16(kAvail + 2, 17);
    d.wr(QNOTIFY, 0);
    expect_needs_reset(d);
    EXPECT_EQ(d.used_idx(), 0);
  }
}

TEST(VirtioMalformed, BadIndirectTables) {
  auto run = [](auto build, uint64_t features) {
    Driver d;
    EXPECT_TRUE(d.init(features));
    d.put_header(T_IN, 0);
    build(d);
    d.submit(0);
    expect_needs_reset(d);
    EXPECT_EQ(d.used_idx(), 0);
  };
  const uint64_t with = F_VERSION_1 | F_INDIRECT;
  // Indirect without the feature negotiated.
  run([](Driver& d) {
    d.put_desc(kIndirect, 0, kHdr, 16, 0, 0);
    d.put_desc(kDesc, 0, kIndirect, 16, INDIRECT, 0);
  }, F_VERSION_1);
  // Length not a multiple of 16, zero, or huge.
  for (uint32_t len : {24u, 0u, 0xfffffff0u})
    run([len](Driver& d) { d.put_desc(kDesc, 0, kIndirect, len, INDIRECT, 0); }, with);
  // Table outside RAM.
  run([](Driver& d) { d.put_desc(kDesc, 0, kRam + kRamSize - 16, 32, INDIRECT, 0); }, with);
  // Nested indirect.
  run([](Driver& d) {
    d.put_desc(kIndirect, 0, kIndirect, 16, INDIRECT, 0);
    d.put_desc(kDesc, 0, kIndirect, 16, INDIRECT, 0);
  }, with);
  // Loop inside the table.
  run([](Driver& d) {
    d.put_desc(kIndirect, 0, kHdr, 16, NEXT, 1);
    d.put_desc(kIndirect, 1, kData, 512, NEXT | WRITE, 0);
    d.put_desc(kDesc, 0, kIndirect, 32, INDIRECT, 0);
  }, with);
  // next beyond the table.
  run([](Driver& d) {
    d.put_desc(kIndirect, 0, kHdr, 16, NEXT, 2);
    d.put_desc(kDesc, 0, kIndirect, 32, INDIRECT, 0);
  }, with);
  // INDIRECT together with NEXT.
  run([](Driver& d) {
    d.put_desc(kIndirect, 0, kHdr, 16, 0, 0);
    d.put_desc(kDesc, 0, kIndirect, 16, INDIRECT | NEXT, 1);
  }, with);
}

TEST(VirtioMalformed, ReadableAfterWritableOrNoStatusByte) {
  {
    Driver d;
    ASSERT_TRUE(d.init());
    d.put_header(T_OUT, 0);
    d.put_desc(kDesc, 0, kStatus, 1, NEXT | WRITE, 1);
    d.put_desc(kDesc, 1, kHdr, 16, 0, 0);
    d.submit(0);
    expect_needs_reset(d);
  }
  {
    Driver d;
    ASSERT_TRUE(d.init());
    d.put_header(T_OUT, 0);
    d.put_desc(kDesc, 0, kHdr, 16, NEXT, 1);
    d.put_desc(kDesc, 1, kData, 512, 0, 0);
    d.submit(0);
    expect_needs_reset(d);
    EXPECT_EQ(d.used_idx(), 0);
    EXPECT_EQ(d.img.contents()[0], pattern(0));
  }
}

TEST(VirtioMalformed, QueueLayoutFrozenWhileReady) {
  Driver d;
  ASSERT_TRUE(d.init());
  d.wr(QSEL, 0);
  d.wr(QDESC_LO, 0x1000); // outside RAM: ignored because the queue is live
  d.wr(QNUM, 3);
  EXPECT_EQ(d.request(T_IN, 0, kData, 512, false), 0);
  EXPECT_EQ(d.rd(STATUS) & NEEDS_RESET, 0u);
}

TEST(VirtioBlk, ReadOnlyDisk) {
  Driver d(true);
  EXPECT_TRUE(d.device_features() & F_RO);
  EXPECT_TRUE(d.dev->read_only());
  ASSERT_TRUE(d.init(F_VERSION_1 | F_RO | F_FLUSH));
  std::vector<uint8_t> buf(512, 0x11);
  d.bus.copy_to(kData, buf.data(), buf.size());
  EXPECT_EQ(d.request(T_OUT, 0, kData, 512, true), 1); // 5.2.6.2: IOERR and nothing written
  EXPECT_EQ(d.request(T_FLUSH, 0, 0, 0, false), 0);
  EXPECT_EQ(d.request(T_IN, 3, kData, 512, false), 0);
  EXPECT_EQ(d.r8(kData), pattern(3 * 512));
  auto file = d.img.contents();
  for (uint64_t i = 0; i < file.size(); ++i) ASSERT_EQ(file[i], pattern(i));
  EXPECT_EQ(d.rd(STATUS) & NEEDS_RESET, 0u);
}

TEST(VirtioBlk, UnwritableFileIsServedReadOnly) {
  if (geteuid() == 0) GTEST_SKIP() << "root can open a mode-0444 file for writing";
  TempImage img(4096);
  chmod(img.path.c_str(), 0444);
  vd::Bus bus;
  bus.add_ram(kRam, kRamSize);
  vd::VirtioBlk dev(bus, vd::IrqLine(), img.path);
  EXPECT_TRUE(dev.read_only());
}

TEST(VirtioBlk, MissingImageIsAClearError) {
  vd::Bus bus;
  const std::string path = "/nonexistent/vplat-no-such-disk.img";
  try {
    vd::VirtioBlk dev(bus, vd::IrqLine(), path);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_THROW(vd::VirtioBlk(bus, vd::IrqLine(), "/tmp"), std::runtime_error); // a directory
}

TEST(VirtioMalformed, IndexBeyondTableAtTheEndOfRam) {
  // With the descriptor table in the last 256 bytes of RAM, an unchecked index would read host memory
  // past the guest's RAM mapping.
  const uint64_t table = kRam + kRamSize - 16 * 16;
  for (uint16_t head : {16, 0x4000, 0xffff}) {
    Driver d;
    ASSERT_TRUE(d.negotiate(F_VERSION_1));
    d.setup_queue(16, table);
    ASSERT_EQ(d.rd(QREADY), 1u);
    d.wr(STATUS, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
    d.submit(head);
    expect_needs_reset(d);
  }
  Driver d;
  ASSERT_TRUE(d.negotiate(F_VERSION_1));
  d.setup_queue(16, table);
  d.wr(STATUS, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
  d.put_header(T_IN, 0);
  d.put_desc(table, 15, kHdr, 16, NEXT, 0xfff0);
  d.submit(15);
  expect_needs_reset(d);
}
