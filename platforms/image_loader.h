// Loading a Linux arm64 kernel per Documentation/arch/arm64/booting.rst: the raw `Image` (64-byte header,
// "ARM\x64" magic at offset 0x38) or a gzip-compressed one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vplat {

struct KernelImage {
  std::vector<uint8_t> bytes; // decompressed
  uint64_t text_offset = 0;   // from the header
  uint64_t image_size = 0;    // effective size incl. BSS; 0 in old kernels
  uint64_t flags = 0;         // bit 0: big-endian; bits 2:1 page size; bit 3: placement anywhere
};

// Reads and checks a kernel image. On failure returns nullopt with a one-line reason in `error`.
std::optional<KernelImage> load_kernel_image(const std::string& path, std::string& error);
std::optional<KernelImage> parse_kernel_image(std::vector<uint8_t> data, std::string& error);

// Reads a whole file (initrd, disk), with a size limit. nullopt + error on failure.
std::optional<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_size, std::string& error);

} // namespace vplat
