#include "devices/host_memory.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace vplat::dev {

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

bool huge_pages_wanted() {
  const char* v = std::getenv("VPLAT_HUGE_PAGES");
  return !(v && std::strcmp(v, "0") == 0);
}
} // namespace

// Why huge pages: translated code reaches guest memory, and the soft TLBs, through host virtual addresses.
// With 4 KiB host pages every guest page a workload touches takes its own entry in the host's TLB, and a
// workload that walks a few MiB of data (bzip2's sort, xz's match finder) touches more pages than those
// entries cover (measured effect: cpu-dbt/README.md, "Session 33"). Debian's default THP mode is `madvise`,
// so the advice is needed; a huge page covers only an aligned 2 MiB, so the mapping is aligned by hand
// (over-reserve, trim both ends).
void* reserve_host_memory(std::size_t size) {
  const std::size_t reserved = size + kHugePage;
  void* p =
      mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(p, aligned - start);
  const std::uintptr_t end = aligned + size, reserved_end = start + reserved;
  if (reserved_end > end) munmap(reinterpret_cast<void*>(end), reserved_end - end);
  // Advice only: a host without THP (or with it off) still gives ordinary pages.
  if (huge_pages_wanted()) madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void release_host_memory(void* p, std::size_t size) {
  if (p) munmap(p, size);
}

} // namespace vplat::dev
