// Host memory for large, randomly accessed emulator state (guest RAM, a core's soft TLBs).
#pragma once
#include <cstddef>

namespace vplat::dev {

// Reserves `size` bytes of zero-filled host memory at a 2 MiB boundary and advises the kernel to back it
// with transparent huge pages (with VPLAT_HUGE_PAGES=0, ordinary pages). Pages are committed on first
// touch. Returns nullptr when the host refuses the reservation.
void* reserve_host_memory(std::size_t size);
// Releases what reserve_host_memory returned, given the same size.
void release_host_memory(void* p, std::size_t size);

} // namespace vplat::dev
