// Runtime helpers of the branch/system and load/store groups (archdesc/aarch64/branch.adl, system.adl,
// ldst.adl).
#include "aarch64_helpers.h"
#include "cpu-dbt/a64_core.h"

namespace vplat::gen::aarch64 {

using vplat::cpu::core_of;
using vplat::cpu::Exception;

void check_alignment(State& s, uint64_t addr, uint64_t size) {
  if (addr & (size - 1)) core_of(s).raise(Exception::Alignment, addr);
}

} // namespace vplat::gen::aarch64
