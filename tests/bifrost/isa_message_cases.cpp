// Tests of the message group (archdesc/bifrost/message.adl): narrow loads and stores with their lane and
// extension forms on every segment (global, WLS, TLS, UBO), exchange atomics and the ATOM_C/ATOM_CX pairs,
// ATOM_POST; plus segment faults and atomicity against other host threads. Memory is filled with a byte pattern
// computed here, segment windows and UBO descriptors are laid out here, and every expected value is derived from
// those with plain C++ (no use of the model's own output).
#include "isa_cases.h"
#include <algorithm>
#include <optional>
#include <atomic>
#include <thread>

namespace bifrost_isa_test {
namespace {

// Layout inside the test data mapping.
constexpr uint64_t kPatternBytes = 0x4000;
constexpr uint64_t kWlsVa = kDataVa + 0x1000, kWlsSize = 0x100;
constexpr uint64_t kTlsVa = kDataVa + 0x2000, kTlsSize = 0x40; // lane l's window at kTlsVa + l * kTlsSize
constexpr uint64_t kUboTable = kDataVa + 0x3000;
constexpr uint64_t kUboVa[2] = {kDataVa + 0x3100, kDataVa + 0x3200};
constexpr uint64_t kUboSize[2] = {32, 64};
constexpr uint64_t kScratchVa = kDataVa + 0x8000; // atomics and stores to global memory

uint8_t pat(uint64_t va) {
  uint64_t i = va - kDataVa;
  return static_cast<uint8_t>((i * 131 + 7) ^ (i >> 8));
}
uint32_t pat_le(uint64_t va, unsigned bytes) {
  uint32_t v = 0;
  for (unsigned b = 0; b < bytes; ++b) v |= uint32_t(pat(va + b)) << (8 * b);
  return v;
}

struct Rig {
  GpuEnv gpu;
  Rig() {
    std::vector<uint8_t> bytes(kPatternBytes);
    for (uint64_t i = 0; i < kPatternBytes; ++i) bytes[i] = pat(kDataVa + i);
    EXPECT_TRUE(gpu.bus.copy_to(kDataPa, bytes.data(), bytes.size()));
    // genxml "Uniform Buffer": entries - 1 in [11:0], pointer >> 4 in [63:12].
    for (unsigned u = 0; u < 2; ++u) {
      uint64_t desc = (kUboSize[u] / 16 - 1) | ((kUboVa[u] >> 4) << 12);
      EXPECT_TRUE(gpu.bus.copy_to(kDataPa + (kUboTable - kDataVa) + 8 * u, &desc, 8));
    }
  }
  std::function<void(QuadLaunch&)> tweak; // changes to the standard segment layout, if any
  QuadLaunch launch(const std::vector<Lanes>& in) {
    QuadLaunch l;
    l.entry = kCodeVa;
    for (unsigned lane = 0; lane < 4; ++lane) {
      for (size_t r = 0; r < in.size(); ++r) l.regs[lane][r] = in[r][lane];
      l.tls_base[lane] = kTlsVa + lane * kTlsSize;
    }
    l.wls_base = kWlsVa;
    l.wls_size = kWlsSize;
    l.tls_size = kTlsSize;
    l.ubo_table = kUboTable;
    l.ubo_count = 2;
    if (tweak) tweak(l);
    return l;
  }
  QuadResult run(const std::string& text, const std::vector<Lanes>& in) {
    gpu.load_code(kCodeVa, bifrost_asm::assemble(text));
    return gpu.core->run_quad(launch(in));
  }
  QuadResult run_clauses(const std::vector<std::string>& clauses, const std::vector<Lanes>& in) {
    uint64_t at = kCodeVa;
    for (auto& c : clauses) at = gpu.load_code(at, bifrost_asm::assemble(c));
    return gpu.core->run_quad(launch(in));
  }
  uint8_t byte(uint64_t va) {
    uint8_t v = 0;
    EXPECT_TRUE(gpu.bus.copy_from(kDataPa + (va - kDataVa), &v, 1));
    return v;
  }
};

// A lane's segment address {hi:lo} for an access of `bytes`, and the GPU address it must reach, per segment:
// offsets are multiples of the access size and differ per lane.
struct SegAddr {
  uint32_t lo, hi;
  uint64_t va;
};
SegAddr seg_addr(unsigned seg, unsigned lane, unsigned bytes) {
  static const unsigned k[4] = {3, 0, 9, 5};
  uint32_t off = k[lane] * bytes;
  switch (seg) {
  case 2: return {off, 0, kWlsVa + off};
  case 7: return {off, 0, kTlsVa + lane * kTlsSize + off};
  case 4: {
    unsigned u = lane >= 2;
    uint32_t o = off % static_cast<uint32_t>(kUboSize[u]);
    return {o, u, kUboVa[u] + o};
  }
  default: return {uint32_t(kDataVa + 0x500 + off), 0, kDataVa + 0x500 + off};
  }
}
const char* kSegName[8] = {"", "global", "wls", "stream", "ubo", "", "", "tl"};

// A narrow load of `bytes` on every load segment: r12/r13 start with known values; `ref` gives the expected
// (r12, r13) from the loaded memory value and the old r12.
// second: r13's expected value, or nullopt when r13 must keep its value.
using LoadRef = std::function<std::pair<uint32_t, std::optional<uint32_t>>(uint32_t mem, uint32_t old12)>;
// The same from the lane's GPU address and both old registers (accesses wider than a word).
using LoadRefVa = std::function<std::pair<uint32_t, uint32_t>(uint64_t va, uint32_t old12, uint32_t old13)>;
bool narrow_load_va(const std::string& op, unsigned bytes, const LoadRefVa& ref, std::string& why);
bool narrow_load(const std::string& op, unsigned bytes, const LoadRef& ref, std::string& why) {
  return narrow_load_va(
      op, bytes,
      [&](uint64_t va, uint32_t old12, uint32_t old13) {
        auto w = ref(pat_le(va, bytes), old12);
        return std::make_pair(w.first, w.second.value_or(old13));
      },
      why);
}
bool narrow_load_va(const std::string& op, unsigned bytes, const LoadRefVa& ref, std::string& why) {
  for (unsigned seg : {1u, 2u, 4u, 7u}) {
    Rig rig;
    Lanes lo, hi, r12, r13;
    for (unsigned l = 0; l < 4; ++l) {
      auto a = seg_addr(seg, l, bytes);
      lo[l] = a.lo;
      hi[l] = a.hi;
      r12[l] = 0xa1b2c3d4u ^ (l * 0x01010101u);
      r13[l] = 0x13579bdfu + l;
    }
    std::vector<Lanes> in(14);
    in[0] = lo;
    in[1] = hi;
    in[12] = r12;
    in[13] = r13;
    auto r = rig.run("header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; " + op + " src0=0 src1=1 seg=" +
                         std::to_string(seg),
                     in);
    for (unsigned reg : {12u, 13u})
      if (!check_lanes(
              r, reg,
              [&](unsigned l) {
                auto w = ref(seg_addr(seg, l, bytes).va, r12[l], r13[l]);
                return reg == 12 ? w.first : w.second;
              },
              why))
        return why = op + " seg " + kSegName[seg] + ": " + why, false;
  }
  return true;
}
const std::optional<uint32_t> kKeep; // r13 unchanged

uint32_t sext(uint32_t v, unsigned bits) {
  uint32_t m = bits == 32 ? ~0u : (1u << bits) - 1;
  v &= m;
  return (v >> (bits - 1)) & 1 ? v | ~m : v;
}

// A narrow store on every store segment; the bytes around the stored ones keep the pattern.
bool narrow_store(const std::string& op, unsigned bytes, std::string& why) {
  for (unsigned seg : {1u, 2u, 7u}) {
    Rig rig;
    Lanes lo, hi, val = {0x89abcdefu, 0x01234567u, 0xfedcba98u, 0x7f80ff00u},
                  val2 = {0x5555c3a5u, 0x66660f1eu, 0x7777e1d2u, 0x88883c4bu}; // bytes 4, 5 (i48)
    for (unsigned l = 0; l < 4; ++l) {
      auto a = seg_addr(seg, l, bytes);
      lo[l] = a.lo;
      hi[l] = a.hi;
    }
    std::vector<Lanes> in(15);
    in[0] = lo;
    in[1] = hi;
    in[13] = val;
    in[14] = val2;
    auto r = rig.run("header sr=13 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; " + op + " src0=0 src1=1 seg=" +
                         std::to_string(seg),
                     in);
    if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
    for (unsigned l = 0; l < 4; ++l) {
      uint64_t va = seg_addr(seg, l, bytes).va;
      for (unsigned b = 0; b < bytes; ++b)
        if (rig.byte(va + b) != uint8_t(b < 4 ? val[l] >> (8 * b) : val2[l] >> (8 * (b - 4))))
          return why = op + " seg " + kSegName[seg] + " lane " + std::to_string(l) + " byte wrong", false;
      if (rig.byte(va + bytes) != pat(va + bytes) || rig.byte(va - 1) != pat(va - 1))
        return why = op + " seg " + kSegName[seg] + " lane " + std::to_string(l) + " touched a neighbour", false;
    }
  }
  return true;
}

// ---- atomics

uint32_t ref_atom(unsigned opc, uint32_t a, uint32_t b) {
  switch (opc) {
  case 2: return a + b;
  case 8: return uint32_t(std::min(int32_t(a), int32_t(b)));
  case 9: return uint32_t(std::max(int32_t(a), int32_t(b)));
  case 10: return std::min(a, b);
  case 11: return std::max(a, b);
  case 12: return a & b;
  case 13: return a | b;
  default: return a ^ b;
  }
}
const unsigned kOpcs[] = {2, 8, 9, 10, 11, 12, 13, 14};
const Lanes kAtomInit = {0x00000005u, 0xfffffff0u, 0x80000001u, 0x7ffffff0u};
const Lanes kAtomArg = {0x00000003u, 0x0000000fu, 0xffffffffu, 0x12345678u};

// Two clauses: the ATOM_C* / +ATOM_CX pair (address {r1:r0}, staging r12..r13, argument in r12), then
// *ATOM_POST of the staging pair into r10.
std::vector<std::string> atom_program(const std::string& fma_op, unsigned post_opc, bool with_post) {
  std::vector<std::string> p = {std::string(with_post ? "header flow=3" : "header") +
                                " sr=12 msg=7\ntuple p0=r0 p1=r1 ; " + fma_op +
                                " src0=0 src1=1 ; +ATOM_CX src0=0 src1=1"};
  if (with_post)
    p.push_back("tuple p0=r12 p1=r13 ; *ATOM_POST.i32 src0=0 src1=1 opc=" + std::to_string(post_opc) +
                " ; +NOP ; fma->r10");
  return p;
}

// Distinct addresses per lane: memory becomes op(init, arg); the return form's post value is the old value.
bool atom_distinct(const std::string& fma_name, bool ret, std::string& why) {
  for (unsigned opc : kOpcs) {
    Rig rig;
    Lanes lo;
    for (unsigned l = 0; l < 4; ++l) {
      lo[l] = uint32_t(kScratchVa + 16 * l);
      rig.gpu.write32(lo[l], kAtomInit[l]);
    }
    std::vector<Lanes> in(14);
    in[0] = lo;
    in[12] = kAtomArg;
    in[13] = {0xdddd0000u, 0xdddd0001u, 0xdddd0002u, 0xdddd0003u};
    auto r = rig.run_clauses(atom_program(fma_name + " opc=" + std::to_string(opc), opc, ret), in);
    std::string tag = fma_name + " opc " + std::to_string(opc) + ": ";
    if (ret) {
      if (!check_lanes(r, 10, [&](unsigned l) { return kAtomInit[l]; }, why)) return why = tag + why, false;
    } else if (!check_lanes(r, 12, [&](unsigned l) { return kAtomArg[l]; }, why) ||
               !check_lanes(r, 13, [&](unsigned l) { return in[13][l]; }, why)) {
      return why = tag + "staging changed without return: " + why, false;
    }
    for (unsigned l = 0; l < 4; ++l)
      if (rig.gpu.read32(lo[l]) != ref_atom(opc, kAtomInit[l], kAtomArg[l]))
        return why = tag + "memory wrong on lane " + std::to_string(l), false;
  }
  return true;
}

// All four lanes on one address: the final value folds every argument in; with return, the values the lanes
// saw must be those of some order of the four updates (checked against all 24 orders).
bool atom_shared(unsigned opc, const Lanes& arg, const std::vector<std::string>& program, uint32_t init,
                 std::string& why) {
  Rig rig;
  rig.gpu.write32(kScratchVa, init);
  std::vector<Lanes> in(14);
  in[0] = {uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa)};
  in[12] = arg;
  auto r = rig.run_clauses(program, in);
  if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
  uint32_t fin = init;
  for (unsigned l = 0; l < 4; ++l) fin = ref_atom(opc, fin, arg[l]);
  if (rig.gpu.read32(kScratchVa) != fin) return why = "final value wrong", false;
  if (program.size() < 2) return true;
  std::array<unsigned, 4> order = {0, 1, 2, 3};
  do {
    uint32_t v = init;
    bool ok = true;
    for (unsigned l : order) {
      ok = ok && r.regs[l][10] == v;
      v = ref_atom(opc, v, arg[l]);
    }
    if (ok) return true;
  } while (std::next_permutation(order.begin(), order.end()));
  return why = "returned values match no order of the updates", false;
}

void add_message_cases(CaseMap& c) {
  // ---- narrow loads
  c["ADD_LOAD_i8"] = [](std::string& why) {
    for (unsigned lane = 0; lane < 4; ++lane)
      if (!narrow_load("+LOAD.i8 lane=" + std::to_string(lane), 1,
                       [&](uint32_t m, uint32_t old) {
                         return std::make_pair((old & ~(0xffu << (8 * lane))) | (m << (8 * lane)), kKeep);
                       },
                       why))
        return false;
    return true;
  };
  c["ADD_LOAD_i8_h"] = [](std::string& why) {
    for (unsigned lane = 0; lane < 2; ++lane)
      for (unsigned ext = 0; ext < 2; ++ext)
        if (!narrow_load("ADD_LOAD_i8_h lane=" + std::to_string(lane) + " ext=" + std::to_string(ext), 1,
                         [&](uint32_t m, uint32_t old) {
                           uint32_t h = (ext ? m : sext(m, 8)) & 0xffff;
                           return std::make_pair((old & ~(0xffffu << (16 * lane))) | (h << (16 * lane)), kKeep);
                         },
                         why))
          return false;
    return true;
  };
  auto ext_load = [](const char* name, unsigned bytes, bool pair) {
    return [=](std::string& why) {
      for (unsigned ext = 0; ext < 2; ++ext)
        if (!narrow_load(std::string(name) + " ext=" + std::to_string(ext), bytes,
                         [&](uint32_t m, uint32_t) {
                           uint32_t w = ext ? m : sext(m, 8 * bytes);
                           uint32_t high = (!ext && (w >> 31)) ? 0xffffffffu : 0u;
                           return std::make_pair(w, pair ? std::optional<uint32_t>(high) : kKeep);
                         },
                         why))
          return false;
      return true;
    };
  };
  c["ADD_LOAD_i8_w0"] = ext_load("ADD_LOAD_i8_w0", 1, false);
  c["ADD_LOAD_i8_d0"] = ext_load("ADD_LOAD_i8_d0", 1, true);
  c["ADD_LOAD_i16_w0"] = ext_load("ADD_LOAD_i16_w0", 2, false);
  c["ADD_LOAD_i16_d0"] = ext_load("ADD_LOAD_i16_d0", 2, true);
  c["ADD_LOAD_i32_d0"] = ext_load("ADD_LOAD_i32_d0", 4, true);
  c["ADD_LOAD_i16"] = [](std::string& why) {
    for (unsigned lane = 0; lane < 2; ++lane)
      if (!narrow_load("+LOAD.i16 lane=" + std::to_string(lane), 2,
                       [&](uint32_t m, uint32_t old) {
                         return std::make_pair((old & ~(0xffffu << (16 * lane))) | (m << (16 * lane)), kKeep);
                       },
                       why))
        return false;
    return true;
  };

  c["ADD_LOAD_i24"] = [](std::string& why) {
    return narrow_load("+LOAD.i24", 3,
                       [](uint32_t m, uint32_t old) { return std::make_pair((old & 0xff000000u) | m, kKeep); }, why);
  };
  c["ADD_LOAD_i48"] = [](std::string& why) {
    return narrow_load_va(
        "+LOAD.i48", 6,
        [](uint64_t va, uint32_t, uint32_t old13) {
          return std::make_pair(pat_le(va, 4), (old13 & 0xffff0000u) | pat_le(va + 4, 2));
        },
        why);
  };

  // ---- narrow stores
  c["ADD_STORE_i8"] = [](std::string& why) { return narrow_store("+STORE.i8", 1, why); };
  c["ADD_STORE_i16"] = [](std::string& why) { return narrow_store("+STORE.i16", 2, why); };
  c["ADD_STORE_i24"] = [](std::string& why) { return narrow_store("+STORE.i24", 3, why); };
  c["ADD_STORE_i48"] = [](std::string& why) { return narrow_store("+STORE.i48", 6, why); };

  // ---- exchange atomics, global and WLS
  c["ADD_AXCHG_i32"] = [](std::string& why) {
    for (unsigned wls = 0; wls < 2; ++wls) {
      // Distinct words per lane, then all lanes on one word.
      for (bool shared : {false, true}) {
        Rig rig;
        Lanes lo, hi = {0, 0, 0, 0};
        std::vector<uint64_t> va(4);
        for (unsigned l = 0; l < 4; ++l) {
          uint32_t off = shared ? 0x40 : 0x40 + 8 * l;
          lo[l] = wls ? off : uint32_t(kScratchVa + off);
          va[l] = (wls ? kWlsVa : kScratchVa) + off;
          rig.gpu.write32(va[l], kAtomInit[l]);
        }
        std::vector<Lanes> in(14);
        in[0] = lo;
        in[1] = hi;
        in[12] = kAtomArg;
        auto r = rig.run("header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +AXCHG.i32 src0=0 src1=1 wls=" +
                             std::to_string(wls),
                         in);
        if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
        if (!shared) {
          if (!check_lanes(r, 12, [&](unsigned l) { return kAtomInit[l]; }, why)) return false;
          for (unsigned l = 0; l < 4; ++l)
            if (rig.gpu.read32(va[l]) != kAtomArg[l]) return why = "memory not exchanged", false;
        } else {
          // Every value written or initially present ends up exactly once in memory or a lane's register.
          std::vector<uint32_t> seen = {rig.gpu.read32(va[0])}, want = {kAtomInit[3]};
          for (unsigned l = 0; l < 4; ++l) {
            seen.push_back(r.regs[l][12]);
            want.push_back(kAtomArg[l]);
          }
          std::sort(seen.begin(), seen.end());
          std::sort(want.begin(), want.end());
          if (seen != want) return why = "shared exchange lost or duplicated a value", false;
        }
      }
    }
    return true;
  };
  c["ADD_ACMPXCHG_i32"] = [](std::string& why) {
    for (unsigned wls = 0; wls < 2; ++wls) {
      Rig rig;
      Lanes lo, hi = {0, 0, 0, 0};
      std::vector<uint64_t> va(4);
      // Lanes 0 and 2 compare equal, 1 and 3 do not.
      Lanes cmp = {kAtomInit[0], kAtomInit[1] + 1, kAtomInit[2], ~kAtomInit[3]};
      for (unsigned l = 0; l < 4; ++l) {
        lo[l] = wls ? 0x80 + 4 * l : uint32_t(kScratchVa + 0x80 + 4 * l);
        va[l] = (wls ? kWlsVa : kScratchVa) + 0x80 + 4 * l;
        rig.gpu.write32(va[l], kAtomInit[l]);
      }
      std::vector<Lanes> in(14);
      in[0] = lo;
      in[1] = hi;
      in[12] = kAtomArg; // new value
      in[13] = cmp;      // compare
      auto r = rig.run("header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +ACMPXCHG.i32 src0=0 src1=1 wls=" +
                           std::to_string(wls),
                       in);
      if (!check_lanes(r, 12, [&](unsigned l) { return kAtomInit[l]; }, why)) return false;
      for (unsigned l = 0; l < 4; ++l)
        if (rig.gpu.read32(va[l]) != (cmp[l] == kAtomInit[l] ? kAtomArg[l] : kAtomInit[l]))
          return why = "lane " + std::to_string(l) + " memory wrong", false;
      // All lanes racing to swap the same word from its initial value: exactly one wins.
      Rig rig2;
      uint64_t w = (wls ? kWlsVa : kScratchVa) + 0xc0;
      rig2.gpu.write32(w, 77);
      in[0] = {uint32_t(wls ? 0xc0 : w), uint32_t(wls ? 0xc0 : w), uint32_t(wls ? 0xc0 : w),
               uint32_t(wls ? 0xc0 : w)};
      in[13] = {77, 77, 77, 77};
      auto r2 = rig2.run("header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +ACMPXCHG.i32 src0=0 src1=1 wls=" +
                             std::to_string(wls),
                         in);
      if (r2.status != QuadResult::Status::Done) return why = "run failed: " + r2.error, false;
      unsigned winners = 0, winner = 0;
      for (unsigned l = 0; l < 4; ++l)
        if (r2.regs[l][12] == 77) ++winners, winner = l;
      if (winners != 1 || rig2.gpu.read32(w) != kAtomArg[winner])
        return why = "racing compare-exchange: not exactly one winner", false;
      for (unsigned l = 0; l < 4; ++l)
        if (l != winner && r2.regs[l][12] != kAtomArg[winner]) return why = "a loser did not see the winner", false;
    }
    return true;
  };

  // ---- ATOM_C / ATOM_C1 pairs with +ATOM_CX
  c["FMA_ATOM_C_i32"] = [](std::string& why) { return atom_distinct("*ATOM_C.i32", false, why); };
  c["FMA_ATOM_C_RETURN_i32"] = [](std::string& why) {
    if (!atom_distinct("*ATOM_C_RETURN.i32", true, why)) return false;
    for (unsigned opc : kOpcs)
      if (!atom_shared(opc, kAtomArg, atom_program("*ATOM_C_RETURN.i32 opc=" + std::to_string(opc), opc, true),
                       0x40000000u, why))
        return why = "shared opc " + std::to_string(opc) + ": " + why, false;
    return true;
  };
  // ATOM_C1 ops as (ATOM_C op, implied argument): ainc, adec, aumax1, asmax1, aor1.
  struct C1 {
    unsigned opc, post;
    uint32_t arg;
  };
  static const C1 kC1[] = {{0, 2, 1}, {1, 2, 0xffffffffu}, {2, 11, 1}, {3, 9, 1}, {4, 13, 1}};
  auto c1_case = [](bool ret) {
    return [ret](std::string& why) {
      for (const C1& k : kC1) {
        std::string name = std::string(ret ? "*ATOM_C1_RETURN.i32" : "*ATOM_C1.i32") + " opc=" + std::to_string(k.opc);
        for (uint32_t init : {0u, 0x80000000u, 0x7fffffffu, 6u}) {
          Lanes arg = {k.arg, k.arg, k.arg, k.arg};
          if (!atom_shared(k.post, arg, atom_program(name, k.post, ret), init, why))
            return why = name + " init " + std::to_string(init) + ": " + why, false;
        }
      }
      return true;
    };
  };
  c["FMA_ATOM_C1_i32"] = c1_case(false);
  c["FMA_ATOM_C1_RETURN_i32"] = c1_case(true);
  c["FMA_ATOM_POST_i32"] = [](std::string& why) {
    for (unsigned opc : kOpcs) {
      Env e;
      auto r = e.run("tuple p0=r0 p1=r1 ; *ATOM_POST.i32 src0=0 src1=1 opc=" + std::to_string(opc) +
                         " ; +NOP ; fma->r10",
                     {kAtomInit, kAtomArg});
      if (!check_lanes(r, 10, [&](unsigned l) { return ref_atom(opc, kAtomInit[l], kAtomArg[l]); }, why))
        return why = "opc " + std::to_string(opc) + ": " + why, false;
    }
    return true;
  };
  // SEG_ADD with windows placed above 4 GiB, so both halves are visible (no memory is accessed).
  auto seg_add = [](bool fma) {
    return [fma](std::string& why) {
      const uint64_t wls = 0x123456000ull, tls = 0x9fffff000ull;
      Lanes off = {0, 0x10, 0xffc, 0x7fffffff};
      for (unsigned seg : {2u, 7u}) {
        Rig rig;
        rig.tweak = [&](QuadLaunch& l) {
          l.wls_base = wls;
          for (unsigned i = 0; i < 4; ++i) l.tls_base[i] = tls + 0x400 * i;
        };
        std::string op = fma ? "*SEG_ADD src0=0 seg=" + std::to_string(seg) + " ; +NOP ; fma->r10"
                             : "*NOP ; +SEG_ADD src0=0 seg=" + std::to_string(seg) + " ; add->r10";
        auto r = rig.run("tuple p0=r0 ; " + op, {off});
        bool ok = check_lanes(
            r, 10,
            [&](unsigned l) {
              uint64_t base = seg == 2 ? wls : tls + 0x400 * l;
              return fma ? uint32_t(base + off[l]) : uint32_t(base >> 32) + off[l];
            },
            why);
        if (!ok) return why = std::string(kSegName[seg]) + ": " + why, false;
      }
      return true;
    };
  };
  c["FMA_SEG_ADD"] = seg_add(true);
  c["ADD_SEG_ADD"] = seg_add(false);
  // +ATOM_CX needs its FMA half: with one (the cases above) it performs the atomic; after a *NOP the pairing is
  // invalid and the quad faults with INSTR_INVALID_ENC without touching memory.
  c["ADD_ATOM_CX"] = [](std::string& why) {
    if (!atom_distinct("*ATOM_C_RETURN.i32", true, why)) return false;
    Rig rig;
    rig.gpu.write32(kScratchVa, 1234);
    std::vector<Lanes> in(14);
    in[0] = {uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa)};
    in[12] = kAtomArg;
    auto r = rig.run("header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +ATOM_CX src0=0 src1=1", in);
    if (r.status != QuadResult::Status::Fault || r.exception != 0x51)
      return why = "unpaired ATOM_CX did not raise INSTR_INVALID_ENC", false;
    if (rig.gpu.read32(kScratchVa) != 1234) return why = "unpaired ATOM_CX changed memory", false;
    return true;
  };
}

