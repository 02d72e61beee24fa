// Differential tests: every library operation against the real A64 instruction executed by Unicorn (QEMU),
// comparing result bits and the FPSR cumulative flags under all rounding modes with FZ and DN on and off.

#include "cpu-dbt/fp/arm_fp.h"

#include <gtest/gtest.h>
#include <unicorn/unicorn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace vplat::fp;

uint64_t g_comparisons = 0;

constexpr uint64_t mask_of(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

// One Unicorn instance for the whole run.  Unicorn 2.0 retranslates the guest code on every uc_emu_start,
// which costs far more than the instruction under test, so each uc_emu_start runs the instruction on a whole
// list of operand tuples: a guest loop whose body, per group, loads operands from memory into v1..v3 / x1,
// executes the instruction (result in v0 / x0 / NZCV), stores the result, FPSR and NZCV, and clears FPSR for
// the next group.
class Emulator {
public:
  struct Result {
    uint64_t v0 = 0;
    uint64_t x0 = 0;
    uint32_t fpsr = 0;
    uint32_t nzcv = 0;
  };

  static Emulator& instance() {
    static Emulator emulator;
    return emulator;
  }

  // Runs `insn` on every operand tuple (v1, v2, v3, and x1 = first operand) under one FPCR value.
  std::vector<Result> run_all(uint32_t insn, const std::vector<std::array<uint64_t, 3>>& in, uint32_t fpcr) {
    const uint64_t code = block_for(insn);
    const size_t iterations = (in.size() + kGroups - 1) / kGroups;
    const size_t padded = iterations * kGroups;
    if (padded * kInStride > kDataSize) std::abort();
    std::vector<uint64_t> data(padded * kInStride / 8);
    for (size_t k = 0; k < in.size(); ++k) {
      uint64_t* group = data.data() + k * kInStride / 8;
      group[0] = in[k][0]; // q1 low half; the high halves stay zero
      group[2] = in[k][1];
      group[4] = in[k][2];
      group[6] = in[k][0]; // x1
    }
    uc_mem_write(uc_, kInBase, data.data(), data.size() * 8);
    uint64_t fpcr64 = fpcr, zero = 0, in_base = kInBase, out_base = kOutBase, count = iterations;
    uc_reg_write(uc_, UC_ARM64_REG_FPCR, &fpcr64);
    uc_reg_write(uc_, UC_ARM64_REG_FPSR, &zero);
    uc_reg_write(uc_, UC_ARM64_REG_X27, &count);
    uc_reg_write(uc_, UC_ARM64_REG_X28, &in_base);
    uc_reg_write(uc_, UC_ARM64_REG_X29, &out_base);
    const uc_err err = uc_emu_start(uc_, code, code + kBlockBytes, 0, 0);
    if (err != UC_ERR_OK) {
      std::fprintf(stderr, "uc_emu_start(%08x): %s\n", insn, uc_strerror(err));
      std::abort();
    }
    std::vector<uint64_t> raw(padded * kOutStride / 8);
    uc_mem_read(uc_, kOutBase, raw.data(), raw.size() * 8);
    std::vector<Result> out(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      const uint64_t* group = raw.data() + k * kOutStride / 8;
      out[k].v0 = group[0];
      out[k].x0 = group[2];
      out[k].fpsr = uint32_t(group[3]);
      out[k].nzcv = uint32_t(group[4] >> 28) & 0xF;
    }
    return out;
  }

  Result run(uint32_t insn, const uint64_t (&v)[3], uint32_t fpcr) {
    return run_all(insn, {{v[0], v[1], v[2]}}, fpcr)[0];
  }

private:
  static constexpr uint64_t kCodeBase = 0x1000000, kCodeSize = 0x1000000;
  static constexpr uint64_t kInBase = 0x4000000, kOutBase = 0x8000000, kDataSize = 0x2000000;
  static constexpr uint32_t kGroups = 8, kInStride = 64, kOutStride = 48, kGroupInsns = 12;
  // Loop body, 4 loop-control instructions, and the never-executed `until` slot.
  static constexpr uint64_t kBlockBytes = (kGroups * kGroupInsns + 4) * 4;

  Emulator() {
    if (const uc_err err = uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc_); err != UC_ERR_OK) {
      std::fprintf(stderr, "uc_open: %s\n", uc_strerror(err));
      std::abort();
    }
    // The "max" CPU has FEAT_FP16, needed for the half-precision arithmetic and conversions to/from integers.
    if (uc_ctl_set_cpu_model(uc_, UC_CPU_ARM64_MAX) != UC_ERR_OK) std::abort();
    uc_mem_map(uc_, kCodeBase, kCodeSize, UC_PROT_ALL);
    uc_mem_map(uc_, kInBase, kDataSize, UC_PROT_ALL);
    uc_mem_map(uc_, kOutBase, kDataSize, UC_PROT_ALL);
    uint64_t cpacr = 3ull << 20;
    uc_reg_write(uc_, UC_ARM64_REG_CPACR_EL1, &cpacr);
  }
  ~Emulator() { uc_close(uc_); }

  uint64_t block_for(uint32_t insn) {
    auto it = blocks_.find(insn);
    if (it != blocks_.end()) return it->second;
    std::vector<uint32_t> code;
    for (uint32_t k = 0; k < kGroups; ++k) {
      const uint32_t in = k * kInStride, out = k * kOutStride;
      const uint32_t x28 = 28 << 5, x29 = 29 << 5;
      code.push_back(0x3DC00000 | (in / 16) << 10 | x28 | 1);     // ldr q1, [x28, #in]
      code.push_back(0x3DC00000 | (in / 16 + 1) << 10 | x28 | 2); // ldr q2, [x28, #in + 16]
      code.push_back(0x3DC00000 | (in / 16 + 2) << 10 | x28 | 3); // ldr q3, [x28, #in + 32]
      code.push_back(0xF9400000 | (in / 8 + 6) << 10 | x28 | 1);  // ldr x1, [x28, #in + 48]
      code.push_back(insn);
      code.push_back(0xD53B4420 | 2);                             // mrs x2, fpsr
      code.push_back(0xD53B4200 | 3);                             // mrs x3, nzcv
      code.push_back(0x3D800000 | (out / 16) << 10 | x29 | 0);    // str q0, [x29, #out]
      code.push_back(0xF9000000 | (out / 8 + 2) << 10 | x29 | 0); // str x0, [x29, #out + 16]
      code.push_back(0xF9000000 | (out / 8 + 3) << 10 | x29 | 2); // str x2, [x29, #out + 24]
      code.push_back(0xF9000000 | (out / 8 + 4) << 10 | x29 | 3); // str x3, [x29, #out + 32]
      code.push_back(0xD51B443F);                                 // msr fpsr, xzr
    }
    code.push_back(0x91000000 | (kGroups * kInStride) << 10 | 28 << 5 | 28);  // add x28, x28, #in stride
    code.push_back(0x91000000 | (kGroups * kOutStride) << 10 | 29 << 5 | 29); // add x29, x29, #out stride
    code.push_back(0xF1000400 | 27 << 5 | 27);                                // subs x27, x27, #1
    const int32_t back = -int32_t(code.size());
    code.push_back(0x54000001 | (uint32_t(back) & 0x7FFFF) << 5); // b.ne loop
    code.push_back(0xD503201F);                                   // nop: the `until` address
    const uint64_t addr = kCodeBase + next_code_;
    next_code_ += code.size() * 4 + 16;
    if (next_code_ > kCodeSize) std::abort();
    uc_mem_write(uc_, addr, code.data(), code.size() * 4);
    blocks_.emplace(insn, addr);
    return addr;
  }

  uc_engine* uc_ = nullptr;
  std::map<uint32_t, uint64_t> blocks_;
  uint64_t next_code_ = 0;
};

