// Integer soft-float implementation of the Arm ARM floating-point pseudocode (FPCR.AH == 0).
//
// Finite non-zero values are carried as an exact (or sticky-jammed) binary number:
//   value = sig * 2^(exp - 63), bit 63 of sig set,
// so `exp` is the exponent of the leading one, which is exactly what FPRoundBase compares with the minimum
// exponent to detect tininess (before rounding) and decide flush-to-zero.  Bits shifted out are ORed into bit
// 0
// ("jamming"): that keeps both the rounding decision and the position of the leading one of the exact result,
// because every rounding boundary and every power of two involved is a multiple of the jammed bit's weight.

#include "cpu-dbt/fp/arm_fp.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

namespace vplat::fp {
namespace {

using u128 = unsigned __int128;

template <unsigned N> struct Format;
template <> struct Format<16> {
  using Bits = uint16_t;
  static constexpr int E = 5, F = 10;
};
template <> struct Format<32> {
  using Bits = uint32_t;
  static constexpr int E = 8, F = 23;
};
template <> struct Format<64> {
  using Bits = uint64_t;
  static constexpr int E = 11, F = 52;
};

template <unsigned N> struct Consts {
  static constexpr int E = Format<N>::E, F = Format<N>::F;
  static constexpr int bias = (1 << (E - 1)) - 1;
  static constexpr int min_exp = 1 - bias;
  static constexpr int exp_ones = (1 << E) - 1;
  static constexpr uint64_t frac_mask = (uint64_t(1) << F) - 1;
  static constexpr uint64_t quiet_bit = uint64_t(1) << (F - 1);
  static constexpr uint64_t sign_bit = uint64_t(1) << (N - 1);
  static constexpr uint64_t inf = uint64_t(exp_ones) << F;
  static constexpr uint64_t default_nan = inf | quiet_bit;
};

enum class Type : uint8_t { Zero, Finite, Inf, QNaN, SNaN };

struct Unpacked {
  Type type = Type::Zero;
  bool sign = false;
  int exp = 0;      // exponent of the leading one (Finite only)
  uint64_t sig = 0; // bit 63 set (Finite only)

