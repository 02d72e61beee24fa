// Where the kernel, device tree and initrd go in guest RAM, per the arm64 boot protocol
// (Documentation/arch/arm64/booting.rst): the Image at a 2 MiB-aligned base plus text_offset, the DTB
// 8-byte aligned in its own 2 MiB region and at most 2 MiB, the initrd anywhere in RAM not overlapping them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vplat {

struct BootLayout {
  uint64_t kernel_load = 0;  // where the Image's first byte goes (= entry point)
  uint64_t kernel_end = 0;   // load + image_size (incl. BSS)
  uint64_t dtb = 0;
  uint64_t initrd_start = 0, initrd_end = 0; // equal when there is no initrd
};

constexpr uint64_t kMaxDtbSize = 2ull << 20;

// Plans the layout in the first RAM bank (the only one the kernel is guaranteed to see early). Returns
// nullopt with a one-line reason if the pieces do not fit.
std::optional<BootLayout> plan_boot(uint64_t ram_base, uint64_t ram_size, uint64_t text_offset, uint64_t image_size,
                                    uint64_t dtb_size, uint64_t initrd_size, std::string& error);

} // namespace vplat