// ---- instruction encodings
// ---------------------------------------------------------------------------------- Register use: result in
// d0/h0/s0 or x0/w0, operands in v1, v2, v3 (or x1 for integer sources).
constexpr uint32_t ftype(unsigned n) {
  return n == 32 ? 0 : n == 64 ? 1 : 3;
}
constexpr uint32_t enc_fp2(uint32_t opcode, unsigned n) {
  return 0x1E200800 | ftype(n) << 22 | opcode << 12 | 2 << 16 | 1 << 5;
}
constexpr uint32_t enc_fp1(uint32_t opcode, unsigned n) {
  return 0x1E204000 | ftype(n) << 22 | opcode << 15 | 1 << 5;
}
constexpr uint32_t enc_fmadd(unsigned n) {
  return 0x1F000000 | ftype(n) << 22 | 2 << 16 | 3 << 10 | 1 << 5;
}
constexpr uint32_t enc_fcmp(unsigned n, bool e) {
  return 0x1E202000 | ftype(n) << 22 | 2 << 16 | 1 << 5 | (e ? 0x10 : 0);
}
// Advanced SIMD scalar three-same: single/double form and the FEAT_FP16 form.
constexpr uint32_t enc_simd3(uint32_t sd_base, uint32_t h_base, unsigned n) {
  return (n == 16 ? h_base : sd_base | (n == 64 ? 1u << 22 : 0)) | 2 << 16 | 1 << 5;
}
constexpr uint32_t enc_simd1(uint32_t sd_base, uint32_t h_base, unsigned n) {
  return (n == 16 ? h_base : sd_base | (n == 64 ? 1u << 22 : 0)) | 1 << 5;
}
// FCVT{N,P,M,Z,A}{S,U} (fbits == 0) and FCVTZ{S,U} fixed-point; rmode/opcode fields as in the ARM ARM.
constexpr uint32_t enc_to_int(unsigned n, unsigned int_bits, uint32_t rmode, uint32_t opcode, unsigned fbits,
                              bool fixed) {
  const uint32_t sf = int_bits == 64 ? 1u << 31 : 0;
  if (!fixed) return sf | 0x1E200000 | ftype(n) << 22 | rmode << 19 | opcode << 16 | 1 << 5;
  return sf | 0x1E000000 | ftype(n) << 22 | rmode << 19 | opcode << 16 | (64 - fbits) << 10 | 1 << 5;
}
constexpr uint32_t enc_from_int(unsigned n, unsigned int_bits, bool is_unsigned, unsigned fbits, bool fixed) {
  return enc_to_int(n, int_bits, 0, is_unsigned ? 3 : 2, fbits, fixed);
}