  bool is_nan() const { return type == Type::QNaN || type == Type::SNaN; }
  bool is_inf() const { return type == Type::Inf; }
  bool is_zero() const { return type == Type::Zero; }
};

// An unrounded result; `zero` means exactly zero, whose sign the caller derives from the rounding mode.
struct Exact {
  bool zero = false;
  bool sign = false;
  int exp = 0;
  uint64_t sig = 0;
};

constexpr uint64_t shr_jam64(uint64_t v, int n) {
  if (n <= 0) return v;
  if (n >= 64) return v != 0;
  return (v >> n) | ((v << (64 - n)) != 0);
}

constexpr u128 shr_jam128(u128 v, int n) {
  if (n <= 0) return v;
  if (n >= 128) return v != 0;
  return (v >> n) | ((v << (128 - n)) != 0);
}

constexpr int clz128(u128 v) {
  const uint64_t hi = uint64_t(v >> 64);
  return hi ? std::countl_zero(hi) : 64 + std::countl_zero(uint64_t(v));
}

// value = r * 2^e0, r != 0.
Exact normalize128(bool sign, int e0, u128 r) {
  const int msb = 127 - clz128(r);
  Exact x;
  x.sign = sign;
  x.exp = e0 + msb;
  x.sig = msb >= 63 ? uint64_t(shr_jam128(r, msb - 63)) : uint64_t(r) << (63 - msb);
  return x;
}

// Half precision honours FZ16 in arithmetic (FPUnpack) but ignores it in FPConvert (FPUnpackCV), where AHP
// applies instead; single/double always honour FZ.
template <unsigned N> bool flushes(uint32_t fpcr, bool convert) {
  if constexpr (N == 16)
    return !convert && (fpcr & kFPCR_FZ16);
  else
    return fpcr & kFPCR_FZ;
}

template <unsigned N> Unpacked unpack(uint64_t bits, uint32_t fpcr, uint32_t& fpsr, bool convert = false) {
  using C = Consts<N>;
  Unpacked u;
  u.sign = (bits >> (N - 1)) & 1;
  const int exp = int(bits >> C::F) & C::exp_ones;
  const uint64_t frac = bits & C::frac_mask;
  if (exp == 0) {
    if (frac == 0) return u;
    if (flushes<N>(fpcr, convert)) {
      // The architecture reports IDC only for single/double; FZ16 flushing is silent.
      if constexpr (N != 16) fpsr |= kIDC;
      return u;
    }
    const int lz = std::countl_zero(frac);
    u.type = Type::Finite;
    u.sig = frac << lz;
    u.exp = (63 - lz) + C::min_exp - C::F;
    return u;
  }
  const bool ahp_in = N == 16 && convert && (fpcr & kFPCR_AHP);
  if (exp == C::exp_ones && !ahp_in) {
    if (frac == 0)
      u.type = Type::Inf;
    else
      u.type = (frac & C::quiet_bit) ? Type::QNaN : Type::SNaN;
    return u;
  }
  u.type = Type::Finite;
  u.sig = (frac | (uint64_t(1) << C::F)) << (63 - C::F);
  u.exp = exp - C::bias;
  return u;
}

template <unsigned N> constexpr uint64_t zero_bits(bool sign) {
  return sign ? Consts<N>::sign_bit : 0;
}
template <unsigned N> constexpr uint64_t inf_bits(bool sign) {
  return zero_bits<N>(sign) | Consts<N>::inf;
}
template <unsigned N> constexpr uint64_t max_normal_bits(bool sign) {
  return zero_bits<N>(sign) | (uint64_t(Consts<N>::exp_ones - 1) << Consts<N>::F) | Consts<N>::frac_mask;
}
// FPTwo / FPOnePointFive.
template <unsigned N> constexpr uint64_t two_bits(bool sign) {
  return zero_bits<N>(sign) | (uint64_t(Consts<N>::bias + 1) << Consts<N>::F);
}
template <unsigned N> constexpr uint64_t one_point_five_bits(bool sign) {
  return zero_bits<N>(sign) | (uint64_t(Consts<N>::bias) << Consts<N>::F) | Consts<N>::quiet_bit;
}

Rounding rounding_of(uint32_t fpcr) {
  return fpcr_rounding(fpcr);
}

// FPRoundBase.  `convert` selects FPRoundCV semantics (half: FZ16 ignored, AHP honoured) over FPRound's
// (half: FZ16 honoured, AHP ignored).
template <unsigned N>
uint64_t round_value(bool sign, int exp, uint64_t sig, uint32_t fpcr, Rounding rm, uint32_t& fpsr,
                     bool convert = false) {
  using C = Consts<N>;
  const uint64_t sign_bits = zero_bits<N>(sign);
  if (flushes<N>(fpcr, convert) && exp < C::min_exp) {
    fpsr |= kUFC;
    return sign_bits;
  }
  int biased_exp = exp - C::min_exp + 1;
  uint64_t m = sig;
  if (biased_exp <= 0) {
    m = shr_jam64(m, 1 - biased_exp);
    biased_exp = 0;
  }
  constexpr int shift = 63 - C::F;
  constexpr uint64_t half = uint64_t(1) << (shift - 1);
  uint64_t int_mant = m >> shift;
  const uint64_t rest = m & ((uint64_t(1) << shift) - 1);
  const bool inexact = rest != 0;
  if (biased_exp == 0 && inexact) fpsr |= kUFC;

  bool round_up = false, overflow_to_inf = false;
  switch (rm) {
  case Rounding::TieEven:
    round_up = rest > half || (rest == half && (int_mant & 1));
    overflow_to_inf = true;
    break;
  case Rounding::TieAway:
    round_up = rest >= half;
    overflow_to_inf = true;
    break;
  case Rounding::PosInf:
    round_up = inexact && !sign;
    overflow_to_inf = !sign;
    break;
  case Rounding::NegInf:
    round_up = inexact && sign;
    overflow_to_inf = sign;
    break;
  case Rounding::Zero:
  case Rounding::Odd:
    break;
  }
  if (round_up) {
    ++int_mant;
    if (int_mant == uint64_t(1) << C::F) biased_exp = 1; // a denormal rounded up to the smallest normal
    if (int_mant == uint64_t(2) << C::F) {
      ++biased_exp;
      int_mant >>= 1;
    }
  }
  if (inexact && rm == Rounding::Odd) int_mant |= 1;

  const bool alt_hp = N == 16 && convert && (fpcr & kFPCR_AHP);
  if (!alt_hp) {
    if (biased_exp >= C::exp_ones) {
      fpsr |= kOFC | kIXC;
      return overflow_to_inf ? inf_bits<N>(sign) : max_normal_bits<N>(sign);
    }
  } else if (biased_exp > C::exp_ones) {
    fpsr |= kIOC; // alternative half precision saturates without Inexact
    return sign_bits | 0x7FFF;
  }
  if (inexact) fpsr |= kIXC;
  return sign_bits | (uint64_t(biased_exp) << C::F) | (int_mant & C::frac_mask);
}

template <unsigned N> uint64_t round_exact(const Exact& x, uint32_t fpcr, Rounding rm, uint32_t& fpsr) {
  if (x.zero) // an exact zero from non-zero operands: -0 only when rounding towards minus infinity
    return zero_bits<N>(rm == Rounding::NegInf);
  return round_value<N>(x.sign, x.exp, x.sig, fpcr, rm, fpsr);
}

template <unsigned N> uint64_t round_unpacked(const Unpacked& u, uint32_t fpcr, uint32_t& fpsr) {
  return round_value<N>(u.sign, u.exp, u.sig, fpcr, rounding_of(fpcr), fpsr);
}

// FPProcessNaN.
template <unsigned N> uint64_t process_nan(Type type, uint64_t bits, uint32_t fpcr, uint32_t& fpsr) {
  if (type == Type::SNaN) {
    bits |= Consts<N>::quiet_bit;
    fpsr |= kIOC;
  }
  return (fpcr & kFPCR_DN) ? Consts<N>::default_nan : bits;
}

// FPProcessNaNs: signalling NaNs take priority over quiet ones, then operand order.
template <unsigned N>
bool process_nans(const Unpacked& ua, const Unpacked& ub, uint64_t a, uint64_t b, uint32_t fpcr,
                  uint32_t& fpsr, uint64_t& result) {
  if (ua.type == Type::SNaN)
    result = process_nan<N>(ua.type, a, fpcr, fpsr);
  else if (ub.type == Type::SNaN)
    result = process_nan<N>(ub.type, b, fpcr, fpsr);
  else if (ua.type == Type::QNaN)
    result = process_nan<N>(ua.type, a, fpcr, fpsr);
  else if (ub.type == Type::QNaN)
    result = process_nan<N>(ub.type, b, fpcr, fpsr);
  else
    return false;
  return true;
}

template <unsigned N>
bool process_nans3(const Unpacked& u1, const Unpacked& u2, const Unpacked& u3, uint64_t op1, uint64_t op2,
                   uint64_t op3, uint32_t fpcr, uint32_t& fpsr, uint64_t& result) {
  const Unpacked* us[3] = {&u1, &u2, &u3};
  const uint64_t ops[3] = {op1, op2, op3};
  for (Type wanted : {Type::SNaN, Type::QNaN})
    for (int i = 0; i < 3; ++i)
      if (us[i]->type == wanted) {
        result = process_nan<N>(wanted, ops[i], fpcr, fpsr);
        return true;
      }
  return false;
}

// Exact sum of two non-zero values given as 128-bit significands with the leading one at bit 127 and the
// exponent of that leading one.  Both must have their low bit clear (true for every product or widened
// input), because one bit of headroom is made by shifting right.
Exact add_exact(bool sa, int ea, u128 a, bool sb, int eb, u128 b) {
  if (ea < eb || (ea == eb && a < b)) {
    std::swap(sa, sb);
    std::swap(ea, eb);
    std::swap(a, b);
  }
  a >>= 1;
  b = shr_jam128(b, 1 + std::min(ea - eb, 200));
  const u128 r = sa == sb ? a + b : a - b;
  if (r == 0) return Exact{.zero = true};
  return normalize128(sa, ea - 126, r);
}

Exact add_exact(const Unpacked& a, bool sign_b, const Unpacked& b) {
  return add_exact(a.sign, a.exp, u128(a.sig) << 64, sign_b, b.exp, u128(b.sig) << 64);
}

// Exact addend + p1*p2 for finite-or-zero operands; none of the special cases of FPMulAdd apply here.
Exact muladd_exact(const Unpacked& a, const Unpacked& p1, const Unpacked& p2) {
  const bool sign_p = p1.sign ^ p2.sign;
  if (p1.is_zero() || p2.is_zero()) {
    if (a.is_zero())
      return Exact{.zero = true}; // opposite-signed zeros; equal signs were handled by the caller
    return Exact{.sign = a.sign, .exp = a.exp, .sig = a.sig};
  }
  const u128 prod = u128(p1.sig) * p2.sig;
  const Exact p = normalize128(sign_p, p1.exp + p2.exp - 126, prod);
  if (a.is_zero()) return p;
  const int msb = 127 - clz128(prod);
  return add_exact(a.sign, a.exp, u128(a.sig) << 64, sign_p, p.exp, prod << (127 - msb));
}

template <unsigned N> uint64_t add_sub(uint64_t a, uint64_t b, bool subtract, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  uint64_t result;
  if (process_nans<N>(ua, ub, a, b, fpcr, fpsr, result)) return result;
  const Rounding rm = rounding_of(fpcr);
  const bool sb = ub.sign ^ subtract;
  if (ua.is_inf() && ub.is_inf() && ua.sign != sb) {
    fpsr |= kIOC;
    return Consts<N>::default_nan;
  }
  if (ua.is_inf()) return inf_bits<N>(ua.sign);
  if (ub.is_inf()) return inf_bits<N>(sb);
  if (ua.is_zero() && ub.is_zero())
    return ua.sign == sb ? zero_bits<N>(sb) : zero_bits<N>(rm == Rounding::NegInf);
  if (ua.is_zero()) return round_value<N>(sb, ub.exp, ub.sig, fpcr, rm, fpsr);
  if (ub.is_zero()) return round_unpacked<N>(ua, fpcr, fpsr);
  return round_exact<N>(add_exact(ua, sb, ub), fpcr, rm, fpsr);
}

template <unsigned N> uint64_t mul_impl(uint64_t a, uint64_t b, bool mulx, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  uint64_t result;
  if (process_nans<N>(ua, ub, a, b, fpcr, fpsr, result)) return result;
  const bool sign = ua.sign ^ ub.sign;
  if ((ua.is_inf() && ub.is_zero()) || (ua.is_zero() && ub.is_inf())) {
    if (mulx) return two_bits<N>(sign);
    fpsr |= kIOC;
    return Consts<N>::default_nan;
  }
  if (ua.is_inf() || ub.is_inf()) return inf_bits<N>(sign);
  if (ua.is_zero() || ub.is_zero()) return zero_bits<N>(sign);
  const Exact x = normalize128(sign, ua.exp + ub.exp - 126, u128(ua.sig) * ub.sig);
  return round_exact<N>(x, fpcr, rounding_of(fpcr), fpsr);
}

template <unsigned N> uint64_t div_impl(uint64_t a, uint64_t b, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  uint64_t result;
  if (process_nans<N>(ua, ub, a, b, fpcr, fpsr, result)) return result;
  const bool sign = ua.sign ^ ub.sign;
  if ((ua.is_inf() && ub.is_inf()) || (ua.is_zero() && ub.is_zero())) {
    fpsr |= kIOC;
    return Consts<N>::default_nan;
  }
  if (ua.is_inf() || ub.is_zero()) {
    if (!ua.is_inf()) fpsr |= kDZC;
    return inf_bits<N>(sign);
  }
  if (ua.is_zero() || ub.is_inf()) return zero_bits<N>(sign);
  // The quotient of two 64-bit significands has at least 64 significant bits; the remainder is the sticky
  // bit.
  const u128 num = u128(ua.sig) << 64;
  const u128 q = num / ub.sig;
  const bool rem = (num - q * ub.sig) != 0;
  const Exact x = normalize128(sign, ua.exp - ub.exp - 64, q | rem);
  return round_exact<N>(x, fpcr, rounding_of(fpcr), fpsr);
}

// floor(sqrt(m)) for m in [2^126, 2^128).
uint64_t isqrt128(u128 m, bool& inexact) {
  double approx = std::sqrt(double(m));
  uint64_t r = approx >= 18446744073709551615.0 ? ~uint64_t(0) : uint64_t(approx);
  // One Newton step takes the 53-bit estimate to within one unit.
  const u128 refined = (u128(r) + m / r) >> 1;
  r = refined > ~uint64_t(0) ? ~uint64_t(0) : uint64_t(refined);
  while (u128(r) * r > m) --r;
  while (r != ~uint64_t(0) && u128(r + 1) * (r + 1) <= m) ++r;
  inexact = u128(r) * r != m;
  return r;
}

template <unsigned N> uint64_t sqrt_impl(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr);
  if (ua.is_nan()) return process_nan<N>(ua.type, a, fpcr, fpsr);
  if (ua.is_zero()) return zero_bits<N>(ua.sign);
  if (ua.sign) {
    fpsr |= kIOC;
    return Consts<N>::default_nan;
  }
  if (ua.is_inf()) return inf_bits<N>(false);
  // value = sig * 2^t; widen so the radicand's exponent is even.
  const int t = ua.exp - 63;
  const bool odd = t & 1;
  const u128 m = u128(ua.sig) << (odd ? 63 : 64);
  const int half_exp = (t - (odd ? 63 : 64)) / 2;
  bool inexact;
  const uint64_t r = isqrt128(m, inexact);
  const Exact x = normalize128(false, half_exp, u128(r) | inexact);
  return round_exact<N>(x, fpcr, rounding_of(fpcr), fpsr);
}

template <unsigned N>
uint64_t muladd_impl(uint64_t addend, uint64_t op1, uint64_t op2, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(addend, fpcr, fpsr);
  const Unpacked u1 = unpack<N>(op1, fpcr, fpsr), u2 = unpack<N>(op2, fpcr, fpsr);
  const bool inf_times_zero = (u1.is_inf() && u2.is_zero()) || (u1.is_zero() && u2.is_inf());
  uint64_t result;
  if (process_nans3<N>(ua, u1, u2, addend, op1, op2, fpcr, fpsr, result)) {
    // A quiet-NaN addend does not hide the invalid product.
    if (ua.type == Type::QNaN && inf_times_zero) {
      fpsr |= kIOC;
      return Consts<N>::default_nan;
    }
    return result;
  }
  const bool sign_p = u1.sign ^ u2.sign;
  const bool inf_p = u1.is_inf() || u2.is_inf();
  const bool zero_p = u1.is_zero() || u2.is_zero();
  if (inf_times_zero || (ua.is_inf() && inf_p && ua.sign != sign_p)) {
    fpsr |= kIOC;
    return Consts<N>::default_nan;
  }
  if (ua.is_inf()) return inf_bits<N>(ua.sign);
  if (inf_p) return inf_bits<N>(sign_p);
  if (ua.is_zero() && zero_p && ua.sign == sign_p) return zero_bits<N>(ua.sign);
  return round_exact<N>(muladd_exact(ua, u1, u2), fpcr, rounding_of(fpcr), fpsr);
}

// FPRecipStepFused / FPRSqrtStepFused: op1 is negated (NaN included) before anything else.
template <unsigned N>
uint64_t step_impl(uint64_t op1, uint64_t op2, bool rsqrt, uint32_t fpcr, uint32_t& fpsr) {
  op1 ^= Consts<N>::sign_bit;
  const Unpacked u1 = unpack<N>(op1, fpcr, fpsr), u2 = unpack<N>(op2, fpcr, fpsr);
  uint64_t result;
  if (process_nans<N>(u1, u2, op1, op2, fpcr, fpsr, result)) return result;
  if ((u1.is_inf() && u2.is_zero()) || (u1.is_zero() && u2.is_inf()))
    return rsqrt ? one_point_five_bits<N>(false) : two_bits<N>(false);
  if (u1.is_inf() || u2.is_inf()) return inf_bits<N>(u1.sign ^ u2.sign);
  Unpacked constant;
  constant.type = Type::Finite;
  constant.exp = 1;
  constant.sig = rsqrt ? 0xC000000000000000ull : 0x8000000000000000ull;
  Exact x = muladd_exact(constant, u1, u2);
  if (rsqrt) --x.exp; // the halving is exact and happens before rounding
  return round_exact<N>(x, fpcr, rounding_of(fpcr), fpsr);
}

// Total order on non-NaN values: -1, 0, 1.
int compare_values(const Unpacked& a, const Unpacked& b) {
  auto magnitude_cmp = [](const Unpacked& x, const Unpacked& y) {
    auto rank = [](const Unpacked& u) { return u.is_zero() ? 0 : u.is_inf() ? 2 : 1; };
    if (rank(x) != rank(y)) return rank(x) < rank(y) ? -1 : 1;
    if (rank(x) != 1 || (x.exp == y.exp && x.sig == y.sig)) return 0;
    if (x.exp != y.exp) return x.exp < y.exp ? -1 : 1;
    return x.sig < y.sig ? -1 : 1;
  };
  if (a.is_zero() && b.is_zero()) return 0;
  const bool na = a.sign && !a.is_zero(), nb = b.sign && !b.is_zero();
  if (na != nb) return na ? -1 : 1;
  const int m = magnitude_cmp(a, b);
  return na ? -m : m;
}

template <unsigned N>
uint64_t minmax_impl(uint64_t a, uint64_t b, bool is_max, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  uint64_t result;
  if (process_nans<N>(ua, ub, a, b, fpcr, fpsr, result)) return result;
  const int c = compare_values(ua, ub);
  const Unpacked& pick = (is_max ? c > 0 : c < 0) ? ua : ub;
  if (pick.is_inf()) return inf_bits<N>(pick.sign);
  if (pick.is_zero()) return zero_bits<N>(is_max ? (ua.sign && ub.sign) : (ua.sign || ub.sign));
  return round_unpacked<N>(pick, fpcr, fpsr);
}

template <unsigned N>
uint64_t minmax_num_impl(uint64_t a, uint64_t b, bool is_max, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  // A lone quiet NaN becomes the infinity that always loses.
  const uint64_t loser = inf_bits<N>(is_max);
  if (ua.type == Type::QNaN && ub.type != Type::QNaN)
    a = loser;
  else if (ua.type != Type::QNaN && ub.type == Type::QNaN)
    b = loser;
  return minmax_impl<N>(a, b, is_max, fpcr, fpsr);
}

template <unsigned N>
uint32_t cmp_impl(uint64_t a, uint64_t b, bool signalling, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  if (ua.is_nan() || ub.is_nan()) {
    if (signalling || ua.type == Type::SNaN || ub.type == Type::SNaN) fpsr |= kIOC;
    return 0b0011;
  }
  const int c = compare_values(ua, ub);
  return c == 0 ? 0b0110 : c < 0 ? 0b1000 : 0b0010;
}

enum class Pred { Eq, Ge, Gt };

template <unsigned N> bool pred_impl(uint64_t a, uint64_t b, Pred p, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked ua = unpack<N>(a, fpcr, fpsr), ub = unpack<N>(b, fpcr, fpsr);
  if (ua.is_nan() || ub.is_nan()) {
    if (p != Pred::Eq || ua.type == Type::SNaN || ub.type == Type::SNaN) fpsr |= kIOC;
    return false;
  }
  const int c = compare_values(ua, ub);
  return p == Pred::Eq ? c == 0 : p == Pred::Ge ? c >= 0 : c > 0;
}

// Whether a magnitude with the given fraction (half = first dropped bit, sticky = any later bit) rounds up.
// Arm defines the rounding on the two's-complement value via RoundDown; in sign-magnitude form ties-away
// and ties-even are symmetric and the directed modes depend on the sign.
bool round_up_magnitude(Rounding rm, bool sign, uint64_t mag, bool half, bool sticky) {
  const bool inexact = half || sticky;
  switch (rm) {
  case Rounding::TieEven:
    return half && (sticky || (mag & 1));
  case Rounding::TieAway:
    return half;
  case Rounding::PosInf:
    return inexact && !sign;
  case Rounding::NegInf:
    return inexact && sign;
  case Rounding::Zero:
  case Rounding::Odd:
    return false;
  }
  return false;
}

struct IntSplit {
  uint64_t mag;
  bool half, sticky;
};

// Integer part and fraction of sig * 2^(k - 63); requires k <= 63.
IntSplit split_integer(uint64_t sig, int k) {
  if (k < 0) return {0, k == -1, k == -1 ? (sig << 1) != 0 : true};
  const uint64_t mag = sig >> (63 - k);
  const uint64_t rest = k == 63 ? 0 : sig << (k + 1);
  return {mag, bool(rest >> 63), (rest << 1) != 0};
}

template <unsigned N>
uint64_t round_int_impl(uint64_t a, Rounding rm, bool exact, uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked u = unpack<N>(a, fpcr, fpsr);
  if (u.is_nan()) return process_nan<N>(u.type, a, fpcr, fpsr);
  if (u.is_inf()) return inf_bits<N>(u.sign);
  if (u.is_zero()) return zero_bits<N>(u.sign);
  if (u.exp >= Consts<N>::F) return a; // already integral
  const IntSplit s = split_integer(u.sig, u.exp);
  const uint64_t mag = s.mag + round_up_magnitude(rm, u.sign, s.mag, s.half, s.sticky);
  if (exact && (s.half || s.sticky)) fpsr |= kIXC;
  if (mag == 0) return zero_bits<N>(u.sign);
  const int lz = std::countl_zero(mag);
  return round_value<N>(u.sign, 63 - lz, mag << lz, fpcr, Rounding::Zero, fpsr);
}

template <unsigned N>
uint64_t to_int_impl(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, Rounding rm,
                     uint32_t fpcr, uint32_t& fpsr) {
  const Unpacked u = unpack<N>(a, fpcr, fpsr);
  const uint64_t width_mask = int_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << int_bits) - 1;
  const uint64_t pos_limit = is_unsigned ? width_mask : width_mask >> 1;
  const uint64_t neg_limit = is_unsigned ? 0 : (width_mask >> 1) + 1; // magnitude of the most negative value
  auto saturate = [&](bool negative) {
    fpsr |= kIOC;
    return negative ? (uint64_t(0) - neg_limit) & width_mask : pos_limit;
  };
  if (u.is_nan()) {
    fpsr |= kIOC;
    return 0;
  }
  if (u.is_zero()) return 0;
  if (u.is_inf()) return saturate(u.sign);
  const int k = u.exp + int(fbits);
  if (k >= 64) return saturate(u.sign);
  const IntSplit s = split_integer(u.sig, k);
  const u128 mag = u128(s.mag) + round_up_magnitude(rm, u.sign, s.mag, s.half, s.sticky);
  if (u.sign ? mag > neg_limit : mag > pos_limit) return saturate(u.sign);
  if (s.half || s.sticky) fpsr |= kIXC;
  const uint64_t m = uint64_t(mag);
  return (u.sign ? uint64_t(0) - m : m) & width_mask;
}

