// Tests of archdesc/bifrost/integer.adl and control.adl: each instruction on a quad whose lanes hold values
// chosen for the edge cases (sign bits, overflow, shift amounts at and above the element width, every byte
// and half lane), against a plain C++ computation written here from ISA.xml's description; and a hand-written
// Mesa-syntax round trip per instruction.
#include "isa_cases.h"

namespace bifrost_isa_test {
namespace {

// ---- independent references

uint32_t hw(uint32_t v, unsigned i) {
  return (v >> (16 * i)) & 0xffffu;
}
uint32_t bt(uint32_t v, unsigned i) {
  return (v >> (8 * i)) & 0xffu;
}
int32_t sx16(uint32_t v) {
  return static_cast<int16_t>(static_cast<uint16_t>(v));
}
int32_t sx8(uint32_t v) {
  return static_cast<int8_t>(static_cast<uint8_t>(v));
}
uint32_t mk16(uint32_t lo, uint32_t hi) {
  return (lo & 0xffffu) | (hi & 0xffffu) << 16;
}
uint32_t mk8(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return (a & 0xffu) | (b & 0xffu) << 8 | (c & 0xffu) << 16 | (d & 0xffu) << 24;
}
// swz (h00, h10, h01, h11): result half i takes source half (code >> i) & 1.
uint32_t swz(uint32_t v, unsigned code) {
  return mk16(hw(v, code & 1), hw(v, code >> 1 & 1));
}
uint32_t swapped(uint32_t v, bool s) {
  return s ? mk16(hw(v, 1), hw(v, 0)) : v;
}

// One element shifted (kind 0 <<, 1 logical >>, 2 arithmetic >>); amount modulo the element width (the
// model's documented assumption).
uint32_t shift_one(uint32_t x, uint32_t amount, unsigned bits, int kind) {
  uint32_t mask = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
  unsigned sh = amount % bits;
  x &= mask;
  if (kind == 0) return (x << sh) & mask;
  if (kind == 1) return x >> sh;
  int32_t s = bits == 16 ? sx16(x) : bits == 8 ? sx8(x) : static_cast<int32_t>(x);
  return static_cast<uint32_t>(s >> sh) & mask;
}
// Bytes of src2 that shift half 0 / half 1 of a v2i16 shift, from ISA.xml's lanes2 options.
std::array<unsigned, 2> v2_bytes(bool per_half, unsigned lanes) {
  if (!per_half) return {lanes, lanes}; // b00, b11, b22, b33
  if (lanes == 1) return {0, 1};        // b01
  if (lanes == 2) return {2, 3};        // b23
  return {0, 2};                        // b02
}
uint32_t combine(int op, uint32_t s, uint32_t b, unsigned not1, unsigned not_result) {
  if (op == 0) { // OR: encoded not1 = 0 means "not"
    uint32_t r = s | (not1 ? b : ~b);
    return not_result ? ~r : r;
  }
  if (op == 1) { // AND: encoded not_result = 0 means "not"
    uint32_t r = s & (not1 ? ~b : b);
    return not_result ? r : ~r;
  }
  uint32_t r = s ^ b;
  return not_result ? ~r : r;
}

int64_t clampi(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

// ---- lane data
const Lanes kA = {0x80017fffu, 0xffff0000u, 0x1234abcdu, 0x80ff7f01u};
const Lanes kB = {0x0001ffffu, 0x7fff8000u, 0xabcd1234u, 0x0180fe7fu};
// Shift amounts per byte: 0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 255: below, at and above 8 and 16.
const Lanes kSh = {0x100f0803u, 0x11000710u, 0x1f200901u, 0x00ff0f07u};

bool fail(const std::string& op, std::string& why) {
  why = op + ": " + why;
  return false;
}

// An ADD op with three register sources: r0, r1, r2 through ports 0, 1, 2; result in r11.
bool add3_case(const std::string& op, const std::vector<Lanes>& in,
               const std::function<uint32_t(unsigned)>& want, std::string& why) {
  Env e;
  auto r = e.run("tuple p0=r0 p1=r1 p2=r2 ; *NOP ; " + op + " ; add->r11", in);
  return check_lanes(r, 11, want, why);
}
// An FMA op with four per-lane sources: r3 reaches src3 as t0 (the previous tuple's FMA result, selector 6).
bool fma4_case(const std::string& op, const std::vector<Lanes>& in,
               const std::function<uint32_t(unsigned)>& want, std::string& why) {
  Env e;
  auto r = e.run(
      "tuple p0=r3 ; *MOV.i32 src0=0 ; +NOP\ntuple p0=r0 p1=r1 p2=r2 ; " + op + " ; +NOP ; fma->r10", in);
  return check_lanes(r, 10, want, why);
}

void add_shift_cases(CaseMap& c) {
  struct Shift {
    const char* mnemonic; // without the type
    int op;               // 0 or, 1 and, 2 xor, 3 none (ARSHIFT)
    int kind;             // 0 <<, 1 >>, 2 arithmetic >>
  };
  for (Shift s : {Shift{"LSHIFT_OR", 0, 0}, Shift{"RSHIFT_OR", 0, 1}, Shift{"LSHIFT_AND", 1, 0},
                  Shift{"RSHIFT_AND", 1, 1}, Shift{"LSHIFT_XOR", 2, 0}, Shift{"RSHIFT_XOR", 2, 1},
                  Shift{"ARSHIFT", 3, 2}}) {
    std::string base = s.mnemonic;
    auto fields = [s](unsigned nr, unsigned n1) {
      if (s.op == 3) return std::string(" src0=0 src2=2");
      std::string f = " src0=0 src1=1 src2=2 not_result=" + std::to_string(nr);
      if (s.op != 2) f += " not1=" + std::to_string(n1);
      return f;
    };
    auto result = [s](uint32_t shifted, unsigned l, unsigned nr, unsigned n1) {
      return s.op == 3 ? shifted : combine(s.op, shifted, kB[l], n1, nr);
    };
    unsigned nr_max = s.op == 3 ? 1 : 2, n1_max = s.op < 2 ? 2 : 1;
    c["FMA_" + base + "_v2i16"] = [=](std::string& why) {
      for (unsigned ph = 0; ph < 2; ++ph)
        for (unsigned lanes = ph; lanes < 4; ++lanes)
          for (unsigned nr = 0; nr < nr_max; ++nr)
            for (unsigned n1 = 0; n1 < n1_max; ++n1) {
              std::string op = "*" + base + ".v2i16" + fields(nr, n1) + " per_half=" + std::to_string(ph) +
                               " lanes2=" + std::to_string(lanes);
              auto by = v2_bytes(ph, lanes);
              auto want = [&](unsigned l) {
                uint32_t sh = mk16(shift_one(hw(kA[l], 0), bt(kSh[l], by[0]), 16, s.kind),
                                   shift_one(hw(kA[l], 1), bt(kSh[l], by[1]), 16, s.kind));
                return result(sh, l, nr, n1);
              };
              if (!fma_case(op, {kA, kB, kSh}, want, why)) return fail(op, why);
            }
      return true;
    };
    c["FMA_" + base + "_v4i8_rep"] = [=](std::string& why) {
      for (unsigned lane = 0; lane < 4; ++lane)
        for (unsigned nr = 0; nr < nr_max; ++nr)
          for (unsigned n1 = 0; n1 < n1_max; ++n1) {
            std::string op = "FMA_" + base + "_v4i8_rep" + fields(nr, n1) + " lanes2=" + std::to_string(lane);
            auto want = [&](unsigned l) {
              uint32_t sh = 0;
              for (unsigned i = 0; i < 4; ++i)
                sh |= shift_one(bt(kA[l], i), bt(kSh[l], lane), 8, s.kind) << (8 * i);
              return result(sh, l, nr, n1);
            };
            if (!fma_case(op, {kA, kB, kSh}, want, why)) return fail(op, why);
          }
      return true;
    };
    c["FMA_" + base + "_v4i8"] = [=](std::string& why) {
      for (unsigned nr = 0; nr < nr_max; ++nr)
        for (unsigned n1 = 0; n1 < n1_max; ++n1) {
          std::string op = "*" + base + ".v4i8" + fields(nr, n1);
          auto want = [&](unsigned l) {
            uint32_t sh = 0;
            for (unsigned i = 0; i < 4; ++i)
              sh |= shift_one(bt(kA[l], i), bt(kSh[l], i), 8, s.kind) << (8 * i);
            return result(sh, l, nr, n1);
          };
          if (!fma_case(op, {kA, kB, kSh}, want, why)) return fail(op, why);
        }
      return true;
    };
  }
}

void add_select_cases(CaseMap& c) {
  // src0/src1 compare per lane: equal, greater signed but smaller unsigned, ... ; halves differ in the v2
  // forms.
  const Lanes a = {5, 0xfffffffbu, 0x80000000u, 0x00017fffu};
  const Lanes b = {5, 3, 0x7fffffffu, 0x80008000u};
  auto csel32 = [=](const char* mnemonic, bool is_signed) {
    return [=](std::string& why) {
      for (unsigned cmpf = 0; cmpf < 2; ++cmpf) {
        std::string op = std::string(mnemonic) + " src0=0 src1=1 src2=2 src3=6 cmpf=" + std::to_string(cmpf);
        auto want = [&](unsigned l) {
          bool t = is_signed ? (cmpf ? int32_t(a[l]) >= int32_t(b[l]) : int32_t(a[l]) > int32_t(b[l]))
                             : (cmpf ? a[l] >= b[l] : a[l] > b[l]);
          return t ? kA[l] : kB[l];
        };
        if (!fma4_case(op, {a, b, kA, kB}, want, why)) return fail(op, why);
      }
      return true;
    };
  };
  c["FMA_CSEL_s32"] = csel32("*CSEL.s32", true);
  c["FMA_CSEL_u32"] = csel32("*CSEL.u32", false);
  auto csel16 = [=](const char* mnemonic, int kind /*0 eq, 1 signed, 2 unsigned*/) {
    return [=](std::string& why) {
      for (unsigned cmpf = 0; cmpf < (kind ? 2u : 1u); ++cmpf) {
        std::string op = std::string(mnemonic) + " src0=0 src1=1 src2=2 src3=6";
        if (kind) op += " cmpf=" + std::to_string(cmpf);
        auto want = [&](unsigned l) {
          uint32_t r = 0;
          for (unsigned i = 0; i < 2; ++i) {
            uint32_t x = hw(a[l], i), y = hw(b[l], i);
            bool t = kind == 0   ? x == y
                     : kind == 1 ? (cmpf ? sx16(x) >= sx16(y) : sx16(x) > sx16(y))
                                 : (cmpf ? x >= y : x > y);
            r |= hw(t ? kA[l] : kB[l], i) << (16 * i);
          }
          return r;
        };
        if (!fma4_case(op, {a, b, kA, kB}, want, why)) return fail(op, why);
      }
      return true;
    };
  };
  c["FMA_CSEL_v2i16"] = csel16("*CSEL.v2i16", 0);
  c["FMA_CSEL_v2s16"] = csel16("*CSEL.v2s16", 1);
  c["FMA_CSEL_v2u16"] = csel16("*CSEL.v2u16", 2);

  // MUX: the condition lanes hit 0, -0.0 (0x80000000), a negative non-zero and a positive non-zero value; the
  // v2 and v4 forms see the same patterns per element.
  const Lanes cond32 = {0, 0x80000000u, 0x80000001u, 0x7fffffffu};
  const Lanes cond16 = {0x80000000u, 0x00008001u, 0x7fff0000u, 0x00018000u};
  const Lanes cond8 = {0x00800180u, 0x7f00ff01u, 0x80808000u, 0x01000000u};
  auto pick = [](uint32_t a, uint32_t b, uint32_t c, unsigned bits, unsigned mux) -> uint32_t {
    uint32_t sign = 1u << (bits - 1);
    if (mux == 3) return (a & c) | (b & ~c); // bit set: src0
    bool t = mux == 0 ? (c & sign) != 0 : mux == 1 ? c == 0 : (c & (sign - 1)) == 0;
    return t ? a : b;
  };
  c["ADD_MUX_i32"] = [=](std::string& why) {
    for (unsigned mux = 0; mux < 4; ++mux) {
      std::string op = "+MUX.i32 src0=0 src1=1 src2=2 mux=" + std::to_string(mux);
      if (!add3_case(
              op, {kA, kB, cond32}, [&](unsigned l) { return pick(kA[l], kB[l], cond32[l], 32, mux); }, why))
        return fail(op, why);
    }
    return true;
  };
  c["ADD_MUX_v2i16"] = [=](std::string& why) {
    for (unsigned mux = 0; mux < 4; ++mux)
      for (unsigned sw = 0; sw < 8; sw += (mux == 1 ? 1 : 7)) {
        unsigned s0 = sw & 1, s1 = sw >> 1 & 1, s2 = sw >> 2 & 1;
        char op[128];
        std::snprintf(op, sizeof op, "+MUX.v2i16 src0=0 src1=1 src2=2 mux=%u swap0=%u swap1=%u swap2=%u", mux,
                      s0, s1, s2);
        auto want = [&](unsigned l) {
          uint32_t x = swapped(kA[l], s0), y = swapped(kB[l], s1), z = swapped(cond16[l], s2);
          return mk16(pick(hw(x, 0), hw(y, 0), hw(z, 0), 16, mux),
                      pick(hw(x, 1), hw(y, 1), hw(z, 1), 16, mux));
        };
        if (!add3_case(op, {kA, kB, cond16}, want, why)) return fail(op, why);
      }
    return true;
  };
  c["ADD_MUX_v4i8"] = [=](std::string& why) {
    for (unsigned mux = 0; mux < 2; ++mux) {
      std::string op = "+MUX.v4i8 src0=0 src1=1 src2=2 mux=" + std::to_string(mux);
      auto want = [&](unsigned l) {
        uint32_t r = 0;
        for (unsigned i = 0; i < 4; ++i)
          r |= pick(bt(kA[l], i), bt(kB[l], i), bt(cond8[l], i), 8, mux) << (8 * i);
        return r;
      };
      if (!add3_case(op, {kA, kB, cond8}, want, why)) return fail(op, why);
    }
    return true;
  };
}

void add_arith_cases(CaseMap& c) {
  c["FMA_IMUL_v2i16"] = [](std::string& why) {
    for (unsigned s0 = 0; s0 < 4; ++s0)
      for (unsigned s1 = 0; s1 < 4; s1 += 3) {
        std::string op =
            "*IMUL.v2i16 src0=0 src1=1 swz0=" + std::to_string(s0) + " swz1=" + std::to_string(s1);
        auto want = [&](unsigned l) {
          uint32_t x = swz(kA[l], s0), y = swz(kB[l], s1);
          return mk16(hw(x, 0) * hw(y, 0), hw(x, 1) * hw(y, 1));
        };
        if (!fma_case(op, {kA, kB}, want, why)) return fail(op, why);
      }
    return true;
  };
  c["FMA_IMUL_v4i8"] = [](std::string& why) {
    return fma_case(
        "*IMUL.v4i8 src0=0 src1=1", {kA, kB},
        [](unsigned l) {
          return mk8(bt(kA[l], 0) * bt(kB[l], 0), bt(kA[l], 1) * bt(kB[l], 1), bt(kA[l], 2) * bt(kB[l], 2),
                     bt(kA[l], 3) * bt(kB[l], 3));
        },
        why);
  };
  auto imul_wide = [](const char* name, bool half) {
    return [=](std::string& why) {
      for (unsigned lane = 0; lane < (half ? 2u : 4u); ++lane)
        for (unsigned ext = 0; ext < 2; ++ext) {
          std::string op = std::string(name) + " src0=0 src1=1 lane1=" + std::to_string(lane) +
                           " extend=" + std::to_string(ext);
          auto want = [&](unsigned l) {
            uint32_t raw = half ? hw(kB[l], lane) : bt(kB[l], lane);
            uint32_t y = ext ? uint32_t(half ? sx16(raw) : sx8(raw)) : raw;
            return kA[l] * y;
          };
          if (!fma_case(op, {kA, kB}, want, why)) return fail(op, why);
        }
      return true;
    };
  };
  c["FMA_IMUL_i32_h"] = imul_wide("FMA_IMUL_i32_h", true);
  c["FMA_IMUL_i32_b"] = imul_wide("FMA_IMUL_i32_b", false);
  c["FMA_IDP_v4i8"] = [](std::string& why) {
    for (unsigned sg = 0; sg < 4; ++sg) {
      unsigned s0 = sg & 1, s1 = sg >> 1;
      std::string op = "*IDP.v4i8 src0=0 src1=1 sign0=" + std::to_string(s0) + " sign1=" + std::to_string(s1);
      auto want = [&](unsigned l) {
        int64_t sum = 0;
        for (unsigned i = 0; i < 4; ++i) {
          int64_t x = s0 ? sx8(bt(kA[l], i)) : int64_t(bt(kA[l], i));
          int64_t y = s1 ? sx8(bt(kB[l], i)) : int64_t(bt(kB[l], i));
          sum += x * y;
        }
        return uint32_t(sum);
      };
      if (!fma_case(op, {kA, kB}, want, why)) return fail(op, why);
    }
    return true;
  };
  c["FMA_IMUL_v4i8_rep"] = [](std::string& why) {
    for (unsigned lane = 0; lane < 4; ++lane) {
      std::string op = "FMA_IMUL_v4i8_rep src0=0 src1=1 lane1=" + std::to_string(lane);
      auto want = [&](unsigned l) {
        uint32_t y = bt(kB[l], lane);
        return mk8(bt(kA[l], 0) * y, bt(kA[l], 1) * y, bt(kA[l], 2) * y, bt(kA[l], 3) * y);
      };
      if (!fma_case(op, {kA, kB}, want, why)) return fail(op, why);
    }
    return true;
  };
  // Halving adds: sums that overflow 32 bits, odd sums (the rounding direction shows), negative sums.
  auto hadd = [](const char* name, bool is_signed) {
    return [=](std::string& why) {
      const Lanes a = {0x7fffffffu, 0xffffffffu, 0x80000000u, 3};
      const Lanes b = {0x7fffffffu, 0xfffffffeu, 0x80000001u, 0xfffffffau};
      for (unsigned round = 0; round < 2; ++round) {
        std::string op = std::string(name) + " src0=0 src1=1 round=" + std::to_string(round);
        auto want = [&](unsigned l) {
          int64_t x = is_signed ? int64_t(int32_t(a[l])) : int64_t(a[l]);
          int64_t y = is_signed ? int64_t(int32_t(b[l])) : int64_t(b[l]);
          int64_t sum = x + y + round;
          return uint32_t(sum >= 0 ? sum / 2 : -((-sum + 1) / 2)); // floor division by 2
        };
        if (!add_case(op, {a, b}, want, why)) return fail(op, why);
      }
      return true;
    };
  };
  c["ADD_HADD_s32"] = hadd("+HADD.s32", true);
  c["ADD_HADD_u32"] = hadd("+HADD.u32", false);
  c["ADD_IABS_v2s16"] = [](std::string& why) {
    const Lanes a = {0x80000001u, 0xffff7fffu, 0x00008000u, 0xfffe0002u};
    for (unsigned sw = 0; sw < 4; ++sw) {
      std::string op = "+IABS.v2s16 src0=0 swz0=" + std::to_string(sw);
      auto want = [&](unsigned l) {
        uint32_t x = swz(a[l], sw);
        auto ab = [](uint32_t h) {
          int32_t v = sx16(h);
          return uint32_t(v < 0 ? -v : v) & 0xffffu;
        };
        return mk16(ab(hw(x, 0)), ab(hw(x, 1)));
      };
      if (!add_case(op, {a}, want, why)) return fail(op, why);
    }
    return true;
  };
  c["ADD_IABS_v4s8"] = [](std::string& why) {
    const Lanes a = {0x80ff7f01u, 0x00fe8102u, 0x7f808080u, 0xff00ff00u};
    return add_case(
        "+IABS.v4s8 src0=0", {a},
        [&](unsigned l) {
          uint32_t r = 0;
          for (unsigned i = 0; i < 4; ++i) {
            int32_t v = sx8(bt(a[l], i));
            r |= (uint32_t(v < 0 ? -v : v) & 0xffu) << (8 * i);
          }
          return r;
        },
        why);
  };
  // Carry/borrow in: only bit 0 of src2 counts; lane 3's 0xfffffffe has it clear.
  const Lanes carry = {1, 0, 1, 0xfffffffeu};
  c["FMA_IADDC_i32"] = [=](std::string& why) {
    return fma_case(
        "*IADDC.i32 src0=0 src1=1 src2=2", {kA, kB, carry},
        [&](unsigned l) { return uint32_t(uint64_t(kA[l]) + kB[l] + (carry[l] & 1)); }, why);
  };
  c["FMA_ISUBB_i32"] = [=](std::string& why) {
    return fma_case(
        "*ISUBB.i32 src0=0 src1=1 src2=2", {kA, kB, carry},
        [&](unsigned l) { return uint32_t(uint64_t(kA[l]) - kB[l] - (carry[l] & 1)); }, why);
  };

  // 32-bit add/sub of an extended half/byte of src1, plain and saturating.
  auto lanes_op = [](const char* name, bool sub, bool is_signed, bool half) {
    return [=](std::string& why) {
      const Lanes a = {0x7ffffff0u, 0x80000005u, 0xfffffff0u, 5};
      for (unsigned lane = 0; lane < (half ? 2u : 4u); ++lane)
        for (unsigned sat = 0; sat < 2; ++sat) {
          std::string op = std::string(name) + " src0=0 src1=1 lane1=" + std::to_string(lane) +
                           " saturate=" + std::to_string(sat);
          auto want = [&](unsigned l) {
            uint32_t raw = half ? hw(kB[l], lane) : bt(kB[l], lane);
            int64_t y = is_signed ? (half ? sx16(raw) : sx8(raw)) : int64_t(raw);
            int64_t x = is_signed ? int64_t(int32_t(a[l])) : int64_t(a[l]);
            int64_t v = sub ? x - y : x + y;
            if (sat) v = is_signed ? clampi(v, INT32_MIN, INT32_MAX) : clampi(v, 0, UINT32_MAX);
            return uint32_t(v);
          };
          if (!add_case(op, {a, kB}, want, why)) return fail(op, why);
        }
      return true;
    };
  };
  c["ADD_IADD_s32_h"] = lanes_op("ADD_IADD_s32_h", false, true, true);
  c["ADD_IADD_u32_h"] = lanes_op("ADD_IADD_u32_h", false, false, true);
  c["ADD_IADD_s32_b"] = lanes_op("ADD_IADD_s32_b", false, true, false);
  c["ADD_IADD_u32_b"] = lanes_op("ADD_IADD_u32_b", false, false, false);
  c["ADD_ISUB_s32_h"] = lanes_op("ADD_ISUB_s32_h", true, true, true);
  c["ADD_ISUB_u32_h"] = lanes_op("ADD_ISUB_u32_h", true, false, true);
  c["ADD_ISUB_s32_b"] = lanes_op("ADD_ISUB_s32_b", true, true, false);
  c["ADD_ISUB_u32_b"] = lanes_op("ADD_ISUB_u32_b", true, false, false);

  // Vector add/sub: every element overflows somewhere in kA/kB.
  auto vec_op = [](const char* name, bool sub, bool is_signed, unsigned bits, bool sat_only, bool swaps) {
    return [=](std::string& why) {
      for (unsigned sat = sat_only ? 1 : 0; sat < 2; ++sat)
        for (unsigned sw = 0; sw < (swaps ? 4u : 1u); ++sw) {
          std::string op = std::string(name) + " src0=0 src1=1";
          if (!sat_only) op += " saturate=" + std::to_string(sat);
          if (swaps) op += " lanes0=" + std::to_string(sw & 1) + " lanes1=" + std::to_string(sw >> 1);
          auto want = [&](unsigned l) {
            uint32_t x = bits == 16 ? swapped(kA[l], sw & 1) : kA[l];
            uint32_t y = bits == 16 ? swapped(kB[l], sw >> 1) : kB[l];
            uint32_t r = 0;
            for (unsigned i = 0; i < 32 / bits; ++i) {
              uint32_t ex = bits == 16 ? hw(x, i) : bt(x, i), ey = bits == 16 ? hw(y, i) : bt(y, i);
              int64_t p = is_signed ? (bits == 16 ? sx16(ex) : sx8(ex)) : int64_t(ex);
              int64_t q = is_signed ? (bits == 16 ? sx16(ey) : sx8(ey)) : int64_t(ey);
              int64_t v = sub ? p - q : p + q;
              int64_t maxu = (int64_t(1) << bits) - 1, maxs = (int64_t(1) << (bits - 1)) - 1;
              if (sat) v = is_signed ? clampi(v, -maxs - 1, maxs) : clampi(v, 0, maxu);
              r |= (uint32_t(v) & uint32_t(maxu)) << (bits * i);
            }
            return r;
          };
          if (!add_case(op, {kA, kB}, want, why)) return fail(op, why);
        }
      return true;
    };
  };
  c["ADD_IADD_v2s16"] = vec_op("+IADD.v2s16", false, true, 16, false, true);
  c["ADD_IADD_v2u16_sat"] = vec_op("ADD_IADD_v2u16_sat", false, false, 16, true, true);
  c["ADD_ISUB_v2s16"] = vec_op("+ISUB.v2s16", true, true, 16, false, true);
  c["ADD_ISUB_v2u16_sat"] = vec_op("ADD_ISUB_v2u16_sat", true, false, 16, true, true);
  c["ADD_IADD_v4s8"] = vec_op("+IADD.v4s8", false, true, 8, false, false);
  c["ADD_IADD_v4u8_sat"] = vec_op("ADD_IADD_v4u8_sat", false, false, 8, true, false);
  c["ADD_ISUB_v4s8"] = vec_op("+ISUB.v4s8", true, true, 8, false, false);
  c["ADD_ISUB_v4u8_sat"] = vec_op("ADD_ISUB_v4u8_sat", true, false, 8, true, false);

  // src1 as a replicated half or as two bytes widened to halves.
  auto v2_ext = [](const char* name, bool sub, bool is_signed, bool bytes, bool sat_only) {
    return [=](std::string& why) {
      for (unsigned lane = 0; lane < 2; ++lane)
        for (unsigned sat = sat_only ? 1 : 0; sat < 2; ++sat) {
          std::string op = std::string(name) + " src0=0 src1=1 lanes1=" + std::to_string(lane);
          if (!sat_only) op += " saturate=" + std::to_string(sat);
          auto want = [&](unsigned l) {
            uint32_t r = 0;
            for (unsigned i = 0; i < 2; ++i) {
              int64_t p = is_signed ? sx16(hw(kA[l], i)) : int64_t(hw(kA[l], i));
              int64_t q;
              if (bytes) {
                uint32_t raw = bt(kB[l], 2 * lane + i);
                q = is_signed ? sx8(raw) : int64_t(raw);
              } else {
                uint32_t raw = hw(kB[l], lane);
                q = is_signed ? sx16(raw) : int64_t(raw);
              }
              int64_t v = sub ? p - q : p + q;
              if (sat) v = is_signed ? clampi(v, -32768, 32767) : clampi(v, 0, 65535);
              r |= (uint32_t(v) & 0xffffu) << (16 * i);
            }
            return r;
          };
          if (!add_case(op, {kA, kB}, want, why)) return fail(op, why);
        }
      return true;
    };
  };
  c["ADD_IADD_v2s16_rep"] = v2_ext("ADD_IADD_v2s16_rep", false, true, false, false);
  c["ADD_IADD_v2u16_sat_rep"] = v2_ext("ADD_IADD_v2u16_sat_rep", false, false, false, true);
  c["ADD_IADD_v2s16_b"] = v2_ext("ADD_IADD_v2s16_b", false, true, true, false);
  c["ADD_IADD_v2u16_b"] = v2_ext("ADD_IADD_v2u16_b", false, false, true, false);
  c["ADD_ISUB_v2s16_rep"] = v2_ext("ADD_ISUB_v2s16_rep", true, true, false, false);
  c["ADD_ISUB_v2u16_sat_rep"] = v2_ext("ADD_ISUB_v2u16_sat_rep", true, false, false, true);
  c["ADD_ISUB_v2s16_b"] = v2_ext("ADD_ISUB_v2s16_b", true, true, true, false);
  c["ADD_ISUB_v2u16_b"] = v2_ext("ADD_ISUB_v2u16_b", true, false, true, false);

  // v4 forms with src1 as one replicated byte (pair = false) or a replicated byte pair (pair = true).
  auto v4_ext = [](const char* name, bool sub, bool is_signed, bool pair, bool sat_only) {
    return [=](std::string& why) {
      for (unsigned lane = 0; lane < (pair ? 2u : 4u); ++lane)
        for (unsigned sat = sat_only ? 1 : 0; sat < 2; ++sat) {
          std::string op = std::string(name) + " src0=0 src1=1 lanes1=" + std::to_string(lane);
          if (!sat_only) op += " saturate=" + std::to_string(sat);
          auto want = [&](unsigned l) {
            uint32_t r = 0;
            for (unsigned i = 0; i < 4; ++i) {
              uint32_t ex = bt(kA[l], i), ey = bt(kB[l], pair ? 2 * lane + (i & 1) : lane);
              int64_t p = is_signed ? sx8(ex) : int64_t(ex), q = is_signed ? sx8(ey) : int64_t(ey);
              int64_t v = sub ? p - q : p + q;
              if (sat) v = is_signed ? clampi(v, -128, 127) : clampi(v, 0, 255);
              r |= (uint32_t(v) & 0xffu) << (8 * i);
            }
            return r;
          };
          if (!add_case(op, {kA, kB}, want, why)) return fail(op, why);
        }
      return true;
    };
  };
  c["ADD_IADD_v4s8_rep"] = v4_ext("ADD_IADD_v4s8_rep", false, true, false, false);
  c["ADD_IADD_v4u8_sat_rep"] = v4_ext("ADD_IADD_v4u8_sat_rep", false, false, false, true);
  c["ADD_IADD_v4s8_h"] = v4_ext("ADD_IADD_v4s8_h", false, true, true, false);
  c["ADD_IADD_v4u8_sat_h"] = v4_ext("ADD_IADD_v4u8_sat_h", false, false, true, true);
  c["ADD_ISUB_v4s8_rep"] = v4_ext("ADD_ISUB_v4s8_rep", true, true, false, false);
  c["ADD_ISUB_v4u8_sat_rep"] = v4_ext("ADD_ISUB_v4u8_sat_rep", true, false, false, true);
  c["ADD_ISUB_v4s8_h"] = v4_ext("ADD_ISUB_v4s8_h", true, true, true, false);
  c["ADD_ISUB_v4u8_sat_h"] = v4_ext("ADD_ISUB_v4u8_sat_h", true, false, true, true);

  c["ADD_IABS_s32"] = [](std::string& why) {
    const Lanes a = {0x80000000u, 0xffffffffu, 0x7fffffffu, 0};
    return add_case(
        "+IABS.s32 src0=0", {a},
        [&](unsigned l) {
          int64_t v = int32_t(a[l]);
          return uint32_t(v < 0 ? -v : v); // INT32_MIN wraps to itself
        },
        why);
  };

  // Vector compares.
  auto vcmp = [](const char* name, unsigned bits, int kind /*0 eq/ne, 1 signed, 2 unsigned*/, bool swizzles) {
    return [=](std::string& why) {
      const Lanes a = {0x8000ffffu, 0x12347f80u, 0x00010001u, 0xff0080feu};
      const Lanes b = {0x7fff8000u, 0x12348080u, 0x00010000u, 0x0100ff02u};
      for (unsigned cmpf = 0; cmpf < 2; ++cmpf)
        for (unsigned rt = 0; rt < 2; ++rt)
          for (unsigned s = 0; s < (swizzles ? 4u : 1u); ++s) {
            unsigned s0 = swizzles ? (s == 1 ? 1 : s == 3 ? 3 : 2) : 2, s1 = swizzles ? (s == 2 ? 0 : 2) : 2;
            std::string op = std::string(name) + " src0=0 src1=1 cmpf=" + std::to_string(cmpf) +
                             " result_type=" + std::to_string(rt);
            if (swizzles) op += " swz0=" + std::to_string(s0) + " swz1=" + std::to_string(s1);
            auto want = [&](unsigned l) {
              uint32_t x = bits == 16 ? swz(a[l], s0) : a[l], y = bits == 16 ? swz(b[l], s1) : b[l], r = 0;
              for (unsigned i = 0; i < 32 / bits; ++i) {
                uint32_t ex = bits == 16 ? hw(x, i) : bt(x, i), ey = bits == 16 ? hw(y, i) : bt(y, i);
                int64_t p = kind == 1 ? (bits == 16 ? sx16(ex) : sx8(ex)) : int64_t(ex);
                int64_t q = kind == 1 ? (bits == 16 ? sx16(ey) : sx8(ey)) : int64_t(ey);
                bool t = kind == 0 ? (cmpf ? p != q : p == q) : (cmpf ? p >= q : p > q);
                uint32_t one = rt ? (bits == 16 ? 0xffffu : 0xffu) : 1u;
                r |= (t ? one : 0u) << (bits * i);
              }
              return r;
            };
            if (!add_case(op, {a, b}, want, why)) return fail(op, why);
          }
      return true;
    };
  };
  c["ADD_ICMP_v2i16"] = vcmp("+ICMP.v2i16", 16, 0, true);
  c["ADD_ICMP_v2s16"] = vcmp("+ICMP.v2s16", 16, 1, true);
  c["ADD_ICMP_v2u16"] = vcmp("+ICMP.v2u16", 16, 2, true);
  c["ADD_ICMP_v4i8"] = vcmp("+ICMP.v4i8", 8, 0, false);
  c["ADD_ICMP_v4s8"] = vcmp("+ICMP.v4s8", 8, 1, false);
  c["ADD_ICMP_v4u8"] = vcmp("+ICMP.v4u8", 8, 2, false);
}

void add_bit_cases(CaseMap& c) {
  const Lanes v = {0, 0x00008000u, 0x80000001u, 0x00ff0100u};
  auto clz = [](uint32_t x, unsigned bits) {
    unsigned n = 0;
    for (int i = int(bits) - 1; i >= 0 && !(x >> i & 1); --i) ++n;
    return n;
  };
  c["FMA_CLZ_u32"] = [=](std::string& why) {
    return fma_case(
        "*CLZ.u32 src0=0", {v}, [&](unsigned l) { return clz(v[l], 32); }, why);
  };
  c["FMA_CLZ_v2u16"] = [=](std::string& why) {
    for (unsigned s = 0; s < 4; ++s) {
      std::string op = "*CLZ.v2u16 src0=0 swz0=" + std::to_string(s);
      auto want = [&](unsigned l) {
        uint32_t x = swz(v[l], s);
        return mk16(clz(hw(x, 0), 16), clz(hw(x, 1), 16));
      };
      if (!fma_case(op, {v}, want, why)) return fail(op, why);
    }
    return true;
  };
  c["FMA_CLZ_v4u8"] = [=](std::string& why) {
    return fma_case(
        "*CLZ.v4u8 src0=0", {v},
        [&](unsigned l) {
          return mk8(clz(bt(v[l], 0), 8), clz(bt(v[l], 1), 8), clz(bt(v[l], 2), 8), clz(bt(v[l], 3), 8));
        },
        why);
  };
  c["FMA_POPCOUNT_i32"] = [](std::string& why) {
    const Lanes p = {0, 0xffffffffu, 0x80000001u, 0x12345678u}; // 0, 32, 2, 13
    const Lanes n = {0, 32, 2, 13};
    return fma_case(
        "*POPCOUNT.i32 src0=0", {p}, [&](unsigned l) { return n[l]; }, why);
  };
  c["FMA_BITREV_i32"] = [](std::string& why) {
    const Lanes p = {1, 0x80000000u, 0x12345678u, 0xf0000000u};
    const Lanes r = {0x80000000u, 1, 0x1e6a2c48u, 0x0000000fu}; // reversed by hand
    return fma_case(
        "*BITREV.i32 src0=0", {p}, [&](unsigned l) { return r[l]; }, why);
  };
}

void add_convert_cases(CaseMap& c) {
  // kA/kB hold halves and bytes with and without their sign bit set.
  auto half_cvt = [](const char* name, bool fma, bool is_signed) {
    return [=](std::string& why) {
      for (unsigned lane = 0; lane < 2; ++lane) {
        std::string op = std::string(name) + " src0=0 lane0=" + std::to_string(lane);
        auto want = [&](unsigned l) { return is_signed ? uint32_t(sx16(hw(kA[l], lane))) : hw(kA[l], lane); };
        if (!(fma ? fma_case(op, {kA}, want, why) : add_case(op, {kA}, want, why))) return fail(op, why);
      }
      return true;
    };
  };
  auto byte_cvt = [](const char* name, bool fma, bool is_signed) {
    return [=](std::string& why) {
      for (unsigned lane = 0; lane < 4; ++lane) {
        std::string op = std::string(name) + " src0=0 lane0=" + std::to_string(lane);
        auto want = [&](unsigned l) { return is_signed ? uint32_t(sx8(bt(kB[l], lane))) : bt(kB[l], lane); };
        if (!(fma ? fma_case(op, {kB}, want, why) : add_case(op, {kB}, want, why))) return fail(op, why);
      }
      return true;
    };
  };
  c["FMA_S16_TO_S32"] = half_cvt("*S16_TO_S32", true, true);
  c["FMA_U16_TO_U32"] = half_cvt("*U16_TO_U32", true, false);
  c["ADD_S16_TO_S32"] = half_cvt("+S16_TO_S32", false, true);
  c["ADD_U16_TO_U32"] = half_cvt("+U16_TO_U32", false, false);
  c["FMA_S8_TO_S32"] = byte_cvt("*S8_TO_S32", true, true);
  c["FMA_U8_TO_U32"] = byte_cvt("*U8_TO_U32", true, false);
  c["ADD_S8_TO_S32"] = byte_cvt("+S8_TO_S32", false, true);
  c["ADD_U8_TO_U32"] = byte_cvt("+U8_TO_U32", false, false);
  auto v2 = [](const char* name, bool is_signed) {
    return [=](std::string& why) {
      for (unsigned s = 0; s < 16; ++s) {
        std::string op = std::string(name) + " src0=0 swz0=" + std::to_string(s);
        auto want = [&](unsigned l) {
          uint32_t lo = bt(kB[l], s & 3), hi = bt(kB[l], s >> 2);
          return is_signed ? mk16(uint32_t(sx8(lo)), uint32_t(sx8(hi))) : mk16(lo, hi);
        };
        if (!add_case(op, {kB}, want, why)) return fail(op, why);
      }
      return true;
    };
  };
  c["ADD_V2S8_TO_V2S16"] = v2("+V2S8_TO_V2S16", true);
  c["ADD_V2U8_TO_V2U16"] = v2("+V2U8_TO_V2U16", false);
  c["ADD_SWZ_v2i16"] = [](std::string& why) {
    for (unsigned sw = 0; sw < 2; ++sw) {
      std::string op = "+SWZ.v2i16 src0=0 swz0=" + std::to_string(sw);
      // swz0 0 = h00 (low half twice), 1 = h10 (halves exchanged)
      if (!add_case(
              op, {kA},
              [&](unsigned l) {
                return sw ? mk16(hw(kA[l], 1), hw(kA[l], 0)) : mk16(hw(kA[l], 0), hw(kA[l], 0));
              },
              why))
        return fail(op, why);
    }
    return true;
  };
  c["ADD_SWZ_v2i16_h11"] = [](std::string& why) {
    return add_case(
        "ADD_SWZ_v2i16_h11 src0=0", {kA}, [](unsigned l) { return mk16(hw(kA[l], 1), hw(kA[l], 1)); }, why);
  };
  c["ADD_SWZ_v4i8"] = [](std::string& why) {
    // Byte i of the result comes from the i-th digit of the option's name.
    const char* names[8] = {"0000", "1111", "2222", "3333", "0011", "2233", "1032", "3210"};
    for (unsigned sw = 0; sw < 8; ++sw) {
      std::string op = "+SWZ.v4i8 src0=0 swz0=" + std::to_string(sw);
      auto want = [&](unsigned l) {
        uint32_t r = 0;
        for (unsigned i = 0; i < 4; ++i) r |= bt(kA[l], unsigned(names[sw][i] - '0')) << (8 * i);
        return r;
      };
      if (!add_case(op, {kA}, want, why)) return fail(op, why);
    }
    return true;
  };
  c["FMA_MKVEC_v2i16"] = [](std::string& why) {
    for (unsigned s = 0; s < 4; ++s) {
      std::string op =
          "*MKVEC.v2i16 src0=0 src1=1 lane0=" + std::to_string(s & 1) + " lane1=" + std::to_string(s >> 1);
      if (!fma_case(
              op, {kA, kB}, [&](unsigned l) { return mk16(hw(kA[l], s & 1), hw(kB[l], s >> 1)); }, why))
        return fail(op, why);
    }
    return true;
  };
  c["FMA_MKVEC_v4i8"] = [](std::string& why) {
    for (unsigned s : {0u, 5u, 10u, 15u, 9u}) {
      char op[128];
      std::snprintf(op, sizeof op,
                    "*MKVEC.v4i8 src0=0 src1=1 src2=2 src3=6 lane0=%u lane1=%u lane2=%u lane3=%u", s & 1,
                    s >> 1 & 1, s >> 2 & 1, s >> 3 & 1);
      auto want = [&](unsigned l) {
        const Lanes* src[4] = {&kA, &kB, &kSh, &kA};
        uint32_t r = 0;
        for (unsigned i = 0; i < 4; ++i) r |= bt((*src[i])[l], (s >> i & 1) * 2) << (8 * i);
        return r;
      };
      // src3 is t0 = r3, which holds kA again.
      if (!fma4_case(op, {kA, kB, kSh, kA}, want, why)) return fail(op, why);
    }
    return true;
  };
}

// ---- lane and control-flow ops

// Branch cases: clause A branches (or not) per lane; the fall-through clause B and the target clause C write
// different markers to r20, so each lane shows which way it went; lanes that go different ways diverge and
// the core runs B and C for their lanes only.
bool run_branch(const std::string& op, const Lanes& cond, const std::function<bool(uint32_t)>& taken,
                std::string& why) {
  Env e;
  auto a = bifrost_asm::assemble("header flow=1\ntuple p0=r0 fau=c0 ; *NOP ; " + op + "\nconst pchi 48");
  auto b = bifrost_asm::assemble("tuple fau=u0 ; *MOV.i32 src0=4 ; +NOP ; fma->r20\n");
  auto c = bifrost_asm::assemble("tuple fau=u0 ; *MOV.i32 src0=5 ; +NOP ; fma->r20\n");
  if (a.size() != 4 || b.size() != 2) return why = "unexpected clause sizes", false;
  uint64_t at = e.gpu.load_code(kCodeVa, a);
  at = e.gpu.load_code(at, b);
  e.gpu.load_code(at, c);
  std::vector<uint64_t> uniforms = {0x00000c0000000b00ull};
  QuadLaunch l;
  l.entry = kCodeVa;
  l.uniforms = uniforms.data();
  l.uniform_count = 1;
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = cond[i];
  auto r = e.gpu.core->run_quad(l);
  return check_lanes(
      r, 20, [&](unsigned i) { return taken(cond[i]) ? 0xc00u : 0xb00u; }, why);
}

void add_control_cases(CaseMap& c) {
  // Halves zero / non-zero in different combinations per lane.
  const Lanes h = {0x00010000u, 0x00000001u, 0, 0xffff0000u};
  c["ADD_BRANCHZ_i16"] = [=](std::string& why) {
    return run_branch(
               "+BRANCHZ.i16 src0=0 src2=5 eq=1", h, [](uint32_t v) { return (v & 0xffff) == 0; }, why) &&
           run_branch(
               "+BRANCHZ.i16 src0=0 src2=5 eq=0", h, [](uint32_t v) { return (v & 0xffff) != 0; }, why);
  };
  c["ADD_BRANCHZ_i16_h1"] = [=](std::string& why) {
    return run_branch(
               "ADD_BRANCHZ_i16_h1 src0=0 src2=5 eq=1", h, [](uint32_t v) { return (v >> 16) == 0; }, why) &&
           run_branch(
               "ADD_BRANCHZ_i16_h1 src0=0 src2=5 eq=0", h, [](uint32_t v) { return (v >> 16) != 0; }, why);
  };
  const Lanes s = {0, 5, 0x80000000u, 0xffffffffu};
  c["ADD_BRANCHZ_s32"] = [=](std::string& why) {
    for (unsigned cmpf = 0; cmpf < 4; ++cmpf) {
      std::string op = "+BRANCHZ.s32 src0=0 src2=5 cmpf=" + std::to_string(cmpf);
      auto taken = [cmpf](uint32_t v) {
        int32_t x = int32_t(v);
        return cmpf == 0 ? x < 0 : cmpf == 1 ? x <= 0 : cmpf == 2 ? x >= 0 : x > 0;
      };
      if (!run_branch(op, s, taken, why)) return fail(op, why);
    }
    return true;
  };
  // 16-bit forms: halves that are zero, negative as s16 and positive, in different lanes.
  const Lanes hv = {0x80000000u, 0x00057fffu, 0xffff0000u, 0x0000fffbu};
  auto branchz16 = [hv](const char* name, bool is_signed, unsigned half) {
    return [=](std::string& why) {
      for (unsigned cmpf = 0; cmpf < 4; ++cmpf) {
        std::string op = std::string(name) + " src0=0 src2=5 cmpf=" + std::to_string(cmpf);
        auto taken = [=](uint32_t v) {
          int64_t x = is_signed ? sx16(hw(v, half)) : int64_t(hw(v, half));
          return cmpf == 0 ? x < 0 : cmpf == 1 ? x <= 0 : cmpf == 2 ? x >= 0 : x > 0;
        };
        if (!run_branch(op, hv, taken, why)) return fail(op, why);
      }
      return true;
    };
  };
  c["ADD_BRANCHZ_s16"] = branchz16("+BRANCHZ.s16", true, 0);
  c["ADD_BRANCHZ_s16_h1"] = branchz16("ADD_BRANCHZ_s16_h1", true, 1);
  c["ADD_BRANCHZ_u16"] = branchz16("+BRANCHZ.u16", false, 0);
  c["ADD_BRANCHZ_u16_h1"] = branchz16("ADD_BRANCHZ_u16_h1", false, 1);
  c["ADD_BRANCHZ_u32"] = [=](std::string& why) {
    for (unsigned cmpf = 0; cmpf < 4; ++cmpf) {
      std::string op = "+BRANCHZ.u32 src0=0 src2=5 cmpf=" + std::to_string(cmpf);
      auto taken = [cmpf](uint32_t v) {
        // Unsigned against 0: below it never, at most 0 only for 0, at least 0 always.
        return cmpf == 0 ? false : cmpf == 1 ? v == 0 : cmpf == 2 ? true : v != 0;
      };
      if (!run_branch(op, s, taken, why)) return fail(op, why);
    }
    return true;
  };
  // CLPER_V6: each lane reads r0 of the lane r1 names (modulo the quad's 4 lanes: 6 -> lane 2).
  c["ADD_CLPER_V6_i32"] = [](std::string& why) {
    const Lanes from = {3, 0, 6, 3};
    if (!add_case(
            "+CLPER_V6.i32 src0=0 src1=1", {kA, from}, [&](unsigned l) { return kA[from[l] & 3]; }, why))
      return false;
    // A lane that is not in the clause's active set still supplies its register: lanes 1 and 3 branch ahead
    // (r2 != 0); lanes 0 and 2 then read r0 of lanes 3 and 1.
    Env e;
    auto a =
        bifrost_asm::assemble("header flow=1\ntuple p0=r2 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=0\n"
                              "const pchi 48");
    auto b = bifrost_asm::assemble(
        "header flow=3\ntuple p0=r0 p1=r1 ; *NOP ; +CLPER_V6.i32 src0=0 src1=1 ; add->r20");
    auto end = bifrost_asm::assemble("tuple ; *NOP ; +NOP");
    uint64_t at = e.gpu.load_code(kCodeVa, a);
    at = e.gpu.load_code(at, b);
    e.gpu.load_code(at, end);
    QuadLaunch l;
    l.entry = kCodeVa;
    const Lanes src = {3, 0, 1, 0};
    for (unsigned i = 0; i < 4; ++i) {
      l.regs[i][0] = kA[i];
      l.regs[i][1] = src[i];
      l.regs[i][2] = i & 1;
      l.regs[i][20] = 0xdeadu;
    }
    auto r = e.gpu.core->run_quad(l);
    return check_lanes(
        r, 20, [&](unsigned i) { return i & 1 ? 0xdeadu : kA[src[i]]; }, why);
  };
}

void add_cases(CaseMap& c) {
  add_shift_cases(c);
  add_select_cases(c);
  add_arith_cases(c);
  add_bit_cases(c);
  add_convert_cases(c);
  add_control_cases(c);
}

// Round trips: an FMA op reading r1, r2, r3 (ports 0..2) and writing r4, or an ADD op writing r5.
#define FMA_RT(name, op, line)                                                                               \
  {                                                                                                          \
    name, "tuple p0=r1 p1=r2 p2=r3 fau=u2 ; " op " ; +NOP ; fma->r4",                                        \
        "ds(0) eos \n{\n" line "\n+NOP t1\n}\n"                                                             \
  }
#define ADD_RT(name, op, line)                                                                               \
  { name, "tuple p0=r1 p1=r2 p2=r3 ; *NOP ; " op " ; add->r5", "ds(0) eos \n{\n*NOP t0\n" line "\n}\n" }
#define BR_RT(name, op, line)                                                                                \
  {                                                                                                          \
    name, "header flow=1\ntuple p0=r1 fau=c0 ; *NOP ; " op "\nconst pchi 64",                                \
        "ds(0) nbb br_pc \n{\n*NOP t0\n" line "\n}\n"                                                       \
  }

const std::initializer_list<RoundTrip> kIntegerRoundTrips = {
    FMA_RT("FMA_LSHIFT_OR_v2i16", "*LSHIFT_OR.v2i16 src0=0 src1=1 src2=2 not1=1 per_half=1 lanes2=1",
           "*LSHIFT_OR.v2i16 r4:t0, r1, r2, r3.b01"),
    FMA_RT("FMA_LSHIFT_OR_v4i8", "*LSHIFT_OR.v4i8 src0=0 src1=1 src2=2 not_result=1",
           "*LSHIFT_OR.v4i8.not r4:t0, r1, r2.not, r3"),
    FMA_RT("FMA_RSHIFT_OR_v2i16", "*RSHIFT_OR.v2i16 src0=0 src1=1 src2=2 not1=1 per_half=0 lanes2=2",
           "*RSHIFT_OR.v2i16 r4:t0, r1, r2, r3.b22"),
    FMA_RT("FMA_RSHIFT_OR_v4i8", "*RSHIFT_OR.v4i8 src0=0 src1=1 src2=2 not1=1",
           "*RSHIFT_OR.v4i8 r4:t0, r1, r2, r3"),
    FMA_RT("FMA_LSHIFT_AND_v2i16", "*LSHIFT_AND.v2i16 src0=0 src1=1 src2=2 not_result=1 per_half=1 lanes2=3",
           "*LSHIFT_AND.v2i16 r4:t0, r1, r2, r3"),
    FMA_RT("FMA_LSHIFT_AND_v4i8", "*LSHIFT_AND.v4i8 src0=0 src1=1 src2=2 not1=1",
           "*LSHIFT_AND.v4i8.not r4:t0, r1, r2.not, r3"),
    FMA_RT("FMA_RSHIFT_AND_v2i16", "*RSHIFT_AND.v2i16 src0=0 src1=1 src2=2 not_result=1 per_half=0 lanes2=0",
           "*RSHIFT_AND.v2i16 r4:t0, r1, r2, r3.b00"),
    FMA_RT("FMA_RSHIFT_AND_v4i8", "*RSHIFT_AND.v4i8 src0=0 src1=1 src2=2 not_result=1",
           "*RSHIFT_AND.v4i8 r4:t0, r1, r2, r3"),
    FMA_RT("FMA_LSHIFT_XOR_v2i16", "*LSHIFT_XOR.v2i16 src0=0 src1=1 src2=2 per_half=1 lanes2=2",
           "*LSHIFT_XOR.v2i16 r4:t0, r1, r2, r3.b23"),
    FMA_RT("FMA_LSHIFT_XOR_v4i8", "*LSHIFT_XOR.v4i8 src0=0 src1=1 src2=2 not_result=1",
           "*LSHIFT_XOR.v4i8.not r4:t0, r1, r2, r3"),
    FMA_RT("FMA_RSHIFT_XOR_v2i16", "*RSHIFT_XOR.v2i16 src0=0 src1=1 src2=2 not_result=1 per_half=0 lanes2=3",
           "*RSHIFT_XOR.v2i16.not r4:t0, r1, r2, r3.b33"),
    FMA_RT("FMA_RSHIFT_XOR_v4i8", "*RSHIFT_XOR.v4i8 src0=0 src1=1 src2=2",
           "*RSHIFT_XOR.v4i8 r4:t0, r1, r2, r3"),
    FMA_RT("FMA_ARSHIFT_v2i16", "*ARSHIFT.v2i16 src0=0 src2=2 per_half=0 lanes2=1",
           "*ARSHIFT.v2i16 r4:t0, r1, #0, r3.b11"),
    FMA_RT("FMA_ARSHIFT_v4i8", "*ARSHIFT.v4i8 src0=0 src2=2", "*ARSHIFT.v4i8 r4:t0, r1, #0, r3"),
    FMA_RT("FMA_LSHIFT_OR_v4i8_rep", "FMA_LSHIFT_OR_v4i8_rep src0=0 src1=1 src2=2 lanes2=1",
           "*LSHIFT_OR.v4i8 r4:t0, r1, r2.not, r3.b1111"),
    FMA_RT("FMA_RSHIFT_OR_v4i8_rep", "FMA_RSHIFT_OR_v4i8_rep src0=0 src1=1 src2=2 not1=1 lanes2=0",
           "*RSHIFT_OR.v4i8 r4:t0, r1, r2, r3.b0000"),
    FMA_RT("FMA_LSHIFT_AND_v4i8_rep", "FMA_LSHIFT_AND_v4i8_rep src0=0 src1=1 src2=2 not_result=1 lanes2=3",
           "*LSHIFT_AND.v4i8 r4:t0, r1, r2, r3.b3333"),
    FMA_RT("FMA_RSHIFT_AND_v4i8_rep",
           "FMA_RSHIFT_AND_v4i8_rep src0=0 src1=1 src2=2 not_result=1 not1=1 lanes2=2",
           "*RSHIFT_AND.v4i8 r4:t0, r1, r2.not, r3.b2222"),
    FMA_RT("FMA_LSHIFT_XOR_v4i8_rep", "FMA_LSHIFT_XOR_v4i8_rep src0=0 src1=1 src2=2 lanes2=2",
           "*LSHIFT_XOR.v4i8 r4:t0, r1, r2, r3.b2222"),
    FMA_RT("FMA_RSHIFT_XOR_v4i8_rep", "FMA_RSHIFT_XOR_v4i8_rep src0=0 src1=1 src2=2 not_result=1 lanes2=0",
           "*RSHIFT_XOR.v4i8.not r4:t0, r1, r2, r3.b0000"),
    FMA_RT("FMA_ARSHIFT_v4i8_rep", "FMA_ARSHIFT_v4i8_rep src0=0 src2=2 lanes2=1",
           "*ARSHIFT.v4i8 r4:t0, r1, #0, r3.b1111"),
    FMA_RT("FMA_IMUL_i32_h", "FMA_IMUL_i32_h src0=0 src1=1 lane1=1 extend=1",
           "*IMUL.i32.sext r4:t0, r1, r2.h1"),
    FMA_RT("FMA_IMUL_i32_b", "FMA_IMUL_i32_b src0=0 src1=1 lane1=2", "*IMUL.i32.zext r4:t0, r1, r2.b2"),
    FMA_RT("FMA_IDP_v4i8", "*IDP.v4i8 src0=0 src1=1 sign1=1", "*IDP.v4i8 r4:t0, r1.zext, r2.sext"),
    FMA_RT("FMA_IMUL_v4i8_rep", "FMA_IMUL_v4i8_rep src0=0 src1=1 lane1=3", "*IMUL.v4i8 r4:t0, r1, r2.b3333"),
    ADD_RT("ADD_IADD_v2s16_rep", "ADD_IADD_v2s16_rep src0=0 src1=1 lanes1=1",
           "+IADD.v2s16 r5:t1, r1, r2.h11"),
    ADD_RT("ADD_IADD_v2u16_sat_rep", "ADD_IADD_v2u16_sat_rep src0=0 src1=1",
           "+IADD.v2u16.sat r5:t1, r1, r2.h00"),
    ADD_RT("ADD_IADD_v2s16_b", "ADD_IADD_v2s16_b src0=0 src1=1 saturate=1",
           "+IADD.v2s16.sat r5:t1, r1, r2.b01"),
    ADD_RT("ADD_IADD_v2u16_b", "ADD_IADD_v2u16_b src0=0 src1=1 lanes1=1", "+IADD.v2u16 r5:t1, r1, r2.b23"),
    ADD_RT("ADD_ISUB_v2s16_rep", "ADD_ISUB_v2s16_rep src0=0 src1=1 saturate=1",
           "+ISUB.v2s16.sat r5:t1, r1, r2.h00"),
    ADD_RT("ADD_ISUB_v2u16_sat_rep", "ADD_ISUB_v2u16_sat_rep src0=0 src1=1 lanes1=1",
           "+ISUB.v2u16.sat r5:t1, r1, r2.h11"),
    ADD_RT("ADD_ISUB_v2s16_b", "ADD_ISUB_v2s16_b src0=0 src1=1 lanes1=1", "+ISUB.v2s16 r5:t1, r1, r2.b23"),
    ADD_RT("ADD_ISUB_v2u16_b", "ADD_ISUB_v2u16_b src0=0 src1=1 saturate=1",
           "+ISUB.v2u16.sat r5:t1, r1, r2.b01"),
    ADD_RT("ADD_IADD_v4s8_rep", "ADD_IADD_v4s8_rep src0=0 src1=1 lanes1=2", "+IADD.v4s8 r5:t1, r1, r2.b2222"),
    ADD_RT("ADD_IADD_v4u8_sat_rep", "ADD_IADD_v4u8_sat_rep src0=0 src1=1",
           "+IADD.v4u8.sat r5:t1, r1, r2.b0000"),
    ADD_RT("ADD_IADD_v4s8_h", "ADD_IADD_v4s8_h src0=0 src1=1 lanes1=1 saturate=1",
           "+IADD.v4s8.sat r5:t1, r1, r2.b2323"),
    ADD_RT("ADD_IADD_v4u8_sat_h", "ADD_IADD_v4u8_sat_h src0=0 src1=1", "+IADD.v4u8.sat r5:t1, r1, r2.b0101"),
    ADD_RT("ADD_ISUB_v4s8_rep", "ADD_ISUB_v4s8_rep src0=0 src1=1 lanes1=3 saturate=1",
           "+ISUB.v4s8.sat r5:t1, r1, r2.b3333"),
    ADD_RT("ADD_ISUB_v4u8_sat_rep", "ADD_ISUB_v4u8_sat_rep src0=0 src1=1 lanes1=1",
           "+ISUB.v4u8.sat r5:t1, r1, r2.b1111"),
    ADD_RT("ADD_ISUB_v4s8_h", "ADD_ISUB_v4s8_h src0=0 src1=1", "+ISUB.v4s8 r5:t1, r1, r2.b0101"),
    ADD_RT("ADD_ISUB_v4u8_sat_h", "ADD_ISUB_v4u8_sat_h src0=0 src1=1 lanes1=1",
           "+ISUB.v4u8.sat r5:t1, r1, r2.b2323"),
    ADD_RT("ADD_SWZ_v2i16", "+SWZ.v2i16 src0=0", "+SWZ.v2i16 r5:t1, r1.h00"),
    ADD_RT("ADD_SWZ_v2i16_h11", "ADD_SWZ_v2i16_h11 src0=1", "+SWZ.v2i16 r5:t1, r2.h11"),
    ADD_RT("ADD_SWZ_v4i8", "+SWZ.v4i8 src0=0 swz0=6", "+SWZ.v4i8 r5:t1, r1.b1032"),
    ADD_RT("ADD_HADD_s32", "+HADD.s32 src0=0 src1=1 round=1", "+HADD.s32.rtp r5:t1, r1, r2"),
    ADD_RT("ADD_HADD_u32", "+HADD.u32 src0=1 src1=0", "+HADD.u32 r5:t1, r2, r1"),
    ADD_RT("ADD_IABS_v2s16", "+IABS.v2s16 src0=0 swz0=1", "+IABS.v2s16 r5:t1, r1.h10"),
    ADD_RT("ADD_IABS_v4s8", "+IABS.v4s8 src0=1", "+IABS.v4s8 r5:t1, r2"),
    FMA_RT("FMA_CSEL_s32", "*CSEL.s32 src0=0 src1=1 src2=2 src3=5 cmpf=1",
           "*CSEL.s32.ge r4:t0, r1, r2, r3, u2.w1"),
    FMA_RT("FMA_CSEL_u32", "*CSEL.u32 src0=0 src1=1 src2=2 src3=4", "*CSEL.u32.gt r4:t0, r1, r2, r3, u2.w0"),
    FMA_RT("FMA_CSEL_v2i16", "*CSEL.v2i16 src0=1 src1=0 src2=2 src3=5",
           "*CSEL.v2i16.eq r4:t0, r2, r1, r3, u2.w1"),
    FMA_RT("FMA_CSEL_v2s16", "*CSEL.v2s16 src0=0 src1=1 src2=2 src3=5",
           "*CSEL.v2s16.gt r4:t0, r1, r2, r3, u2.w1"),
    FMA_RT("FMA_CSEL_v2u16", "*CSEL.v2u16 src0=0 src1=1 src2=2 src3=5 cmpf=1",
           "*CSEL.v2u16.ge r4:t0, r1, r2, r3, u2.w1"),
    FMA_RT("FMA_IMUL_v2i16", "*IMUL.v2i16 src0=0 src1=1 swz0=1 swz1=2", "*IMUL.v2i16 r4:t0, r1.h10, r2"),
    FMA_RT("FMA_IMUL_v4i8", "*IMUL.v4i8 src0=0 src1=4", "*IMUL.v4i8 r4:t0, r1, u2.w0"),
    FMA_RT("FMA_IADDC_i32", "*IADDC.i32 src0=0 src1=1 src2=2", "*IADDC.i32 r4:t0, r1, r2, r3"),
    FMA_RT("FMA_ISUBB_i32", "*ISUBB.i32 src0=0 src1=3 src2=2", "*ISUBB.i32 r4:t0, r1, #0, r3"),
    FMA_RT("FMA_CLZ_u32", "*CLZ.u32 src0=1", "*CLZ.u32 r4:t0, r2"),
    FMA_RT("FMA_CLZ_v2u16", "*CLZ.v2u16 src0=0 swz0=3", "*CLZ.v2u16 r4:t0, r1.h11"),
    FMA_RT("FMA_CLZ_v4u8", "*CLZ.v4u8 src0=5", "*CLZ.v4u8 r4:t0, u2.w1"),
    FMA_RT("FMA_POPCOUNT_i32", "*POPCOUNT.i32 src0=0", "*POPCOUNT.i32 r4:t0, r1"),
    FMA_RT("FMA_BITREV_i32", "*BITREV.i32 src0=2", "*BITREV.i32 r4:t0, r3(INVALID)"),
    FMA_RT("FMA_S16_TO_S32", "*S16_TO_S32 src0=0 lane0=1", "*S16_TO_S32 r4:t0, r1.h1"),
    FMA_RT("FMA_U16_TO_U32", "*U16_TO_U32 src0=0", "*U16_TO_U32 r4:t0, r1"),
    FMA_RT("FMA_S8_TO_S32", "*S8_TO_S32 src0=0 lane0=3", "*S8_TO_S32 r4:t0, r1.b3"),
    FMA_RT("FMA_U8_TO_U32", "*U8_TO_U32 src0=1 lane0=2", "*U8_TO_U32 r4:t0, r2.b2"),
    FMA_RT("FMA_MKVEC_v2i16", "*MKVEC.v2i16 src0=0 src1=1 lane1=1", "*MKVEC.v2i16 r4:t0, r1, r2.h1"),
    FMA_RT("FMA_MKVEC_v4i8", "*MKVEC.v4i8 src0=0 src1=1 src2=2 src3=4 lane1=1 lane3=1",
           "*MKVEC.v4i8 r4:t0, r1, r2.b2, r3, u2.w0.b2"),
    ADD_RT("ADD_IADD_s32_h", "ADD_IADD_s32_h src0=0 src1=1 lane1=1 saturate=1",
           "+IADD.s32.sat r5:t1, r1, r2.h1"),
    ADD_RT("ADD_IADD_u32_h", "ADD_IADD_u32_h src0=0 src1=1", "+IADD.u32 r5:t1, r1, r2.h0"),
    ADD_RT("ADD_IADD_s32_b", "ADD_IADD_s32_b src0=0 src1=1 lane1=2", "+IADD.s32 r5:t1, r1, r2.b2"),
    ADD_RT("ADD_IADD_u32_b", "ADD_IADD_u32_b src0=0 src1=2 lane1=3 saturate=1",
           "+IADD.u32.sat r5:t1, r1, r3.b3"),
    ADD_RT("ADD_ISUB_s32_h", "ADD_ISUB_s32_h src0=0 src1=1", "+ISUB.s32 r5:t1, r1, r2.h0"),
    ADD_RT("ADD_ISUB_u32_h", "ADD_ISUB_u32_h src0=0 src1=1 lane1=1 saturate=1",
           "+ISUB.u32.sat r5:t1, r1, r2.h1"),
    ADD_RT("ADD_ISUB_s32_b", "ADD_ISUB_s32_b src0=0 src1=1 lane1=1", "+ISUB.s32 r5:t1, r1, r2.b1"),
    ADD_RT("ADD_ISUB_u32_b", "ADD_ISUB_u32_b src0=0 src1=1", "+ISUB.u32 r5:t1, r1, r2.b0"),
    ADD_RT("ADD_IADD_v2s16", "+IADD.v2s16 src0=0 src1=1 lanes0=1 saturate=1",
           "+IADD.v2s16.sat r5:t1, r1.h10, r2"),
    ADD_RT("ADD_IADD_v2u16_sat", "ADD_IADD_v2u16_sat src0=0 src1=1 lanes1=1",
           "+IADD.v2u16.sat r5:t1, r1, r2.h10"),
    ADD_RT("ADD_ISUB_v2s16", "+ISUB.v2s16 src0=1 src1=0", "+ISUB.v2s16 r5:t1, r2, r1"),
    ADD_RT("ADD_ISUB_v2u16_sat", "ADD_ISUB_v2u16_sat src0=0 src1=1", "+ISUB.v2u16.sat r5:t1, r1, r2"),
    ADD_RT("ADD_IADD_v4s8", "+IADD.v4s8 src0=0 src1=1", "+IADD.v4s8 r5:t1, r1, r2"),
    ADD_RT("ADD_IADD_v4u8_sat", "ADD_IADD_v4u8_sat src0=0 src1=1", "+IADD.v4u8.sat r5:t1, r1, r2"),
    ADD_RT("ADD_ISUB_v4s8", "+ISUB.v4s8 src0=0 src1=1 saturate=1", "+ISUB.v4s8.sat r5:t1, r1, r2"),
    ADD_RT("ADD_ISUB_v4u8_sat", "ADD_ISUB_v4u8_sat src0=0 src1=1", "+ISUB.v4u8.sat r5:t1, r1, r2"),
    ADD_RT("ADD_IABS_s32", "+IABS.s32 src0=1", "+IABS.s32 r5:t1, r2"),
    ADD_RT("ADD_ICMP_v2i16", "+ICMP.v2i16 src0=0 src1=1 cmpf=1 result_type=1 swz0=2 swz1=0",
           "+ICMP.v2i16.m1.ne r5:t1, r1, r2.h00"),
    ADD_RT("ADD_ICMP_v2s16", "+ICMP.v2s16 src0=0 src1=1 swz0=3 swz1=2", "+ICMP.v2s16.gt r5:t1, r1.h11, r2"),
    ADD_RT("ADD_ICMP_v2u16", "+ICMP.v2u16 src0=0 src1=1 cmpf=1 result_type=1 swz0=2 swz1=2",
           "+ICMP.v2u16.m1.ge r5:t1, r1, r2"),
    ADD_RT("ADD_ICMP_v4i8", "+ICMP.v4i8 src0=0 src1=1", "+ICMP.v4i8.eq r5:t1, r1, r2"),
    ADD_RT("ADD_ICMP_v4s8", "+ICMP.v4s8 src0=0 src1=1 cmpf=1", "+ICMP.v4s8.ge r5:t1, r1, r2"),
    ADD_RT("ADD_ICMP_v4u8", "+ICMP.v4u8 src0=0 src1=1 result_type=1", "+ICMP.v4u8.m1.gt r5:t1, r1, r2"),
    ADD_RT("ADD_MUX_i32", "+MUX.i32 src0=0 src1=1 src2=2 mux=1", "+MUX.i32 r5:t1, r1, r2, r3"),
    ADD_RT("ADD_MUX_v2i16", "+MUX.v2i16 src0=0 src1=1 src2=2 mux=3 swap2=1",
           "+MUX.v2i16.bit r5:t1, r1, r2, r3.h10"),
    ADD_RT("ADD_MUX_v4i8", "+MUX.v4i8 src0=0 src1=1 src2=2", "+MUX.v4i8.neg r5:t1, r1, r2, r3"),
    ADD_RT("ADD_S16_TO_S32", "+S16_TO_S32 src0=0", "+S16_TO_S32 r5:t1, r1"),
    ADD_RT("ADD_U16_TO_U32", "+U16_TO_U32 src0=1 lane0=1", "+U16_TO_U32 r5:t1, r2.h1"),
    ADD_RT("ADD_S8_TO_S32", "+S8_TO_S32 src0=0 lane0=1", "+S8_TO_S32 r5:t1, r1.b1"),
    ADD_RT("ADD_U8_TO_U32", "+U8_TO_U32 src0=0", "+U8_TO_U32 r5:t1, r1"),
    ADD_RT("ADD_V2S8_TO_V2S16", "+V2S8_TO_V2S16 src0=0 swz0=14", "+V2S8_TO_V2S16 r5:t1, r1.b23"),
    ADD_RT("ADD_V2U8_TO_V2U16", "+V2U8_TO_V2U16 src0=0 swz0=4", "+V2U8_TO_V2U16 r5:t1, r1"),
    ADD_RT("ADD_CLPER_V6_i32", "+CLPER_V6.i32 src0=0 src1=1", "+CLPER_V6.i32 r5:t1, r1, r2"),
    BR_RT("ADD_BRANCHZ_i16", "+BRANCHZ.i16 src0=0 src2=5 eq=1", "+BRANCHZ.i16.eq t1, r1.h0, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_i16_h1", "ADD_BRANCHZ_i16_h1 src0=0 src2=5", "+BRANCHZ.i16.ne t1, r1.h1, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_s32", "+BRANCHZ.s32 src0=0 src2=5 cmpf=1", "+BRANCHZ.s32.le t1, r1, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_s16", "+BRANCHZ.s16 src0=0 src2=5 cmpf=0", "+BRANCHZ.s16.lt t1, r1.h0, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_s16_h1", "ADD_BRANCHZ_s16_h1 src0=0 src2=5 cmpf=2",
          "+BRANCHZ.s16.ge t1, r1.h1, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_u16", "+BRANCHZ.u16 src0=0 src2=5 cmpf=3", "+BRANCHZ.u16.gt t1, r1.h0, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_u16_h1", "ADD_BRANCHZ_u16_h1 src0=0 src2=5 cmpf=1",
          "+BRANCHZ.u16.le t1, r1.h1, (pc + 64)"),
    BR_RT("ADD_BRANCHZ_u32", "+BRANCHZ.u32 src0=0 src2=5 cmpf=3", "+BRANCHZ.u32.gt t1, r1, (pc + 64)"),
};

const CaseGroup kInteger(add_cases, kIntegerRoundTrips);

// The sequence Mesa's v6 compiler emits for a divergent if/else on a 16-bit boolean, then a derivative-style
// neighbour read: ICMP.v2s16.m1 makes the boolean, BRANCHZ.i16 (h0) branches on it, the two sides compute
// differently (an add of a sign-extended byte / a byte conversion), the then-side JUMPs over the else-side,
// and after reconvergence bi_clper_xor's lowering (LSHIFT_XOR of lane_id, CLPER_V6) swaps values between
// lanes 0/1 and 2/3. Expected values are computed here per lane.
TEST(IntegerShader, MesaStyleIfElseAndLaneSwap) {
  GpuEnv env;
  // A (0x00, 3 quadwords): boolean in t1, branch to C (+96) where it is zero.
  auto a = bifrost_asm::assemble(
      "header flow=1\n"
      "tuple p0=r0 p1=r1 ; *NOP ; +ICMP.v2s16 src0=0 src1=1 swz0=2 swz1=2 result_type=1\n"
      "tuple fau=c0 ; *NOP ; +BRANCHZ.i16 src0=7 src2=5 eq=1\n"
      "const pchi 96");
  // B (0x30, 3 quadwords): then-side, r20 = r0 + sext(byte 1 of r2); jump to D (+64).
  auto b =
      bifrost_asm::assemble("header flow=1\n"
                            "tuple p0=r0 p1=r2 ; *NOP ; ADD_IADD_s32_b src0=0 src1=1 lane1=1 ; add->r20\n"
                            "tuple fau=c0 ; *NOP ; +JUMP src2=5\n"
                            "const pchi 64");
  // C (0x60, 1 quadword): else-side, r20 = sext(byte 0 of r0); falls through to D.
  auto c = bifrost_asm::assemble("header flow=3\ntuple p0=r0 ; *S8_TO_S32 src0=0 ; +NOP ; fma->r20");
  // D (0x70): r21 = r20 of lane (lane_id ^ r3).
  auto d = bifrost_asm::assemble("tuple p0=r3 p1=r20 fau=lane_id ; *LSHIFT_XOR.i32 src0=4 src1=0 src2=3 ; "
                                 "+CLPER_V6.i32 src0=1 src1=3 ; add->r21");
  ASSERT_EQ(a.size(), 6u);
  ASSERT_EQ(b.size(), 6u);
  ASSERT_EQ(c.size(), 2u);
  uint64_t at = env.load_code(kCodeVa, a);
  at = env.load_code(at, b);
  at = env.load_code(at, c);
  env.load_code(at, d);

  // Half 0 of r0 > half 0 of r1 (signed) in lanes 0 and 2 only; the upper halves would say otherwise.
  const Lanes x = {0x12340005u, 0x7ffffffdu, 0x80007fffu, 0x00008000u};
  const Lanes y = {0x7fff0003u, 0x0000ffffu, 0x7fff8000u, 0x80007fffu};
  const Lanes z = {0x0000ff00u, 0x00007f00u, 0x00008000u, 0x00000100u};
  QuadLaunch l;
  l.entry = kCodeVa;
  for (unsigned i = 0; i < 4; ++i) {
    l.regs[i][0] = x[i];
    l.regs[i][1] = y[i];
    l.regs[i][2] = z[i];
    l.regs[i][3] = 1;
  }
  auto r = env.core->run_quad(l);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  Lanes r20{};
  for (unsigned i = 0; i < 4; ++i) {
    bool then_side = sx16(hw(x[i], 0)) > sx16(hw(y[i], 0));
    r20[i] = then_side ? x[i] + uint32_t(sx8(bt(z[i], 1))) : uint32_t(sx8(bt(x[i], 0)));
  }
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(r.regs[i][20], r20[i]) << "lane " << i;
    EXPECT_EQ(r.regs[i][21], r20[i ^ 1]) << "lane " << i;
  }
  // A, both sides and D each ran once: the quad split at A and was one again at D.
  EXPECT_EQ(r.clauses, 4u);
}

} // namespace
} // namespace bifrost_isa_test
