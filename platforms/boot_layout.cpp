#include "platforms/boot_layout.h"

namespace vplat {

namespace {
constexpr uint64_t k2M = 2ull << 20;
constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
std::string mib(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }
} // namespace

std::optional<BootLayout> plan_boot(uint64_t ram_base, uint64_t ram_size, uint64_t text_offset, uint64_t image_size,
                                    uint64_t dtb_size, uint64_t initrd_size, std::string& error) {
  BootLayout l;
  if (dtb_size > kMaxDtbSize) {
    error = "device tree is larger than the 2 MiB the boot protocol allows";
    return std::nullopt;
  }
  l.kernel_load = align_up(ram_base, k2M) + text_offset;
  l.kernel_end = l.kernel_load + image_size;
  // The DTB gets a 2 MiB region of its own after the kernel; the initrd follows, 2 MiB aligned too.
  l.dtb = align_up(l.kernel_end, k2M);
  uint64_t dtb_region_end = l.dtb + k2M;
  l.initrd_start = l.initrd_end = dtb_region_end;
  if (initrd_size) l.initrd_end = l.initrd_start + initrd_size;
  uint64_t end = l.initrd_end;
  uint64_t ram_end = ram_base + ram_size;
  if (end > ram_end || end < ram_base) {
    error = "kernel (" + mib(image_size) + "), device tree and initrd (" + mib(initrd_size) + ") need " +
            mib(end - ram_base) + " of RAM but the first RAM bank has " + mib(ram_size) +
            "; use a smaller initrd or a larger --memory";
    return std::nullopt;
  }
  return l;
}

} // namespace vplat