template <unsigned N>
uint64_t from_int_impl(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, uint32_t fpcr,
                       uint32_t& fpsr) {
  if (int_bits == 32) a = is_unsigned ? uint64_t(uint32_t(a)) : uint64_t(int64_t(int32_t(uint32_t(a))));
  const bool sign = !is_unsigned && int64_t(a) < 0;
  const uint64_t mag = sign ? uint64_t(0) - a : a;
  if (mag == 0) return 0;
  const int lz = std::countl_zero(mag);
  return round_value<N>(sign, 63 - lz - int(fbits), mag << lz, fpcr, rounding_of(fpcr), fpsr);
}

// FPConvert, with FPConvertNaN keeping the most significant payload bits.
template <unsigned From, unsigned To>
uint64_t convert_impl(uint64_t a, Rounding rm, uint32_t fpcr, uint32_t& fpsr) {
  using CF = Consts<From>;
  using CT = Consts<To>;
  const Unpacked u = unpack<From>(a, fpcr, fpsr, true);
  const bool alt_hp = To == 16 && (fpcr & kFPCR_AHP);
  if (u.is_nan()) {
    if (u.type == Type::SNaN || alt_hp) fpsr |= kIOC;
    if (alt_hp) return zero_bits<To>(u.sign);
    if (fpcr & kFPCR_DN) return CT::default_nan;
    const uint64_t frac = a & CF::frac_mask;
    const uint64_t frac_to = CT::F >= CF::F ? frac << (CT::F - CF::F) : frac >> (CF::F - CT::F);
    return zero_bits<To>(u.sign) | CT::inf | CT::quiet_bit | (frac_to & CT::frac_mask);
  }
  if (u.is_inf()) {
    if (alt_hp) {
      fpsr |= kIOC;
      return zero_bits<To>(u.sign) | 0x7FFF;
    }
    return inf_bits<To>(u.sign);
  }
  if (u.is_zero()) return zero_bits<To>(u.sign);
  return round_value<To>(u.sign, u.exp, u.sig, fpcr, rm, fpsr, true);
}

