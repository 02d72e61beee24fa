// The runtime helpers archdesc/bifrost/float.adl declares: binary16 arithmetic and conversions, and the G71
// transcendental building blocks (frexp, scaled FMA, table approximations). Everything goes through vplat's
// Arm soft-float (cpu-dbt/fp) except the log and sin/cos tables, which use the host's libm in binary64 before
// one soft-float rounding to binary32.
#include "bifrost_helpers.h"
#include "cpu-dbt/fp/arm_fp.h"
#include <cmath>

namespace vplat::gen::bifrost {

namespace {

namespace fp = vplat::fp;

uint32_t fpcr_for(uint64_t round) {
  return static_cast<uint32_t>(round & 3) << fp::kFPCR_RMODE_SHIFT;
}

constexpr uint32_t kOne32 = 0x3f800000u;
constexpr uint32_t kSign32 = 0x80000000u;

uint32_t quiet32(uint32_t v) {
  return v | 0x00400000u;
}

// x = f * 2^e with f in [0.5, 1) (sign kept in f), for finite nonzero x.
void frexp32(uint32_t x, uint32_t& f, int& e) {
  uint32_t sign = x & kSign32, biased = (x >> 23) & 0xff, mant = x & 0x7fffffu;
  if (biased == 0) { // subnormal: normalise the mantissa
    int msb = 31 - __builtin_clz(mant);
    e = msb - 148;
    f = sign | (126u << 23) | ((mant << (23 - msb)) & 0x7fffffu);
    return;
  }
  e = static_cast<int>(biased) - 126;
  f = sign | (126u << 23) | mant;
}

bool special32(uint32_t x) {
  return fp::is_zero32(x) || fp::is_nan32(x) || fp::is_inf32(x);
}

// The reduced mantissa and exponent for each frexp mode (see float.adl).
void frexp_mode(uint32_t x, uint64_t mode, uint32_t& m, int& e) {
  frexp32(x, m, e);
  uint32_t mag_exp = (m >> 23) & 0xff; // 126: |m| in [0.5, 1)
  if (mode == 1 && (e & 1)) {          // sqrt: make the exponent even, |m| in [0.25, 0.5)
    m = (m & ~(0xffu << 23)) | ((mag_exp - 1) << 23);
    e += 1;
  } else if (mode == 2 && (m & 0x7fffffu) < 0x400000u) { // log: |m| < 0.75 doubles into [1, 1.5)
    m = (m & ~(0xffu << 23)) | ((mag_exp + 1) << 23);
    e -= 1;
  }
}

// v * 2^k, rounded once (k is clamped where the result saturates anyway). The f32 value times 2^k is exact in
// binary64 for |k| <= 400, so the only rounding is the final narrowing.
uint32_t scale32(uint32_t v, int64_t k, uint32_t fpcr) {
  if (special32(v)) return v;
  if (k > 400) k = 400;
  if (k < -400) k = -400;
  uint32_t flags = 0;
  uint64_t d = fp::f32_to_f64(v, 0, flags);
  uint64_t p = static_cast<uint64_t>(k + 1023) << 52;
  return fp::f64_to_f32(fp::mul64(d, p, 0, flags), fpcr, flags);
}

uint32_t f64_bits_to_f32(double d) {
  uint64_t b;
  __builtin_memcpy(&b, &d, 8);
  uint32_t flags = 0;
  return fp::f64_to_f32(b, 0, flags);
}
double f32_to_double(uint32_t v) {
  uint32_t flags = 0;
  uint64_t b = fp::f32_to_f64(v, 0, flags);
  double d;
  __builtin_memcpy(&d, &b, 8);
  return d;
}

} // namespace

uint64_t f32_fma_rscale(uint64_t a, uint64_t b, uint64_t c, uint64_t scale, uint64_t round,
                        uint64_t special_n) {
  uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b), z = static_cast<uint32_t>(c),
           flags = 0;
  uint32_t r;
  bool inf_times_zero = (fp::is_inf32(x) && fp::is_zero32(y)) || (fp::is_zero32(x) && fp::is_inf32(y));
  if (special_n && inf_times_zero && !fp::is_nan32(z))
    r = z; // the product counts as zero, so 1/inf and 1/0 come out as 0 and inf
  else
    r = fp::muladd32(z, x, y, fpcr_for(round), flags);
  return scale32(r, static_cast<int32_t>(static_cast<uint32_t>(scale)), fpcr_for(round));
}

uint64_t f32_frexpm(uint64_t x, uint64_t mode) {
  uint32_t v = static_cast<uint32_t>(x);
  if (special32(v)) return v;
  uint32_t m;
  int e;
  frexp_mode(v, mode, m, e);
  return m;
}

uint64_t f32_frexpe(uint64_t x, uint64_t mode) {
  uint32_t v = static_cast<uint32_t>(x);
  if (special32(v)) return 0;
  uint32_t m;
  int e;
  frexp_mode(v, mode, m, e);
  if (mode == 1) e /= 2; // sqrt: the exponent of sqrt(x)'s reduction, e is even here
  return static_cast<uint32_t>(e);
}

uint64_t f32_round_int(uint64_t x, uint64_t round) {
  uint32_t flags = 0;
  return fp::round_int32(static_cast<uint32_t>(x), static_cast<fp::Rounding>(round & 3), false, 0, flags);
}

uint64_t f32_rcp_approx(uint64_t x) {
  uint32_t v = static_cast<uint32_t>(x), flags = 0;
  if (fp::is_nan32(v)) return quiet32(v);
  if (fp::is_zero32(v)) return (v & kSign32) | 0x7f800000u;
  if (fp::is_inf32(v)) return v & kSign32;
  uint32_t m;
  int e;
  frexp_mode(v, 0, m, e);
  return fp::div32(kOne32, m, 0, flags);
}

