// Runtime helpers declared `extern` in archdesc/aarch64/base.adl: exceptions and disassembly formatting.
// (mem_read and mem_write are inline: a64_memory_helpers.h.)
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"
#include <cstdio>

namespace vplat::gen::aarch64 {

using vplat::cpu::Core;
using vplat::cpu::core_of;
using vplat::cpu::Exception;

void undefined(State& s) {
  core_of(s).raise(Exception::Undefined);
}

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