// ---- operand generation
// ----------------------------------------------------------------------------------------
struct Fmt {
  unsigned n;
  int e, f;
  int bias() const { return (1 << (e - 1)) - 1; }
  int exp_ones() const { return (1 << e) - 1; }
  uint64_t frac_mask() const { return mask_of(unsigned(f)); }
  uint64_t make(bool sign, int biased_exp, uint64_t frac) const {
    return (uint64_t(sign) << (n - 1)) | (uint64_t(biased_exp) << f) | (frac & frac_mask());
  }
  // A normal number with the given unbiased exponent and leading fraction bits.
  uint64_t num(bool sign, int exp, uint64_t top_frac = 0, int top_bits = 0) const {
    return make(sign, exp + bias(), top_bits ? top_frac << (f - top_bits) : 0);
  }
};

constexpr Fmt fmt_of(unsigned n) {
  return n == 16 ? Fmt{16, 5, 10} : n == 32 ? Fmt{32, 8, 23} : Fmt{64, 11, 52};
}

std::vector<uint64_t> specials(unsigned n) {
  const Fmt m = fmt_of(n);
  std::vector<uint64_t> pos = {
      0,
      1,                                          // smallest denormal
      m.frac_mask(),                              // largest denormal
      uint64_t(1) << (m.f - 1),                   // mid denormal
      m.make(0, 1, 0),                            // smallest normal
      m.make(0, 1, 1),                            //
      m.make(0, 1, m.frac_mask()),                //
      m.make(0, m.exp_ones() - 1, m.frac_mask()), // largest normal
      m.make(0, m.exp_ones() - 1, 0),
      m.make(0, m.exp_ones(), 0),                                 // infinity
      m.num(0, 0),                                                // 1.0
      m.make(0, m.bias(), 1),                                     // 1.0 + ulp
      m.make(0, m.bias() - 1, m.frac_mask()),                     // 1.0 - ulp/2
      m.num(0, 0, 1, 1),                                          // 1.5
      m.num(0, -1),                                               // 0.5
      m.num(0, 1),                                                // 2.0
      m.num(0, 1, 1, 2),                                          // 2.5
      m.num(0, 1, 1, 1),                                          // 3.0
      m.num(0, -2, 1, 1),                                         // 0.375
      m.make(0, m.bias() + m.f - 1, 1),                           // 2^(F-1) + 0.5, a tie for integer rounding
      m.make(0, m.bias() + m.f, 0),                               // 2^F, first value with no fraction bits
      m.make(0, m.bias() - m.f, 0),                               // ulp(1)
      m.make(0, m.exp_ones(), uint64_t(1) << (m.f - 1)),          // default qNaN
      m.make(0, m.exp_ones(), (uint64_t(1) << (m.f - 1)) | 0x15), // qNaN with payload
      m.make(0, m.exp_ones(), 1),                                 // sNaN
      m.make(0, m.exp_ones(), (uint64_t(1) << (m.f - 2)) | 0x2A), // sNaN with payload
  };
  // Integer conversion boundaries where the exponent is representable.
  for (int e : {15, 16, 31, 32, 63, 64})
    if (e <= m.bias()) {
      pos.push_back(m.num(0, e));
      pos.push_back(m.make(0, e - 1 + m.bias(), m.frac_mask()));
    }
  std::vector<uint64_t> all;
  for (uint64_t v : pos) {
    all.push_back(v);
    all.push_back(v | (uint64_t(1) << (n - 1)));
  }
  return all;
}

class Gen {
public:
  explicit Gen(unsigned n, uint64_t seed) : m_(fmt_of(n)), rng_(seed), specials_(specials(n)) {}

  uint64_t bits() { return rng_() & mask_of(m_.n); }
  uint64_t below(uint64_t k) { return rng_() % k; }
  uint64_t special() { return specials_[below(specials_.size())]; }

  uint64_t value() {
    const bool sign = rng_() & 1;
    switch (below(8)) {
    case 0:
    case 1:
      return bits();
    case 2:
      return special();
    case 3: // around 1.0
      return m_.make(sign, m_.bias() - 3 + int(below(7)), bits());
    case 4: // denormals and the smallest normals
      return m_.make(sign, int(below(4)), bits());
    case 5: // near overflow
      return m_.make(sign, m_.exp_ones() - 1 - int(below(3)), bits());
    case 6: // few fraction bits: exact results and ties
      return m_.make(sign, 1 + int(below(m_.exp_ones() - 1)), bits() << (m_.f - int(below(5))));
    default:
      return m_.make(sign, 1 + int(below(m_.exp_ones() - 1)), bits());
    }
  }

  // A second operand related to `a` so that sums cancel, products under/overflow, or ties occur.
  uint64_t partner(uint64_t a) {
    const int ea = int((a >> m_.f) & uint64_t(m_.exp_ones()));
    const bool sign = rng_() & 1;
    auto clamp_exp = [&](int e) { return std::min(std::max(e, 0), m_.exp_ones() - 1); };
    switch (below(6)) {
    case 0:
      return value();
    case 1: // close exponent, cancellation in add/sub
      return m_.make(sign, clamp_exp(ea - 2 + int(below(5))), bits());
    case 2: // nearly equal magnitude
      return (a ^ below(16)) ^ (sign ? uint64_t(1) << (m_.n - 1) : 0);
    case 3: { // product or quotient near the denormal range
      const int target = 1 + int(below(4)) - m_.f / 2;
      return m_.make(sign, clamp_exp(target + 2 * m_.bias() - ea), bits());
    }
    case 4: { // product near overflow
      const int target = m_.exp_ones() - 2 + int(below(3));
      return m_.make(sign, clamp_exp(target + m_.bias() - ea), bits());
    }
    default: // few fraction bits
      return m_.make(sign, clamp_exp(ea - 2 + int(below(5))), bits() << (m_.f - int(below(4))));
    }
  }

