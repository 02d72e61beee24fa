// Runtime helpers declared `extern` in archdesc/aarch64/base.adl: memory and exceptions.
// Data accesses hit the soft TLB inline: a tag compare for the access kind at the current EL (a tag that
// matches is a RAM page without SCTLR.A alignment checking: Core::TlbEntry), the page bounds check, then a
// memcpy from host RAM. Everything else (misses, device pages, page-crossing accesses, any access while
// SCTLR.A is set) goes to Core::read_slow/write_slow.
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"
#include <cstdio>

namespace vplat::gen::aarch64 {

using vplat::cpu::Core;
using vplat::cpu::core_of;
using vplat::cpu::Exception;

namespace {
inline uint64_t load_host(const uint8_t* p, uint64_t size) {
  switch (size) {
  case 1: return *p;
  case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
  default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}
inline void store_host(uint8_t* p, uint64_t size, uint64_t v) {
  switch (size) {
  case 1: *p = static_cast<uint8_t>(v); return;
  case 2: { uint16_t w = static_cast<uint16_t>(v); std::memcpy(p, &w, 2); return; }
  case 4: { uint32_t w = static_cast<uint32_t>(v); std::memcpy(p, &w, 4); return; }
  default: std::memcpy(p, &v, 8); return;
  }
}
} // namespace

uint64_t mem_read(State& s, uint64_t addr, uint64_t size) {
  auto& c = core_of(s);
  const auto& e = c.tlb_[c.access_el_][(addr >> 12) & (Core::kTlbSize - 1)];
  if (e.read == (addr & ~0xfffull) && (addr & 0xfff) + size <= 0x1000)
    return load_host(e.host + (addr & 0xfff), size);
  return c.read_slow(addr, static_cast<unsigned>(size));
}

void mem_write(State& s, uint64_t addr, uint64_t size, uint64_t value) {
  auto& c = core_of(s);
  const auto& e = c.tlb_[c.access_el_][(addr >> 12) & (Core::kTlbSize - 1)];
  if (e.write == (addr & ~0xfffull) && (addr & 0xfff) + size <= 0x1000) {
    if (*c.monitors_active_) c.group->store_to(c, e.pa | (addr & 0xfff), size);
    store_host(e.host + (addr & 0xfff), size, value);
    return;
  }
  c.write_slow(addr, static_cast<unsigned>(size), value);
}

void undefined(State& s) { core_of(s).raise(Exception::Undefined); }

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string shex(int64_t v) {
  if (v < 0) return "-" + hex(0 - static_cast<uint64_t>(v));
  return hex(static_cast<uint64_t>(v));
}

} // namespace vplat::gen::aarch64
