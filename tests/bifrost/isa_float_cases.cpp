// Tests of archdesc/bifrost/float.adl: the G71 transcendental building blocks, FROUND, the ADD unit's
// FCMP.f32, v2f16 arithmetic and compares, and f16/f32/integer conversions. Each runs on a quad against a CPU
// reference written here: host float/double arithmetic for fp32, and for binary16 an exact integer model of
// the format with its own rounding (nothing shared with the model's soft-float). The lowering tests run
// Mesa's v6 sequences for rcp, rsqrt, exp2 and log2 as multi-clause shaders and compare with the host's libm.
#include "isa_cases.h"
#include <cstdarg>

namespace bifrost_isa_test {
namespace {

// ---------------------------------------------------------------- binary16 reference

using u128 = unsigned __int128;

uint32_t pack(uint16_t lo, uint16_t hi) {
  return lo | static_cast<uint32_t>(hi) << 16;
}
uint16_t half_of(uint32_t v, unsigned hi) {
  return static_cast<uint16_t>(hi ? v >> 16 : v);
}
uint16_t habsneg(uint16_t v, bool abs, bool neg) {
  if (abs) v &= 0x7fff;
  if (neg) v ^= 0x8000;
  return v;
}

bool h_is_nan(uint16_t h) {
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}
bool h_is_inf(uint16_t h) {
  return (h & 0x7fff) == 0x7c00;
}
bool h_neg(uint16_t h) {
  return h & 0x8000;
}
// A finite half's magnitude in units of 2^-24 (its smallest subnormal).
uint64_t h_units(uint16_t h) {
  unsigned e = (h >> 10) & 31, m = h & 1023;
  return e == 0 ? m : static_cast<uint64_t>(m + 1024) << (e - 1);
}
double h2d(uint16_t h) {
  if (h_is_nan(h)) return std::nan("");
  if (h_is_inf(h)) return h_neg(h) ? -INFINITY : INFINITY;
  double v = std::ldexp(static_cast<double>(h_units(h)), -24);
  return h_neg(h) ? -v : v;
}

// sign * mag * 2^exp2 rounded to binary16 (round: 0 nearest even, 1 up, 2 down, 3 towards zero).
uint16_t round_h(bool neg, u128 mag, int exp2, unsigned round) {
  uint16_t sign = neg ? 0x8000 : 0;
  if (mag == 0) return sign;
  int msb = 127;
  while (!((mag >> msb) & 1)) --msb;
  int e = msb + exp2;                 // the value lies in [2^e, 2^(e+1))
  int q_exp = e < -14 ? -24 : e - 10; // the spacing of representable values there
  int shift = q_exp - exp2;
  u128 q;
  if (shift <= 0) {
    q = mag << -shift;
  } else {
    q = mag >> shift;
    u128 rem = mag & ((static_cast<u128>(1) << shift) - 1), half = static_cast<u128>(1) << (shift - 1);
    bool up = round == 0   ? (rem > half || (rem == half && (q & 1)))
              : round == 1 ? rem && !neg
              : round == 2 ? rem && neg
                           : false;
    if (up) ++q;
  }
  if (q == 2048) q = 1024, ++q_exp;
  if (q_exp == -24 && q <= 1024) return sign | static_cast<uint16_t>(q); // subnormal, or carried into 2^-14
  int biased = q_exp + 25;
  if (biased >= 31) {
    bool to_inf = round == 0 || (round == 1 && !neg) || (round == 2 && neg);
    return sign | (to_inf ? 0x7c00 : 0x7bff);
  }
  return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(q - 1024);
}

// An exact zero sum's sign: the common sign, else + (or - when rounding down).
uint16_t zero_sum(bool a_neg, bool b_neg, unsigned round) {
  return (a_neg && b_neg) || (a_neg != b_neg && round == 2) ? 0x8000 : 0;
}

uint16_t ref_hadd(uint16_t a, uint16_t b, unsigned round) {
  if (h_is_inf(a) || h_is_inf(b)) return h_is_inf(a) ? a : b; // the lanes never add opposite infinities
  __int128 x = static_cast<__int128>(h_units(a)) * (h_neg(a) ? -1 : 1);
  __int128 y = static_cast<__int128>(h_units(b)) * (h_neg(b) ? -1 : 1);
  __int128 s = x + y;
  if (s == 0) return zero_sum(h_neg(a), h_neg(b), round);
  return round_h(s < 0, static_cast<u128>(s < 0 ? -s : s), -24, round);
}

uint16_t ref_hfma(uint16_t a, uint16_t b, uint16_t c, unsigned round) {
  bool pneg = h_neg(a) != h_neg(b);
  if (h_is_inf(a) || h_is_inf(b))
    return pneg ? 0xfc00 : 0x7c00; // lanes pair infinities with finite non-zeros
  if (h_is_inf(c)) return c;
  __int128 p = static_cast<__int128>(h_units(a)) * h_units(b) * (pneg ? -1 : 1); // units of 2^-48
  __int128 z = static_cast<__int128>(h_units(c)) * (static_cast<__int128>(1) << 24) * (h_neg(c) ? -1 : 1);
  __int128 s = p + z;
  if (s == 0) return zero_sum(pneg, h_neg(c), round);
  return round_h(s < 0, static_cast<u128>(s < 0 ? -s : s), -48, round);
}

uint16_t ref_hclamp(uint16_t v, unsigned clamp) {
  if (clamp == 0 || h_is_nan(v)) return v;
  double x = h2d(v), lo = clamp == 2 ? -1.0 : 0.0, hi = clamp == 1 ? INFINITY : 1.0;
  if (x < lo) return clamp == 2 ? 0xbc00 : 0;
  if (x > hi) return 0x3c00;
  return v;
}

// binary32 -> binary16 from the float's own fields.
uint16_t ref_f2h(uint32_t f, unsigned round) {
  bool neg = f >> 31;
  unsigned e = (f >> 23) & 0xff, m = f & 0x7fffff;
  if (e == 255) return (neg ? 0x8000 : 0) | (m ? 0x7e00 | (m >> 13) : 0x7c00);
  if (e == 0) return round_h(neg, m, -149, round);
  return round_h(neg, m | 0x800000u, static_cast<int>(e) - 150, round);
}

uint16_t h_bool(bool b, unsigned rt) {
  return !b ? 0 : rt == 1 ? 0x3c00 : rt == 2 ? 0xffff : 1;
}

// FMAX/FMIN semantics (bifrost.h minmax modes) on halves, written over their double values.
uint16_t ref_hminmax(uint16_t a, uint16_t b, bool is_max, unsigned sem) {
  double x = h2d(a), y = h2d(b);
  if (sem == 2) return (is_max ? x > y : x < y) ? a : b;
  if (sem == 3) return (is_max ? x < y : x > y) ? b : a;
  if (std::isnan(x) || std::isnan(y)) return sem == 1 ? (std::isnan(x) ? a : b) : (std::isnan(x) ? b : a);
  if (x == 0 && y == 0 && a != b) return is_max ? 0 : 0x8000;
  return (is_max ? x >= y : x <= y) ? a : b;
}

// Float -> integer with the model's conventions (saturating, NaN -> 0, round 0 truncates).
int64_t ref_to_int(double x, unsigned round, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  double r = round == 1 ? std::ceil(x) : round == 2 ? std::floor(x) : std::trunc(x);
  if (r < static_cast<double>(lo)) return lo;
  if (r > static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}

// ---- lane data: pairs of halves with ordinary values, extremes, subnormals and an infinity
const Lanes kH1 = {pack(0x3e00, 0xc080), pack(0x7bff, 0x0400), pack(0x0001, 0x2e66), pack(0x4200, 0xb800)};
const Lanes kH2 = {pack(0x3a00, 0x4400), pack(0x7bff, 0x8400), pack(0x03ff, 0x3555), pack(0x63d0, 0x3c00)};
const Lanes kH3 = {pack(0xc200, 0x3000), pack(0xfbff, 0x0001), pack(0x8001, 0x2e66), pack(0x7c00, 0xbc00)};
// For compares and min/max: equal values, signed zeros, a NaN, an infinity.
const Lanes kHc1 = {pack(0x3c00, 0x4000), pack(0x8000, 0x7e00), pack(0xfc00, 0x3555), pack(0x3800, 0xc000)};
const Lanes kHc2 = {pack(0x3c00, 0x3c00), pack(0x0000, 0x4000), pack(0x3c00, 0x3555), pack(0xb800, 0x4000)};

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char b[256];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  return b;
}

// Runs `op` on both units' harnesses: FMA ops read r0..r2 (result r10), ADD ops r0, r1 (result r11).
bool run_op(bool fma, const std::string& op, const std::vector<Lanes>& in,
            const std::function<uint32_t(unsigned)>& want, std::string& why) {
  bool ok = fma ? fma_case(op, in, want, why) : add_case(op, in, want, why);
  if (!ok) why = op + ": " + why;
  return ok;
}

// ---------------------------------------------------------------- fp32 reference pieces

// frexp in the three reductions (mode 0 [0.5, 1), 1 sqrt [0.25, 1) with an even exponent, 2 log [0.75, 1.5)).
void ref_frexp(float x, unsigned mode, float& m, int& e) {
  if (x == 0 || std::isinf(x) || std::isnan(x)) {
    m = x;
    e = 0;
    return;
  }
  m = std::frexp(x, &e);
  if (mode == 1 && (e % 2 != 0)) m /= 2, e += 1;
  if (mode == 2 && std::fabs(m) < 0.75f) m *= 2, e -= 1;
  if (mode == 1) e /= 2;
}

const Lanes kX = {bits(3.0f), bits(-0.15625f), bits(1.0e-40f), bits(6.5e37f)};
const Lanes kX2 = {bits(1.0f), bits(0.75f), bits(-1234.5f), bits(2.0e-3f)};

void add_fp32_cases(CaseMap& c) {
  c["FMA_FMA_RSCALE_f32"] = [](std::string& why) {
    struct V {
      unsigned abs0, negp, neg2, mode;
    };
    auto ref = [](V v, uint32_t a, uint32_t b, uint32_t c, int k) {
      unsigned rnd = v.mode == 5 ? 3 : 0;
      uint32_t f = ref_fma(absneg(a, v.abs0, false), absneg(b, false, v.negp), absneg(c, false, v.neg2), rnd);
      uint32_t s = with_rounding(rnd, [&] {
        volatile float x = fl(f);
        volatile float y = std::ldexp(x, k);
        return bits(y);
      });
      return v.mode < 4 ? ref_clamp(s, v.mode) : s;
    };
    Lanes scale = {3, 0xfffffffeu, 0, 100};
    for (V v : {V{0, 0, 0, 0}, V{1, 1, 0, 0}, V{0, 0, 1, 5}, V{0, 1, 1, 1}, V{0, 0, 0, 3}, V{1, 0, 0, 2},
                V{0, 0, 0, 4}}) {
      std::string mods = fmt("abs0=%u negp=%u neg2=%u mode=%u", v.abs0, v.negp, v.neg2, v.mode);
      Env e;
      // Per-lane addends, one scale (the FAU word's high half, -3) ...
      auto r = e.run("tuple p0=r0 p1=r1 p2=r2 fau=u0 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=2 src3=5 " + mods +
                         " ; +NOP ; fma->r10",
                     {kF1, kF2, kF3}, {0xfffffffd00000000ull});
      if (!check_lanes(
              r, 10, [&](unsigned l) { return ref(v, kF1[l], kF2[l], kF3[l], -3); }, why))
        return why = mods + " (FAU scale): " + why, false;
      // ... then per-lane scales and one addend (the FAU word's low half, 0.75).
      Env e2;
      auto r2 = e2.run("tuple p0=r0 p1=r1 p2=r2 fau=u0 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=4 src3=2 " +
                           mods + " ; +NOP ; fma->r10",
                       {kF1, kF2, scale}, {bits(0.75f)});
      if (!check_lanes(
              r2, 10, [&](unsigned l) { return ref(v, kF1[l], kF2[l], bits(0.75f), int32_t(scale[l])); },
              why))
        return why = mods + " (lane scales): " + why, false;
    }
    // Special n: infinity times zero contributes nothing, so the result is the addend (scaled); without it
    // the product is NaN.
    Lanes a = {bits(INFINITY), 0, bits(-INFINITY), bits(2.0f)},
          b = {0, bits(-INFINITY), 0x80000000u, bits(3.0f)};
    Lanes k = {0, 0xffffffffu, 1, 2};
    for (unsigned mode : {4u, 0u}) {
      Env e;
      auto r = e.run(
          fmt("tuple p0=r0 p1=r1 p2=r2 fau=u0 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=4 src3=2 mode=%u ; +NOP "
              "; fma->r10",
              mode),
          {a, b, k}, {bits(1.0f)});
      if (mode == 4) {
        if (!check_lanes(
                r, 10, [&](unsigned l) { return bits(std::ldexp(l == 3 ? 7.0f : 1.0f, int32_t(k[l]))); },
                why))
          return why = "special n: " + why, false;
      } else {
        if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
        for (unsigned l = 0; l < 3; ++l)
          if (!std::isnan(fl(r.regs[l][10])))
            return why = "without .n, infinity times zero must give NaN", false;
        if (r.regs[3][10] != bits(28.0f)) return why = "without .n: lane 3 wrong", false;
      }
    }
    return true;
  };

  auto frexpm = [](bool fma) {
    return [fma](std::string& why) {
      // nolog/b7: normal (1,0), sqrt (1,1), log (0,0), log with neg (0,1)
      for (unsigned nl = 0; nl < 2; ++nl)
        for (unsigned b7 = 0; b7 < 2; ++b7)
          for (unsigned abs0 = 0; abs0 < 2; ++abs0)
            for (const Lanes& in : {kX, kX2}) {
              std::string op = fmt("%s src0=0 nolog=%u b7=%u abs0=%u widen0=1",
                                   fma ? "*FREXPM.f32" : "+FREXPM.f32", nl, b7, abs0);
              unsigned mode = nl == 0 ? 2 : b7 ? 1 : 0;
              bool neg = nl == 0 && b7;
              if (!run_op(
                      fma, op, {in, kF2, kF3},
                      [&](unsigned l) {
                        float m;
                        int e;
                        ref_frexp(fl(absneg(in[l], abs0, neg)), mode, m, e);
                        return bits(m);
                      },
                      why))
                return false;
            }
      return true;
    };
  };
  c["FMA_FREXPM_f32"] = frexpm(true);
  c["ADD_FREXPM_f32"] = frexpm(false);
  auto frexpe = [](bool fma) {
    return [fma](std::string& why) {
      struct V {
        unsigned log, sqrt, neg0;
      };
      for (V v : {V{0, 0, 0}, V{0, 0, 1}, V{0, 1, 0}, V{0, 1, 1}, V{1, 0, 0}})
        for (const Lanes& in : {kX, kX2}) {
          // The log form is its own pattern (FMA/ADD_FREXPE_f32_log).
          std::string op = v.log
                               ? fmt("%s src0=0 widen0=1", fma ? "FMA_FREXPE_f32_log" : "ADD_FREXPE_f32_log")
                               : fmt("%s src0=0 sqrt=%u neg0=%u widen0=1",
                                     fma ? "*FREXPE.f32" : "+FREXPE.f32", v.sqrt, v.neg0);
          if (!run_op(
                  fma, op, {in, kF2, kF3},
                  [&](unsigned l) {
                    float m;
                    int e;
                    ref_frexp(fl(in[l]), v.log ? 2 : v.sqrt, m, e);
                    return static_cast<uint32_t>(v.neg0 ? -e : e);
                  },
                  why))
            return false;
        }
      return true;
    };
  };
  c["FMA_FREXPE_f32"] = frexpe(true);
  c["ADD_FREXPE_f32"] = frexpe(false);
  c["FMA_FREXPE_f32_log"] = frexpe(true);
  c["ADD_FREXPE_f32_log"] = frexpe(false);
  auto fround = [](bool fma) {
    return [fma](std::string& why) {
      Lanes in = {bits(2.5f), bits(-3.5f), bits(0.49999997f), bits(-1.0e-30f)};
      Lanes in2 = {bits(8388609.0f), bits(-0.0f), bits(1.5f), bits(INFINITY)};
      for (unsigned round = 0; round < 4; ++round)
        for (unsigned m = 0; m < 3; ++m)
          for (const Lanes& x : {in, in2}) {
            unsigned abs0 = m == 1, neg0 = m == 2;
            std::string op = fmt("%s src0=0 round=%u abs0=%u neg0=%u widen0=1",
                                 fma ? "*FROUND.f32" : "+FROUND.f32", round, abs0, neg0);
            if (!run_op(
                    fma, op, {x, kF2, kF3},
                    [&](unsigned l) {
                      return with_rounding(round, [&] {
                        volatile float v = fl(absneg(x[l], abs0, neg0));
                        volatile float r = std::nearbyint(v);
                        return bits(r);
                      });
                    },
                    why))
              return false;
          }
      return true;
    };
  };
  c["FMA_FROUND_f32"] = fround(true);
  c["ADD_FROUND_f32"] = fround(false);

  c["ADD_FRCP_APPROX_f32"] = [](std::string& why) {
    Lanes sp = {0, 0x80000000u, bits(INFINITY), bits(-INFINITY)};
    for (unsigned m = 0; m < 3; ++m)
      for (const Lanes& x : {kX, kX2, sp}) {
        unsigned abs0 = m == 1, neg0 = m == 2;
        std::string op = fmt("+FRCP_APPROX.f32 src0=0 abs0=%u neg0=%u", abs0, neg0);
        if (!run_op(
                false, op, {x},
                [&](unsigned l) {
                  float v = fl(absneg(x[l], abs0, neg0)), m1;
                  int e;
                  ref_frexp(v, 0, m1, e);
                  return bits(v == 0 || std::isinf(v) ? 1.0f / v : 1.0f / m1);
                },
                why))
          return false;
      }
    return true;
  };
  c["ADD_FRSQ_APPROX_f32"] = [](std::string& why) {
    Lanes pos = {bits(3.0f), bits(0.15625f), bits(1.0e-40f), bits(6.5e37f)};
    Lanes sp = {0, bits(INFINITY), bits(-2.0f), bits(1.0f)};
    for (unsigned m = 0; m < 2; ++m)
      for (const Lanes& x : {pos, kX2, sp}) {
        std::string op = fmt("+FRSQ_APPROX.f32 src0=0 abs0=%u", m);
        if (!run_op(
                false, op, {x},
                [&](unsigned l) {
                  float v = fl(absneg(x[l], m, false)), m1;
                  if (v < 0) return 0x7fc00000u;
                  if (v == 0) return bits(INFINITY);
                  if (std::isinf(v)) return 0u;
                  int e;
                  ref_frexp(v, 1, m1, e);
                  return bits(static_cast<float>(1.0 / std::sqrt(static_cast<double>(m1))));
                },
                why))
          return false;
      }
    return true;
  };
  c["ADD_FEXP_TABLE_u4"] = [](std::string& why) {
    for (unsigned base = 0; base < 16; base += 4) {
      // Only the low 4 bits index the table: the lanes carry other high bits.
      Lanes x = {0x49400000u + base, 0x49400010u + base + 1, 0xdeadbee0u + base + 2, base + 3};
      if (!run_op(
              false, "+FEXP_TABLE.u4 src0=0", {x},
              [&](unsigned l) { return bits(static_cast<float>(std::exp2((x[l] & 15) / 16.0))); }, why))
        return false;
    }
    return true;
  };
  c["ADD_FLOG_TABLE_f32"] = [](std::string& why) {
    Lanes pos = {bits(3.0f), bits(0.15625f), bits(1.0e-40f), bits(6.5e37f)};
    struct V {
      unsigned nored, b5;
    };
    for (V v : {V{0, 0}, V{1, 0}, V{1, 1}})
      for (unsigned abs0 = 0; abs0 < 2; ++abs0)
        for (const Lanes& x : {pos, kX2}) {
          std::string op = fmt("+FLOG_TABLE.f32 src0=0 nored=%u b5=%u abs0=%u", v.nored, v.b5, abs0);
          if (!run_op(
                  false, op, {x},
                  [&](unsigned l) {
                    float in = fl(absneg(x[l], abs0, false)), m;
                    int e;
                    if (v.nored && in < 0) return 0x7fc00000u;
                    ref_frexp(in, 2, m, e);
                    float r1 = 1.0f / m;
                    if (!v.nored) return bits(r1);
                    double lg = v.b5 ? std::log(static_cast<double>(r1)) : std::log2(static_cast<double>(r1));
                    return bits(static_cast<float>(-lg));
                  },
                  why))
            return false;
        }
    return true;
  };
  auto sincos = [](bool is_cos) {
    return [is_cos](std::string& why) {
      for (unsigned base = 0; base < 64; base += 4) {
        Lanes x = {0x49400000u + base, 0x49400040u + base + 1, 0xdeadbec0u + base + 2, base + 3};
        if (!run_op(
                false, is_cos ? "+FCOS_TABLE.u6 src0=0" : "+FSIN_TABLE.u6 src0=0", {x},
                [&](unsigned l) {
                  double angle = (x[l] & 63) * M_PI / 32;
                  return bits(static_cast<float>(is_cos ? std::cos(angle) : std::sin(angle)));
                },
                why))
          return false;
      }
      return true;
    };
  };
  c["ADD_FSIN_TABLE_u6"] = sincos(false);
  c["ADD_FCOS_TABLE_u6"] = sincos(true);
  auto fcmp_add = [](bool m1) {
    return [m1](std::string& why) {
      for (unsigned cmpf = 0; cmpf < 7; ++cmpf)
        for (unsigned f1 = 0; f1 < (m1 ? 1u : 2u); ++f1) {
          unsigned neg0 = cmpf == 2, abs0 = cmpf == 4, abs1 = cmpf == 5;
          std::string op = fmt("%s src0=0 src1=1 cmpf=%u neg0=%u abs0=%u abs1=%u",
                               m1 ? "ADD_FCMP_f32_m1" : "+FCMP.f32", cmpf, neg0, abs0, abs1) +
                           (m1 ? "" : fmt(" f1=%u", f1));
          if (!run_op(
                  false, op, {kFcmpA, kFcmpB},
                  [&](unsigned l) {
                    return ref_bool(
                        ref_fcmp(absneg(kFcmpA[l], abs0, neg0), absneg(kFcmpB[l], abs1, false), cmpf),
                        m1 ? 2 : f1);
                  },
                  why))
            return false;
        }
      return true;
    };
  };
  // The FMA unit's m1 form (fma.adl; the i1/f1 form is tested with the first group).
  c["FMA_FCMP_f32_m1"] = [](std::string& why) {
    for (unsigned cmpf = 0; cmpf < 7; ++cmpf) {
      unsigned neg0 = cmpf == 1, abs0 = cmpf == 3, neg1 = cmpf == 4, abs1 = cmpf == 6;
      std::string op = fmt("FMA_FCMP_f32_m1 src0=0 src1=1 cmpf=%u neg0=%u abs0=%u neg1=%u abs1=%u", cmpf,
                           neg0, abs0, neg1, abs1);
      if (!run_op(
              true, op, {kFcmpA, kFcmpB, kF3},
              [&](unsigned l) {
                return ref_bool(ref_fcmp(absneg(kFcmpA[l], abs0, neg0), absneg(kFcmpB[l], abs1, neg1), cmpf),
                                2);
              },
              why))
        return false;
    }
    return true;
  };
  c["ADD_FCMP_f32"] = fcmp_add(false);
  c["ADD_FCMP_f32_m1"] = fcmp_add(true);
}

// ---------------------------------------------------------------- v2f16

void add_f16_cases(CaseMap& c) {
  c["FMA_FMA_v2f16"] = [](std::string& why) {
    struct V {
      unsigned swz0, swz1, swz2, negp, neg2, round, clamp;
    };
    for (V v : {V{2, 2, 2, 0, 0, 0, 0}, V{0, 3, 1, 1, 0, 0, 0}, V{1, 2, 3, 0, 1, 3, 0},
                V{2, 0, 2, 1, 1, 1, 3}, V{3, 1, 0, 0, 0, 2, 2}, V{2, 2, 2, 0, 0, 0, 1}}) {
      std::string op =
          fmt("*FMA.v2f16 src0=0 src1=1 src2=2 swz0=%u swz1=%u swz2=%u negp=%u neg2=%u round=%u clamp=%u",
              v.swz0, v.swz1, v.swz2, v.negp, v.neg2, v.round, v.clamp);
      if (!run_op(
              true, op, {kH1, kH2, kH3},
              [&](unsigned l) {
                uint16_t r[2];
                for (unsigned k = 0; k < 2; ++k) {
                  uint16_t a = half_of(kH1[l], v.swz0 >> k & 1);
                  uint16_t b = habsneg(half_of(kH2[l], v.swz1 >> k & 1), false, v.negp);
                  uint16_t cc = habsneg(half_of(kH3[l], v.swz2 >> k & 1), false, v.neg2);
                  r[k] = ref_hclamp(ref_hfma(a, b, cc, v.round), v.clamp);
                }
                return pack(r[0], r[1]);
              },
              why))
        return false;
    }
    return true;
  };
  // FADD.v2f16 on the FMA unit: abs is bit 6 plus the selector order (src0 > src1 swaps the meaning).
  c["FMA_FADD_v2f16"] = [](std::string& why) {
    struct V {
      unsigned s0, s1, absb, neg0, neg1, swz0, swz1, round, clamp;
    };
    for (V v : {V{0, 1, 0, 0, 0, 2, 2, 0, 0}, V{0, 1, 1, 1, 0, 0, 3, 3, 0}, V{1, 0, 0, 0, 1, 1, 2, 1, 3},
                V{1, 0, 1, 1, 1, 2, 0, 2, 2}, V{0, 1, 0, 0, 0, 3, 1, 0, 1}}) {
      std::string op =
          fmt("*FADD.v2f16 src0=%u src1=%u absb=%u neg0=%u neg1=%u swz0=%u swz1=%u round=%u clamp=%u", v.s0,
              v.s1, v.absb, v.neg0, v.neg1, v.swz0, v.swz1, v.round, v.clamp);
      bool gt = v.s0 > v.s1, abs0 = v.absb || gt, abs1 = v.absb && gt;
      const Lanes& A = v.s0 ? kH2 : kH1;
      const Lanes& B = v.s1 ? kH2 : kH1;
      if (!run_op(
              true, op, {kH1, kH2, kH3},
              [&](unsigned l) {
                uint16_t r[2];
                for (unsigned k = 0; k < 2; ++k) {
                  uint16_t a = habsneg(half_of(A[l], v.swz0 >> k & 1), abs0, v.neg0);
                  uint16_t b = habsneg(half_of(B[l], v.swz1 >> k & 1), abs1, v.neg1);
                  r[k] = ref_hclamp(ref_hadd(a, b, v.round), v.clamp);
                }
                return pack(r[0], r[1]);
              },
              why))
        return false;
    }
    return true;
  };
  c["ADD_FADD_v2f16"] = [](std::string& why) {
    struct V {
      unsigned abs0, abs1, neg0, neg1, swz0, swz1, round;
    };
    for (V v :
         {V{0, 0, 0, 0, 2, 2, 0}, V{1, 0, 0, 1, 0, 3, 3}, V{0, 1, 1, 0, 1, 2, 1}, V{1, 1, 1, 1, 3, 0, 2}}) {
      std::string op =
          fmt("+FADD.v2f16 src0=0 src1=1 abs0=%u abs1=%u neg0=%u neg1=%u swz0=%u swz1=%u round=%u", v.abs0,
              v.abs1, v.neg0, v.neg1, v.swz0, v.swz1, v.round);
      if (!run_op(
              false, op, {kH1, kH2},
              [&](unsigned l) {
                uint16_t r[2];
                for (unsigned k = 0; k < 2; ++k) {
                  uint16_t a = habsneg(half_of(kH1[l], v.swz0 >> k & 1), v.abs0, v.neg0);
                  uint16_t b = habsneg(half_of(kH2[l], v.swz1 >> k & 1), v.abs1, v.neg1);
                  r[k] = ref_hadd(a, b, v.round);
                }
                return pack(r[0], r[1]);
              },
              why))
        return false;
    }
    return true;
  };
  c["FMA_FCMP_v2f16"] = [](std::string& why) {
    for (unsigned cmpf = 0; cmpf < 7; ++cmpf)
      for (unsigned rt = 0; rt < 3; ++rt) {
        unsigned s0 = cmpf % 2, s1 = 1 - s0, absb = cmpf == 3 || cmpf == 6, neg0 = cmpf == 2,
                 swz1 = cmpf == 5 ? 1 : 2;
        std::string op =
            fmt("*FCMP.v2f16 src0=%u src1=%u cmpf=%u result_type=%u absb=%u neg0=%u swz0=2 swz1=%u", s0, s1,
                cmpf, rt, absb, neg0, swz1);
        bool gt = s0 > s1, abs0 = absb || gt, abs1 = absb && gt;
        const Lanes& A = s0 ? kHc2 : kHc1;
        const Lanes& B = s1 ? kHc2 : kHc1;
        if (!run_op(
                true, op, {kHc1, kHc2, kH3},
                [&](unsigned l) {
                  uint16_t r[2];
                  for (unsigned k = 0; k < 2; ++k) {
                    uint16_t a = habsneg(half_of(A[l], k), abs0, neg0);
                    uint16_t b = habsneg(half_of(B[l], swz1 >> k & 1), abs1, false);
                    r[k] = h_bool(ref_cmp(h2d(a), h2d(b), cmpf), rt);
                  }
                  return pack(r[0], r[1]);
                },
                why))
          return false;
      }
    return true;
  };
  auto fcmp16_add = [](bool m1) {
    return [m1](std::string& why) {
      for (unsigned cmpf = 0; cmpf < 7; ++cmpf)
        for (unsigned f1 = 0; f1 < (m1 ? 1u : 2u); ++f1) {
          unsigned neg0 = cmpf == 1, swz0 = cmpf == 4 ? 0 : 2, swz1 = cmpf == 6 ? 3 : 2;
          std::string op = fmt("%s src0=0 src1=1 cmpf=%u neg0=%u swz0=%u swz1=%u",
                               m1 ? "ADD_FCMP_v2f16_m1" : "+FCMP.v2f16", cmpf, neg0, swz0, swz1) +
                           (m1 ? "" : fmt(" f1=%u", f1));
          unsigned rt = m1 ? 2 : f1;
          if (!run_op(
                  false, op, {kHc1, kHc2},
                  [&](unsigned l) {
                    uint16_t r[2];
                    for (unsigned k = 0; k < 2; ++k) {
                      uint16_t a = habsneg(half_of(kHc1[l], swz0 >> k & 1), false, neg0);
                      uint16_t b = half_of(kHc2[l], swz1 >> k & 1);
                      r[k] = h_bool(ref_cmp(h2d(a), h2d(b), cmpf), rt);
                    }
                    return pack(r[0], r[1]);
                  },
                  why))
            return false;
        }
      return true;
    };
  };
  c["ADD_FCMP_v2f16"] = fcmp16_add(false);
  c["ADD_FCMP_v2f16_m1"] = fcmp16_add(true);
  auto minmax16 = [](bool is_max) {
    return [is_max](std::string& why) {
      for (unsigned sem = 0; sem < 4; ++sem)
        for (unsigned order = 0; order < 2; ++order) {
          unsigned s0 = order, s1 = 1 - order, absb = sem == 1, neg1 = sem == 3, swz0 = sem == 2 ? 1 : 2;
          std::string op = fmt("%s src0=%u src1=%u sem=%u absb=%u neg1=%u swz0=%u swz1=2",
                               is_max ? "+FMAX.v2f16" : "+FMIN.v2f16", s0, s1, sem, absb, neg1, swz0);
          bool gt = s0 > s1, abs0 = absb || gt, abs1 = absb && gt;
          const Lanes& A = s0 ? kHc2 : kHc1;
          const Lanes& B = s1 ? kHc2 : kHc1;
          if (!run_op(
                  false, op, {kHc1, kHc2},
                  [&](unsigned l) {
                    uint16_t r[2];
                    for (unsigned k = 0; k < 2; ++k) {
                      uint16_t a = habsneg(half_of(A[l], swz0 >> k & 1), abs0, false);
                      uint16_t b = habsneg(half_of(B[l], k), abs1, neg1);
                      r[k] = ref_hminmax(a, b, is_max, sem);
                    }
                    return pack(r[0], r[1]);
                  },
                  why))
            return false;
        }
      return true;
    };
  };
  c["ADD_FMAX_v2f16"] = minmax16(true);
  c["ADD_FMIN_v2f16"] = minmax16(false);
}

// ---------------------------------------------------------------- conversions

void add_cvt_cases(CaseMap& c) {
  auto f16_to_f32 = [](bool fma) {
    return [fma](std::string& why) {
      for (unsigned lane0 = 0; lane0 < 2; ++lane0)
        for (const Lanes& x : {kH1, kH3})
          if (!run_op(
                  fma, fmt("%s src0=0 lane0=%u", fma ? "*F16_TO_F32" : "+F16_TO_F32", lane0), {x, kH2, kH3},
                  [&](unsigned l) { return bits(static_cast<float>(h2d(half_of(x[l], lane0)))); }, why))
            return false;
      return true;
    };
  };
  c["FMA_F16_TO_F32"] = f16_to_f32(true);
  c["ADD_F16_TO_F32"] = f16_to_f32(false);
  auto f16_to_i = [](bool is_unsigned) {
    return [is_unsigned](std::string& why) {
      Lanes x = {pack(0x4100 /*2.5*/, 0xc300 /*-3.5*/), pack(0x7bff, 0xfbff), pack(0x7e00, 0x3bff),
                 pack(0xb800, 0x0001)};
      for (unsigned round = 0; round < 4; ++round)
        for (unsigned lane0 = 0; lane0 < 2; ++lane0)
          if (!run_op(
                  false,
                  fmt("%s src0=0 lane0=%u round=%u", is_unsigned ? "+F16_TO_U32" : "+F16_TO_S32", lane0,
                      round),
                  {x},
                  [&](unsigned l) {
                    double v = h2d(half_of(x[l], lane0));
                    return static_cast<uint32_t>(is_unsigned ? ref_to_int(v, round, 0, 0xffffffffll)
                                                             : ref_to_int(v, round, INT32_MIN, INT32_MAX));
                  },
                  why))
            return false;
      return true;
    };
  };
  c["ADD_F16_TO_S32"] = f16_to_i(false);
  c["ADD_F16_TO_U32"] = f16_to_i(true);
  auto v2f32_to_v2f16 = [](bool fma) {
    return [fma](std::string& why) {
      // Halfway cases, overflow, subnormal results, an exact value.
      Lanes a = {bits(1.00048828125f), bits(70000.0f), bits(3.0e-6f), bits(-2.0f)};
      Lanes b = {bits(-1.00146484375f), bits(-65520.0f), bits(1.0e-9f), bits(0.333333343f)};
      for (unsigned round = 0; round < 4; ++round)
        for (unsigned m = 0; m < 3; ++m) {
          unsigned abs = m == 1, neg = m == 2, clamp = round == 1 ? 2 : round == 3 ? 3 : 0;
          std::string op = fmt("%s src0=0 src1=1 round=%u abs=%u neg=%u clamp=%u",
                               fma ? "*V2F32_TO_V2F16" : "+V2F32_TO_V2F16", round, abs, neg, clamp);
          if (!run_op(
                  fma, op, {a, b, kF3},
                  [&](unsigned l) {
                    return pack(ref_hclamp(ref_f2h(absneg(a[l], abs, neg), round), clamp),
                                ref_hclamp(ref_f2h(absneg(b[l], abs, neg), round), clamp));
                  },
                  why))
            return false;
        }
      return true;
    };
  };
  c["FMA_V2F32_TO_V2F16"] = v2f32_to_v2f16(true);
  c["ADD_V2F32_TO_V2F16"] = v2f32_to_v2f16(false);
  Lanes ints = {0x80017fffu, 0xffff0000u, 0x12345678u, 0x00ff80fe};
  c["ADD_S16_TO_F32"] = [ints](std::string& why) {
    for (unsigned lane0 = 0; lane0 < 2; ++lane0)
      if (!run_op(
              false, fmt("+S16_TO_F32 src0=0 lane0=%u", lane0), {ints},
              [&](unsigned l) {
                return bits(static_cast<float>(static_cast<int16_t>(half_of(ints[l], lane0))));
              },
              why))
        return false;
    return true;
  };
  c["ADD_U16_TO_F32"] = [ints](std::string& why) {
    for (unsigned lane0 = 0; lane0 < 2; ++lane0)
      if (!run_op(
              false, fmt("+U16_TO_F32 src0=0 lane0=%u", lane0), {ints},
              [&](unsigned l) { return bits(static_cast<float>(half_of(ints[l], lane0))); }, why))
        return false;
    return true;
  };
  c["ADD_S8_TO_F32"] = [ints](std::string& why) {
    for (unsigned lane0 = 0; lane0 < 4; ++lane0)
      if (!run_op(
              false, fmt("+S8_TO_F32 src0=0 lane0=%u", lane0), {ints},
              [&](unsigned l) {
                return bits(static_cast<float>(static_cast<int8_t>(ints[l] >> (8 * lane0))));
              },
              why))
        return false;
    return true;
  };
  c["ADD_U8_TO_F32"] = [ints](std::string& why) {
    for (unsigned lane0 = 0; lane0 < 4; ++lane0)
      if (!run_op(
              false, fmt("+U8_TO_F32 src0=0 lane0=%u", lane0), {ints},
              [&](unsigned l) {
                return bits(static_cast<float>(static_cast<uint8_t>(ints[l] >> (8 * lane0))));
              },
              why))
        return false;
    return true;
  };
  auto v2f16_to_i16 = [](bool is_unsigned) {
    return [is_unsigned](std::string& why) {
      Lanes x = {pack(0x4100, 0xc300), pack(0x7bff, 0xfbff), pack(0x7e00, 0x3bff), pack(0xf800, 0x57ff)};
      for (unsigned round = 0; round < 4; ++round)
        for (unsigned swz0 = 0; swz0 < 4; ++swz0)
          if (!run_op(
                  false,
                  fmt("%s src0=0 swz0=%u round=%u", is_unsigned ? "+V2F16_TO_V2U16" : "+V2F16_TO_V2S16", swz0,
                      round),
                  {x},
                  [&](unsigned l) {
                    uint16_t r[2];
                    for (unsigned k = 0; k < 2; ++k) {
                      double v = h2d(half_of(x[l], swz0 >> k & 1));
                      r[k] = static_cast<uint16_t>(is_unsigned ? ref_to_int(v, round, 0, 0xffff)
                                                               : ref_to_int(v, round, -32768, 32767));
                    }
                    return pack(r[0], r[1]);
                  },
                  why))
            return false;
      return true;
    };
  };
  c["ADD_V2F16_TO_V2S16"] = v2f16_to_i16(false);
  c["ADD_V2F16_TO_V2U16"] = v2f16_to_i16(true);
  auto v2i16_to_f16 = [](bool is_unsigned) {
    return [is_unsigned](std::string& why) {
      Lanes x = {pack(2049, 0xfffd), pack(0x7fff, 0x8000), pack(65535, 4097), pack(0, 1)};
      for (unsigned round = 0; round < 4; ++round)
        for (unsigned swz0 = 0; swz0 < 4; ++swz0)
          if (!run_op(
                  false,
                  fmt("%s src0=0 swz0=%u round=%u", is_unsigned ? "+V2U16_TO_V2F16" : "+V2S16_TO_V2F16", swz0,
                      round),
                  {x},
                  [&](unsigned l) {
                    uint16_t r[2];
                    for (unsigned k = 0; k < 2; ++k) {
                      uint16_t h = half_of(x[l], swz0 >> k & 1);
                      int64_t v = is_unsigned ? h : static_cast<int16_t>(h);
                      r[k] = v == 0 ? 0 : round_h(v < 0, static_cast<u128>(v < 0 ? -v : v), 0, round);
                    }
                    return pack(r[0], r[1]);
                  },
                  why))
            return false;
      return true;
    };
  };
  c["ADD_V2S16_TO_V2F16"] = v2i16_to_f16(false);
  c["ADD_V2U16_TO_V2F16"] = v2i16_to_f16(true);
}

void add_cases(CaseMap& c) {
  add_fp32_cases(c);
  add_f16_cases(c);
  add_cvt_cases(c);
}

const std::initializer_list<RoundTrip> kFloatRoundTrips = {
    {"FMA_FMA_RSCALE_f32",
     "tuple p0=r1 p1=r2 p2=r3 fau=u1 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=2 src3=5 abs0=1 negp=1 mode=5 ; "
     "+NOP ; "
     "fma->r4",
     "ds(0) eos \n{\n*FMA_RSCALE.f32.rtz.n r4:t0, r1.abs, r2.neg, r3, u1.w1\n+NOP t1\n}\n"},
    {"FMA_FREXPM_f32", "tuple p0=r1 ; *FREXPM.f32 src0=0 nolog=1 b7=1 abs0=1 widen0=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FREXPM.f32.sqrt r4:t0, r1.abs\n+NOP t1\n}\n"},
    {"ADD_FREXPM_f32", "tuple p0=r1 ; *NOP ; +FREXPM.f32 src0=0 nolog=0 b7=1 widen0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FREXPM.f32.log r4:t1, r1.neg\n}\n"},
    {"FMA_FREXPE_f32", "tuple p0=r1 ; *FREXPE.f32 src0=0 neg0=1 widen0=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FREXPE.f32 r4:t0, r1.neg\n+NOP t1\n}\n"},
    {"ADD_FREXPE_f32", "tuple p0=r1 ; *NOP ; +FREXPE.f32 src0=0 sqrt=1 widen0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FREXPE.f32.sqrt r4:t1, r1\n}\n"},
    {"ADD_FREXPE_f32_log", "tuple p0=r1 ; *NOP ; ADD_FREXPE_f32_log src0=0 widen0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FREXPE.f32.log r4:t1, r1\n}\n"},
    {"FMA_FREXPE_f32_log", "tuple p0=r1 ; FMA_FREXPE_f32_log src0=0 widen0=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FREXPE.f32.log r4:t0, r1\n+NOP t1\n}\n"},
    {"FMA_FROUND_f32", "tuple p0=r1 ; *FROUND.f32 src0=0 round=2 neg0=1 widen0=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FROUND.f32.rtn r4:t0, r1.neg\n+NOP t1\n}\n"},
    {"ADD_FROUND_f32", "tuple p0=r1 ; *NOP ; +FROUND.f32 src0=0 round=3 abs0=1 widen0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FROUND.f32.rtz r4:t1, r1.abs\n}\n"},
    {"ADD_FRCP_APPROX_f32", "tuple p0=r1 ; *NOP ; +FRCP_APPROX.f32 src0=0 neg0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FRCP_APPROX.f32 r4:t1, r1.neg\n}\n"},
    {"ADD_FRSQ_APPROX_f32", "tuple p0=r1 ; *NOP ; +FRSQ_APPROX.f32 src0=0 abs0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FRSQ_APPROX.f32 r4:t1, r1.abs\n}\n"},
    {"ADD_FEXP_TABLE_u4", "tuple p0=r1 ; *NOP ; +FEXP_TABLE.u4 src0=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FEXP_TABLE.u4 r4:t1, r1\n}\n"},
    {"ADD_FSIN_TABLE_u6", "tuple p0=r1 ; *NOP ; +FSIN_TABLE.u6 src0=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FSIN_TABLE.u6 r4:t1, r1\n}\n"},
    {"ADD_FCOS_TABLE_u6", "tuple fau=u0 ; *NOP ; +FCOS_TABLE.u6 src0=5 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FCOS_TABLE.u6 r4:t1, u0.w1\n}\n"},
    {"ADD_FLOG_TABLE_f32", "tuple p0=r1 ; *NOP ; +FLOG_TABLE.f32 src0=0 nored=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FLOG_TABLE.f32.base2 r4:t1, r1\n}\n"},
    {"ADD_FCMP_f32", "tuple p0=r1 p1=r2 ; *NOP ; +FCMP.f32 src0=0 src1=1 cmpf=4 f1=1 neg0=1 abs1=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FCMP.f32.lt.f1 r4:t1, r1.neg, r2.abs\n}\n"},
    {"FMA_FCMP_f32",
     "tuple p0=r1 p1=r2 ; *FCMP.f32 src0=0 src1=1 cmpf=6 result_type=1 neg1=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FCMP.f32.gtlt.f1 r4:t0, r1, r2.neg\n+NOP t1\n}\n"},
    {"ADD_FCMP_f32_m1", "tuple p0=r1 p1=r2 ; *NOP ; ADD_FCMP_f32_m1 src0=0 src1=1 cmpf=1 abs0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FCMP.f32.gt.m1 r4:t1, r1.abs, r2\n}\n"},
    {"FMA_FMA_v2f16",
     "tuple p0=r1 p1=r2 p2=r3 ; *FMA.v2f16 src0=0 src1=1 src2=2 swz0=2 swz1=0 swz2=3 negp=1 round=1 clamp=3 "
     "; +NOP ; "
     "fma->r4",
     "ds(0) eos \n{\n*FMA.v2f16.rtp.clamp_0_1 r4:t0, r1, r2.neg.h00, r3.h11\n+NOP t1\n}\n"},
    {"FMA_FADD_v2f16",
     "tuple p0=r1 p1=r2 ; *FADD.v2f16 src0=1 src1=0 absb=1 neg1=1 swz0=1 swz1=2 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FADD.v2f16 r4:t0, r2.abs.h10, r1.abs.neg\n+NOP t1\n}\n"},
    {"ADD_FADD_v2f16",
     "tuple p0=r1 p1=r2 ; *NOP ; +FADD.v2f16 src0=0 src1=1 abs0=1 neg0=1 swz0=3 swz1=2 round=3 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FADD.v2f16.rtz r4:t1, r1.neg.h11.abs, r2\n}\n"},
    {"FMA_FCMP_v2f16",
     "tuple p0=r1 p1=r2 ; *FCMP.v2f16 src0=0 src1=1 cmpf=6 result_type=2 absb=1 swz0=2 swz1=2 ; +NOP ; "
     "fma->r4",
     "ds(0) eos \n{\n*FCMP.v2f16.gtlt.m1 r4:t0, r1.abs, r2\n+NOP t1\n}\n"},
    {"ADD_FCMP_v2f16",
     "tuple p0=r1 p1=r2 ; *NOP ; +FCMP.v2f16 src0=0 src1=1 cmpf=2 neg0=1 swz0=2 swz1=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FCMP.v2f16.ge r4:t1, r1.neg, r2.h00\n}\n"},
    {"ADD_FCMP_v2f16_m1",
     "tuple p0=r1 p1=r2 ; *NOP ; ADD_FCMP_v2f16_m1 src0=0 src1=1 cmpf=0 swz0=2 swz1=2 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FCMP.v2f16.eq.m1 r4:t1, r1, r2\n}\n"},
    {"ADD_FMAX_v2f16",
     "tuple p0=r1 p1=r2 ; *NOP ; +FMAX.v2f16 src0=0 src1=1 sem=1 neg0=1 swz0=2 swz1=3 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FMAX.v2f16.nan_propagate r4:t1, r1.neg, r2.h11\n}\n"},
    {"ADD_FMIN_v2f16", "tuple p0=r1 p1=r2 ; *NOP ; +FMIN.v2f16 src0=1 src1=0 absb=0 swz0=2 swz1=2 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+FMIN.v2f16 r4:t1, r2.abs, r1\n}\n"},
    {"FMA_F16_TO_F32", "tuple p0=r1 ; *F16_TO_F32 src0=0 lane0=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*F16_TO_F32 r4:t0, r1.h1\n+NOP t1\n}\n"},
    {"ADD_F16_TO_F32", "tuple p0=r1 ; *NOP ; +F16_TO_F32 src0=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+F16_TO_F32 r4:t1, r1\n}\n"},
    {"ADD_F16_TO_S32", "tuple p0=r1 ; *NOP ; +F16_TO_S32 src0=0 round=3 lane0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+F16_TO_S32.rtz r4:t1, r1.h1\n}\n"},
    {"ADD_F16_TO_U32", "tuple p0=r1 ; *NOP ; +F16_TO_U32 src0=0 round=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+F16_TO_U32.rtp r4:t1, r1\n}\n"},
    {"FMA_V2F32_TO_V2F16", "tuple p0=r1 p1=r2 ; *V2F32_TO_V2F16 src0=0 src1=1 abs=1 round=2 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*V2F32_TO_V2F16.rtn r4:t0, r1.abs, r2.abs\n+NOP t1\n}\n"},
    {"ADD_V2F32_TO_V2F16",
     "tuple p0=r1 p1=r2 ; *NOP ; +V2F32_TO_V2F16 src0=0 src1=1 clamp=1 round=3 neg=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+V2F32_TO_V2F16.clamp_0_inf.rtz r4:t1, r1.neg, r2.neg\n}\n"},
    {"ADD_S16_TO_F32", "tuple p0=r1 ; *NOP ; +S16_TO_F32 src0=0 lane0=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+S16_TO_F32 r4:t1, r1.h1\n}\n"},
    {"ADD_U16_TO_F32", "tuple p0=r1 ; *NOP ; +U16_TO_F32 src0=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+U16_TO_F32 r4:t1, r1\n}\n"},
    {"ADD_S8_TO_F32", "tuple p0=r1 ; *NOP ; +S8_TO_F32 src0=0 lane0=2 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+S8_TO_F32 r4:t1, r1.b2\n}\n"},
    {"ADD_U8_TO_F32", "tuple p0=r1 ; *NOP ; +U8_TO_F32 src0=0 lane0=3 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+U8_TO_F32 r4:t1, r1.b3\n}\n"},
    {"ADD_V2F16_TO_V2S16", "tuple p0=r1 ; *NOP ; +V2F16_TO_V2S16 src0=0 swz0=1 round=2 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+V2F16_TO_V2S16.rtn r4:t1, r1.h10\n}\n"},
    {"ADD_V2F16_TO_V2U16", "tuple p0=r1 ; *NOP ; +V2F16_TO_V2U16 src0=0 swz0=2 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+V2F16_TO_V2U16 r4:t1, r1\n}\n"},
    {"ADD_V2S16_TO_V2F16", "tuple p0=r1 ; *NOP ; +V2S16_TO_V2F16 src0=0 swz0=3 round=1 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+V2S16_TO_V2F16.rtp r4:t1, r1.h11\n}\n"},
    {"ADD_V2U16_TO_V2F16", "tuple p0=r1 ; *NOP ; +V2U16_TO_V2F16 src0=0 swz0=0 ; add->r4",
     "ds(0) eos \n{\n*NOP t0\n+V2U16_TO_V2F16 r4:t1, r1.h00\n}\n"},
};

const CaseGroup kFloat(add_cases, kFloatRoundTrips);

// ---------------------------------------------------------------- Mesa's v6 lowering sequences

// Runs clauses one after another (each ends with flow "nbb", the last with end of shader; a trailing NOP
// tuple lets the instruction tuple write both results, which a clause's first register block cannot); r0
// holds the input on each lane; `uniforms` are FAU words u0, u1, ...
QuadResult run_clauses(const std::vector<std::string>& clauses, const Lanes& x,
                       const std::vector<uint64_t>& uniforms) {
  Env e;
  uint64_t at = kCodeVa;
  for (size_t i = 0; i < clauses.size(); ++i)
    at = e.gpu.load_code(at, bifrost_asm::assemble((i + 1 < clauses.size() ? "header flow=3\n" : "") +
                                                   clauses[i] + "\ntuple ; *NOP ; +NOP"));
  QuadLaunch l;
  l.entry = kCodeVa;
  l.uniforms = uniforms.data();
  l.uniform_count = static_cast<unsigned>(uniforms.size());
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = x[i];
  return e.gpu.core->run_quad(l);
}

uint64_t fau(float lo, float hi) {
  return bits(lo) | static_cast<uint64_t>(bits(hi)) << 32;
}
uint64_t fau(uint32_t lo, uint32_t hi) {
  return lo | static_cast<uint64_t>(hi) << 32;
}

// Distance in units in the last place between two floats of the same sign (NaNs and infinities must match).
int64_t ulps(float got, float want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INT64_MAX;
  if (std::isinf(want) || want == 0) return bits(got) == bits(want) ? 0 : INT64_MAX;
  if (std::signbit(got) != std::signbit(want)) return INT64_MAX;
  return std::llabs(static_cast<int64_t>(bits(got)) - static_cast<int64_t>(bits(want)));
}

void expect_close(const QuadResult& r, unsigned reg, const Lanes& x, float (*ref)(float), int64_t max_ulps) {
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (unsigned l = 0; l < 4; ++l) {
    float got = fl(r.regs[l][reg]), want = ref(fl(x[l]));
    EXPECT_LE(ulps(got, want), max_ulps) << "x = " << fl(x[l]) << ": got " << got << ", want " << want;
  }
}

// bi_lower_frcp_32: x1 = FRCP_APPROX(x), m = FREXPM(x), e = -FREXPE(x), t1 = FMA_RSCALE.n(m, -x1, 1, 0),
// 1/x = FMA_RSCALE(t1, x1, x1, e).
TEST(FloatLowering, ReciprocalMatchesTheHost) {
  const std::vector<std::string> prog = {
      "tuple p0=r0 ; *FREXPM.f32 src0=0 nolog=1 widen0=1 ; +FRCP_APPROX.f32 src0=0 ; fma->r1 add->r2",
      "tuple p0=r0 ; *FREXPE.f32 src0=0 neg0=1 widen0=1 ; +NOP ; fma->r3",
      "tuple p0=r1 p1=r2 fau=u0 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=4 src3=5 negp=1 mode=4 ; +NOP ; fma->r4",
      "tuple p0=r2 p1=r4 p2=r3 ; *FMA_RSCALE.f32 src0=1 src1=0 src2=0 src3=2 ; +NOP ; fma->r5"};
  auto rcp = [](float v) { return 1.0f / v; };
  for (Lanes x : {Lanes{bits(3.0f), bits(-7.25f), bits(1.0e-30f), bits(3.0e38f)},
                  Lanes{bits(0.0f), bits(-0.0f), bits(INFINITY), bits(std::nanf(""))},
                  Lanes{bits(1.0f), bits(0.1f), bits(-1234567.0f), bits(1.0e-39f)}})
    expect_close(run_clauses(prog, x, {fau(1.0f, 0.0f)}), 5, x, +rcp, 1);
}

// bi_lower_frsq_32: x1 = FRSQ_APPROX(x), m = FREXPM.sqrt(x), e = -FREXPE.sqrt(x), t1 = x1 * x1,
// t2 = FMA_RSCALE.n(m, -t1, 1, -1), 1/sqrt(x) = FMA_RSCALE.n(t2, x1, x1, e).
TEST(FloatLowering, ReciprocalSquareRootMatchesTheHost) {
  const std::vector<std::string> prog = {
      "tuple p0=r0 ; *FREXPM.f32 src0=0 nolog=1 b7=1 widen0=1 ; +FRSQ_APPROX.f32 src0=0 ; fma->r1 add->r2",
      "tuple p0=r0 ; *FREXPE.f32 src0=0 sqrt=1 neg0=1 widen0=1 ; +NOP ; fma->r3",
      "tuple p0=r2 fau=u1 ; *FMA.f32 src0=0 src1=0 src2=4 ; +NOP ; fma->r4",
      "tuple p0=r1 p1=r4 fau=u0 ; *FMA_RSCALE.f32 src0=0 src1=1 src2=4 src3=5 negp=1 mode=4 ; +NOP ; fma->r6",
      "tuple p0=r2 p1=r6 p2=r3 ; *FMA_RSCALE.f32 src0=1 src1=0 src2=0 src3=2 mode=4 ; +NOP ; fma->r5"};
  for (Lanes x : {Lanes{bits(4.0f), bits(2.0f), bits(1.0e-30f), bits(3.0e38f)},
                  Lanes{bits(0.0f), bits(INFINITY), bits(-1.0f), bits(std::nanf(""))},
                  Lanes{bits(0.1f), bits(12345.678f), bits(1.0e-39f), bits(0.75f)}})
    expect_close(
        run_clauses(prog, x, {fau(bits(1.0f), 0xffffffffu), fau(0x80000000u, 0u)}), 5, x,
        +[](float v) { return v < 0 ? std::nanf("") : static_cast<float>(1.0 / std::sqrt(double(v))); }, 1);
}

// bi_lower_fexp2_32: fixed point split with FADD by 1.5 * 2^19, FEXP_TABLE for the fraction's top 4 bits, a
// cubic for the rest, FMA_RSCALE for the integer part, and FMAX.nan_propagate for NaN inputs.
TEST(FloatLowering, Exp2MatchesTheHost) {
  const std::vector<std::string> prog = {
      // t1 = max(x + 0x49400000, 0) ; t3 = t1 - 0x49400000 (as integers)
      "tuple p0=r0 fau=u0 ; *FADD.f32 src0=0 src1=4 clamp=1 ; +NOP ; fma->r1",
      "tuple p0=r1 fau=u0 ; *FADD.f32 src0=0 src1=5 ; +ISUB.s32 src0=0 src1=4 ; fma->r2 add->r3",
      // a2 = clamp(x - t2, -1, 1) ; a1t = FEXP_TABLE(t1)
      "tuple p0=r0 p1=r2 p2=r1 ; *FADD.f32 src0=0 src1=1 neg1=1 clamp=2 ; +FEXP_TABLE.u4 src0=2 ; fma->r4 "
      "add->r5",
      // a1i = t3 >> 4
      "tuple p0=r3 fau=u3 ; *ARSHIFT.i32 src0=0 src2=4 ; +NOP ; fma->r6",
      "tuple p0=r4 fau=u1 ; *FMA.f32 src0=0 src1=4 src2=5 ; +NOP ; fma->r7",
      "tuple p0=r4 p1=r7 fau=u2 ; *FMA.f32 src0=1 src1=0 src2=4 ; +NOP ; fma->r8",
      "tuple p0=r4 p1=r8 fau=u2 ; *FMA.f32 src0=0 src1=1 src2=5 ; +NOP ; fma->r9",
      "tuple p0=r5 p1=r9 p2=r6 ; *FMA_RSCALE.f32 src0=1 src1=0 src2=0 src3=2 mode=1 ; +NOP ; fma->r10",
      "tuple p0=r0 p1=r10 ; *NOP ; +FMAX.f32 src0=1 src1=0 sem=1 ; add->r11"};
  std::vector<uint64_t> u = {fau(0x49400000u, 0xc9400000u), fau(0x3d635635u, 0x3e75fffau),
                             fau(0x3f317218u, 0x80000000u), fau(4u, 0u)};
  for (Lanes x : {Lanes{bits(0.0f), bits(1.0f), bits(-1.0f), bits(0.5f)},
                  Lanes{bits(10.3f), bits(-20.7f), bits(100.0f), bits(-126.5f)},
                  Lanes{bits(0.01f), bits(127.9f), bits(-200.0f), bits(std::nanf(""))}})
    expect_close(
        run_clauses(prog, x, u), 11, x, +[](float v) { return static_cast<float>(std::exp2(double(v))); }, 4);
}

// bi_lower_flog2_32: a1 = FREXPM.log(x), e = FREXPE.log(x), r1 / xt = FLOG_TABLE red / base2, then
// (e + xt) + log2(1 + y) with y = a1 * r1 - 1 and a second-order series.
TEST(FloatLowering, Log2MatchesTheHost) {
  const std::vector<std::string> prog = {
      "tuple p0=r0 ; *FREXPM.f32 src0=0 nolog=0 widen0=1 ; ADD_FREXPE_f32_log src0=0 widen0=1 ; fma->r1 "
      "add->r2",
      "tuple p0=r0 p1=r2 ; *NOP ; +S32_TO_F32 src0=1 ; add->r3",
      "tuple p0=r0 ; *NOP ; +FLOG_TABLE.f32 src0=0 ; add->r4",
      "tuple p0=r0 ; *NOP ; +FLOG_TABLE.f32 src0=0 nored=1 ; add->r5",
      "tuple p0=r3 p1=r5 ; *NOP ; +FADD.f32 src0=0 src1=1 ; add->r6",
      "tuple p0=r1 p1=r4 fau=u0 ; *FMA.f32 src0=0 src1=1 src2=4 ; +NOP ; fma->r7",
      "tuple p0=r7 fau=u1 ; *FMA.f32 src0=0 src1=4 src2=5 ; +NOP ; fma->r8",
      "tuple p0=r7 p1=r8 fau=u0 ; *FMA.f32 src0=0 src1=1 src2=5 ; +NOP ; fma->r9",
      "tuple p0=r9 fau=u2 ; *FMA.f32 src0=0 src1=4 src2=5 ; +NOP ; fma->r10",
      "tuple p0=r6 p1=r10 ; *NOP ; +FADD.f32 src0=0 src1=1 ; add->r11"};
  std::vector<uint64_t> u = {fau(-1.0f, -0.0f), fau(-0.5f, 1.0f),
                             fau(static_cast<float>(1.0 / std::log(2.0)), -0.0f)};
  for (Lanes x : {Lanes{bits(1.0f), bits(2.0f), bits(0.1f), bits(1000.0f)},
                  Lanes{bits(3.0e38f), bits(1.0e-30f), bits(0.75f), bits(1.4999f)},
                  Lanes{bits(0.0f), bits(-1.0f), bits(7.0f), bits(std::nanf(""))}})
    expect_close(
        run_clauses(prog, x, u), 11, x,
        +[](float v) { return v < 0 ? std::nanf("") : static_cast<float>(std::log2(double(v))); }, 4);
}

// bi_lower_fsincos_32: i = x * 2/pi + 1.5 * 2^19 puts x / (pi/32) in the low bits, e = x - i * pi/32, then
// sin/cos(x) ~ f(i) + e f'(i) - e^2/2 f(i) from the tables. Mesa's pi (3.14159) and the second-order series
// limit the accuracy to about 3e-5 on [-8, 8].
TEST(FloatLowering, SinCosMatchTheHost) {
  const std::vector<std::string> common = {
      "tuple p0=r0 fau=u0 ; *FMA.f32 src0=0 src1=4 src2=5 ; +NOP ; fma->r1",
      "tuple p0=r1 fau=u0 ; *NOP ; +FADD.f32 src0=0 src1=5 neg1=1 ; add->r2",
      "tuple p0=r0 p1=r2 fau=u1 ; *FMA.f32 src0=1 src1=4 src2=0 ; +NOP ; fma->r3",
      "tuple p0=r1 ; *NOP ; +FSIN_TABLE.u6 src0=0 ; add->r4",
      "tuple p0=r1 ; *NOP ; +FCOS_TABLE.u6 src0=0 ; add->r5",
      "tuple p0=r3 fau=u2 ; *FMA_RSCALE.f32 src0=0 src1=0 src2=4 src3=5 ; +NOP ; fma->r6"};
  std::vector<std::string> sin = common, cos = common;
  sin.push_back("tuple p0=r4 p1=r6 fau=u2 ; *FMA.f32 src0=1 src1=0 src2=4 negp=1 ; +NOP ; fma->r7");
  sin.push_back("tuple p0=r3 p1=r5 p2=r7 ; *FMA.f32 src0=0 src1=1 src2=2 clamp=2 ; +NOP ; fma->r8");
  sin.push_back("tuple p0=r4 p1=r8 ; *NOP ; +FADD.f32 src0=1 src1=0 ; add->r9");
  cos.push_back("tuple p0=r5 p1=r6 fau=u2 ; *FMA.f32 src0=1 src1=0 src2=4 negp=1 ; +NOP ; fma->r7");
  cos.push_back("tuple p0=r3 p1=r4 p2=r7 ; *FMA.f32 src0=0 src1=1 src2=2 negp=1 clamp=2 ; +NOP ; fma->r8");
  cos.push_back("tuple p0=r5 p1=r8 ; *NOP ; +FADD.f32 src0=1 src1=0 ; add->r9");
  std::vector<uint64_t> u = {fau(bits(2.0f / 3.14159f), 0x49400000u), fau(-3.14159f / 2.0f, 0.0f),
                             fau(0x80000000u, 0xffffffffu)};
  for (Lanes x : {Lanes{bits(0.0f), bits(0.5f), bits(-1.0f), bits(3.14159265f)},
                  Lanes{bits(2.0f), bits(-4.5f), bits(7.9f), bits(0.05f)}}) {
    for (bool is_cos : {false, true}) {
      auto r = run_clauses(is_cos ? cos : sin, x, u);
      ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
      for (unsigned l = 0; l < 4; ++l) {
        double want = is_cos ? std::cos(double(fl(x[l]))) : std::sin(double(fl(x[l])));
        EXPECT_NEAR(fl(r.regs[l][9]), want, 3e-5) << (is_cos ? "cos " : "sin ") << fl(x[l]);
      }
    }
  }
}

// ---------------------------------------------------------------- f16 widening of the f32 ops

// The widen field of FMA/FADD/FCMP.f32: a source may instead be one half of its register, converted exactly
// (FMA unit: 3 bits, pairs as in float.adl WIDEN0/WIDEN1; ADD unit: the first four). The registers' bits
// serve as floats and as pairs of halves.
TEST(FloatWiden, SourcesReadWidenedHalves) {
  const unsigned w0[8] = {0, 0, 0, 1, 1, 2, 1, 2}, w1[8] = {0, 1, 2, 1, 2, 2, 0, 0};
  auto widen = [](uint32_t v, unsigned w) {
    return w == 0 ? v : bits(static_cast<float>(h2d(half_of(v, w == 2))));
  };
  std::string why;
  for (unsigned w = 0; w < 8; ++w) {
    EXPECT_TRUE(fma_case(
        fmt("*FMA.f32 src0=0 src1=1 src2=2 widen=%u negp=1", w), {kH1, kH2, kF3},
        [&](unsigned l) {
          return ref_fma(widen(kH1[l], w0[w]), absneg(widen(kH2[l], w1[w]), false, true), kF3[l], 0);
        },
        why))
        << why;
    EXPECT_TRUE(fma_case(
        fmt("*FADD.f32 src0=0 src1=1 widen=%u abs0=1", w), {kH1, kH2, kF3},
        [&](unsigned l) {
          return ref_add(absneg(widen(kH1[l], w0[w]), true, false), widen(kH2[l], w1[w]), 0);
        },
        why))
        << why;
    EXPECT_TRUE(fma_case(
        fmt("FMA_FCMP_f32_m1 src0=0 src1=1 widen=%u cmpf=4", w), {kHc1, kHc2, kF3},
        [&](unsigned l) { return ref_bool(ref_fcmp(widen(kHc1[l], w0[w]), widen(kHc2[l], w1[w]), 4), 2); },
        why))
        << why;
    if (w >= 4) continue;
    EXPECT_TRUE(add_case(
        fmt("+FADD.f32 src0=0 src1=1 widen=%u neg1=1", w), {kH1, kH2},
        [&](unsigned l) {
          return ref_add(widen(kH1[l], w0[w]), absneg(widen(kH2[l], w1[w]), false, true), 0);
        },
        why))
        << why;
    EXPECT_TRUE(add_case(
        fmt("+FCMP.f32 src0=0 src1=1 widen=%u cmpf=5", w), {kHc1, kHc2},
        [&](unsigned l) { return ref_bool(ref_fcmp(widen(kHc1[l], w0[w]), widen(kHc2[l], w1[w]), 5), 0); },
        why))
        << why;
    EXPECT_TRUE(add_case(
        fmt("ADD_FCMP_f32_m1 src0=0 src1=1 widen=%u cmpf=1", w), {kHc1, kHc2},
        [&](unsigned l) { return ref_bool(ref_fcmp(widen(kHc1[l], w0[w]), widen(kHc2[l], w1[w]), 1), 2); },
        why))
        << why;
  }
}

std::string disassemble_text(const std::string& source) {
  auto words = bifrost_asm::assemble(source);
  size_t i = 0;
  DecodedClause dc;
  bool ok = decode_clause(
      kCodeVa,
      [&](uint64_t, uint64_t& lo, uint64_t& hi) {
        if (i + 1 >= words.size()) return false;
        lo = words[i];
        hi = words[i + 1];
        i += 2;
        return true;
      },
      dc);
  if (!ok || dc.exception) return "<invalid>";
  return disassemble_clause(dc);
}

TEST(FloatWiden, RoundTrips) {
  EXPECT_EQ(disassemble_text(
                "tuple p0=r1 p1=r2 p2=r3 ; *FMA.f32 src0=0 src1=1 src2=2 widen=4 negp=1 abs0=1 ; +NOP ; "
                "fma->r4"),
            "ds(0) eos \n{\n*FMA.f32 r4:t0, r1.h0.abs, r2.h1.neg, r3\n+NOP t1\n}\n");
  EXPECT_EQ(disassemble_text("tuple p0=r1 p1=r2 ; *FADD.f32 src0=0 src1=1 widen=7 neg0=1 ; +NOP ; fma->r4"),
            "ds(0) eos \n{\n*FADD.f32 r4:t0, r1.neg.h1, r2\n+NOP t1\n}\n");
  EXPECT_EQ(
      disassemble_text("tuple p0=r1 p1=r2 ; *FCMP.f32 src0=0 src1=1 widen=2 cmpf=1 abs1=1 ; +NOP ; fma->r4"),
      "ds(0) eos \n{\n*FCMP.f32.gt r4:t0, r1, r2.h1.abs\n+NOP t1\n}\n");
  EXPECT_EQ(disassemble_text("tuple p0=r1 p1=r2 ; *NOP ; +FADD.f32 src0=0 src1=1 widen=3 abs1=1 ; add->r4"),
            "ds(0) eos \n{\n*NOP t0\n+FADD.f32 r4:t1, r1.h0, r2.abs.h0\n}\n");
  EXPECT_EQ(disassemble_text("tuple p0=r1 p1=r2 ; *NOP ; +FCMP.f32 src0=0 src1=1 widen=1 cmpf=3 ; add->r4"),
            "ds(0) eos \n{\n*NOP t0\n+FCMP.f32.ne r4:t1, r1, r2.h0\n}\n");
}

// Modifiers the description does not implement are pinned: their encodings decode as unallocated, which the
// core reports as INSTR_INVALID_ENC. Each word is a valid encoding with the modifier's bits changed.
TEST(FloatPinned, UnmodelledModifiersAreUnallocated) {
  struct Pin {
    bool fma;
    const char* op; // a valid instruction ("NAME field=value ...")
    uint32_t clear, set;
  };
  const Pin pins[] = {
      {true, "FMA_FCMP_f32", 0, 7u << 13},                  // cmpf total
      {true, "FMA_FCMP_f32_m1", 0, 7u << 13},               // cmpf total
      {false, "ADD_FCMP_f32", 0, 7u << 6},                  // cmpf total
      {true, "FMA_FCMP_v2f16", 0, 7u << 13},                // cmpf total
      {false, "ADD_FCMP_v2f16", 0, 7u << 6},                // cmpf total
      {true, "FMA_FMA_RSCALE_f32", 0, 6u << 12},            // special scale16
      {true, "FMA_FMA_RSCALE_f32", 0, 7u << 12},            // special left
      {true, "FMA_FROUND_f32 widen0=1", 3u << 3, 2u << 3},  // widen0 h0
      {false, "ADD_FREXPM_f32 widen0=1", 3u << 3, 3u << 3}, // widen0 h1
      {false, "ADD_FRCP_APPROX_f32", 0, 1u << 5},           // divzero
      {false, "ADD_FEXP_TABLE_u4", 0, 1u << 3},             // adj small
      {false, "ADD_FLOG_TABLE_f32", 0, 1u << 5},            // red with divzero
      {false, "ADD_FSIN_TABLE_u6", 0, 1u << 4},             // offset
      {false, "ADD_V2F32_TO_V2F16", 0, 4u << 10},           // rtna
      {true, "FMA_V2F32_TO_V2F16", 0, 5u << 10},            // reserved rounding
  };
  for (const Pin& p : pins) {
    std::string text = p.op;
    bifrost_asm::Op op;
    op.name = text.substr(0, text.find(' '));
    if (text.find(' ') != std::string::npos) {
      std::string f = text.substr(text.find(' ') + 1);
      op.fields[f.substr(0, f.find('='))] = std::stoul(f.substr(f.find('=') + 1));
    }
    uint32_t valid = bifrost_asm::encode_op(op, p.fma);
    uint32_t pinned = (valid & ~p.clear) | p.set;
    ASSERT_NE(valid, pinned) << p.op;
    int id = p.fma ? gen::decode_fma(pinned) : gen::decode_add(pinned);
    EXPECT_EQ(id, -1) << p.op << " with bits 0x" << std::hex << p.set << " decodes as "
                      << (id >= 0 ? gen::kInsnInfo[id].name : "-");
  }
}

} // namespace
} // namespace bifrost_isa_test