  std::mt19937_64& rng() { return rng_; }

private:
  Fmt m_;
  std::mt19937_64 rng_;
  std::vector<uint64_t> specials_;
};

using Operands = std::array<uint64_t, 3>;
using LibFn = std::function<uint64_t(const Operands&, uint32_t fpcr, uint32_t& fpsr)>;

enum class Io { Vec, Gpr, Nzcv };

struct Op {
  std::string name;
  uint32_t insn;
  unsigned out_bits;
  Io in = Io::Vec;
  Io out = Io::Vec;
  LibFn lib;
};

constexpr uint32_t kFpsrFlags = kIOC | kDZC | kOFC | kUFC | kIXC | kIDC;

// FPCR settings: all rounding modes x FZ x DN (FZ16 follows FZ); optionally AHP.
std::vector<uint32_t> fpcr_set(bool with_ahp = false) {
  std::vector<uint32_t> set;
  for (uint32_t rm = 0; rm < 4; ++rm)
    for (uint32_t fz = 0; fz < 2; ++fz)
      for (uint32_t dn = 0; dn < 2; ++dn)
        for (uint32_t ahp = 0; ahp < (with_ahp ? 2u : 1u); ++ahp)
          set.push_back(rm << kFPCR_RMODE_SHIFT | (fz ? kFPCR_FZ | kFPCR_FZ16 : 0) | (dn ? kFPCR_DN : 0) |
                        (ahp ? kFPCR_AHP : 0));
  return set;
}

// Runs `op` on every operand tuple under every FPCR value; returns the number of mismatches.
uint64_t check(const Op& op, const std::vector<Operands>& inputs, const std::vector<uint32_t>& fpcrs,
               bool report = true) {
  Emulator& emu = Emulator::instance();
  uint64_t mismatches = 0;
  const uint64_t out_mask = mask_of(op.out_bits);
  for (uint32_t fpcr : fpcrs) {
    const std::vector<Emulator::Result> hw_results = emu.run_all(op.insn, inputs, fpcr);
    for (size_t k = 0; k < inputs.size(); ++k) {
      const Operands& in = inputs[k];
      const Emulator::Result& hw = hw_results[k];
      uint32_t fpsr = 0;
      const uint64_t got = op.lib(in, fpcr, fpsr) & out_mask;
      const uint64_t want = (op.out == Io::Vec ? hw.v0 : op.out == Io::Gpr ? hw.x0 : hw.nzcv) & out_mask;
      ++g_comparisons;
      if (got != want || (fpsr & kFpsrFlags) != (hw.fpsr & kFpsrFlags)) {
        if (++mismatches <= 12 && report)
          ADD_FAILURE() << op.name << " insn=" << std::hex << op.insn << " in={" << in[0] << "," << in[1]
                        << "," << in[2] << "} fpcr=" << fpcr << ": lib=" << got << " fpsr=" << fpsr
                        << " / unicorn=" << want << " fpsr=" << (hw.fpsr & kFpsrFlags);
      }
    }
  }
  return mismatches;
}

std::vector<Operands> unary_inputs(unsigned n, size_t random_count, uint64_t seed) {
  Gen g(n, seed);
  std::vector<Operands> in;
  for (uint64_t s : specials(n)) in.push_back({s, 0, 0});
  for (size_t i = 0; i < random_count; ++i) in.push_back({g.value(), 0, 0});
  return in;
}

std::vector<Operands> binary_inputs(unsigned n, size_t random_count, uint64_t seed) {
  Gen g(n, seed);
  std::vector<Operands> in;
  const auto s = specials(n);
  for (uint64_t a : s)
    for (uint64_t b : s) in.push_back({a, b, 0});
  for (size_t i = 0; i < random_count; ++i) {
    const uint64_t a = g.value();
    in.push_back({a, g.partner(a), 0});
  }
  return in;
}

// ---- per-width library dispatch
// --------------------------------------------------------------------------------
template <unsigned N> struct Lib;
#define VPLAT_FP_LIB(N, T)                                                                                   \
  template <> struct Lib<N> {                                                                                \
    using Bits = T;                                                                                          \
    static constexpr auto add = add##N, sub = sub##N, mul = mul##N, div = div##N, mulx = mulx##N;            \
    static constexpr auto max = max##N, min = min##N, maxnum = maxnum##N, minnum = minnum##N;                \
    static constexpr auto recps = recps##N, rsqrts = rsqrts##N, muladd = muladd##N, sqrt = sqrt##N;          \
    static constexpr auto recpe = recpe##N, rsqrte = rsqrte##N, recpx = recpx##N, cmp = cmp##N;              \
    static constexpr auto cmp_eq = cmp_eq##N, cmp_ge = cmp_ge##N, cmp_gt = cmp_gt##N;                        \
    static constexpr auto round_int = round_int##N, to_int = f##N##_to_int, from_int = int_to_f##N;          \
  };
