#include "platforms/image_loader.h"
#include <algorithm>
#include <cstring>
#include <fstream>
#include <zlib.h>

namespace vplat {

namespace {

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// Kernels with the EFI stub are also PE/COFF files ("MZ" at 0, the PE header offset at 0x3c) whose section
// table says how many bytes the file must hold; the Image header itself cannot reveal a truncated file.
// Returns 0 when there is no PE header to go by.
uint64_t pe_raw_size(const std::vector<uint8_t>& d) {
  if (d.size() < 0x40 || d[0] != 'M' || d[1] != 'Z') return 0;
  uint64_t pe = le32(&d[0x3c]);
  if (pe + 24 > d.size() || std::memcmp(&d[pe], "PE\0\0", 4) != 0) return 0;
  unsigned sections = le16(&d[pe + 6]);
  uint64_t table = pe + 24 + le16(&d[pe + 20]);
  uint64_t end = 0;
  for (unsigned i = 0; i < sections; ++i) {
    uint64_t s = table + 40ull * i;
    if (s + 40 > d.size()) return table + 40ull * sections; // the section table itself is cut off
    end = std::max<uint64_t>(end, uint64_t(le32(&d[s + 20])) + le32(&d[s + 16]));
  }
  return end;
}

uint64_t le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Inflates a gzip stream; the kernel is at most a few hundred MiB once decompressed.
bool gunzip(const std::vector<uint8_t>& in, std::vector<uint8_t>& out, std::string& error) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    error = "cannot initialise zlib";
    return false;
  }
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  out.resize(in.size() * 4 + (1 << 20));
  int rc;
  do {
    if (z.total_out == out.size()) {
      if (out.size() > (512ull << 20)) {
        inflateEnd(&z);
        error = "decompressed kernel is larger than 512 MiB";
        return false;
      }
      out.resize(out.size() * 2);
    }
    z.next_out = out.data() + z.total_out;
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
  } while (rc == Z_OK);
  out.resize(z.total_out);
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    error = "corrupt or truncated gzip data";
    return false;
  }
  return true;
}

} // namespace

std::optional<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_size, std::string& error) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::streamoff size = f.tellg();
  if (size < 0) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  if (static_cast<uint64_t>(size) > max_size) {
    error = "'" + path + "' is " + std::to_string(size >> 20) + " MiB, more than the " + std::to_string(max_size >> 20) +
            " MiB available for it";
    return std::nullopt;
  }
  std::vector<uint8_t> data(static_cast<size_t>(size));
  f.seekg(0);
  if (!f.read(reinterpret_cast<char*>(data.data()), size)) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  return data;
}

std::optional<KernelImage> parse_kernel_image(std::vector<uint8_t> data, std::string& error) {
  if (data.size() >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
    std::vector<uint8_t> out;
    if (!gunzip(data, out, error)) {
      error = "kernel: " + error;
      return std::nullopt;
    }
    data = std::move(out);
  }
  if (data.size() < 64) {
    error = "kernel: file is too short to be an arm64 Image (" + std::to_string(data.size()) + " bytes)";
    return std::nullopt;
  }
  if (std::memcmp(&data[0x38], "ARM\x64", 4) != 0) {
    error = "kernel: not an arm64 Linux Image (no \"ARM\\x64\" magic at offset 0x38)";
    return std::nullopt;
  }
  KernelImage k;
  k.text_offset = le64(&data[0x08]);
  k.image_size = le64(&data[0x10]);
  k.flags = le64(&data[0x18]);
  if (k.flags & 1) {
    error = "kernel: big-endian kernels are not supported";
    return std::nullopt;
  }
  unsigned page = (k.flags >> 1) & 3;
  if (page != 0 && page != 1) {
    error = "kernel: built for 16K or 64K pages; vplat implements the 4K granule only";
    return std::nullopt;
  }
  if (k.image_size && k.image_size < data.size()) {
    error = "kernel: header says " + std::to_string(k.image_size) + " bytes but the file has " +
            std::to_string(data.size()) + "; the image is corrupt";
    return std::nullopt;
  }
  if (uint64_t need = pe_raw_size(data); need > data.size()) {
    error = "kernel: the file is truncated (" + std::to_string(data.size()) + " bytes; its PE header describes " +
            std::to_string(need) + ")";
    return std::nullopt;
  }
  if (k.image_size == 0) k.image_size = data.size();
  k.bytes = std::move(data);
  return k;
}

std::optional<KernelImage> load_kernel_image(const std::string& path, std::string& error) {
  auto data = read_file(path, 1ull << 30, error);
  if (!data) return std::nullopt;
  return parse_kernel_image(std::move(*data), error);
}

} // namespace vplat
