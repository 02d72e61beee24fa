// The physical address space: RAM regions backed by host memory, and device windows.
#pragma once
#include "devices/device.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vplat::dev {

class Bus {
public:
  Bus() = default;
  Bus(const Bus&) = delete;
  Bus& operator=(const Bus&) = delete;
  ~Bus();

  // Adds zero-filled RAM at [base, base+size). The host memory is reserved lazily by the kernel, so a
  // large guest RAM costs only the pages the guest touches.
  void add_ram(uint64_t base, uint64_t size);
  // Maps a device window. The bus does not own the device.
  void add_device(uint64_t base, uint64_t size, MmioDevice* device);

  // Host pointer for [addr, addr+size) if it lies inside one RAM region, else nullptr.
  uint8_t* ram_pointer(uint64_t addr, uint64_t size);

  // Accesses of 1, 2, 4 or 8 bytes. Return false when nothing is mapped at addr (an external abort
  // for the CPU); the first such access at each 4 KiB page is logged once to stderr.
  bool read(uint64_t addr, unsigned size, uint64_t& value);
  bool write(uint64_t addr, unsigned size, uint64_t value);

  // Copies to/from RAM only (image loading, DMA). Return false if any byte is outside RAM.
  bool copy_to(uint64_t addr, const void* src, uint64_t size);
  bool copy_from(uint64_t addr, void* dst, uint64_t size);

  struct RamRegion {
    uint64_t base, size;
    uint8_t* host;
  };
  const std::vector<RamRegion>& ram() const { return ram_; }

private:
  struct Window {
    uint64_t base, size;
    MmioDevice* device;
  };
  std::vector<RamRegion> ram_;
  std::vector<Window> windows_;
  std::vector<uint64_t> logged_pages_;
  const Window* find_window(uint64_t addr, unsigned size) const;
  void log_unmapped(const char* what, uint64_t addr);
};

} // namespace vplat::dev