VPLAT_FP_LIB(16, uint16_t)
VPLAT_FP_LIB(32, uint32_t)
VPLAT_FP_LIB(64, uint64_t)
#undef VPLAT_FP_LIB

template <unsigned N, class F> LibFn binary(F f) {
  using T = typename Lib<N>::Bits;
  return [f](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
    return f(T(in[0]), T(in[1]), fpcr, fpsr);
  };
}
template <unsigned N, class F> LibFn unary(F f) {
  using T = typename Lib<N>::Bits;
  return
      [f](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t { return f(T(in[0]), fpcr, fpsr); };
}
template <unsigned N, class F> LibFn predicate(F f) {
  using T = typename Lib<N>::Bits;
  return [f](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
    return f(T(in[0]), T(in[1]), fpcr, fpsr) ? ~uint64_t(0) : 0;
  };
}

// Scale for random counts, so the whole suite stays within its time budget.
constexpr size_t kRandomBinary = 4000;
constexpr size_t kRandomUnary = 4000;

template <unsigned N> void test_binary_ops() {
  using L = Lib<N>;
  const std::vector<Op> ops = {
      {"fadd", enc_fp2(2, N), N, Io::Vec, Io::Vec, binary<N>(L::add)},
      {"fsub", enc_fp2(3, N), N, Io::Vec, Io::Vec, binary<N>(L::sub)},
      {"fmul", enc_fp2(0, N), N, Io::Vec, Io::Vec, binary<N>(L::mul)},
      {"fdiv", enc_fp2(1, N), N, Io::Vec, Io::Vec, binary<N>(L::div)},
      {"fmax", enc_fp2(4, N), N, Io::Vec, Io::Vec, binary<N>(L::max)},
      {"fmin", enc_fp2(5, N), N, Io::Vec, Io::Vec, binary<N>(L::min)},
      {"fmaxnm", enc_fp2(6, N), N, Io::Vec, Io::Vec, binary<N>(L::maxnum)},
      {"fminnm", enc_fp2(7, N), N, Io::Vec, Io::Vec, binary<N>(L::minnum)},
      {"fmulx", enc_simd3(0x5E20DC00, 0x5E401C00, N), N, Io::Vec, Io::Vec, binary<N>(L::mulx)},
      {"frecps", enc_simd3(0x5E20FC00, 0x5E403C00, N), N, Io::Vec, Io::Vec, binary<N>(L::recps)},
      {"frsqrts", enc_simd3(0x5EA0FC00, 0x5EC03C00, N), N, Io::Vec, Io::Vec, binary<N>(L::rsqrts)},
  };
  const auto fpcrs = fpcr_set();
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto inputs = binary_inputs(N, kRandomBinary, 1000 * N + i);
    EXPECT_EQ(check(ops[i], inputs, fpcrs), 0u) << ops[i].name << N;
  }
}

template <unsigned N> void test_compare_ops() {
  using L = Lib<N>;
  auto fcmp = [](bool e) {
    return [e](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
      return L::cmp(typename L::Bits(in[0]), typename L::Bits(in[1]), e, fpcr, fpsr);
    };
  };
  const std::vector<Op> ops = {
      {"fcmp", enc_fcmp(N, false), 4, Io::Vec, Io::Nzcv, fcmp(false)},
      {"fcmpe", enc_fcmp(N, true), 4, Io::Vec, Io::Nzcv, fcmp(true)},
      {"fcmeq", enc_simd3(0x5E20E400, 0x5E402400, N), N, Io::Vec, Io::Vec, predicate<N>(L::cmp_eq)},
      {"fcmge", enc_simd3(0x7E20E400, 0x7E402400, N), N, Io::Vec, Io::Vec, predicate<N>(L::cmp_ge)},
      {"fcmgt", enc_simd3(0x7EA0E400, 0x7EC02400, N), N, Io::Vec, Io::Vec, predicate<N>(L::cmp_gt)},
  };
  // Comparisons ignore the rounding mode, so FZ x DN suffices.
  const std::vector<uint32_t> fpcrs = {0, kFPCR_FZ | kFPCR_FZ16, kFPCR_DN, kFPCR_FZ | kFPCR_FZ16 | kFPCR_DN};
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto inputs = binary_inputs(N, kRandomBinary, 2000 * N + i);
    EXPECT_EQ(check(ops[i], inputs, fpcrs), 0u) << ops[i].name << N;
  }
}