// RecipEstimate / RecipSqrtEstimate, tabulated at compile time from the pseudocode's integer definitions.
constexpr int recip_estimate(int a) {
  a = a * 2 + 1;
  const int b = (1 << 19) / a;
  return (b + 1) / 2;
}

constexpr int recip_sqrt_estimate(int a) {
  if (a < 256)
    a = a * 2 + 1;
  else
    a = ((a >> 1) + 1) * 4 - 2; // drop the bottom bit, then (a + 1) * 2
  int b = 512;
  while (int64_t(a) * (b + 1) * (b + 1) < (int64_t(1) << 28)) ++b;
  return (b + 1) / 2;
}

constexpr std::array<uint16_t, 256> kRecipTable = [] {
  std::array<uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) t[i] = uint16_t(recip_estimate(256 + i));
  return t;
}();

constexpr std::array<uint16_t, 384> kRSqrtTable = [] {
  std::array<uint16_t, 384> t{};
  for (int i = 0; i < 384; ++i) t[i] = uint16_t(recip_sqrt_estimate(128 + i));
  return t;
}();

int recip_lookup(int scaled) {
  return kRecipTable[scaled - 256];
}
int rsqrt_lookup(int scaled) {
  return kRSqrtTable[scaled - 128];
}

template <unsigned N> uint64_t recpe_impl(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  using C = Consts<N>;
  const Unpacked u = unpack<N>(a, fpcr, fpsr);
  if (u.is_nan()) return process_nan<N>(u.type, a, fpcr, fpsr);
  if (u.is_inf()) return zero_bits<N>(u.sign);
  if (u.is_zero()) {
    fpsr |= kDZC;
    return inf_bits<N>(u.sign);
  }
  if (u.exp < -(C::bias + 1)) { // the reciprocal is not representable
    bool overflow_to_inf = false;
    switch (rounding_of(fpcr)) {
    case Rounding::TieEven:
      overflow_to_inf = true;
      break;
    case Rounding::PosInf:
      overflow_to_inf = !u.sign;
      break;
    case Rounding::NegInf:
      overflow_to_inf = u.sign;
      break;
    default:
      break;
    }
    fpsr |= kOFC | kIXC;
    return overflow_to_inf ? inf_bits<N>(u.sign) : max_normal_bits<N>(u.sign);
  }
  const bool fz = N == 16 ? (fpcr & kFPCR_FZ16) : (fpcr & kFPCR_FZ);
  if (fz && u.exp >= C::bias - 1) {
    fpsr |= kUFC;
    return zero_bits<N>(u.sign);
  }
  constexpr uint64_t mask52 = (uint64_t(1) << 52) - 1;
  uint64_t fraction = (a & C::frac_mask) << (52 - C::F);
  int exp = int(a >> C::F) & C::exp_ones;
  if (exp == 0) {
    if (!((fraction >> 51) & 1)) {
      exp = -1;
      fraction = (fraction << 2) & mask52;
    } else {
      fraction = (fraction << 1) & mask52;
    }
  }
  const int scaled = 256 | int(fraction >> 44);
  int result_exp = 2 * C::bias - 1 - exp;
  const int estimate = recip_lookup(scaled);
  fraction = uint64_t(estimate & 0xFF) << 44;
  if (result_exp == 0) {
    fraction = (uint64_t(1) << 51) | (fraction >> 1);
  } else if (result_exp == -1) {
    fraction = (uint64_t(1) << 50) | (fraction >> 2);
    result_exp = 0;
  }
  return zero_bits<N>(u.sign) | (uint64_t(result_exp) << C::F) | (fraction >> (52 - C::F));
}

