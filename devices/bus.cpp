#include "devices/bus.h"
#include "devices/host_memory.h"
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace vplat::dev {

Bus::~Bus() {
  for (auto& r : ram_) release_host_memory(r.host, r.size);
}

void Bus::add_ram(uint64_t base, uint64_t size) {
  void* p = reserve_host_memory(size);
  if (!p) throw std::runtime_error("cannot reserve " + std::to_string(size >> 20) + " MiB of guest RAM");
  ram_.push_back({base, size, static_cast<uint8_t*>(p)});
}

void Bus::add_device(uint64_t base, uint64_t size, MmioDevice* device) { windows_.push_back({base, size, device}); }

uint8_t* Bus::ram_pointer(uint64_t addr, uint64_t size) {
  for (auto& r : ram_)
    if (addr >= r.base && size <= r.size && addr - r.base <= r.size - size) return r.host + (addr - r.base);
  return nullptr;
}

const Bus::Window* Bus::find_window(uint64_t addr, unsigned size) const {
  for (auto& w : windows_)
    if (addr >= w.base && addr - w.base <= w.size - size) return &w;
  return nullptr;
}

void Bus::log_unmapped(const char* what, uint64_t addr) {
  const uint64_t page = addr >> 12;
  for (uint64_t p : logged_pages_)
    if (p == page) return;
  if (logged_pages_.size() < 64) logged_pages_.emplace_back(addr >> 12);
  std::fprintf(stderr, "vplat: guest %s of unmapped physical address 0x%llx (external abort)\n", what,
               static_cast<unsigned long long>(addr));
}

bool Bus::read(uint64_t addr, unsigned size, uint64_t& value) {
  if (uint8_t* p = ram_pointer(addr, size)) {
    value = 0;
    std::memcpy(&value, p, size);
    return true;
  }
  if (const Window* w = find_window(addr, size)) {
    value = w->device->read(addr - w->base, size);
    return true;
  }
  log_unmapped("read", addr);
  return false;
}

bool Bus::write(uint64_t addr, unsigned size, uint64_t value) {
  if (uint8_t* p = ram_pointer(addr, size)) {
    std::memcpy(p, &value, size);
    return true;
  }
  if (const Window* w = find_window(addr, size)) {
    w->device->write(addr - w->base, size, value);
    return true;
  }
  log_unmapped("write", addr);
  return false;
}

bool Bus::copy_to(uint64_t addr, const void* src, uint64_t size) {
  uint8_t* p = ram_pointer(addr, size);
  if (!p) return false;
  std::memcpy(p, src, size);
  return true;
}

bool Bus::copy_from(uint64_t addr, void* dst, uint64_t size) {
  uint8_t* p = ram_pointer(addr, size);
  if (!p) return false;
  std::memcpy(dst, p, size);
  return true;
}

} // namespace vplat::dev