const std::initializer_list<RoundTrip> kMessageRoundTrips = {
    {"ADD_LOAD_i8", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i8 src0=0 src1=1 seg=2 lane=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i8.wls.b1 t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i8_h",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i8_h src0=0 src1=1 seg=1 lane=1 ext=0",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i8.h1.sext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i8_w0",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i8_w0 src0=0 src1=1 seg=7 ext=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i8.tl.w0.zext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i8_d0",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i8_d0 src0=0 src1=1 seg=4 ext=0",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i8.ubo.d0.sext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i16", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i16 src0=0 src1=1 seg=1 lane=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i16.h1 t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i16_w0",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i16_w0 src0=0 src1=1 seg=2 ext=0",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i16.wls.w0.sext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i16_d0",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i16_d0 src0=0 src1=1 seg=1 ext=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i16.d0.zext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i32_d0",
     "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; ADD_LOAD_i32_d0 src0=0 src1=1 seg=3 ext=0",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i32.stream.d0.sext t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i24", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i24 src0=0 src1=1 seg=7",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i24.tl t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i48", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i48 src0=0 src1=1 seg=4",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i48.ubo t1, r1, r2, @r8\n}\n"},
    {"ADD_STORE_i24", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i24 src0=0 src1=1 seg=1",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i24 t1, r1, r2, @r9\n}\n"},
    {"ADD_STORE_i48", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i48 src0=0 src1=1 seg=3",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i48.stream t1, r1, r2, @r9\n}\n"},
    {"ADD_STORE_i8", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i8 src0=0 src1=1 seg=7",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i8.tl t1, r1, r2, @r9\n}\n"},
    {"ADD_STORE_i16", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i16 src0=0 src1=1 seg=2",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i16.wls t1, r1, r2, @r9\n}\n"},
    {"ADD_AXCHG_i32", "header sr=10 msg=7\ntuple p0=r1 p1=r2 ; *NOP ; +AXCHG.i32 src0=0 src1=1 wls=1",
     "ds(0) eos atomic \n{\n*NOP t0\n+AXCHG.i32.wls t1, r1, r2, @r10\n}\n"},
    {"ADD_ACMPXCHG_i32", "header sr=10 msg=7\ntuple p0=r1 p1=r2 ; *NOP ; +ACMPXCHG.i32 src0=0 src1=1",
     "ds(0) eos atomic \n{\n*NOP t0\n+ACMPXCHG.i32 t1, r1, r2, @r10\n}\n"},
    {"FMA_ATOM_C_i32",
     "header sr=4 msg=7\ntuple p0=r1 p1=r2 p2=r4 ; *ATOM_C.i32 src0=0 src1=1 src2=2 opc=13 ; +ATOM_CX src0=0 "
     "src1=1 src2=2",
     "ds(0) eos atomic \n{\n*ATOM_C.i32.aor t0, r1, r2, r4\n+ATOM_CX t1, r1, r2, r4, @r4\n}\n"},
    {"FMA_ATOM_C_RETURN_i32",
     "header sr=4 msg=7\ntuple p0=r1 p1=r2 p2=r4 ; *ATOM_C_RETURN.i32 src0=0 src1=1 src2=2 opc=10 ; +ATOM_CX "
     "src0=0 src1=1 src2=2",
     "ds(0) eos atomic \n{\n*ATOM_C_RETURN.i32.aumin t0, r1, r2, r4\n+ATOM_CX t1, r1, r2, r4, @r4\n}\n"},
    {"FMA_ATOM_C1_i32",
     "header sr=4 msg=7\ntuple p0=r1 p1=r2 ; *ATOM_C1.i32 src0=0 src1=1 opc=1 ; +ATOM_CX src0=0 src1=1",
     "ds(0) eos atomic \n{\n*ATOM_C1.i32.adec t0, r1, r2\n+ATOM_CX t1, r1, r2, r1, @r4\n}\n"},
    {"FMA_ATOM_C1_RETURN_i32",
     "header sr=4 msg=7\ntuple p0=r1 p1=r2 ; *ATOM_C1_RETURN.i32 src0=0 src1=1 opc=0 ; +ATOM_CX src0=0 "
     "src1=1",
     "ds(0) eos atomic \n{\n*ATOM_C1_RETURN.i32.ainc t0, r1, r2\n+ATOM_CX t1, r1, r2, r1, @r4\n}\n"},
    {"ADD_ATOM_CX",
     "header sr=6 msg=7\ntuple p0=r1 p1=r2 p2=r6 ; *ATOM_C_RETURN.i32 src0=0 src1=1 src2=2 opc=2 ; +ATOM_CX "
     "src0=0 src1=1 src2=2",
     "ds(0) eos atomic \n{\n*ATOM_C_RETURN.i32.aadd t0, r1, r2, r6\n+ATOM_CX t1, r1, r2, r6, @r6\n}\n"},
    {"FMA_SEG_ADD", "tuple p0=r1 ; *SEG_ADD src0=0 seg=2 ; +NOP ; fma->r3",
     "ds(0) eos \n{\n*SEG_ADD.wls r3:t0, r1\n+NOP t1\n}\n"},
    {"ADD_SEG_ADD", "tuple p0=r1 ; *NOP ; +SEG_ADD src0=0 seg=7 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+SEG_ADD.tl r3:t1, r1\n}\n"},
    {"FMA_ATOM_POST_i32", "tuple p0=r1 p1=r2 ; *ATOM_POST.i32 src0=0 src1=1 opc=9 ; +NOP ; fma->r3",
     "ds(0) eos \n{\n*ATOM_POST.i32.asmax r3:t0, r1, r2\n+NOP t1\n}\n"},
};

