// Fallback definitions of two FP helpers from archdesc/aarch64/fp_helpers.adl that the SIMD modified
// immediate FMOV needs. The FP group owns the real definitions (cpu-dbt/a64_fp_helpers.cpp); these are weak
// so that theirs take precedence once both are linked, and can be deleted then.
#include "aarch64_helpers.h"
#include <cstdio>
#include <cstring>

namespace vplat::gen::aarch64 {

// VFPExpandImm (Arm ARM shared pseudocode) for esize 16, 32 or 64.
[[gnu::weak]] uint64_t fp_expand_imm8(uint64_t esize, uint64_t imm8) {
  const unsigned e = esize == 16 ? 5 : esize == 32 ? 8 : 11;
  const unsigned f = static_cast<unsigned>(esize) - e - 1;
  const uint64_t sign = imm8 >> 7 & 1, b6 = imm8 >> 6 & 1;
  uint64_t exp = (b6 ^ 1) << (e - 1);
  if (b6) exp |= ((uint64_t(1) << (e - 3)) - 1) << 2;
  exp |= imm8 >> 4 & 3;
  const uint64_t frac = (imm8 & 15) << (f - 4);
  return sign << (esize - 1) | exp << f | frac;
}

// LLVM prints FP immediates with "%.8f"; every VFPExpandImm value is exact in 8 decimals.
[[gnu::weak]] std::string fp_imm_text(uint64_t esize, uint64_t imm8) {
  const uint64_t bits = fp_expand_imm8(esize == 64 ? 64 : 32, imm8);
  double d;
  if (esize == 64) {
    std::memcpy(&d, &bits, 8);
  } else {
    float x;
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(&x, &b, 4);
    d = x;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.8f", d);
  return buf;
}

} // namespace vplat::gen::aarch64