template <unsigned N> uint64_t rsqrte_impl(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  using C = Consts<N>;
  const Unpacked u = unpack<N>(a, fpcr, fpsr);
  if (u.is_nan()) return process_nan<N>(u.type, a, fpcr, fpsr);
  if (u.is_zero()) {
    fpsr |= kDZC;
    return inf_bits<N>(u.sign);
  }
  if (u.sign) {
    fpsr |= kIOC;
    return C::default_nan;
  }
  if (u.is_inf()) return 0;
  constexpr uint64_t mask52 = (uint64_t(1) << 52) - 1;
  uint64_t fraction = (a & C::frac_mask) << (52 - C::F);
  int exp = int(a >> C::F) & C::exp_ones;
  if (exp == 0) {
    while (!((fraction >> 51) & 1)) {
      fraction = (fraction << 1) & mask52;
      --exp;
    }
    fraction = (fraction << 1) & mask52;
  }
  const int scaled = (exp & 1) == 0 ? 256 | int(fraction >> 44) : 128 | int(fraction >> 45);
  // The numerator is positive, so C++ division matches the pseudocode's DIV (floor).
  const int result_exp = (3 * C::bias - 1 - exp) / 2;
  const int estimate = rsqrt_lookup(scaled);
  return (uint64_t(result_exp) << C::F) | (uint64_t(estimate & 0xFF) << (C::F - 8));
}

