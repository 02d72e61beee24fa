// Kernel image checks per Documentation/arch/arm64/booting.rst (header layout: code0/code1, text_offset at
// 0x08, image_size at 0x10, flags at 0x18, magic "ARM\x64" at 0x38).
#include "platforms/image_loader.h"
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <stdexcept>
#include <unistd.h>
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

// An EFI-stub Image: "MZ", the PE header at `pe` with one section whose raw data ends at 0x3000.
std::vector<uint8_t> pe_image(size_t size, uint32_t pe = 0x40) {
  auto img = fake_image(size);
  img[0] = 'M';
  img[1] = 'Z';
  for (int i = 0; i < 4; ++i) img[0x3c + i] = static_cast<uint8_t>(pe >> (8 * i));
  std::memcpy(&img[pe], "PE\0\0", 4);
  img[pe + 6] = 1; // NumberOfSections
  img[pe + 7] = 0;
  img[pe + 20] = 0; // SizeOfOptionalHeader = 0: the section table follows the 24-byte header
  img[pe + 21] = 0;
  std::memset(&img[pe + 24], 0, 40);
  img[pe + 24 + 16 + 1] = 0x20; // SizeOfRawData 0x2000
  img[pe + 24 + 20 + 1] = 0x10; // PointerToRawData 0x1000
  return img;
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::vector<uint8_t>& bytes) {
    std::string name = (std::filesystem::temp_directory_path() / "vplat-image-XXXXXX").string();
    int fd = mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("mkstemp");
    bool ok = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fd);
    if (!ok) throw std::runtime_error("write");
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

// What copy_kernel_image puts in guest RAM, with room to spare that must stay untouched.
std::vector<uint8_t> placed(const vplat::KernelImage& k, std::string& err, bool& ok) {
  std::vector<uint8_t> ram(k.content_size + 16, 0xee);
  ok = vplat::copy_kernel_image(k, ram.data(), err);
  return ram;
}

std::vector<uint8_t> with_spare(std::vector<uint8_t> v) {
  v.insert(v.end(), 16, 0xee);
  return v;
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
  auto img = pe_image(0x3000);
  std::string err;
  EXPECT_TRUE(vplat::parse_kernel_image(img, err)) << err;
  img.resize(0x2fff);
  EXPECT_FALSE(vplat::parse_kernel_image(img, err));
  EXPECT_NE(err.find("truncated"), std::string::npos);
}

TEST(KernelImageFile, ARawImageIsCheckedFromItsHeadAndReadIntoPlaceWhole) {
  auto img = fake_image(200000);
  for (size_t i = 0x40; i < img.size(); ++i) img[i] = static_cast<uint8_t>(i * 13 + i / 4096);
  TempFile f(img);
  std::string err;
  auto k = vplat::load_kernel_image(f.path, err);
  ASSERT_TRUE(k) << err;
  EXPECT_TRUE(k->bytes.empty()); // nothing held in host memory before the copy
  EXPECT_EQ(k->content_size, img.size());
  EXPECT_EQ(k->image_size, img.size() + 4096);
  bool ok;
  auto ram = placed(*k, err, ok);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(ram, with_spare(img));
}

TEST(KernelImageFile, AGzippedImageIsPlacedDecompressed) {
  auto raw = fake_image(100000);
  TempFile f(gzip(raw));
  std::string err;
  auto k = vplat::load_kernel_image(f.path, err);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(k->content_size, raw.size());
  bool ok;
  auto ram = placed(*k, err, ok);
  ASSERT_TRUE(ok) << err;
  EXPECT_EQ(ram, with_spare(raw));
}

TEST(KernelImageFile, HeaderChecksSeeTheWholeFilesSize) {
  std::string err;
  TempFile corrupt(fake_image(8192, 0xa, 4096)); // image_size smaller than the file
  EXPECT_FALSE(vplat::load_kernel_image(corrupt.path, err));
  EXPECT_NE(err.find("corrupt"), std::string::npos);
  auto truncated = pe_image(0x3000);
  truncated.resize(0x2fff);
  TempFile t(truncated);
  EXPECT_FALSE(vplat::load_kernel_image(t.path, err));
  EXPECT_NE(err.find("truncated"), std::string::npos);
  TempFile tiny(std::vector<uint8_t>(10, 0));
  EXPECT_FALSE(vplat::load_kernel_image(tiny.path, err));
  EXPECT_NE(err.find("too short"), std::string::npos);
}

TEST(KernelImageFile, APeSectionTableBeyondTheHeadIsStillChecked) {
  // The PE header 96 KiB in, past the part of the file read before the image is placed.
  auto img = pe_image(0x20000, 0x18000);
  img.resize(0x19000); // the file must hold 0x3000 bytes by its section table; it holds more
  std::string err;
  TempFile whole(img);
  auto k = vplat::load_kernel_image(whole.path, err);
  ASSERT_TRUE(k) << err;
  EXPECT_EQ(k->content_size, img.size());
  // A section that ends past the end of the file.
  img[0x18000 + 24 + 20 + 2] = 0x02; // PointerToRawData 0x21000
  TempFile cut(img);
  EXPECT_FALSE(vplat::load_kernel_image(cut.path, err));
  EXPECT_NE(err.find("truncated"), std::string::npos);
}

TEST(KernelImageFile, AFileThatShrinksBeforeItIsPlacedIsAnError) {
  TempFile f(fake_image(100000));
  std::string err;
  auto k = vplat::load_kernel_image(f.path, err);
  ASSERT_TRUE(k) << err;
  ASSERT_EQ(truncate(f.path.c_str(), 50000), 0);
  bool ok;
  placed(*k, err, ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("shorter"), std::string::npos);
}

TEST(ReadFile, ReadsExactlyWhatWasAskedInto) {
  std::vector<uint8_t> bytes(70000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  TempFile f(bytes);
  std::string err;
  auto size = vplat::file_size(f.path, 1 << 20, err);
  ASSERT_TRUE(size) << err;
  EXPECT_EQ(*size, bytes.size());
  std::vector<uint8_t> dest(bytes.size() + 8, 0xee);
  ASSERT_TRUE(vplat::read_file_into(f.path, dest.data(), 1000, err)) << err;
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 1000, dest.begin()));
  EXPECT_EQ(dest[1000], 0xee);
  EXPECT_FALSE(vplat::read_file_into(f.path, dest.data(), bytes.size() + 1, err));
  EXPECT_NE(err.find("shorter"), std::string::npos);
  EXPECT_FALSE(vplat::file_size(std::filesystem::temp_directory_path().string(), 1 << 20, err));
  EXPECT_NE(err.find("not a regular file"), std::string::npos);
}
