// Shared pieces of the per-instruction tests (isa_test.cpp and the isa_*_cases.cpp group files): lane data,
// host-arithmetic references, a quad runner, and the registry each instruction group adds its cases and round
// trips to. A group file registers with one static `CaseGroup`; see isa_base_cases.cpp.
#pragma once
#include "bifrost_env.h"
#include "bifrost_isa.h"
#include <array>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace bifrost_isa_test {

namespace gen = vplat::gen::bifrost;
using namespace bifrost_test;

using Lanes = std::array<uint32_t, 4>;

inline float fl(uint32_t v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline uint32_t bits(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

// ---- independent references (host arithmetic)

inline int host_mode(unsigned round) {
  static const int modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  return modes[round & 3];
}
template <class F> uint32_t with_rounding(unsigned round, F f) {
  int saved = std::fegetround();
  std::fesetround(host_mode(round));
  uint32_t r = f();
  std::fesetround(saved);
  return r;
}
inline uint32_t absneg(uint32_t v, bool abs, bool neg) {
  if (abs) v &= 0x7fffffffu;
  if (neg) v ^= 0x80000000u;
  return v;
}
inline uint32_t ref_clamp(uint32_t v, unsigned clamp) {
  float x = fl(v);
  if (clamp == 0 || std::isnan(x)) return v;
  float lo = clamp == 2 ? -1.0f : 0.0f, hi = clamp == 1 ? std::numeric_limits<float>::infinity() : 1.0f;
  return bits(std::min(std::max(x, lo), hi));
}
inline uint32_t ref_fma(uint32_t a, uint32_t b, uint32_t c, unsigned round) {
  return with_rounding(round, [&] {
    volatile float x = fl(a), y = fl(b), z = fl(c);
    volatile float r = std::fma(x, y, z);
    return bits(r);
  });
}
inline uint32_t ref_add(uint32_t a, uint32_t b, unsigned round) {
  return with_rounding(round, [&] {
    volatile float x = fl(a), y = fl(b);
    volatile float r = x + y;
    return bits(r);
  });
}
// A compare under cmpf (eq, gt, ge, ne, lt, le, gtlt) in host arithmetic; NaN compares unordered.
inline bool ref_cmp(double x, double y, unsigned cmpf) {
  switch (cmpf) {
  case 0:
    return x == y;
  case 1:
    return x > y;
  case 2:
    return x >= y;
  case 3:
    return !(x == y);
  case 4:
    return x < y;
  case 5:
    return x <= y;
  default:
    return x < y || x > y;
  }
}
inline bool ref_fcmp(uint32_t a, uint32_t b, unsigned cmpf) { return ref_cmp(fl(a), fl(b), cmpf); }
inline uint32_t ref_bool(bool b, unsigned result_type) {
  if (!b) return 0;
  return result_type == 1 ? 0x3f800000u : result_type == 2 ? 0xffffffffu : 1u;
}
// Float -> integer: saturating, NaN -> 0, and no rounding mode (0) means truncation (Mesa folds these ops as
// C casts "to match hardware rules", bi_opt_constant_fold.c).
inline uint32_t ref_f2i(uint32_t a, bool is_unsigned, unsigned round) {
  float x = fl(a);
  if (std::isnan(x)) return 0;
  if (round == 0) round = 3;
  double r = with_rounding(round, [&] {
    volatile float v = x;
    volatile float n = std::nearbyint(v);
    return bits(n);
  });
  r = fl(static_cast<uint32_t>(r));
  if (is_unsigned) {
    if (r <= 0) return 0;
    if (r >= 4294967295.0) return 0xffffffffu;
    return static_cast<uint32_t>(r);
  }
  if (r >= 2147483647.0) return 0x7fffffffu;
  if (r <= -2147483648.0) return 0x80000000u;
  return static_cast<uint32_t>(static_cast<int32_t>(r));
}
inline uint32_t ref_i2f(uint32_t a, bool is_unsigned, unsigned round) {
  return with_rounding(round, [&] {
    volatile uint32_t v = a;
    volatile float r = is_unsigned ? static_cast<float>(v) : static_cast<float>(static_cast<int32_t>(v));
    return bits(r);
  });
}

// ---- lane data: four lanes with different signs, magnitudes and edge cases
const Lanes kIntA = {7, 0xfffffff9u, 0x7fffffffu, 0x80000000u};
const Lanes kIntB = {5, 0xfffffffdu, 1, 0xffffffffu};
const Lanes kIntC = {3, 0x21, 0x1f, 0x0201}; // shifts: plain, >= 32, 31, byte lanes differ
const Lanes kF1 = {bits(1.5f), bits(-2.25f), bits(1e30f), bits(1.17549435e-38f)};
const Lanes kF2 = {bits(0.75f), bits(4.0f), bits(3e8f), bits(-0.5f)};
const Lanes kF3 = {bits(-3.0f), bits(0.125f), bits(-1e38f), bits(1e-45f)};
const Lanes kFcmpA = {bits(1.0f), bits(2.0f), bits(std::nanf("")), bits(-0.0f)};
const Lanes kFcmpB = {bits(1.0f), bits(1.0f), bits(3.0f), bits(0.0f)};
const Lanes kToInt = {bits(2.5f), bits(-3.5f), bits(3e9f), bits(-1e10f)};
const Lanes kToInt2 = {bits(std::nanf("")), bits(0.49999997f), bits(-0.5f), bits(4294967040.0f)};

struct Env {
  GpuEnv gpu;
  QuadResult run(const std::string& text, const std::vector<Lanes>& inputs,
                 const std::vector<uint64_t>& uniforms = {}) {
    gpu.load_code(kCodeVa, bifrost_asm::assemble(text));
    QuadLaunch l;
    l.entry = kCodeVa;
    for (unsigned lane = 0; lane < 4; ++lane)
      for (size_t r = 0; r < inputs.size(); ++r) l.regs[lane][r] = inputs[r][lane];
    l.uniforms = uniforms.data();
    l.uniform_count = static_cast<unsigned>(uniforms.size());
    return gpu.core->run_quad(l);
  }
};

// Checks one register on every lane; returns false with a message on the first mismatch.
inline bool check_lanes(const QuadResult& r, unsigned reg, const std::function<uint32_t(unsigned)>& want,
                        std::string& why) {
  if (r.status != QuadResult::Status::Done) {
    why = "run failed: " + r.error + " exception " + std::to_string(r.exception);
    return false;
  }
  for (unsigned lane = 0; lane < 4; ++lane) {
    uint32_t w = want(lane), got = r.regs[lane][reg];
    if (w != got) {
      char b[160];
      std::snprintf(b, sizeof b, "r%u lane %u: got 0x%08x, want 0x%08x", reg, lane, got, w);
      why = b;
      return false;
    }
  }
  return true;
}

// An FMA-unit op reading r0, r1, r2 through ports 0, 1, 2 as src0, src1, src2; the result lands in r10.
inline bool fma_case(const std::string& op, const std::vector<Lanes>& in,
                     const std::function<uint32_t(unsigned)>& want, std::string& why) {
  Env e;
  auto r = e.run("tuple p0=r0 p1=r1 p2=r2 ; " + op + " ; +NOP ; fma->r10", in);
  return check_lanes(r, 10, want, why);
}
// An ADD-unit op reading r0, r1 through ports 0, 1; the result lands in r11.
inline bool add_case(const std::string& op, const std::vector<Lanes>& in,
                     const std::function<uint32_t(unsigned)>& want, std::string& why) {
  Env e;
  auto r = e.run("tuple p0=r0 p1=r1 ; *NOP ; " + op + " ; add->r11", in);
  return check_lanes(r, 11, want, why);
}

// A test of one instruction: true when every lane matched, else false with the reason in `why`.
using Case = std::function<bool(std::string&)>;
using CaseMap = std::map<std::string, Case>;

struct RoundTrip {
  const char* name;
  const char* source;
  const char* text; // expected disassembly (Mesa syntax)
};

// gtest prints a round trip by its name.
inline void PrintTo(const RoundTrip& r, std::ostream* os) {
  *os << r.name;
}

// Every registered case, keyed by instruction name (as gen::kInsnInfo names it), and every round trip.
CaseMap& all_cases();
const std::vector<RoundTrip>& all_round_trips();

// One instruction group's tests; `add` runs once, before the first test looks at the registry.
struct CaseGroup {
  CaseGroup(void (*add)(CaseMap& cases), std::initializer_list<RoundTrip> round_trips);
};

} // namespace bifrost_isa_test