template <unsigned N> uint64_t recpx_impl(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  using C = Consts<N>;
  const Unpacked u = unpack<N>(a, fpcr, fpsr);
  if (u.is_nan()) return process_nan<N>(u.type, a, fpcr, fpsr);
  const int exp = int(a >> C::F) & C::exp_ones;
  const uint64_t result_exp = exp == 0 ? uint64_t(C::exp_ones - 1) : uint64_t(~exp & C::exp_ones);
  return zero_bits<N>(u.sign) | (result_exp << C::F);
}

} // namespace

#define VPLAT_FP_DEFINE_ALL_WIDTHS(MACRO) MACRO(16, uint16_t) MACRO(32, uint32_t) MACRO(64, uint64_t)

#define VPLAT_FP_DEFINE(N, T)                                                                                \
  T add##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(add_sub<N>(a, b, false, fpcr, fpsr));                                                           \
  }                                                                                                          \
  T sub##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(add_sub<N>(a, b, true, fpcr, fpsr));                                                            \
  }                                                                                                          \
  T mul##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(mul_impl<N>(a, b, false, fpcr, fpsr));                                                          \
  }                                                                                                          \
  T mulx##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                       \
    return T(mul_impl<N>(a, b, true, fpcr, fpsr));                                                           \
  }                                                                                                          \
  T div##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(div_impl<N>(a, b, fpcr, fpsr));                                                                 \
  }                                                                                                          \
  T max##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(minmax_impl<N>(a, b, true, fpcr, fpsr));                                                        \
  }                                                                                                          \
  T min##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                        \
    return T(minmax_impl<N>(a, b, false, fpcr, fpsr));                                                       \
  }                                                                                                          \
  T maxnum##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                     \
    return T(minmax_num_impl<N>(a, b, true, fpcr, fpsr));                                                    \
  }                                                                                                          \
  T minnum##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                     \
    return T(minmax_num_impl<N>(a, b, false, fpcr, fpsr));                                                   \
  }                                                                                                          \
  T recps##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                      \
    return T(step_impl<N>(a, b, false, fpcr, fpsr));                                                         \
  }                                                                                                          \
  T rsqrts##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                     \
    return T(step_impl<N>(a, b, true, fpcr, fpsr));                                                          \
  }                                                                                                          \
  T muladd##N(T addend, T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                           \
    return T(muladd_impl<N>(addend, a, b, fpcr, fpsr));                                                      \
  }                                                                                                          \
  T sqrt##N(T a, uint32_t fpcr, uint32_t& fpsr) {                                                            \
    return T(sqrt_impl<N>(a, fpcr, fpsr));                                                                   \
  }                                                                                                          \
  T recpe##N(T a, uint32_t fpcr, uint32_t& fpsr) {                                                           \
    return T(recpe_impl<N>(a, fpcr, fpsr));                                                                  \
  }                                                                                                          \
  T rsqrte##N(T a, uint32_t fpcr, uint32_t& fpsr) {                                                          \
    return T(rsqrte_impl<N>(a, fpcr, fpsr));                                                                 \
  }                                                                                                          \
  T recpx##N(T a, uint32_t fpcr, uint32_t& fpsr) {                                                           \
    return T(recpx_impl<N>(a, fpcr, fpsr));                                                                  \
  }                                                                                                          \
  uint32_t cmp##N(T a, T b, bool signalling, uint32_t fpcr, uint32_t& fpsr) {                                \
    return cmp_impl<N>(a, b, signalling, fpcr, fpsr);                                                        \
  }                                                                                                          \
  bool cmp_eq##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                  \
    return pred_impl<N>(a, b, Pred::Eq, fpcr, fpsr);                                                         \
  }                                                                                                          \
  bool cmp_ge##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                  \
    return pred_impl<N>(a, b, Pred::Ge, fpcr, fpsr);                                                         \
  }                                                                                                          \
  bool cmp_gt##N(T a, T b, uint32_t fpcr, uint32_t& fpsr) {                                                  \
    return pred_impl<N>(a, b, Pred::Gt, fpcr, fpsr);                                                         \
  }                                                                                                          \
  T round_int##N(T a, Rounding rm, bool exact, uint32_t fpcr, uint32_t& fpsr) {                              \
    return T(round_int_impl<N>(a, rm, exact, fpcr, fpsr));                                                   \
  }                                                                                                          \
  uint64_t f##N##_to_int(T a, unsigned int_bits, bool is_unsigned, unsigned fbits, Rounding rm,              \
                         uint32_t fpcr, uint32_t& fpsr) {                                                    \
    return to_int_impl<N>(a, int_bits, is_unsigned, fbits, rm, fpcr, fpsr);                                  \
  }                                                                                                          \
  T int_to_f##N(uint64_t a, unsigned int_bits, bool is_unsigned, unsigned fbits, uint32_t fpcr,              \
                uint32_t& fpsr) {                                                                            \
    return T(from_int_impl<N>(a, int_bits, is_unsigned, fbits, fpcr, fpsr));                                 \
  }

