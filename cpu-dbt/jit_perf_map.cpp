#include "cpu-dbt/jit_perf_map.h"
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace vplat::cpu {

namespace {

// The jitdump format (Linux, tools/perf/Documentation/jitdump-specification.txt): a file header, then
// records, each a header followed by its body; multi-byte fields in the host's byte order.
constexpr uint32_t kDumpMagic = 0x4A695444; // "JiTD"
constexpr uint32_t kDumpVersion = 1;
constexpr uint32_t kElfMachineX86_64 = 62;
constexpr uint32_t kRecordCodeLoad = 0, kRecordCodeClose = 3;

struct FileHeader {
  uint32_t magic, version, total_size, elf_mach, pad1, pid;
  uint64_t timestamp, flags; // flags 0: timestamps are CLOCK_MONOTONIC
};
struct RecordHeader {
  uint32_t id, total_size;
  uint64_t timestamp;
};
struct CodeLoad { // followed by the name (NUL-terminated) and the code
  uint32_t pid, tid;
  uint64_t vma, code_addr, code_size, code_index;
};

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace

std::unique_ptr<PerfMap> PerfMap::from_environment() {
  const char* v = std::getenv("VPLAT_JIT_PERF_MAP");
  if (!v || (std::strcmp(v, "1") != 0 && std::strcmp(v, "2") != 0)) return nullptr;
  const std::string pid = std::to_string(getpid());
  std::string dump;
  if (v[0] == '2') {
    const char* dir = std::getenv("VPLAT_JIT_DUMP_DIR");
    dump = std::string(dir && *dir ? dir : "/tmp") + "/jit-" + pid + ".dump";
  }
  auto map = std::make_unique<PerfMap>("/tmp/perf-" + pid + ".map", dump);
  return map->ok() ? std::move(map) : nullptr;
}

PerfMap::PerfMap(const std::string& map_path, const std::string& dump_path) : dump_path_(dump_path) {
  map_ = std::fopen(map_path.c_str(), "w");
  if (!map_) {
    std::fprintf(stderr, "vplat: VPLAT_JIT_PERF_MAP: cannot write %s: %s\n", map_path.c_str(),
                 std::strerror(errno));
    return;
  }
  if (dump_path_.empty()) return;
  dump_ = std::fopen(dump_path_.c_str(), "w+");
  if (!dump_) {
    std::fprintf(stderr, "vplat: VPLAT_JIT_PERF_MAP=2: cannot write %s: %s\n", dump_path_.c_str(),
                 std::strerror(errno));
    return;
  }
  const FileHeader h{kDumpMagic,
                     kDumpVersion,
                     sizeof(FileHeader),
                     kElfMachineX86_64,
                     0,
                     static_cast<uint32_t>(getpid()),
                     monotonic_ns(),
                     0};
  std::fwrite(&h, sizeof h, 1, dump_);
  std::fflush(dump_);
  // perf record sees this executable mapping of the file, and perf inject --jit reads the file it names.
  const long page = sysconf(_SC_PAGESIZE);
  dump_mapping_ =
      mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(dump_), 0);
  if (dump_mapping_ == MAP_FAILED) {
    std::fprintf(stderr, "vplat: VPLAT_JIT_PERF_MAP=2: cannot map %s: %s\n", dump_path_.c_str(),
                 std::strerror(errno));
    dump_mapping_ = nullptr;
    std::fclose(dump_);
    dump_ = nullptr;
  }
}

PerfMap::~PerfMap() {
  if (dump_) {
    write_dump_record(kRecordCodeClose, nullptr, 0, nullptr, 0);
    munmap(dump_mapping_, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
    std::fclose(dump_);
  }
  if (map_) std::fclose(map_);
}

void PerfMap::write_dump_record(uint32_t id, const void* body, size_t body_size, const void* code,
                                size_t code_size) {
  const RecordHeader h{id, static_cast<uint32_t>(sizeof(RecordHeader) + body_size + code_size),
                       monotonic_ns()};
  std::fwrite(&h, sizeof h, 1, dump_);
  if (body_size) std::fwrite(body, 1, body_size, dump_);
  if (code_size) std::fwrite(code, 1, code_size, dump_);
}

void PerfMap::add(const void* code, size_t size, const std::string& name) {
  std::lock_guard<std::mutex> l(lock_);
  const auto at = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(code));
  std::fprintf(map_, "%llx %zx %s\n", at, size, name.c_str());
  std::fflush(map_);
  if (!dump_) return;
  // The body: the fixed fields, then the name; the code follows it.
  std::string body(sizeof(CodeLoad), '\0');
  const CodeLoad load{static_cast<uint32_t>(getpid()),
                      static_cast<uint32_t>(syscall(SYS_gettid)),
                      at,
                      at,
                      size,
                      next_index_++};
  std::memcpy(body.data(), &load, sizeof load);
  body.append(name);
  body.push_back('\0');
  write_dump_record(kRecordCodeLoad, body.data(), body.size(), code, size);
  std::fflush(dump_);
}

} // namespace vplat::cpu
