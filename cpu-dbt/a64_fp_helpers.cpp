// The FP helper contract of archdesc/aarch64/fp_helpers.adl on top of cpu-dbt/fp (Arm-exact soft float).
// (Written in the SIMD-FP branch for its own testing; the scalar-FP branch owns the final version.)
#include "aarch64_helpers.h"
#include "cpu-dbt/fp/arm_fp.h"

namespace vplat::gen::aarch64 {

namespace fp = vplat::fp;

namespace {

// Dispatch on the element size; the operation F is called as f(width_tag, a, b, fpcr, fpsr).
template <typename F16, typename F32, typename F64>
uint64_t by_size(State& s, uint64_t esize, F16 f16, F32 f32, F64 f64) {
  uint32_t fpsr = s.FPSR;
  uint64_t r;
  if (esize == 16) r = f16(s.FPCR, fpsr);
  else if (esize == 32) r = f32(s.FPCR, fpsr);
  else r = f64(s.FPCR, fpsr);
  s.FPSR = fpsr;
  return r;
}

#define VPLAT_BIN(helper, op)                                                                                  \
  uint64_t helper##_impl(State& s, uint64_t esize, uint64_t a, uint64_t b) {                                   \
    return by_size(                                                                                            \
        s, esize, [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##16(uint16_t(a), uint16_t(b), c, f)); }, \
        [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##32(uint32_t(a), uint32_t(b), c, f)); },         \
        [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##64(a, b, c, f)); });                           \
  }
VPLAT_BIN(add, add)
VPLAT_BIN(sub, sub)
VPLAT_BIN(mul, mul)
VPLAT_BIN(mulx, mulx)
VPLAT_BIN(div, div)
VPLAT_BIN(max, max)
VPLAT_BIN(min, min)
VPLAT_BIN(maxnum, maxnum)
VPLAT_BIN(minnum, minnum)
VPLAT_BIN(recps, recps)
VPLAT_BIN(rsqrts, rsqrts)
VPLAT_BIN(ceq, cmp_eq)
VPLAT_BIN(cge, cmp_ge)
VPLAT_BIN(cgt, cmp_gt)
#undef VPLAT_BIN

#define VPLAT_UN(helper, op)                                                                                   \
  uint64_t helper##_impl(State& s, uint64_t esize, uint64_t a) {                                               \
    return by_size(                                                                                            \
        s, esize, [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##16(uint16_t(a), c, f)); },             \
        [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##32(uint32_t(a), c, f)); },                     \
        [&](uint32_t c, uint32_t& f) { return uint64_t(fp::op##64(a, c, f)); });                              \
  }
VPLAT_UN(sqrt, sqrt)
VPLAT_UN(recpe, recpe)
VPLAT_UN(rsqrte, rsqrte)
VPLAT_UN(recpx, recpx)
#undef VPLAT_UN

// Contract rounding code (0..4 explicit, 5 = FPCR) to fp::Rounding.
fp::Rounding rounding_of(const State& s, uint64_t r) {
  return r == 5 ? fp::fpcr_rounding(s.FPCR) : static_cast<fp::Rounding>(r);
}

} // namespace

uint64_t fp_add(State& s, uint64_t e, uint64_t a, uint64_t b) { return add_impl(s, e, a, b); }
uint64_t fp_sub(State& s, uint64_t e, uint64_t a, uint64_t b) { return sub_impl(s, e, a, b); }
uint64_t fp_mul(State& s, uint64_t e, uint64_t a, uint64_t b) { return mul_impl(s, e, a, b); }
uint64_t fp_mulx(State& s, uint64_t e, uint64_t a, uint64_t b) { return mulx_impl(s, e, a, b); }
uint64_t fp_div(State& s, uint64_t e, uint64_t a, uint64_t b) { return div_impl(s, e, a, b); }
uint64_t fp_max(State& s, uint64_t e, uint64_t a, uint64_t b) { return max_impl(s, e, a, b); }
uint64_t fp_min(State& s, uint64_t e, uint64_t a, uint64_t b) { return min_impl(s, e, a, b); }
uint64_t fp_maxnum(State& s, uint64_t e, uint64_t a, uint64_t b) { return maxnum_impl(s, e, a, b); }
uint64_t fp_minnum(State& s, uint64_t e, uint64_t a, uint64_t b) { return minnum_impl(s, e, a, b); }
uint64_t fp_recps(State& s, uint64_t e, uint64_t a, uint64_t b) { return recps_impl(s, e, a, b); }
uint64_t fp_rsqrts(State& s, uint64_t e, uint64_t a, uint64_t b) { return rsqrts_impl(s, e, a, b); }
uint64_t fp_compare_eq(State& s, uint64_t e, uint64_t a, uint64_t b) { return ceq_impl(s, e, a, b); }
uint64_t fp_compare_ge(State& s, uint64_t e, uint64_t a, uint64_t b) { return cge_impl(s, e, a, b); }
uint64_t fp_compare_gt(State& s, uint64_t e, uint64_t a, uint64_t b) { return cgt_impl(s, e, a, b); }
uint64_t fp_sqrt(State& s, uint64_t e, uint64_t a) { return sqrt_impl(s, e, a); }
uint64_t fp_recpe(State& s, uint64_t e, uint64_t a) { return recpe_impl(s, e, a); }
uint64_t fp_rsqrte(State& s, uint64_t e, uint64_t a) { return rsqrte_impl(s, e, a); }
uint64_t fp_recpx(State& s, uint64_t e, uint64_t a) { return recpx_impl(s, e, a); }

uint64_t fp_muladd(State& s, uint64_t e, uint64_t addend, uint64_t a, uint64_t b) {
  return by_size(
      s, e,
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::muladd16(uint16_t(addend), uint16_t(a), uint16_t(b), c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::muladd32(uint32_t(addend), uint32_t(a), uint32_t(b), c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::muladd64(addend, a, b, c, f)); });
}

uint64_t fp_compare(State& s, uint64_t e, uint64_t a, uint64_t b, uint64_t sig) {
  return by_size(
      s, e, [&](uint32_t c, uint32_t& f) { return uint64_t(fp::cmp16(uint16_t(a), uint16_t(b), sig != 0, c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::cmp32(uint32_t(a), uint32_t(b), sig != 0, c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::cmp64(a, b, sig != 0, c, f)); });
}

uint64_t fp_convert(State& s, uint64_t from, uint64_t to, uint64_t a) {
  uint32_t f = s.FPSR;
  const uint32_t c = s.FPCR;
  uint64_t r = a;
  if (from == 16 && to == 32) r = fp::f16_to_f32(uint16_t(a), c, f);
  else if (from == 16 && to == 64) r = fp::f16_to_f64(uint16_t(a), c, f);
  else if (from == 32 && to == 16) r = fp::f32_to_f16(uint32_t(a), c, f);
  else if (from == 32 && to == 64) r = fp::f32_to_f64(uint32_t(a), c, f);
  else if (from == 64 && to == 16) r = fp::f64_to_f16(a, c, f);
  else if (from == 64 && to == 32) r = fp::f64_to_f32(a, c, f);
  s.FPSR = f;
  return r;
}

uint64_t fp_convert_odd(State& s, uint64_t a) {
  uint32_t f = s.FPSR;
  uint64_t r = fp::f64_to_f32_odd(a, s.FPCR, f);
  s.FPSR = f;
  return r;
}

uint64_t fp_to_int(State& s, uint64_t e, uint64_t a, uint64_t isize, uint64_t uns, uint64_t fbits, uint64_t rnd) {
  const fp::Rounding rm = rounding_of(s, rnd);
  const unsigned ib = unsigned(isize), fb = unsigned(fbits);
  return by_size(
      s, e, [&](uint32_t c, uint32_t& f) { return fp::f16_to_int(uint16_t(a), ib, uns != 0, fb, rm, c, f); },
      [&](uint32_t c, uint32_t& f) { return fp::f32_to_int(uint32_t(a), ib, uns != 0, fb, rm, c, f); },
      [&](uint32_t c, uint32_t& f) { return fp::f64_to_int(a, ib, uns != 0, fb, rm, c, f); });
}

uint64_t int_to_fp(State& s, uint64_t e, uint64_t a, uint64_t isize, uint64_t uns, uint64_t fbits, uint64_t rnd) {
  // fp::int_to_f* round per FPCR: an explicit mode is passed by rewriting FPCR.RMode.
  uint32_t c = s.FPCR;
  if (rnd < 4) c = (c & ~(3u << fp::kFPCR_RMODE_SHIFT)) | uint32_t(rnd) << fp::kFPCR_RMODE_SHIFT;
  const unsigned ib = unsigned(isize), fb = unsigned(fbits);
  uint32_t f = s.FPSR;
  uint64_t r;
  if (e == 16) r = fp::int_to_f16(a, ib, uns != 0, fb, c, f);
  else if (e == 32) r = fp::int_to_f32(a, ib, uns != 0, fb, c, f);
  else r = fp::int_to_f64(a, ib, uns != 0, fb, c, f);
  s.FPSR = f;
  return r;
}

uint64_t fp_round_int(State& s, uint64_t e, uint64_t a, uint64_t rnd, uint64_t exact) {
  const fp::Rounding rm = rounding_of(s, rnd);
  return by_size(
      s, e, [&](uint32_t c, uint32_t& f) { return uint64_t(fp::round_int16(uint16_t(a), rm, exact != 0, c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::round_int32(uint32_t(a), rm, exact != 0, c, f)); },
      [&](uint32_t c, uint32_t& f) { return uint64_t(fp::round_int64(a, rm, exact != 0, c, f)); });
}

uint64_t unsigned_recip_estimate(uint64_t a) { return fp::urecpe(uint32_t(a)); }
uint64_t unsigned_rsqrt_estimate(uint64_t a) { return fp::ursqrte(uint32_t(a)); }

} // namespace vplat::gen::aarch64