VPLAT_FP_DEFINE_ALL_WIDTHS(VPLAT_FP_DEFINE)
#undef VPLAT_FP_DEFINE
#undef VPLAT_FP_DEFINE_ALL_WIDTHS

uint32_t f16_to_f32(uint16_t a, uint32_t fpcr, uint32_t& fpsr) {
  return uint32_t(convert_impl<16, 32>(a, rounding_of(fpcr), fpcr, fpsr));
}
uint64_t f16_to_f64(uint16_t a, uint32_t fpcr, uint32_t& fpsr) {
  return convert_impl<16, 64>(a, rounding_of(fpcr), fpcr, fpsr);
}
uint16_t f32_to_f16(uint32_t a, uint32_t fpcr, uint32_t& fpsr) {
  return uint16_t(convert_impl<32, 16>(a, rounding_of(fpcr), fpcr, fpsr));
}
uint64_t f32_to_f64(uint32_t a, uint32_t fpcr, uint32_t& fpsr) {
  return convert_impl<32, 64>(a, rounding_of(fpcr), fpcr, fpsr);
}
uint16_t f64_to_f16(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  return uint16_t(convert_impl<64, 16>(a, rounding_of(fpcr), fpcr, fpsr));
}
uint32_t f64_to_f32(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  return uint32_t(convert_impl<64, 32>(a, rounding_of(fpcr), fpcr, fpsr));
}
uint32_t f64_to_f32_odd(uint64_t a, uint32_t fpcr, uint32_t& fpsr) {
  return uint32_t(convert_impl<64, 32>(a, Rounding::Odd, fpcr, fpsr));
}

uint32_t urecpe(uint32_t a) {
  if (!(a >> 31)) return 0xFFFFFFFFu;
  return uint32_t(recip_lookup(int(a >> 23))) << 23;
}

uint32_t ursqrte(uint32_t a) {
  if ((a >> 30) == 0) return 0xFFFFFFFFu;
  return uint32_t(rsqrt_lookup(int(a >> 23))) << 23;
}

} // namespace vplat::fp