template <unsigned N> void test_fma() {
  using L = Lib<N>;
  const Op op{"fmadd",
              enc_fmadd(N),
              N,
              Io::Vec,
              Io::Vec,
              [](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                using T = typename L::Bits;
                // fmadd d0, s1, s2, s3: addend is the third operand register (v3).
                return L::muladd(T(in[2]), T(in[0]), T(in[1]), fpcr, fpsr);
              }};
  Gen g(N, 3000 + N);
  std::vector<Operands> inputs;
  const auto s = specials(N);
  // A subset of specials cubed (always including the FPMulAdd corner cases: inf * 0 with a NaN addend,
  // opposite infinities, signed zeros), then random triples, some with the addend cancelling the product.
  std::vector<uint64_t> few;
  for (size_t i = 0; i < s.size(); i += 3) few.push_back(s[i]);
  const Fmt m = fmt_of(N);
  const uint64_t sign = uint64_t(1) << (N - 1);
  for (uint64_t v :
       {uint64_t(0), m.make(0, m.exp_ones(), 0), m.make(0, m.exp_ones(), uint64_t(1) << (m.f - 1)),
        m.make(0, m.exp_ones(), 5), m.num(0, 0), uint64_t(1)})
    for (uint64_t sv : {v, v | sign})
      if (std::find(few.begin(), few.end(), sv) == few.end()) few.push_back(sv);
  for (uint64_t a : few)
    for (uint64_t b : few)
      for (uint64_t c : few) inputs.push_back({a, b, c});
  for (size_t i = 0; i < 6000; ++i) {
    const uint64_t a = g.value(), b = g.partner(a);
    uint64_t c = g.value();
    if (i % 3 == 0) {
      // Addend close to -(a*b): host arithmetic is only used to find an interesting operand.
      if constexpr (N == 64) {
        double x, y;
        std::memcpy(&x, &a, 8);
        std::memcpy(&y, &b, 8);
        const double p = -(x * y);
        std::memcpy(&c, &p, 8);
        c ^= g.below(4);
      } else if constexpr (N == 32) {
        float x, y;
        std::memcpy(&x, &a, 4);
        std::memcpy(&y, &b, 4);
        const float p = -(x * y);
        uint32_t c32;
        std::memcpy(&c32, &p, 4);
        c = c32 ^ g.below(4);
      }
    }
    inputs.push_back({a, b, c});
  }
  EXPECT_EQ(check(op, inputs, fpcr_set()), 0u);
}

template <unsigned N> void test_unary_ops() {
  using L = Lib<N>;
  using T = typename L::Bits;
  auto frint = [](Rounding rm, bool use_fpcr, bool exact) {
    return [=](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
      return L::round_int(T(in[0]), use_fpcr ? fpcr_rounding(fpcr) : rm, exact, fpcr, fpsr);
    };
  };
  const std::vector<Op> ops = {
      {"fsqrt", enc_fp1(3, N), N, Io::Vec, Io::Vec, unary<N>(L::sqrt)},
      {"frintn", enc_fp1(8, N), N, Io::Vec, Io::Vec, frint(Rounding::TieEven, false, false)},
      {"frintp", enc_fp1(9, N), N, Io::Vec, Io::Vec, frint(Rounding::PosInf, false, false)},
      {"frintm", enc_fp1(10, N), N, Io::Vec, Io::Vec, frint(Rounding::NegInf, false, false)},
      {"frintz", enc_fp1(11, N), N, Io::Vec, Io::Vec, frint(Rounding::Zero, false, false)},
      {"frinta", enc_fp1(12, N), N, Io::Vec, Io::Vec, frint(Rounding::TieAway, false, false)},
      {"frintx", enc_fp1(14, N), N, Io::Vec, Io::Vec, frint(Rounding::TieEven, true, true)},
      {"frinti", enc_fp1(15, N), N, Io::Vec, Io::Vec, frint(Rounding::TieEven, true, false)},
      {"frecpe", enc_simd1(0x5EA1D800, 0x5EF9D800, N), N, Io::Vec, Io::Vec, unary<N>(L::recpe)},
      {"frsqrte", enc_simd1(0x7EA1D800, 0x7EF9D800, N), N, Io::Vec, Io::Vec, unary<N>(L::rsqrte)},
      {"frecpx", enc_simd1(0x5EA1F800, 0x5EF9F800, N), N, Io::Vec, Io::Vec, unary<N>(L::recpx)},
  };
  const auto fpcrs = fpcr_set();
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto inputs = unary_inputs(N, kRandomUnary, 4000 * N + i);
    EXPECT_EQ(check(ops[i], inputs, fpcrs), 0u) << ops[i].name << N;
  }
}

// FCVT between all pairs of formats, and FCVTXN.
template <unsigned From, unsigned To> void test_convert_pair() {
  static_assert(From != To);
  const Op op{"fcvt",
              enc_fp1(4 | ftype(To), From),
              To,
              Io::Vec,
              Io::Vec,
              [](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                if constexpr (From == 16 && To == 32)
                  return f16_to_f32(uint16_t(in[0]), fpcr, fpsr);
                else if constexpr (From == 16 && To == 64)
                  return f16_to_f64(uint16_t(in[0]), fpcr, fpsr);
                else if constexpr (From == 32 && To == 16)
                  return f32_to_f16(uint32_t(in[0]), fpcr, fpsr);
                else if constexpr (From == 32 && To == 64)
                  return f32_to_f64(uint32_t(in[0]), fpcr, fpsr);
                else if constexpr (From == 64 && To == 16)
                  return f64_to_f16(in[0], fpcr, fpsr);
                else
                  return f64_to_f32(in[0], fpcr, fpsr);
              }};
  auto inputs = unary_inputs(From, 2500, 5000 + From * 3 + To);
  // Values around the destination's denormal and overflow boundaries.
  Gen g(From, 6000 + From + To);
  const Fmt src = fmt_of(From), dst = fmt_of(To);
  if (To < From)
    for (int i = 0; i < 2000; ++i) {
      const int e =
          (i & 1) ? dst.bias() - 2 + int(g.below(20)) : 1 - dst.bias() - dst.f - 2 + int(g.below(dst.f + 6));
      inputs.push_back({src.make(g.rng()() & 1, e + src.bias(), g.bits()), 0, 0});
    }
  EXPECT_EQ(check(op, inputs, fpcr_set(From == 16 || To == 16)), 0u) << From << "->" << To;
}

