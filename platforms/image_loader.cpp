#include "platforms/image_loader.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

namespace vplat {

namespace {

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// Kernels with the EFI stub are also PE/COFF files ("MZ" at 0, the PE header offset at 0x3c) whose section
// table says how many bytes the file must hold; the Image header itself cannot reveal a truncated file.
// `head` is the file's first `head_size` bytes of `file_size`. Returns 0 when there is no PE header to go
// by, and nullopt when the section table lies past `head` in a longer file (the caller reads more).
std::optional<uint64_t> pe_raw_size(const uint8_t* head, uint64_t head_size, uint64_t file_size) {
  if (head_size < 0x40 || head[0] != 'M' || head[1] != 'Z') return 0;
  uint64_t pe = le32(&head[0x3c]);
  if (pe + 24 > head_size) return head_size < file_size ? std::nullopt : std::optional<uint64_t>(0);
  if (std::memcmp(&head[pe], "PE\0\0", 4) != 0) return 0;
  unsigned sections = le16(&head[pe + 6]);
  uint64_t table = pe + 24 + le16(&head[pe + 20]);
  uint64_t end = 0;
  for (unsigned i = 0; i < sections; ++i) {
    uint64_t s = table + 40ull * i;
    if (s + 40 > head_size) {
      if (head_size < file_size) return std::nullopt;
      return table + 40ull * sections; // the section table itself is cut off
    }
    end = std::max<uint64_t>(end, uint64_t(le32(&head[s + 20])) + le32(&head[s + 16]));
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

// An open file descriptor, closed on every way out.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly `size` bytes from `fd` at `offset` into `dest`.
bool read_exactly(int fd, uint64_t offset, uint8_t* dest, uint64_t size, const std::string& path,
                  std::string& error) {
  while (size > 0) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(size, 1u << 30));
    ssize_t n = ::pread(fd, dest, chunk, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = "cannot read '" + path + "': " + std::strerror(errno);
      return false;
    }
    if (n == 0) {
      error = "'" + path + "' became shorter while it was read";
      return false;
    }
    dest += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<uint64_t>(n);
  }
  return true;
}

// Checks an uncompressed Image's header. `head` is the file's first `head_size` bytes of `file_size`;
// nullopt with an empty `error` means the checks need more of the file than `head`.
std::optional<KernelImage> check_raw_image(const uint8_t* head, uint64_t head_size, uint64_t file_size,
                                           std::string& error) {
  error.clear();
  if (file_size < 64) {
    error = "kernel: file is too short to be an arm64 Image (" + std::to_string(file_size) + " bytes)";
    return std::nullopt;
  }
  if (std::memcmp(&head[0x38], "ARM\x64", 4) != 0) {
    error = "kernel: not an arm64 Linux Image (no \"ARM\\x64\" magic at offset 0x38)";
    return std::nullopt;
  }
  KernelImage k;
  k.text_offset = le64(&head[0x08]);
  k.image_size = le64(&head[0x10]);
  k.flags = le64(&head[0x18]);
  if (k.flags & 1) {
    error = "kernel: big-endian kernels are not supported";
    return std::nullopt;
  }
  unsigned page = (k.flags >> 1) & 3;
  if (page != 0 && page != 1) {
    error = "kernel: built for 16K or 64K pages; vplat implements the 4K granule only";
    return std::nullopt;
  }
  if (k.image_size && k.image_size < file_size) {
    error = "kernel: header says " + std::to_string(k.image_size) + " bytes but the file has " +
            std::to_string(file_size) + "; the image is corrupt";
    return std::nullopt;
  }
  std::optional<uint64_t> need = pe_raw_size(head, head_size, file_size);
  if (!need) return std::nullopt;
  if (*need > file_size) {
    error = "kernel: the file is truncated (" + std::to_string(file_size) +
            " bytes; its PE header describes " + std::to_string(*need) + ")";
    return std::nullopt;
  }
  if (k.image_size == 0) k.image_size = file_size;
  k.content_size = file_size;
  return k;
}

} // namespace

std::optional<uint64_t> file_size(const std::string& path, uint64_t max_size, std::string& error) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file";
    return std::nullopt;
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_size) {
    error = "'" + path + "' is " + std::to_string(size >> 20) + " MiB, more than the " +
            std::to_string(max_size >> 20) + " MiB available for it";
    return std::nullopt;
  }
  return size;
}

bool read_file_into(const std::string& path, uint8_t* dest, uint64_t size, std::string& error) {
  Fd f(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  return read_exactly(f.fd, 0, dest, size, path, error);
}

std::optional<std::vector<uint8_t>> read_file(const std::string& path, uint64_t max_size,
                                              std::string& error) {
  auto size = file_size(path, max_size, error);
  if (!size) return std::nullopt;
  std::vector<uint8_t> data(static_cast<size_t>(*size));
  if (!read_file_into(path, data.data(), *size, error)) return std::nullopt;
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
  auto k = check_raw_image(data.data(), data.size(), data.size(), error);
  if (!k) return std::nullopt;
  k->bytes = std::move(data);
  return k;
}

std::optional<KernelImage> load_kernel_image(const std::string& path, std::string& error) {
  auto file_error = [&] {
    error = "kernel: " + error;
    return std::nullopt;
  };
  auto size = file_size(path, 1ull << 30, error);
  if (!size) return file_error();
  // A raw Image is checked from its head and read into guest RAM only once its place there is known: a
  // copy through host memory first would touch every page twice (a Debian Image is ~30 MiB).
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(*size, 64 << 10)));
  if (!read_file_into(path, head.data(), head.size(), error)) return file_error();
  bool gzipped = head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
  if (!gzipped) {
    auto k = check_raw_image(head.data(), head.size(), *size, error);
    if (k) k->path = path;
    if (k || !error.empty()) return k;
  }
  auto data = read_file(path, 1ull << 30, error);
  if (!data) return file_error();
  return parse_kernel_image(std::move(*data), error);
}

bool copy_kernel_image(const KernelImage& k, uint8_t* dest, std::string& error) {
  if (k.path.empty()) {
    std::memcpy(dest, k.bytes.data(), k.bytes.size());
    return true;
  }
  return read_file_into(k.path, dest, k.content_size, error);
}

} // namespace vplat