const CaseGroup kMessage(add_message_cases, kMessageRoundTrips);

} // namespace
} // namespace bifrost_isa_test

// ---------------------------------------------------------------- segments, workgroups, faults, host threads

namespace bifrost_isa_test {
namespace {

// Stores staging register `sr` to out[x] (x = local id, r55; out = uniform 0), ending the shader.
std::vector<std::string> store_to_out(unsigned sr) {
  return {"header flow=3\ntuple p0=r55 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP ; fma->r2\n"
          "const 0x2",
          "header sr=" + std::to_string(sr) +
              " msg=6\ntuple p0=r2 fau=u0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3\n"
              "tuple ; *NOP ; +STORE.i32 src0=7 src1=3 seg=1"};
}

struct WorkgroupRig : Rig {
  static constexpr uint64_t kOut = kDataVa + 0x9000;
  uint64_t out_uniform = kOut;
  QuadResult run_wg(std::vector<std::string> clauses, unsigned threads) {
    uint64_t at = kCodeVa;
    for (auto& c : clauses) at = gpu.load_code(at, bifrost_asm::assemble(c));
    ShaderCore::Workgroup wg;
    wg.entry = kCodeVa;
    wg.uniforms = &out_uniform;
    wg.uniform_count = 1;
    wg.size = {threads, 1, 1};
    wg.mem = {kWlsVa, kWlsSize, kTlsVa, kTlsSize, kUboTable, 2};
    return gpu.core->run_workgroup(wg);
  }
};

// Each of 8 threads (two quads) writes its id to WLS word x, waits at the barrier, and reads word 7 - x: every
// thread must see the other quad's write in the one shared block.
TEST(MessageWorkgroup, WlsIsSharedByTheWorkgroupsQuads) {
  WorkgroupRig rig;
  std::vector<std::string> p = {
      "header flow=3\ntuple p0=r55 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP ; fma->r0\nconst 0x2",
      "header flow=3 sr=55 msg=6\ntuple p0=r0 ; *NOP ; +STORE.i32 src0=0 src1=3 seg=2",
      "header flow=3 msg=8\ntuple ; *NOP ; +BARRIER",
      "header flow=3\ntuple p0=r0 fau=c0 ; *NOP ; +ISUB.s32 src0=4 src1=0 ; add->r1\nconst 0x1c",
      "header flow=3 sr=20 msg=5\ntuple p0=r1 ; *NOP ; +LOAD.i32 src0=0 src1=3 seg=2"};
  for (auto& c : store_to_out(20)) p.push_back(c);
  auto r = rig.run_wg(p, 8);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (uint32_t x = 0; x < 8; ++x) {
    EXPECT_EQ(rig.gpu.read32(WorkgroupRig::kOut + 4 * x), 7 - x) << "thread " << x;
    EXPECT_EQ(rig.gpu.read32(kWlsVa + 4 * x), x);
  }
}

// Each thread stores its id at TLS offset 8 and reads it back after a barrier: every thread has its own window
// (thread t's at kTlsVa + t * kTlsSize).
TEST(MessageWorkgroup, TlsIsPerThread) {
  WorkgroupRig rig;
  std::vector<std::string> p = {
      "header flow=3 sr=55 msg=6\ntuple fau=c0 ; *NOP ; +STORE.i32 src0=4 src1=5 seg=7\nconst 0x8",
      "header flow=3 msg=8\ntuple ; *NOP ; +BARRIER",
      "header flow=3 sr=20 msg=5\ntuple fau=c0 ; *NOP ; +LOAD.i32 src0=4 src1=5 seg=7\nconst 0x8"};
  for (auto& c : store_to_out(20)) p.push_back(c);
  // 6 threads: one full quad and a partial one.
  auto r = rig.run_wg(p, 6);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  for (uint32_t x = 0; x < 6; ++x) {
    EXPECT_EQ(rig.gpu.read32(WorkgroupRig::kOut + 4 * x), x);
    EXPECT_EQ(rig.gpu.read32(kTlsVa + x * kTlsSize + 8), x);
  }
  EXPECT_EQ(rig.gpu.read32(kTlsVa + 6 * kTlsSize + 8), pat_le(kTlsVa + 6 * kTlsSize + 8, 4)) << "past the last thread";
}

// The sequence Mesa's v6 compiler emits for a shared-memory atomic add: SEG_ADD.wls turns the offset into a
// global address, ATOM_C_RETURN/+ATOM_CX adds, ATOM_POST gives each thread the value it saw. With 8 threads
// adding x + 16 to one word, the final word is the sum and the values seen form one order of the additions.
TEST(MessageWorkgroup, SharedAtomicAddThroughSegAdd) {
  WorkgroupRig rig;
  rig.gpu.write32(kWlsVa + 0x10, 1000);
  std::vector<std::string> p = {
      "header flow=3\ntuple fau=c0 ; *SEG_ADD src0=4 seg=2 ; +SEG_ADD src0=5 seg=2 ; fma->r0 add->r1\n"
      "tuple p0=r55 fau=c0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r12\nconst 0x10",
      "header flow=3 sr=12 msg=7\ntuple p0=r0 p1=r1 ; *ATOM_C_RETURN.i32 src0=0 src1=1 opc=2 ; +ATOM_CX "
      "src0=0 src1=1",
      "header flow=3\ntuple p0=r12 p1=r13 ; *ATOM_POST.i32 src0=0 src1=1 opc=2 ; +NOP ; fma->r14"};
  for (auto& c : store_to_out(14)) p.push_back(c);
  auto r = rig.run_wg(p, 8);
  ASSERT_EQ(r.status, QuadResult::Status::Done) << r.error;
  EXPECT_EQ(rig.gpu.read32(kWlsVa + 0x10), 1000u + (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) + 8 * 16);
  std::vector<std::pair<uint32_t, uint32_t>> seen; // (value seen, argument)
  for (uint32_t x = 0; x < 8; ++x) seen.push_back({rig.gpu.read32(WorkgroupRig::kOut + 4 * x), x + 16});
  std::sort(seen.begin(), seen.end());
  uint32_t v = 1000;
  for (auto& [s, a] : seen) {
    EXPECT_EQ(s, v);
    v = s + a;
  }
}

// Accesses a shader must not complete: the quad faults with the code given and memory is unchanged.
TEST(MessageSegments, BadAccessesFault) {
  struct Bad {
    std::string text;
    uint32_t lo, hi;
    uint32_t exc;       // exact code, or 0xc0 for "a translation fault at some level"
    const char* what;
  };
  const Bad bad[] = {
      {"header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=2", uint32_t(kWlsSize - 2), 0,
       0x5a, "WLS word straddling the window's end"},
      {"header sr=12 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; +STORE.i32 src0=0 src1=1 seg=7", uint32_t(kTlsSize), 0,
       0x54, "TLS store past the thread's window"},
      {"header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=7", 0xfffffffeu, 0xffffffffu,
       0x54, "TLS offset that wraps"},
      {"header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=4", 0, 2, 0x5a,
       "UBO index past the table"},
      {"header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i64 src0=0 src1=1 seg=4", uint32_t(kUboSize[0] - 4), 0,
       0x5a, "UBO access past the buffer"},
      {"header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +AXCHG.i32 src0=0 src1=1", uint32_t(kScratchVa + 2), 0, 0x56,
       "misaligned atomic"},
      {"header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *NOP ; +AXCHG.i32 src0=0 src1=1", uint32_t(kCodeVa + 0x800), 0,
       0xcb, "atomic on a read-only page (level-3 permission fault)"},
      {"header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=1", 0x70000000u, 0, 0xc0,
       "unmapped global address"},
  };
  for (const Bad& b : bad) {
    Rig rig;
    std::vector<Lanes> in(14);
    in[0] = {b.lo, b.lo, b.lo, b.lo};
    in[1] = {b.hi, b.hi, b.hi, b.hi};
    in[12] = kAtomArg;
    auto r = rig.run(b.text, in);
    EXPECT_EQ(r.status, QuadResult::Status::Fault) << b.what;
    if (b.exc == 0xc0)
      EXPECT_EQ(r.exception & 0xf8u, 0xc0u) << b.what;
    else
      EXPECT_EQ(r.exception, b.exc) << b.what;
    // Nothing in the pattern area or the scratch word moved.
    for (uint64_t va : {kWlsVa + kWlsSize - 4, kTlsVa + kTlsSize, kScratchVa})
      EXPECT_EQ(rig.gpu.read32(va), va < kDataVa + kPatternBytes ? pat_le(va, 4) : 0u) << b.what;
    EXPECT_EQ(r.regs[0][12], kAtomArg[0]) << b.what << ": staging register written";
  }
  // A launch without a WLS window: any WLS access is out of range.
  Rig rig;
  rig.tweak = [](QuadLaunch& l) { l.wls_size = 0; };
  auto r = rig.run("header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=2", {{0, 0, 0, 0}, {0, 0, 0, 0}});
  EXPECT_EQ(r.status, QuadResult::Status::Fault);
  EXPECT_EQ(r.exception, 0x5au);
}

// Wide loads and stores on the WLS, TLS and UBO segments (the instructions themselves are tested on global
// memory in isa_base_cases.cpp).
TEST(MessageSegments, WideAccessesOnEverySegment) {
  for (unsigned seg : {2u, 4u, 7u}) {
    Rig rig;
    std::vector<Lanes> in(16);
    // 16-byte aligned, a different block per lane (UBO: lanes 0, 1 in buffer 0, lanes 2, 3 in buffer 1).
    in[0] = seg == 4 ? Lanes{0, 16, 16, 48} : Lanes{0, 16, 32, 48};
    in[1] = seg == 4 ? Lanes{0, 0, 1, 1} : Lanes{0, 0, 0, 0};
    auto r = rig.run("header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i128 src0=0 src1=1 seg=" +
                         std::to_string(seg),
                     in);
    ASSERT_EQ(r.status, QuadResult::Status::Done) << kSegName[seg] << ": " << r.error;
    for (unsigned l = 0; l < 4; ++l) {
      uint64_t va = seg == 2 ? kWlsVa + in[0][l]
                    : seg == 7 ? kTlsVa + l * kTlsSize + in[0][l]
                               : kUboVa[in[1][l]] + in[0][l];
      for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(r.regs[l][12 + k], pat_le(va + 4 * k, 4)) << kSegName[seg];
    }
    if (seg == 4) continue; // no UBO stores
    Rig rig2;
    for (unsigned k = 0; k < 2; ++k) in[13 + k] = {0x1000u + k, 0x2000u + k, 0x3000u + k, 0x4000u + k};
    auto w = rig2.run("header sr=13 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; +STORE.i64 src0=0 src1=1 seg=" +
                          std::to_string(seg),
                      in);
    ASSERT_EQ(w.status, QuadResult::Status::Done) << kSegName[seg] << ": " << w.error;
    for (unsigned l = 0; l < 4; ++l) {
      uint64_t va = (seg == 2 ? kWlsVa : kTlsVa + l * kTlsSize) + in[0][l];
      EXPECT_EQ(rig2.gpu.read32(va), 0x1000u * (l + 1));
      EXPECT_EQ(rig2.gpu.read32(va + 4), 0x1000u * (l + 1) + 1);
      EXPECT_EQ(rig2.gpu.read32(va + 8), pat_le(va + 8, 4));
    }
  }
}

// Several host threads, each with its own MMU view, cache and core (as the job manager's virtual cores will
// be), increment one guest word with ATOM_C1.ainc: no increment may be lost.
TEST(MessageAtomics, AtomicAgainstOtherHostThreads) {
  Rig rig;
  rig.gpu.load_code(kCodeVa, bifrost_asm::assemble(
                                 "header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *ATOM_C1.i32 src0=0 src1=1 opc=0 ; "
                                 "+ATOM_CX src0=0 src1=1"));
  rig.gpu.write32(kScratchVa, 0);
  constexpr unsigned kThreads = 4, kRuns = 20000;
  std::vector<Lanes> in(2);
  in[0] = {uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa), uint32_t(kScratchVa)};
  QuadLaunch l = rig.launch(in);
  std::atomic<unsigned> failures{0}, ready{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      vplat::gpu::GpuMmu mmu(rig.gpu.bus);
      mmu.update(0, rig.gpu.pt->pgd() | 0x7, 0x888d88, 0);
      ShaderCache cache;
      ShaderCore core(mmu, cache);
      // Start together, so the threads' runs overlap.
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      for (unsigned i = 0; i < kRuns; ++i)
        if (core.run_quad(l).status != QuadResult::Status::Done) ++failures;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0u);
  EXPECT_EQ(rig.gpu.read32(kScratchVa), kThreads * kRuns * 4);
}

} // namespace
} // namespace bifrost_isa_test
