// mem_read and mem_write (declared `extern inline` in archdesc/aarch64/base.adl), included at the end of
// the generated aarch64_helpers.h: every interpreter function that loads or stores inlines the soft-TLB
// fast path with its access size known, instead of calling a function that switches on the size. The JIT
// calls them by address from its slow paths (its own fast path is IR: a64_jit.cpp, inline_memory).
// A data access hits when the tag for the access kind at the current EL matches (a tag that matches is a
// RAM page without SCTLR.A alignment checking: Core::TlbEntry) and the access stays on the page; then it
// is a memcpy from host RAM. Everything else (misses, device pages, page-crossing accesses, any access
// while SCTLR.A is set) goes to Core::read_slow/write_slow.
#pragma once
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"
#include <cstring>

namespace vplat::gen::aarch64 {

namespace memory_detail {
inline uint64_t load_host(const uint8_t* p, uint64_t size) {
  switch (size) {
  case 1:
    return *p;
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  }
}
inline void store_host(uint8_t* p, uint64_t size, uint64_t v) {
  switch (size) {
  case 1:
    *p = static_cast<uint8_t>(v);
    return;
  case 2: {
    uint16_t w = static_cast<uint16_t>(v);
    std::memcpy(p, &w, 2);
    return;
  }
  case 4: {
    uint32_t w = static_cast<uint32_t>(v);
    std::memcpy(p, &w, 4);
    return;
  }
  default:
    std::memcpy(p, &v, 8);
    return;
  }
}
} // namespace memory_detail

// The hit test compares the page of the access's last byte with the entry of its first byte's page: equal
// only when the access stays on that page (an entry holds a page of its own index, and the next page has the
// next index), so one compare does both tests.
inline uint64_t mem_read(State& s, uint64_t addr, uint64_t size) {
  auto& c = cpu::core_of(s);
  const auto& e = c.data_tlb_[(addr >> 12) & (cpu::Core::kTlbSize - 1)];
  if (e.read == ((addr + size - 1) & ~0xfffull)) [[likely]]
    return memory_detail::load_host(e.host(addr), size);
  return c.read_slow(addr, static_cast<unsigned>(size));
}

inline void mem_write(State& s, uint64_t addr, uint64_t size, uint64_t value) {
  auto& c = cpu::core_of(s);
  const auto& e = c.data_tlb_[(addr >> 12) & (cpu::Core::kTlbSize - 1)];
  if (e.write == ((addr + size - 1) & ~0xfffull)) [[likely]] {
    if (*c.monitors_active_) [[unlikely]]
      c.group->store_to(c, e.pa | (addr & 0xfff), size);
    memory_detail::store_host(e.host(addr), size, value);
    return;
  }
  c.write_slow(addr, static_cast<unsigned>(size), value);
}

} // namespace vplat::gen::aarch64