uint64_t f32_rsq_approx(uint64_t x) {
  uint32_t v = static_cast<uint32_t>(x), flags = 0;
  if (fp::is_nan32(v)) return quiet32(v);
  if (fp::is_zero32(v)) return (v & kSign32) | 0x7f800000u;
  if (v & kSign32) return fp::kDefaultNaN32;
  if (fp::is_inf32(v)) return 0;
  uint32_t m;
  int e;
  frexp_mode(v, 1, m, e);
  uint64_t d = fp::f32_to_f64(m, 0, flags);
  uint64_t one = 0x3ff0000000000000ull;
  return fp::f64_to_f32(fp::div64(one, fp::sqrt64(d, 0, flags), 0, flags), 0, flags);
}

uint64_t f32_exp_table(uint64_t i) {
  // 2^(i/16) = the fourth square root of the square root of 2^i, each step correctly rounded in binary64.
  uint32_t flags = 0;
  uint64_t d = static_cast<uint64_t>(1023 + (i & 15)) << 52;
  for (int k = 0; k < 4; ++k) d = fp::sqrt64(d, 0, flags);
  return fp::f64_to_f32(d, 0, flags);
}

uint64_t f32_log_table(uint64_t x, uint64_t mode) {
  uint32_t v = static_cast<uint32_t>(x), flags = 0;
  if (fp::is_nan32(v)) return quiet32(v);
  // Zero and infinity have no reduced mantissa; r1 = 1 keeps the reduction's product finite and the log part
  // carries the infinity (the hardware's values here are not documented).
  if (fp::is_zero32(v) || fp::is_inf32(v)) {
    if (mode == 0) return kOne32;
    return fp::is_zero32(v) ? 0xff800000u : 0x7f800000u;
  }
  if (mode != 0 && (v & kSign32)) return fp::kDefaultNaN32;
  uint32_t m;
  int e;
  frexp_mode(v, 2, m, e);
  uint32_t r1 = fp::div32(kOne32, m, 0, flags);
  if (mode == 0) return r1;
  double l = mode == 1 ? std::log2(f32_to_double(r1)) : std::log(f32_to_double(r1));
  return f64_bits_to_f32(-l);
}

uint64_t f32_sincos_table(uint64_t i, uint64_t is_cos) {
  double angle = static_cast<double>(i & 63) * (3.14159265358979323846 / 32.0);
  return f64_bits_to_f32(is_cos ? std::cos(angle) : std::sin(angle));
}

// ---- binary16

uint64_t f16_fma(uint64_t a, uint64_t b, uint64_t c, uint64_t round) {
  uint32_t flags = 0;
  return fp::muladd16(static_cast<uint16_t>(c), static_cast<uint16_t>(a), static_cast<uint16_t>(b),
                      fpcr_for(round), flags);
}

uint64_t f16_add(uint64_t a, uint64_t b, uint64_t round) {
  uint32_t flags = 0;
  return fp::add16(static_cast<uint16_t>(a), static_cast<uint16_t>(b), fpcr_for(round), flags);
}

uint64_t f16_clamp(uint64_t v, uint64_t clamp) {
  uint16_t x = static_cast<uint16_t>(v);
  if (clamp == 0 || fp::is_nan16(x)) return x;
  uint32_t flags = 0;
  uint16_t lo = clamp == 2 ? 0xbc00 : 0, hi = clamp == 1 ? 0x7c00 : 0x3c00;
  if (fp::cmp_gt16(lo, x, 0, flags)) x = lo;
  if (fp::cmp_gt16(x, hi, 0, flags)) x = hi;
  return x;
}

uint64_t f16_to_f32(uint64_t h) {
  uint32_t flags = 0;
  return fp::f16_to_f32(static_cast<uint16_t>(h), 0, flags);
}

uint64_t f32_to_f16(uint64_t x, uint64_t round) {
  uint32_t flags = 0;
  return fp::f32_to_f16(static_cast<uint32_t>(x), fpcr_for(round), flags);
}

// Widening to binary32 is exact and order-preserving, so the f32 compare and min/max rules apply unchanged.
uint64_t f16_compare(uint64_t a, uint64_t b, uint64_t cmpf) {
  return f32_compare(f16_to_f32(a), f16_to_f32(b), cmpf);
}

uint64_t f16_minmax(uint64_t a, uint64_t b, uint64_t is_max, uint64_t sem) {
  uint64_t wa = f16_to_f32(a), wb = f16_to_f32(b);
  uint64_t r = f32_minmax(wa, wb, is_max, sem);
  if (r == wa) return a & 0xffff; // the chosen operand itself, NaN payload and all
  if (r == wb) return b & 0xffff;
  return f32_to_f16(r, 0); // a signed zero the rules chose
}

uint64_t f16_to_int(uint64_t h, uint64_t is_unsigned, uint64_t bits, uint64_t round) {
  uint32_t v = static_cast<uint32_t>(f32_to_int(f16_to_f32(h), is_unsigned, round));
  if (bits >= 32) return v;
  if (is_unsigned) return v > 0xffffu ? 0xffffu : v;
  int32_t s = static_cast<int32_t>(v);
  if (s > 32767) s = 32767;
  if (s < -32768) s = -32768;
  return static_cast<uint32_t>(s);
}

uint64_t int_to_f16(uint64_t v, uint64_t is_unsigned, uint64_t round) {
  uint32_t flags = 0;
  return fp::int_to_f16(static_cast<uint32_t>(v), 32, is_unsigned != 0, 0, fpcr_for(round), flags);
}

} // namespace vplat::gen::bifrost
