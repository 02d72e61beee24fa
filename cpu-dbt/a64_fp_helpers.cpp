// The floating-point helper contract of archdesc/aarch64/fp_helpers.adl, implemented once on top of the
// Arm-exact soft-float library (cpu-dbt/fp/arm_fp.h). Every helper reads FPCR from the state and ORs the
// exceptions it raises into FPSR; values travel as raw bit patterns in the low `esize` bits.
#include "aarch64_helpers.h"
#include "cpu-dbt/fp/arm_fp.h"
#include <cstdio>

namespace vplat::gen::aarch64 {

namespace fp = vplat::fp;

namespace {

// The contract's rounding argument: 0..3 FPCR.RMode encoding, 4 ties-away, 5 "whatever FPCR says".
fp::Rounding rounding_of(const State& s, uint64_t rounding) {
  if (rounding == 5) return fp::fpcr_rounding(s.FPCR);
  return static_cast<fp::Rounding>(rounding & 7);
}

// Dispatch a library operation on the element size. esize outside {16, 32} is treated as 64: the
// description only ever passes 16, 32 or 64, and a total mapping keeps a bad caller from reaching UB.
template <class F16, class F32, class F64>
uint64_t by_size(uint64_t esize, F16 f16, F32 f32, F64 f64) {
  if (esize == 16) return f16();
  if (esize == 32) return f32();
  return f64();
}

// One binary FP operation at the element size the instruction names: FPCR in, FPSR flags out.
#define VPLAT_FP_BINARY_FN(name, op)                                                                           \
  uint64_t name(State& s, uint64_t esize, uint64_t a, uint64_t b) {                                            \
    uint32_t fpsr = s.FPSR;                                                                                    \
    const uint32_t fpcr = s.FPCR;                                                                              \
    uint64_t r = by_size(                                                                                      \
        esize, [&]() -> uint64_t { return fp::op##16(uint16_t(a), uint16_t(b), fpcr, fpsr); },                \
        [&]() -> uint64_t { return fp::op##32(uint32_t(a), uint32_t(b), fpcr, fpsr); },                       \
        [&]() -> uint64_t { return fp::op##64(a, b, fpcr, fpsr); });                                           \
    s.FPSR = fpsr;                                                                                             \
    return r;                                                                                                  \
  }
#define VPLAT_FP_BIN(helper, op) VPLAT_FP_BINARY_FN(helper##_impl, op)

VPLAT_FP_BIN(add, add)
VPLAT_FP_BIN(sub, sub)
VPLAT_FP_BIN(mul, mul)
VPLAT_FP_BIN(mulx, mulx)
VPLAT_FP_BIN(div, div)
VPLAT_FP_BIN(max, max)
VPLAT_FP_BIN(min, min)
VPLAT_FP_BIN(maxnum, maxnum)
VPLAT_FP_BIN(minnum, minnum)
VPLAT_FP_BIN(recps, recps)
VPLAT_FP_BIN(rsqrts, rsqrts)
#undef VPLAT_FP_BIN

#define VPLAT_FP_UN(helper, op)                                                                                \
  uint64_t helper##_impl(State& s, uint64_t esize, uint64_t a) {                                               \
    uint32_t fpsr = s.FPSR;                                                                                    \
    const uint32_t fpcr = s.FPCR;                                                                              \
    uint64_t r = by_size(                                                                                      \
        esize, [&]() -> uint64_t { return fp::op##16(uint16_t(a), fpcr, fpsr); },                             \
        [&]() -> uint64_t { return fp::op##32(uint32_t(a), fpcr, fpsr); },                                    \
        [&]() -> uint64_t { return fp::op##64(a, fpcr, fpsr); });                                              \
    s.FPSR = fpsr;                                                                                             \
    return r;                                                                                                  \
  }

VPLAT_FP_UN(sqrt, sqrt)
VPLAT_FP_UN(recpe, recpe)
VPLAT_FP_UN(rsqrte, rsqrte)
VPLAT_FP_UN(recpx, recpx)
#undef VPLAT_FP_UN

} // namespace

uint64_t fp_add(State& s, uint64_t esize, uint64_t a, uint64_t b) { return add_impl(s, esize, a, b); }
uint64_t fp_sub(State& s, uint64_t esize, uint64_t a, uint64_t b) { return sub_impl(s, esize, a, b); }
uint64_t fp_mul(State& s, uint64_t esize, uint64_t a, uint64_t b) { return mul_impl(s, esize, a, b); }
uint64_t fp_mulx(State& s, uint64_t esize, uint64_t a, uint64_t b) { return mulx_impl(s, esize, a, b); }
uint64_t fp_div(State& s, uint64_t esize, uint64_t a, uint64_t b) { return div_impl(s, esize, a, b); }
uint64_t fp_max(State& s, uint64_t esize, uint64_t a, uint64_t b) { return max_impl(s, esize, a, b); }
uint64_t fp_min(State& s, uint64_t esize, uint64_t a, uint64_t b) { return min_impl(s, esize, a, b); }
uint64_t fp_maxnum(State& s, uint64_t esize, uint64_t a, uint64_t b) { return maxnum_impl(s, esize, a, b); }
uint64_t fp_minnum(State& s, uint64_t esize, uint64_t a, uint64_t b) { return minnum_impl(s, esize, a, b); }
uint64_t fp_recps(State& s, uint64_t esize, uint64_t a, uint64_t b) { return recps_impl(s, esize, a, b); }
uint64_t fp_rsqrts(State& s, uint64_t esize, uint64_t a, uint64_t b) { return rsqrts_impl(s, esize, a, b); }
uint64_t fp_sqrt(State& s, uint64_t esize, uint64_t a) { return sqrt_impl(s, esize, a); }
uint64_t fp_recpe(State& s, uint64_t esize, uint64_t a) { return recpe_impl(s, esize, a); }
uint64_t fp_rsqrte(State& s, uint64_t esize, uint64_t a) { return rsqrte_impl(s, esize, a); }
uint64_t fp_recpx(State& s, uint64_t esize, uint64_t a) { return recpx_impl(s, esize, a); }

uint64_t fp_muladd(State& s, uint64_t esize, uint64_t addend, uint64_t a, uint64_t b) {
  uint32_t fpsr = s.FPSR;
  const uint32_t fpcr = s.FPCR;
  uint64_t r = by_size(
      esize, [&]() -> uint64_t { return fp::muladd16(uint16_t(addend), uint16_t(a), uint16_t(b), fpcr, fpsr); },
      [&]() -> uint64_t { return fp::muladd32(uint32_t(addend), uint32_t(a), uint32_t(b), fpcr, fpsr); },
      [&]() -> uint64_t { return fp::muladd64(addend, a, b, fpcr, fpsr); });
  s.FPSR = fpsr;
  return r;
}

uint64_t fp_compare(State& s, uint64_t esize, uint64_t a, uint64_t b, uint64_t signalling) {
  uint32_t fpsr = s.FPSR;
  const uint32_t fpcr = s.FPCR;
  const bool sig = signalling != 0;
  uint64_t r = by_size(
      esize, [&]() -> uint64_t { return fp::cmp16(uint16_t(a), uint16_t(b), sig, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::cmp32(uint32_t(a), uint32_t(b), sig, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::cmp64(a, b, sig, fpcr, fpsr); });
  s.FPSR = fpsr;
  return r & 0xf;
}

#define VPLAT_FP_CMP(helper, op) VPLAT_FP_BINARY_FN(helper, op)
VPLAT_FP_CMP(fp_compare_eq, cmp_eq)
VPLAT_FP_CMP(fp_compare_ge, cmp_ge)
VPLAT_FP_CMP(fp_compare_gt, cmp_gt)
#undef VPLAT_FP_CMP

uint64_t fp_convert(State& s, uint64_t from_esize, uint64_t to_esize, uint64_t a) {
  uint32_t fpsr = s.FPSR;
  const uint32_t fpcr = s.FPCR;
  uint64_t r = a;
  if (from_esize == 16) {
    if (to_esize == 32) r = fp::f16_to_f32(uint16_t(a), fpcr, fpsr);
    else if (to_esize == 64) r = fp::f16_to_f64(uint16_t(a), fpcr, fpsr);
    else r = uint16_t(a);
  } else if (from_esize == 32) {
    if (to_esize == 16) r = fp::f32_to_f16(uint32_t(a), fpcr, fpsr);
    else if (to_esize == 64) r = fp::f32_to_f64(uint32_t(a), fpcr, fpsr);
    else r = uint32_t(a);
  } else {
    if (to_esize == 16) r = fp::f64_to_f16(a, fpcr, fpsr);
    else if (to_esize == 32) r = fp::f64_to_f32(a, fpcr, fpsr);
  }
  s.FPSR = fpsr;
  return r;
}

uint64_t fp_convert_odd(State& s, uint64_t a) {
  uint32_t fpsr = s.FPSR;
  uint64_t r = fp::f64_to_f32_odd(a, s.FPCR, fpsr);
  s.FPSR = fpsr;
  return r;
}

uint64_t fp_to_int(State& s, uint64_t esize, uint64_t a, uint64_t int_size, uint64_t is_unsigned, uint64_t fbits,
                   uint64_t rounding) {
  uint32_t fpsr = s.FPSR;
  const uint32_t fpcr = s.FPCR;
  const fp::Rounding rm = rounding_of(s, rounding);
  const unsigned bits = int_size == 32 ? 32 : 64;
  const bool u = is_unsigned != 0;
  const unsigned fb = static_cast<unsigned>(fbits > bits ? bits : fbits);
  uint64_t r = by_size(
      esize, [&]() -> uint64_t { return fp::f16_to_int(uint16_t(a), bits, u, fb, rm, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::f32_to_int(uint32_t(a), bits, u, fb, rm, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::f64_to_int(a, bits, u, fb, rm, fpcr, fpsr); });
  s.FPSR = fpsr;
  return r;
}

uint64_t int_to_fp(State& s, uint64_t esize, uint64_t a, uint64_t int_size, uint64_t is_unsigned, uint64_t fbits,
                   uint64_t rounding) {
  uint32_t fpsr = s.FPSR;
  uint32_t fpcr = s.FPCR;
  // The library rounds int->fp per FPCR.RMode, so an explicit directed mode is passed by substituting it
  // there. Ties-away (4) has no FPCR encoding; no A64 instruction asks for it on this path.
  if (rounding <= 3) fpcr = (fpcr & ~(3u << fp::kFPCR_RMODE_SHIFT)) | uint32_t(rounding) << fp::kFPCR_RMODE_SHIFT;
  const unsigned bits = int_size == 32 ? 32 : 64;
  const bool u = is_unsigned != 0;
  const unsigned fb = static_cast<unsigned>(fbits > bits ? bits : fbits);
  uint64_t r = by_size(
      esize, [&]() -> uint64_t { return fp::int_to_f16(a, bits, u, fb, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::int_to_f32(a, bits, u, fb, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::int_to_f64(a, bits, u, fb, fpcr, fpsr); });
  s.FPSR = fpsr;
  return r;
}

uint64_t fp_round_int(State& s, uint64_t esize, uint64_t a, uint64_t rounding, uint64_t exact) {
  uint32_t fpsr = s.FPSR;
  const uint32_t fpcr = s.FPCR;
  const fp::Rounding rm = rounding_of(s, rounding);
  const bool ex = exact != 0;
  uint64_t r = by_size(
      esize, [&]() -> uint64_t { return fp::round_int16(uint16_t(a), rm, ex, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::round_int32(uint32_t(a), rm, ex, fpcr, fpsr); },
      [&]() -> uint64_t { return fp::round_int64(a, rm, ex, fpcr, fpsr); });
  s.FPSR = fpsr;
  return r;
}

uint64_t unsigned_recip_estimate(uint64_t a) { return fp::urecpe(uint32_t(a)); }
uint64_t unsigned_rsqrt_estimate(uint64_t a) { return fp::ursqrte(uint32_t(a)); }

// VFPExpandImm: sign = imm8<7>, exponent = NOT(imm8<6>) : Replicate(imm8<6>, E-3) : imm8<5:4>,
// fraction = imm8<3:0> : Zeros(F-4).
uint64_t fp_expand_imm8(uint64_t esize, uint64_t imm8) {
  const unsigned e = esize == 16 ? 5 : esize == 32 ? 8 : 11;
  const unsigned n = esize == 16 ? 16 : esize == 32 ? 32 : 64;
  const unsigned f = n - e - 1;
  const uint64_t sign = (imm8 >> 7) & 1;
  const uint64_t b6 = (imm8 >> 6) & 1;
  uint64_t exp = (b6 ^ 1) << (e - 1);
  if (b6) exp |= ((uint64_t(1) << (e - 3)) - 1) << 2;
  exp |= (imm8 >> 4) & 3;
  const uint64_t frac = (imm8 & 0xf) << (f - 4);
  return sign << (n - 1) | exp << f | frac;
}

// LLVM prints the FMOV immediate with printf "%.8f" of its value. Every imm8 value is +-(16..31)/16 * 2^(-3..4),
// exactly representable as a double and with at most 7 fractional binary digits, so the text is exact.
std::string fp_imm_text(uint64_t esize, uint64_t imm8) {
  (void)esize; // the value does not depend on the precision
  const int sign = (imm8 >> 7) & 1;
  const int b6 = (imm8 >> 6) & 1;
  const int exp = (b6 ? -4 : 0) + static_cast<int>((imm8 >> 4) & 3) + 1; // unbiased exponent, -3..4
  double v = static_cast<double>(16 + (imm8 & 0xf)) / 16.0;
  for (int i = 0; i < exp; ++i) v *= 2.0;
  for (int i = 0; i > exp; --i) v /= 2.0;
  if (sign) v = -v;
  char b[48];
  std::snprintf(b, sizeof b, "%.8f", v);
  return b;
}

} // namespace vplat::gen::aarch64
