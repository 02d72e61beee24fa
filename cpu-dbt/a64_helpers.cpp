// Runtime helpers declared `extern` in archdesc/aarch64/base.adl: memory and exceptions.
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"
#include <cstdio>

namespace vplat::gen::aarch64 {

using vplat::cpu::core_of;
using vplat::cpu::Exception;

uint64_t mem_read(State& s, uint64_t addr, uint64_t size) {
  auto& c = core_of(s);
  uint64_t v = 0;
  if (!c.mem.read(addr, static_cast<unsigned>(size), v)) c.raise(Exception::DataAbort, addr);
  return v;
}

void mem_write(State& s, uint64_t addr, uint64_t size, uint64_t value) {
  auto& c = core_of(s);
  if (!c.mem.write(addr, static_cast<unsigned>(size), value)) c.raise(Exception::DataAbort, addr);
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
