// Loading a Linux arm64 kernel per Documentation/arch/arm64/booting.rst: the raw `Image` (64-byte header,
// "ARM\x64" magic at offset 0x38) or a gzip-compressed one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vplat {

struct KernelImage {
  // The image's bytes: `bytes` (decompressed from a gzip file, or given to parse_kernel_image), or, when
  // `path` is set, that file's first `content_size` bytes, read by copy_kernel_image.
  std::vector<uint8_t> bytes;
  std::string path;
  uint64_t content_size = 0;
  uint64_t text_offset = 0;   // from the header
  uint64_t image_size = 0;    // effective size incl. BSS; 0 in old kernels
  uint64_t flags = 0;         // bit 0: big-endian; bits 2:1 page size; bit 3: placement anywhere
};

// Reads and checks a kernel image. On failure returns nullopt with a one-line reason in `error`.
std::optional<KernelImage> load_kernel_image(const std::string& path, std::string& error);
std::optional<KernelImage> parse_kernel_image(std::vector<uint8_t> data, std::string& error);

// Writes the image's bytes to `dest`, which holds at least `content_size` of them. false + error when the
// file cannot be read again as it was when loaded.
bool copy_kernel_image(const KernelImage& k, uint8_t* dest, std::string& error);

// The size of a regular file, at most `max_size`. nullopt + error on failure.
std::optional<uint64_t> file_size(const std::string& path, uint64_t max_size, std::string& error);
// Reads the first `size` bytes of a file into `dest` (for images, straight into guest RAM).
bool read_file_into(const std::string& path, uint8_t* dest, uint64_t size, std::string& error);
// Reads a whole file, with a size limit. nullopt + error on failure.
std::optional<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_size, std::string& error);

} // namespace vplat