template <unsigned N> void test_to_int() {
  using L = Lib<N>;
  using T = typename L::Bits;
  struct Mode {
    const char* name;
    uint32_t rmode;
    uint32_t opcode_signed;
    Rounding rm;
  };
  const Mode modes[] = {{"fcvtn", 0, 0, Rounding::TieEven},
                        {"fcvta", 0, 4, Rounding::TieAway},
                        {"fcvtp", 1, 0, Rounding::PosInf},
                        {"fcvtm", 2, 0, Rounding::NegInf},
                        {"fcvtz", 3, 0, Rounding::Zero}};
  // Rounding is explicit, so FPCR only contributes FZ (and DN, which must not matter).
  const std::vector<uint32_t> fpcrs = {0, kFPCR_FZ | kFPCR_FZ16, 2u << kFPCR_RMODE_SHIFT | kFPCR_DN};
  auto inputs = unary_inputs(N, 2000, 7000 + N);
  Gen g(N, 7100 + N);
  const Fmt m = fmt_of(N);
  for (int i = 0; i < 1500; ++i) // magnitudes around the integer ranges and fraction boundaries
    inputs.push_back({m.make(g.rng()() & 1, std::min(m.bias() - 2 + int(g.below(68)), m.exp_ones() - 1),
                             g.bits() << g.below(unsigned(m.f))),
                      0, 0});
  for (unsigned int_bits : {32u, 64u})
    for (bool is_unsigned : {false, true}) {
      for (const Mode& md : modes) {
        const Op op{std::string(md.name) + (is_unsigned ? "u" : "s"),
                    enc_to_int(N, int_bits, md.rmode, md.opcode_signed | is_unsigned, 0, false),
                    int_bits,
                    Io::Vec,
                    Io::Gpr,
                    [=](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                      return L::to_int(T(in[0]), int_bits, is_unsigned, 0, md.rm, fpcr, fpsr);
                    }};
        EXPECT_EQ(check(op, inputs, fpcrs), 0u) << op.name << " int" << int_bits << " from f" << N;
      }
      // Fixed point: a sample of fbits over the whole legal range.
      for (unsigned fbits : {1u, 2u, 7u, 16u, 31u, 32u, 33u, 52u, 63u, 64u}) {
        if (fbits > int_bits) continue;
        std::vector<Operands> sample(inputs.begin(), inputs.begin() + std::min<size_t>(inputs.size(), 1200));
        const Op op{"fcvtz fixed",
                    enc_to_int(N, int_bits, 3, is_unsigned, fbits, true),
                    int_bits,
                    Io::Vec,
                    Io::Gpr,
                    [=](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                      return L::to_int(T(in[0]), int_bits, is_unsigned, fbits, Rounding::Zero, fpcr, fpsr);
                    }};
        EXPECT_EQ(check(op, sample, fpcrs), 0u) << op.name << " int" << int_bits << " fbits " << fbits;
      }
    }
}

template <unsigned N> void test_from_int() {
  using L = Lib<N>;
  std::mt19937_64 rng(8000 + N);
  std::vector<Operands> inputs;
  for (uint64_t v :
       {0ull, 1ull, 2ull, 3ull, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull, 0x7FFFFFFFFFFFFFFFull,
        0x8000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFF00000001ull, 0x0000000100000001ull})
    inputs.push_back({v, 0, 0});
  for (int i = 0; i < 3000; ++i) {
    uint64_t v = rng();
    v >>= rng() % 64;                                      // all magnitudes
    if (rng() & 1) v = ~v + (rng() & 1);                   // negative and near-negative values
    if (rng() % 4 == 0) v &= ~uint64_t(0) << (rng() % 40); // exact values and ties
    inputs.push_back({v, 0, 0});
  }
  for (unsigned int_bits : {32u, 64u})
    for (bool is_unsigned : {false, true})
      for (unsigned fbits : {0u, 1u, 5u, 24u, 32u, 40u, 64u}) {
        if (fbits > int_bits) continue;
        const Op op{is_unsigned ? "ucvtf" : "scvtf",
                    enc_from_int(N, int_bits, is_unsigned, fbits, fbits != 0),
                    N,
                    Io::Gpr,
                    Io::Vec,
                    [=](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                      return L::from_int(in[0], int_bits, is_unsigned, fbits, fpcr, fpsr);
                    }};
        const auto fpcrs = fbits == 0 || fbits == 64 ? fpcr_set() : std::vector<uint32_t>{0, 3u << 22};
        EXPECT_EQ(check(op, inputs, fpcrs), 0u) << op.name << " int" << int_bits << " fbits " << fbits;
      }
}

