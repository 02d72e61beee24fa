// The runtime helpers archdesc/bifrost/helpers.adl declares `extern`: IEEE arithmetic through vplat's soft-float
// (cpu-dbt/fp, bit-exact and host-FP-state free) and global memory through the GPU MMU.
#include "cpu-dbt/fp/arm_fp.h"
#include "gpu-bifrost/mali_regs.h"
#include "gpu-bifrost/shader_core.h"
#include "gpu-bifrost/shader_thread.h"

namespace vplat::gen::bifrost {

namespace {

// Bifrost's rounding field (none = nearest even, rtp, rtn, rtz) is FPCR.RMode's encoding; denormals are kept
// and NaNs propagate (no default-NaN mode), as the header's zeroed FTZ/exception fields ask.
uint32_t fpcr_for(uint64_t round) { return static_cast<uint32_t>(round & 3) << vplat::fp::kFPCR_RMODE_SHIFT; }

uint32_t bits_of(float f) {
  uint32_t v;
  static_assert(sizeof v == sizeof f);
  __builtin_memcpy(&v, &f, 4);
  return v;
}

} // namespace

uint64_t f32_fma(uint64_t a, uint64_t b, uint64_t c, uint64_t round) {
  uint32_t flags = 0;
  return vplat::fp::muladd32(static_cast<uint32_t>(c), static_cast<uint32_t>(a), static_cast<uint32_t>(b),
                             fpcr_for(round), flags);
}

uint64_t f32_add(uint64_t a, uint64_t b, uint64_t round) {
  uint32_t flags = 0;
  return vplat::fp::add32(static_cast<uint32_t>(a), static_cast<uint32_t>(b), fpcr_for(round), flags);
}

uint64_t f32_clamp(uint64_t v, uint64_t clamp) {
  uint32_t x = static_cast<uint32_t>(v);
  if (clamp == 0 || vplat::fp::is_nan32(x)) return x;
  uint32_t flags = 0;
  uint32_t lo = clamp == 2 ? bits_of(-1.0f) : 0u;
  uint32_t hi = clamp == 1 ? 0x7f800000u : bits_of(1.0f);
  if (vplat::fp::cmp_gt32(lo, x, 0, flags)) x = lo;
  if (vplat::fp::cmp_gt32(x, hi, 0, flags)) x = hi;
  return x; // -0 compares equal to a lower bound of 0 and passes unchanged (unverified on hardware)

}

uint64_t f32_compare(uint64_t a, uint64_t b, uint64_t cmpf) {
  uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b), flags = 0;
  bool unordered = vplat::fp::is_nan32(x) || vplat::fp::is_nan32(y);
  bool eq = !unordered && vplat::fp::cmp_eq32(x, y, 0, flags);
  bool gt = !unordered && vplat::fp::cmp_gt32(x, y, 0, flags);
  bool lt = !unordered && vplat::fp::cmp_gt32(y, x, 0, flags);
  switch (cmpf) {
  case 0: return eq;
  case 1: return gt;
  case 2: return gt || eq;
  case 3: return !eq; // NIR's fneu: true when unordered
  case 4: return lt;
  case 5: return lt || eq;
  case 6: return lt || gt;
  default: return 0;
  }
}

uint64_t f32_minmax(uint64_t a, uint64_t b, uint64_t is_max, uint64_t sem) {
  uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b), flags = 0;
  bool xn = vplat::fp::is_nan32(x), yn = vplat::fp::is_nan32(y);
  // "x beats y" in the requested direction, for ordered values.
  auto beats = [&](uint32_t p, uint32_t q) {
    return is_max ? vplat::fp::cmp_gt32(p, q, 0, flags) : vplat::fp::cmp_gt32(q, p, 0, flags);
  };
  switch (sem) {
  case 2: return beats(x, y) ? x : y;  // src1 wins ties and NaNs
  case 3: return beats(y, x) ? y : x;  // src0 wins ties and NaNs
  case 1:                              // a NaN wins; of two, the greater (max) / lesser (min) as signed magnitude
    if (xn && yn) {
      auto key = [](uint32_t v) { return v & 0x80000000u ? -int64_t(v & 0x7fffffffu) : int64_t(v); };
      return (key(x) > key(y)) == (is_max != 0) ? x : y;
    }
    if (xn) return x;
    if (yn) return y;
    break;
  default: // NaN loses
    if (xn && yn) return x;
    if (xn) return y;
    if (yn) return x;
    break;
  }
  if (vplat::fp::is_zero32(x) && vplat::fp::is_zero32(y) && x != y) return is_max ? 0u : 0x80000000u;
  return beats(y, x) ? y : x;
}

uint64_t f32_to_int(uint64_t a, uint64_t is_unsigned, uint64_t round) {
  uint32_t flags = 0;
  // Float-to-integer conversions truncate when no rounding mode is given: Mesa emits them so for NIR's f2i/f2u
  // and folds them as C casts "to match hardware rules" (bi_opt_constant_fold.c).
  auto rm = round == 0 ? vplat::fp::Rounding::Zero : static_cast<vplat::fp::Rounding>(round & 3);
  return static_cast<uint32_t>(vplat::fp::f32_to_int(static_cast<uint32_t>(a), 32, is_unsigned != 0, 0, rm, 0, flags));
}

uint64_t int_to_f32(uint64_t a, uint64_t is_unsigned, uint64_t round) {
  uint32_t flags = 0;
  return vplat::fp::int_to_f32(static_cast<uint32_t>(a), 32, is_unsigned != 0, 0, fpcr_for(round), flags);
}

uint64_t quad_port(State& s, uint64_t sel, uint64_t lane) {
  auto& t = vplat::gpu::bifrost::thread_of(s);
  if (!t.quad || sel > 2) return 0;
  return t.quad[lane & (vplat::gpu::bifrost::kQuadLanes - 1)].s.PORT[sel];
}

} // namespace vplat::gen::bifrost
