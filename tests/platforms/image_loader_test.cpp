// Kernel image checks per Documentation/arch/arm64/booting.rst (header layout: code0/code1, text_offset at
// 0x08, image_size at 0x10, flags at 0x18, magic "ARM\x64" at 0x38).
#include "platforms/image_loader.h"
#include <gtest/gtest.h>
#include <cstring>
#include <zlib.h>

namespace {

std::vector<uint8_t> fake_image(size_t size, uint64_t flags = 0xa, uint64_t image_size = 0) {
  std::vector<uint8_t> v(size, 0x5a);
  auto put64 = [&](size_t off, uint64_t x) {
    for (int i = 0; i < 8; ++i) v[off + i] = static_cast<uint8_t>(x >> (8 * i));
  };
  put64(0x08, 0);
  put64(0x10, image_size ? image_size : size + 4096);
  put64(0x18, flags);
  std::memcpy(&v[0x38], "ARM\x64", 4);
  return v;
}

std::vector<uint8_t> gzip(const std::vector<uint8_t>& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> out(deflateBound(&z, in.size()));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

} // namespace

TEST(KernelImage, AcceptsARawImage) {
  std::string err;
  auto k = vplat::parse_kernel_image(fake_image(8192), err);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(k->image_size, 8192u + 4096);
  EXPECT_EQ(k->flags, 0xau);
}

TEST(KernelImage, AcceptsAGzippedImage) {
  std::string err;
  auto raw = fake_image(100000);
  auto k = vplat::parse_kernel_image(gzip(raw), err);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(k->bytes, raw);
}

TEST(KernelImage, RejectsWhatIsNotAnImage) {
  std::string err;
  std::vector<uint8_t> elf(4096, 0);
  std::memcpy(elf.data(), "\x7f" "ELF", 4);
  EXPECT_FALSE(vplat::parse_kernel_image(elf, err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  EXPECT_FALSE(vplat::parse_kernel_image(std::vector<uint8_t>(10, 0), err));
  EXPECT_NE(err.find("too short"), std::string::npos);
}

TEST(KernelImage, RejectsTruncatedAndCorruptInput) {
  std::string err;
  auto z = gzip(fake_image(100000));
  z.resize(z.size() / 2);
  EXPECT_FALSE(vplat::parse_kernel_image(z, err));
  EXPECT_NE(err.find("gzip"), std::string::npos);
  // image_size smaller than the file: inconsistent header
  EXPECT_FALSE(vplat::parse_kernel_image(fake_image(8192, 0xa, 4096), err));
}

TEST(KernelImage, RejectsUnsupportedConfigurations) {
  std::string err;
  EXPECT_FALSE(vplat::parse_kernel_image(fake_image(8192, 0xb), err)); // big-endian
  EXPECT_NE(err.find("big-endian"), std::string::npos);
  EXPECT_FALSE(vplat::parse_kernel_image(fake_image(8192, 0x4 | 0x8), err)); // 16K pages
  EXPECT_NE(err.find("4K"), std::string::npos);
}

TEST(ReadFile, MissingFileAndSizeLimit) {
  std::string err;
  EXPECT_FALSE(vplat::read_file("/nonexistent/vplat-test", 100, err));
  EXPECT_NE(err.find("cannot open"), std::string::npos);
  EXPECT_FALSE(vplat::read_file("/proc/self/exe", 10, err));
  EXPECT_NE(err.find("MiB"), std::string::npos);
}

TEST(KernelImage, TruncationIsCaughtThroughThePeSectionTable) {
  // An EFI-stub Image: "MZ", the PE header at 0x40 with one section whose raw data ends at 0x3000.
  auto img = fake_image(0x3000);
  img[0] = 'M';
  img[1] = 'Z';
  img[0x3c] = 0x40;
  img[0x3d] = img[0x3e] = img[0x3f] = 0;
  std::memcpy(&img[0x40], "PE\0\0", 4);
  img[0x46] = 1; img[0x47] = 0;          // NumberOfSections
  img[0x54] = 0; img[0x55] = 0;          // SizeOfOptionalHeader = 0: section table at 0x58
  std::memset(&img[0x58], 0, 40);
  img[0x58 + 16 + 1] = 0x20;             // SizeOfRawData 0x2000
  img[0x58 + 20 + 1] = 0x10;             // PointerToRawData 0x1000
  std::string err;
  EXPECT_TRUE(vplat::parse_kernel_image(img, err)) << err;
  img.resize(0x2fff);
  EXPECT_FALSE(vplat::parse_kernel_image(img, err));
  EXPECT_NE(err.find("truncated"), std::string::npos);
}