// The harness itself: Unicorn executes what we think, honours FPCR, and a wrong model is caught.
TEST(ArmFp, HarnessSanity) {
  Emulator& emu = Emulator::instance();
  const uint64_t one_plus_tiny[3] = {0x3F800000, 0x33800000, 0}; // 1.0f + 2^-24: a tie
  EXPECT_EQ(emu.run(enc_fp2(2, 32), one_plus_tiny, 0).v0 & 0xFFFFFFFF, 0x3F800000u);
  EXPECT_EQ(emu.run(enc_fp2(2, 32), one_plus_tiny, 1u << kFPCR_RMODE_SHIFT).v0 & 0xFFFFFFFF, 0x3F800001u);
  EXPECT_EQ(emu.run(enc_fp2(2, 32), one_plus_tiny, 0).fpsr & kFpsrFlags, kIXC);
  const uint64_t denormal_plus_zero[3] = {1, 0, 0};
  const auto flushed = emu.run(enc_fp2(2, 32), denormal_plus_zero, kFPCR_FZ);
  EXPECT_EQ(flushed.v0 & 0xFFFFFFFF, 0u);
  EXPECT_EQ(flushed.fpsr & kFpsrFlags, kIDC);
  const Op wrong{"fadd-vs-sub", enc_fp2(2, 32), 32, Io::Vec, Io::Vec, binary<32>(sub32)};
  EXPECT_GT(check(wrong, binary_inputs(32, 100, 1), {0}, false), 1000u);
}

TEST(ArmFp, Binary32) {
  test_binary_ops<32>();
}
TEST(ArmFp, Binary64) {
  test_binary_ops<64>();
}
TEST(ArmFp, Binary16) {
  test_binary_ops<16>();
}
TEST(ArmFp, Compare32) {
  test_compare_ops<32>();
}
TEST(ArmFp, Compare64) {
  test_compare_ops<64>();
}
TEST(ArmFp, Compare16) {
  test_compare_ops<16>();
}
TEST(ArmFp, MulAdd32) {
  test_fma<32>();
}
TEST(ArmFp, MulAdd64) {
  test_fma<64>();
}
TEST(ArmFp, MulAdd16) {
  test_fma<16>();
}
TEST(ArmFp, Unary32) {
  test_unary_ops<32>();
}
TEST(ArmFp, Unary64) {
  test_unary_ops<64>();
}
TEST(ArmFp, Unary16) {
  test_unary_ops<16>();
}

TEST(ArmFp, Convert) {
  test_convert_pair<32, 64>();
  test_convert_pair<64, 32>();
  test_convert_pair<16, 32>();
  test_convert_pair<32, 16>();
  test_convert_pair<16, 64>();
  test_convert_pair<64, 16>();
}

TEST(ArmFp, ConvertRoundToOdd) {
  const Op op{"fcvtxn",
              0x7E616800 | 1 << 5,
              32,
              Io::Vec,
              Io::Vec,
              [](const Operands& in, uint32_t fpcr, uint32_t& fpsr) -> uint64_t {
                return f64_to_f32_odd(in[0], fpcr, fpsr);
              }};
  auto inputs = unary_inputs(64, 4000, 9000);
  Gen g(64, 9001);
  for (int i = 0; i < 2000; ++i)
    inputs.push_back({fmt_of(64).make(g.rng()() & 1, 1023 - 160 + int(g.below(300)), g.bits()), 0, 0});
  EXPECT_EQ(check(op, inputs, fpcr_set()), 0u);
}

TEST(ArmFp, ToInt32) {
  test_to_int<32>();
}
TEST(ArmFp, ToInt64) {
  test_to_int<64>();
}
TEST(ArmFp, ToInt16) {
  test_to_int<16>();
}
TEST(ArmFp, FromInt32) {
  test_from_int<32>();
}
TEST(ArmFp, FromInt64) {
  test_from_int<64>();
}
TEST(ArmFp, FromInt16) {
  test_from_int<16>();
}

TEST(ArmFp, UnsignedEstimates) {
  std::mt19937_64 rng(9100);
  std::vector<Operands> inputs;
  for (uint64_t i = 0; i < 512; ++i) // every table index, with random low bits
    inputs.push_back({i << 23 | (rng() & 0x7FFFFF), 0, 0});
  for (int i = 0; i < 2000; ++i) inputs.push_back({rng() & 0xFFFFFFFF, 0, 0});
  const Op urecpe_op{
      "urecpe", 0x0EA1C800 | 1 << 5,
      32,       Io::Vec,
      Io::Vec,  [](const Operands& in, uint32_t, uint32_t&) -> uint64_t { return urecpe(uint32_t(in[0])); }};
  const Op ursqrte_op{"ursqrte",
                      0x2EA1C800 | 1 << 5,
                      32,
                      Io::Vec,
                      Io::Vec,
                      [](const Operands& in, uint32_t, uint32_t&) -> uint64_t { return ursqrte(uint32_t(in[0])); }};
  EXPECT_EQ(check(urecpe_op, inputs, {0}), 0u);
  EXPECT_EQ(check(ursqrte_op, inputs, {0}), 0u);
}

// Reports how many differential comparisons this process made (ctest runs each test in its own process).
class ComparisonCountReporter : public ::testing::Environment {
public:
  void TearDown() override {
    std::printf("[ArmFp] %llu differential comparisons against Unicorn\n",
                static_cast<unsigned long long>(g_comparisons));
  }
};
[[maybe_unused]] ::testing::Environment* const g_reporter =
    ::testing::AddGlobalTestEnvironment(new ComparisonCountReporter);

} // namespace
