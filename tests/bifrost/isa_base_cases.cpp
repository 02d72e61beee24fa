// Tests of the first instruction groups of archdesc/bifrost (fp32 arithmetic, compares and selects, integer
// arithmetic, shifts, conversions, moves, global loads and stores, barrier, branches): each runs on a quad
// against a CPU computation written here, and each has a hand-written Mesa-syntax round trip.
#include "isa_cases.h"

namespace bifrost_isa_test {
namespace {

void add_base_cases(CaseMap& c) {

  c["FMA_FMA_f32"] = [](std::string& why) {
    struct V {
      unsigned abs0, abs1, abs2, negp, neg2, round, clamp;
    };
    for (V v : {V{0, 0, 0, 0, 0, 0, 0}, V{1, 0, 1, 1, 0, 0, 0}, V{0, 1, 0, 0, 1, 3, 0},
                V{0, 0, 0, 0, 0, 1, 3}, V{0, 0, 0, 1, 1, 2, 2}, V{1, 1, 0, 0, 0, 0, 1}}) {
      char op[160];
      std::snprintf(op, sizeof op,
                    "*FMA.f32 src0=0 src1=1 src2=2 abs0=%u abs1=%u abs2=%u negp=%u neg2=%u round=%u clamp=%u",
                    v.abs0, v.abs1, v.abs2, v.negp, v.neg2, v.round, v.clamp);
      if (!fma_case(
              op, {kF1, kF2, kF3},
              [&](unsigned l) {
                return ref_clamp(ref_fma(absneg(kF1[l], v.abs0, false), absneg(kF2[l], v.abs1, v.negp),
                                         absneg(kF3[l], v.abs2, v.neg2), v.round),
                                 v.clamp);
              },
              why))
        return why = std::string(op) + ": " + why, false;
    }
    return true;
  };
  auto fadd = [](const char* mnemonic) {
    return [mnemonic](std::string& why) {
      bool fma = mnemonic[0] == '*';
      struct V {
        unsigned abs0, abs1, neg0, neg1, round, clamp;
      };
      for (V v : {V{0, 0, 0, 0, 0, 0}, V{1, 0, 0, 1, 0, 0}, V{0, 1, 1, 0, 3, 0}, V{0, 0, 0, 0, 1, 3},
                  V{0, 0, 1, 1, 2, 1}, V{1, 1, 0, 0, 0, 2}}) {
        char op[160];
        std::snprintf(op, sizeof op, "%s src0=0 src1=1 abs0=%u abs1=%u neg0=%u neg1=%u round=%u clamp=%u",
                      mnemonic, v.abs0, v.abs1, v.neg0, v.neg1, v.round, v.clamp);
        auto want = [&](unsigned l) {
          return ref_clamp(ref_add(absneg(kF1[l], v.abs0, v.neg0), absneg(kF2[l], v.abs1, v.neg1), v.round),
                           v.clamp);
        };
        bool ok = fma ? fma_case(op, {kF1, kF2, kF3}, want, why) : add_case(op, {kF1, kF2}, want, why);
        if (!ok) return why = std::string(op) + ": " + why, false;
      }
      return true;
    };
  };
  c["FMA_FADD_f32"] = fadd("*FADD.f32");
  c["ADD_FADD_f32"] = fadd("+FADD.f32");
  c["FMA_FCMP_f32"] = [](std::string& why) {
    for (unsigned cmpf = 0; cmpf < 7; ++cmpf)
      for (unsigned rt = 0; rt < 3; ++rt) {
        unsigned neg0 = cmpf == 2, abs1 = cmpf == 5;
        char op[128];
        // m1 (result type 2) has its own pattern, FMA_FCMP_f32_m1 (fma.adl).
        if (rt == 2)
          std::snprintf(op, sizeof op, "FMA_FCMP_f32_m1 src0=0 src1=1 cmpf=%u neg0=%u abs1=%u", cmpf, neg0,
                        abs1);
        else
          std::snprintf(op, sizeof op, "*FCMP.f32 src0=0 src1=1 cmpf=%u result_type=%u neg0=%u abs1=%u", cmpf,
                        rt, neg0, abs1);
        if (!fma_case(
                op, {kFcmpA, kFcmpB, kF3},
                [&](unsigned l) {
                  return ref_bool(
                      ref_fcmp(absneg(kFcmpA[l], false, neg0), absneg(kFcmpB[l], abs1, false), cmpf), rt);
                },
                why))
          return why = std::string(op) + ": " + why, false;
      }
    return true;
  };
  c["FMA_CSEL_i32"] = [](std::string& why) {
    Lanes a = {1, 2, 3, 4}, b = {1, 5, 3, 0};
    Env e;
    // src3 is uniform word 0's low half.
    auto r = e.run("tuple p0=r0 p1=r1 p2=r2 fau=u0 ; *CSEL.i32 src0=0 src1=1 src2=2 src3=4 ; +NOP ; fma->r10",
                   {a, b, kIntA}, {0x1234567800000abcull});
    return check_lanes(
        r, 10, [&](unsigned l) { return a[l] == b[l] ? kIntA[l] : 0xabcu; }, why);
  };
  c["FMA_IMUL_i32"] = [](std::string& why) {
    return fma_case(
        "*IMUL.i32 src0=0 src1=1", {kIntA, kIntB}, [](unsigned l) { return kIntA[l] * kIntB[l]; }, why);
  };
  auto shift = [](const char* mnemonic, bool left, int kind /*0 or, 1 and, 2 xor*/) {
    return [=](std::string& why) {
      for (unsigned lane2 = 0; lane2 < 4; ++lane2)
        for (unsigned nr = 0; nr < 2; ++nr)
          for (unsigned n1 = 0; n1 < (kind == 2 ? 1u : 2u); ++n1) {
            char op[160];
            if (kind == 2)
              std::snprintf(op, sizeof op, "%s src0=0 src1=1 src2=2 lane2=%u not_result=%u", mnemonic, lane2,
                            nr);
            else
              std::snprintf(op, sizeof op, "%s src0=0 src1=1 src2=2 lane2=%u not_result=%u not1=%u", mnemonic,
                            lane2, nr, n1);
            auto want = [&](unsigned l) {
              unsigned sh = (kIntC[l] >> (8 * lane2)) & 31;
              uint32_t s = left ? kIntA[l] << sh : kIntA[l] >> sh;
              uint32_t b = kIntB[l];
              uint32_t r;
              if (kind == 0)
                r = s | (n1 ? b : ~b), r = nr ? ~r : r;
              else if (kind == 1)
                r = s & (n1 ? ~b : b), r = nr ? r : ~r;
              else
                r = s ^ b, r = nr ? ~r : r;
              return r;
            };
            if (!fma_case(op, {kIntA, kIntB, kIntC}, want, why))
              return why = std::string(op) + ": " + why, false;
          }
      return true;
    };
  };
  c["FMA_LSHIFT_OR_i32"] = shift("*LSHIFT_OR.i32", true, 0);
  c["FMA_RSHIFT_OR_i32"] = shift("*RSHIFT_OR.i32", false, 0);
  c["FMA_LSHIFT_AND_i32"] = shift("*LSHIFT_AND.i32", true, 1);
  c["FMA_RSHIFT_AND_i32"] = shift("*RSHIFT_AND.i32", false, 1);
  c["FMA_LSHIFT_XOR_i32"] = shift("*LSHIFT_XOR.i32", true, 2);
  c["FMA_RSHIFT_XOR_i32"] = shift("*RSHIFT_XOR.i32", false, 2);
  c["FMA_MOV_i32"] = [](std::string& why) {
    return fma_case(
        "*MOV.i32 src0=1", {kIntA, kIntB}, [](unsigned l) { return kIntB[l]; }, why);
  };
  c["ADD_MOV_i32"] = [](std::string& why) {
    return add_case(
        "+MOV.i32 src0=0", {kIntA, kIntB}, [](unsigned l) { return kIntA[l]; }, why);
  };
  // NOPs change no register: a clause of them (next to a MOV that does write) leaves the others as they were.
  auto nop = [](const char* tuple) {
    return [tuple](std::string& why) {
      Env e;
      auto r = e.run(std::string(tuple) + "\ntuple p0=r1 ; *MOV.i32 src0=0 ; +NOP ; fma->r3",
                     {kIntA, kIntB, kIntC});
      return check_lanes(
                 r, 0, [](unsigned l) { return kIntA[l]; }, why) &&
             check_lanes(
                 r, 2, [](unsigned l) { return kIntC[l]; }, why) &&
             check_lanes(
                 r, 3, [](unsigned l) { return kIntB[l]; }, why);
    };
  };
  c["FMA_NOP"] = nop("tuple p0=r0 p1=r2 ; *NOP ; +MOV.i32 src0=0");
  c["ADD_NOP"] = nop("tuple p0=r0 p1=r2 ; *MOV.i32 src0=1 ; +NOP");
  auto cvt = [](const char* mnemonic, std::function<uint32_t(uint32_t, unsigned)> ref,
                std::vector<Lanes> inputs) {
    return [=](std::string& why) {
      for (const Lanes& in : inputs)
        for (unsigned round = 0; round < 4; ++round) {
          char op[96];
          std::snprintf(op, sizeof op, "%s src0=0 round=%u", mnemonic, round);
          if (!add_case(
                  op, {in}, [&](unsigned l) { return ref(in[l], round); }, why))
            return why = std::string(op) + ": " + why, false;
        }
      return true;
    };
  };
  c["ADD_F32_TO_S32"] =
      cvt("+F32_TO_S32", [](uint32_t a, unsigned r) { return ref_f2i(a, false, r); }, {kToInt, kToInt2});
  c["ADD_F32_TO_U32"] =
      cvt("+F32_TO_U32", [](uint32_t a, unsigned r) { return ref_f2i(a, true, r); }, {kToInt, kToInt2});
  c["ADD_S32_TO_F32"] = cvt("+S32_TO_F32", [](uint32_t a, unsigned r) { return ref_i2f(a, false, r); },
                            {kIntA, Lanes{16777217, 0xfefffffdu, 0x7fffffc1u, 0}});
  c["ADD_U32_TO_F32"] = cvt("+U32_TO_F32", [](uint32_t a, unsigned r) { return ref_i2f(a, true, r); },
                            {kIntA, Lanes{16777217, 0xfefffffdu, 0xffffff81u, 0}});
  auto iadd = [](const char* mnemonic, bool sub) {
    return [=](std::string& why) {
      for (unsigned sat = 0; sat < 2; ++sat) {
        char op[96];
        std::snprintf(op, sizeof op, "%s src0=0 src1=1 saturate=%u", mnemonic, sat);
        auto want = [&](unsigned l) {
          int64_t a = static_cast<int32_t>(kIntA[l]), b = static_cast<int32_t>(kIntB[l]);
          int64_t r = sub ? a - b : a + b;
          if (sat) r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
          return static_cast<uint32_t>(r);
        };
        if (!add_case(op, {kIntA, kIntB}, want, why)) return why = std::string(op) + ": " + why, false;
      }
      return true;
    };
  };
  c["ADD_IADD_u32_sat"] = [](std::string& why) {
    return add_case(
        "+IADD.u32.sat src0=0 src1=1", {kIntA, kIntB},
        [](unsigned l) {
          uint64_t s = uint64_t(kIntA[l]) + kIntB[l];
          return s > 0xffffffffu ? 0xffffffffu : uint32_t(s);
        },
        why);
  };
  c["ADD_ISUB_u32_sat"] = [](std::string& why) {
    return add_case(
        "+ISUB.u32.sat src0=0 src1=1", {kIntA, kIntB},
        [](unsigned l) { return kIntB[l] > kIntA[l] ? 0u : kIntA[l] - kIntB[l]; }, why);
  };
  c["ADD_MKVEC_v2i16"] = [](std::string& why) {
    for (unsigned l0 = 0; l0 < 2; ++l0)
      for (unsigned l1 = 0; l1 < 2; ++l1) {
        char op[96];
        std::snprintf(op, sizeof op, "+MKVEC.v2i16 src0=0 src1=1 lane0=%u lane1=%u", l0, l1);
        if (!add_case(
                op, {kIntA, kIntB},
                [&](unsigned l) {
                  return ((kIntA[l] >> (16 * l0)) & 0xffff) | (((kIntB[l] >> (16 * l1)) & 0xffff) << 16);
                },
                why))
          return why = std::string(op) + ": " + why, false;
      }
    return true;
  };
  c["FMA_ARSHIFT_i32"] = [](std::string& why) {
    for (unsigned lane2 = 0; lane2 < 4; ++lane2) {
      char op[96];
      std::snprintf(op, sizeof op, "*ARSHIFT.i32 src0=0 src2=2 lane2=%u", lane2);
      if (!fma_case(
              op, {kIntA, kIntB, kIntC},
              [&](unsigned l) {
                unsigned sh = (kIntC[l] >> (8 * lane2)) & 31;
                return uint32_t(int32_t(kIntA[l]) >> sh);
              },
              why))
        return why = std::string(op) + ": " + why, false;
    }
    return true;
  };
  // FMAX/FMIN: lanes cover ordered values, a NaN on either side, and +0 against -0.
  auto minmax = [](const char* mnemonic, bool is_max) {
    return [=](std::string& why) {
      const uint32_t qnan = 0x7fc00001u;
      Lanes a = {bits(1.5f), qnan, bits(0.0f), bits(-7.0f)}, b = {bits(-2.0f), bits(3.0f), bits(-0.0f), qnan};
      for (unsigned sem = 0; sem < 4; ++sem)
        for (unsigned clamp = 0; clamp < 2; ++clamp) {
          char op[128];
          std::snprintf(op, sizeof op, "%s src0=0 src1=1 sem=%u clamp=%u neg1=%u", mnemonic, sem, clamp,
                        sem == 3);
          auto want = [&](unsigned l) {
            float x = fl(a[l]), y = fl(absneg(b[l], false, sem == 3));
            uint32_t xb = a[l], yb = absneg(b[l], false, sem == 3);
            uint32_t r;
            if (sem == 2)
              r = (is_max ? x > y : x < y) ? xb : yb;
            else if (sem == 3)
              r = (is_max ? x < y : x > y) ? yb : xb;
            else if (std::isnan(x) || std::isnan(y))
              r = sem == 1 ? (std::isnan(x) ? xb : yb) : (std::isnan(x) ? yb : xb);
            else if (x == 0 && y == 0 && xb != yb)
              r = is_max ? 0u : 0x80000000u;
            else
              r = bits(is_max ? std::max(x, y) : std::min(x, y));
            return ref_clamp(r, clamp);
          };
          if (!add_case(op, {a, b}, want, why)) return why = std::string(op) + ": " + why, false;
        }
      return true;
    };
  };
  c["ADD_FMAX_f32"] = minmax("+FMAX.f32", true);
  c["ADD_FMIN_f32"] = minmax("+FMIN.f32", false);
  c["ADD_IADD_s32"] = iadd("+IADD.s32", false);
  c["ADD_ISUB_s32"] = iadd("+ISUB.s32", true);
  auto icmp = [](const char* mnemonic, int kind /*0 i32, 1 s32, 2 u32*/) {
    return [=](std::string& why) {
      Lanes a = {5, 0xfffffffbu, 9, 0x80000000u}, b = {5, 3, 0xfffffff0u, 0x7fffffffu};
      for (unsigned cmpf = 0; cmpf < 2; ++cmpf)
        for (unsigned rt = 0; rt < 2; ++rt) {
          char op[96];
          std::snprintf(op, sizeof op, "%s src0=0 src1=1 cmpf=%u result_type=%u", mnemonic, cmpf, rt);
          auto want = [&](unsigned l) {
            bool r;
            if (kind == 0)
              r = cmpf ? a[l] != b[l] : a[l] == b[l];
            else if (kind == 1)
              r = cmpf ? int32_t(a[l]) >= int32_t(b[l]) : int32_t(a[l]) > int32_t(b[l]);
            else
              r = cmpf ? a[l] >= b[l] : a[l] > b[l];
            return r ? (rt ? 0xffffffffu : 1u) : 0u;
          };
          if (!add_case(op, {a, b}, want, why)) return why = std::string(op) + ": " + why, false;
        }
      return true;
    };
  };
  c["ADD_ICMP_i32"] = icmp("+ICMP.i32", 0);
  c["ADD_ICMP_s32"] = icmp("+ICMP.s32", 1);
  c["ADD_ICMP_u32"] = icmp("+ICMP.u32", 2);
  c["ADD_LOAD_i32"] = [](std::string& why) {
    Env e;
    for (unsigned i = 0; i < 4; ++i) e.gpu.write32(kDataVa + 0x100 + 4 * i, 0xc0de0000u + i * 0x111);
    Lanes lo = {uint32_t(kDataVa + 0x10c), uint32_t(kDataVa + 0x100), uint32_t(kDataVa + 0x108),
                uint32_t(kDataVa + 0x104)};
    Lanes hi = {0, 0, 0, 0};
    auto r = e.run("header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=1", {lo, hi});
    return check_lanes(
        r, 12, [&](unsigned l) { return 0xc0de0000u + ((lo[l] - uint32_t(kDataVa) - 0x100) / 4) * 0x111; },
        why);
  };
  // Wider loads and stores: n consecutive staging registers from r12 (load) / r13 (store); lanes use
  // different addresses.
  auto load_n = [](const char* mnemonic, unsigned n) {
    return [=](std::string& why) {
      Env e;
      for (unsigned i = 0; i < 64; ++i) e.gpu.write32(kDataVa + 0x100 + 4 * i, 0x5a000000u + i * 0x10101);
      Lanes lo = {uint32_t(kDataVa + 0x130), uint32_t(kDataVa + 0x100), uint32_t(kDataVa + 0x170),
                  uint32_t(kDataVa + 0x144)};
      auto r = e.run(std::string("header sr=12 msg=5\ntuple p0=r0 p1=r1 ; *NOP ; ") + mnemonic +
                         " src0=0 src1=1 seg=1",
                     {lo, {0, 0, 0, 0}});
      for (unsigned k = 0; k < n; ++k)
        if (!check_lanes(
                r, 12 + k,
                [&](unsigned l) {
                  return 0x5a000000u + ((lo[l] - uint32_t(kDataVa) - 0x100) / 4 + k) * 0x10101;
                },
                why))
          return false;
      // The register after the last staging register is untouched.
      return check_lanes(
          r, 12 + n, [](unsigned) { return 0u; }, why);
    };
  };
  c["ADD_LOAD_i64"] = load_n("+LOAD.i64", 2);
  c["ADD_LOAD_i96"] = load_n("+LOAD.i96", 3);
  c["ADD_LOAD_i128"] = load_n("+LOAD.i128", 4);
  auto store_n = [](const char* mnemonic, unsigned n) {
    return [=](std::string& why) {
      Env e;
      Lanes lo = {uint32_t(kDataVa + 0x230), uint32_t(kDataVa + 0x200), uint32_t(kDataVa + 0x270),
                  uint32_t(kDataVa + 0x250)};
      std::vector<Lanes> in(18);
      in[0] = lo;
      for (unsigned k = 0; k < 4; ++k)
        for (unsigned l = 0; l < 4; ++l) in[13 + k][l] = 0x77000000u + l * 0x100 + k;
      auto r = e.run(std::string("header sr=13 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; ") + mnemonic +
                         " src0=0 src1=1 seg=1",
                     in);
      if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
      for (unsigned l = 0; l < 4; ++l) {
        for (unsigned k = 0; k < n; ++k)
          if (e.gpu.read32(lo[l] + 4 * k) != in[13 + k][l])
            return why = "lane " + std::to_string(l) + " word " + std::to_string(k) + " wrong", false;
        if (e.gpu.read32(lo[l] + 4 * n) != 0) return why = "stored past the end", false;
      }
      return true;
    };
  };
  c["ADD_STORE_i64"] = store_n("+STORE.i64", 2);
  c["ADD_STORE_i96"] = store_n("+STORE.i96", 3);
  c["ADD_STORE_i128"] = store_n("+STORE.i128", 4);
  // A lone quad's barrier releases at once; the lanes carry on past it (the workgroup behaviour is in
  // shader_test.cpp BarrierOrdersAWorkgroupsQuads).
  c["ADD_BARRIER"] = [](std::string& why) {
    Env e;
    uint64_t at =
        e.gpu.load_code(kCodeVa, bifrost_asm::assemble("header flow=3 msg=8\ntuple ; *NOP ; +BARRIER"));
    e.gpu.load_code(at, bifrost_asm::assemble("tuple p0=r0 ; *MOV.i32 src0=0 ; +NOP ; fma->r5"));
    QuadLaunch l;
    l.entry = kCodeVa;
    for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = kIntA[i];
    auto r = e.gpu.core->run_quad(l);
    return check_lanes(
        r, 5, [](unsigned i) { return kIntA[i]; }, why);
  };
  c["ADD_STORE_i32"] = [](std::string& why) {
    Env e;
    Lanes lo = {uint32_t(kDataVa + 0x20c), uint32_t(kDataVa + 0x200), uint32_t(kDataVa + 0x208),
                uint32_t(kDataVa + 0x204)};
    std::vector<Lanes> in(14);
    in[0] = lo;
    in[13] = kIntA;
    auto r = e.run("header sr=13 msg=6\ntuple p0=r0 p1=r1 ; *NOP ; +STORE.i32 src0=0 src1=1 seg=1", in);
    if (r.status != QuadResult::Status::Done) return why = "run failed: " + r.error, false;
    for (unsigned l = 0; l < 4; ++l)
      if (e.gpu.read32(lo[l]) != kIntA[l])
        return why = "lane " + std::to_string(l) + " stored the wrong value", false;
    return true;
  };
}

// Branch cases need a marker per path: clause B and C move different uniform words into r20.
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
  std::vector<uint64_t> uniforms = {0x00000c0000000b00ull}; // low word: B's marker, high word: C's
  QuadLaunch l;
  l.entry = kCodeVa;
  l.uniforms = uniforms.data();
  l.uniform_count = 1;
  for (unsigned i = 0; i < 4; ++i) l.regs[i][0] = cond[i];
  auto r = e.gpu.core->run_quad(l);
  return check_lanes(
      r, 20, [&](unsigned i) { return taken(cond[i]) ? 0xc00u : 0xb00u; }, why);
}

void add_branch_cases(CaseMap& c) {
  const Lanes cond = {0, 5, 0, 0xffffffffu};
  c["ADD_BRANCHZ_i32"] = [cond](std::string& why) {
    return run_branch(
               "+BRANCHZ.i32 src0=0 src2=5 eq=1", cond, [](uint32_t v) { return v == 0; }, why) &&
           run_branch(
               "+BRANCHZ.i32 src0=0 src2=5 eq=0", cond, [](uint32_t v) { return v != 0; }, why);
  };
  c["ADD_JUMP"] = [cond](std::string& why) {
    return run_branch(
        "+JUMP src2=5", cond, [](uint32_t) { return true; }, why);
  };
}

void add_cases(CaseMap& c) {
  add_base_cases(c);
  add_branch_cases(c);
}

const std::initializer_list<RoundTrip> kBaseRoundTrips = {
    {"FMA_FMA_f32",
     "tuple p0=r1 p1=r2 p2=r3 ; *FMA.f32 src0=0 src1=1 src2=2 abs0=1 negp=1 neg2=1 abs2=1 round=3 clamp=3 ; "
     "+NOP ; fma->r4",
     "ds(0) eos \n{\n*FMA.f32.rtz.clamp_0_1 r4:t0, r1.abs, r2.neg, r3.neg.abs\n+NOP t1\n}\n"},
    {"FMA_FADD_f32", "tuple p0=r1 p1=r2 ; *FADD.f32 src0=0 src1=1 neg0=1 abs1=1 round=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FADD.f32.rtp r4:t0, r1.neg, r2.abs\n+NOP t1\n}\n"},
    {"ADD_FADD_f32", "tuple p0=r1 p1=r2 ; *NOP ; +FADD.f32 src0=0 src1=1 abs0=1 neg1=1 clamp=2 ; add->r5",
     "ds(0) eos \n{\n*NOP t0\n+FADD.f32.clamp_m1_1 r5:t1, r1.abs, r2.neg\n}\n"},
    {"FMA_FCMP_f32_m1", "tuple p0=r1 p1=r2 ; FMA_FCMP_f32_m1 src0=0 src1=1 cmpf=5 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*FCMP.f32.le.m1 r4:t0, r1, r2\n+NOP t1\n}\n"},
    {"FMA_CSEL_i32",
     "tuple p0=r1 p1=r2 p2=r3 fau=u2 ; *CSEL.i32 src0=0 src1=1 src2=2 src3=5 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*CSEL.i32.eq r4:t0, r1, r2, r3, u2.w1\n+NOP t1\n}\n"},
    {"FMA_IMUL_i32", "tuple p0=r1 p1=r2 ; *IMUL.i32 src0=0 src1=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*IMUL.i32 r4:t0, r1, r2\n+NOP t1\n}\n"},
    {"FMA_LSHIFT_OR_i32",
     "tuple p0=r1 p1=r2 p2=r3 ; *LSHIFT_OR.i32 src0=0 src1=1 src2=2 not1=1 lane2=2 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*LSHIFT_OR.i32 r4:t0, r1, r2, r3.b2\n+NOP t1\n}\n"},
    {"FMA_LSHIFT_AND_i32",
     "tuple p0=r1 p1=r2 p2=r3 ; *LSHIFT_AND.i32 src0=0 src1=1 src2=2 not1=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*LSHIFT_AND.i32.not r4:t0, r1, r2.not, r3\n+NOP t1\n}\n"},
    {"FMA_RSHIFT_OR_i32",
     "tuple p0=r1 p1=r2 ; *RSHIFT_OR.i32 src0=0 src1=1 src2=3 not_result=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*RSHIFT_OR.i32.not r4:t0, r1, r2.not, #0\n+NOP t1\n}\n"},
    {"FMA_RSHIFT_AND_i32",
     "tuple p0=r1 p1=r2 ; *RSHIFT_AND.i32 src0=0 src1=1 src2=3 not_result=1 lane2=3 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*RSHIFT_AND.i32 r4:t0, r1, r2, #0.b3\n+NOP t1\n}\n"},
    {"FMA_LSHIFT_XOR_i32",
     "tuple p0=r1 p1=r2 ; *LSHIFT_XOR.i32 src0=0 src1=1 src2=3 not_result=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*LSHIFT_XOR.i32.not r4:t0, r1, r2, #0\n+NOP t1\n}\n"},
    {"FMA_RSHIFT_XOR_i32", "tuple p0=r1 p1=r2 ; *RSHIFT_XOR.i32 src0=0 src1=1 src2=3 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*RSHIFT_XOR.i32 r4:t0, r1, r2, #0\n+NOP t1\n}\n"},
    {"FMA_MOV_i32", "tuple p0=r40 ; *MOV.i32 src0=0 ; +NOP ; fma->r41",
     "ds(0) eos \n{\n*MOV.i32 r41:t0, r40\n+NOP t1\n}\n"},
    {"FMA_NOP", "tuple ; *NOP ; +NOP", "ds(0) eos \n{\n*NOP t0\n+NOP t1\n}\n"},
    {"ADD_NOP", "tuple ; *NOP ; +NOP", "ds(0) eos \n{\n*NOP t0\n+NOP t1\n}\n"},
    {"ADD_MOV_i32", "tuple p0=r33 p1=r60 ; *NOP ; +MOV.i32 src0=1 ; add->r2",
     "ds(0) eos \n{\n*NOP t0\n+MOV.i32 r2:t1, r60\n}\n"},
    {"ADD_F32_TO_S32", "tuple p0=r1 ; *NOP ; +F32_TO_S32 src0=0 round=3 ; add->r2",
     "ds(0) eos \n{\n*NOP t0\n+F32_TO_S32.rtz r2:t1, r1\n}\n"},
    {"ADD_F32_TO_U32", "tuple p0=r1 ; *NOP ; +F32_TO_U32 src0=0 round=2 ; add->r2",
     "ds(0) eos \n{\n*NOP t0\n+F32_TO_U32.rtn r2:t1, r1\n}\n"},
    {"ADD_S32_TO_F32", "tuple p0=r1 ; *NOP ; +S32_TO_F32 src0=0 ; add->r2",
     "ds(0) eos \n{\n*NOP t0\n+S32_TO_F32 r2:t1, r1\n}\n"},
    {"ADD_U32_TO_F32", "tuple p0=r1 ; *NOP ; +U32_TO_F32 src0=0 round=1 ; add->r2",
     "ds(0) eos \n{\n*NOP t0\n+U32_TO_F32.rtp r2:t1, r1\n}\n"},
    {"ADD_IADD_s32", "tuple p0=r1 p1=r2 ; *NOP ; +IADD.s32 src0=0 src1=1 saturate=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+IADD.s32.sat r3:t1, r1, r2\n}\n"},
    {"ADD_ISUB_s32", "tuple p0=r1 p1=r2 ; *NOP ; +ISUB.s32 src0=1 src1=0 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+ISUB.s32 r3:t1, r2, r1\n}\n"},
    {"ADD_IADD_u32_sat", "tuple p0=r1 p1=r2 ; *NOP ; +IADD.u32.sat src0=0 src1=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+IADD.u32.sat r3:t1, r1, r2\n}\n"},
    {"ADD_ISUB_u32_sat", "tuple p0=r1 p1=r2 ; *NOP ; +ISUB.u32.sat src0=0 src1=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+ISUB.u32.sat r3:t1, r1, r2\n}\n"},
    {"ADD_MKVEC_v2i16", "tuple p0=r1 p1=r2 ; *NOP ; +MKVEC.v2i16 src0=0 src1=1 lane0=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+MKVEC.v2i16 r3:t1, r1.h1, r2\n}\n"},
    {"ADD_FMAX_f32", "tuple p0=r1 p1=r2 ; *NOP ; +FMAX.f32 src0=0 src1=1 sem=1 clamp=3 abs0=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+FMAX.f32.clamp_0_1.nan_propagate r3:t1, r1.abs, r2\n}\n"},
    {"ADD_FMIN_f32", "tuple p0=r1 p1=r2 ; *NOP ; +FMIN.f32 src0=0 src1=1 sem=3 neg1=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+FMIN.f32.inverse_c r3:t1, r1, r2.neg\n}\n"},
    {"FMA_ARSHIFT_i32", "tuple p0=r1 p2=r3 ; *ARSHIFT.i32 src0=0 src2=2 lane2=1 ; +NOP ; fma->r4",
     "ds(0) eos \n{\n*ARSHIFT.i32 r4:t0, r1, #0, r3.b1\n+NOP t1\n}\n"},
    {"ADD_ICMP_i32", "tuple p0=r1 p1=r2 ; *NOP ; +ICMP.i32 src0=0 src1=1 cmpf=1 result_type=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+ICMP.i32.m1.ne r3:t1, r1, r2\n}\n"},
    {"ADD_ICMP_s32", "tuple p0=r1 p1=r2 ; *NOP ; +ICMP.s32 src0=0 src1=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+ICMP.s32.gt r3:t1, r1, r2\n}\n"},
    {"ADD_ICMP_u32", "tuple p0=r1 p1=r2 ; *NOP ; +ICMP.u32 src0=0 src1=1 cmpf=1 ; add->r3",
     "ds(0) eos \n{\n*NOP t0\n+ICMP.u32.ge r3:t1, r1, r2\n}\n"},
    {"ADD_LOAD_i32", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i32 src0=0 src1=1 seg=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i32 t1, r1, r2, @r8\n}\n"},
    {"ADD_STORE_i32", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i32 src0=0 src1=1 seg=1",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i32 t1, r1, r2, @r9\n}\n"},
    {"ADD_LOAD_i64", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i64 src0=0 src1=1 seg=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i64 t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i96", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i96 src0=0 src1=1 seg=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i96 t1, r1, r2, @r8\n}\n"},
    {"ADD_LOAD_i128", "header sr=8 msg=5\ntuple p0=r1 p1=r2 ; *NOP ; +LOAD.i128 src0=0 src1=1 seg=1",
     "ds(0) eos load \n{\n*NOP t0\n+LOAD.i128 t1, r1, r2, @r8\n}\n"},
    {"ADD_STORE_i64", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i64 src0=0 src1=1 seg=1",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i64 t1, r1, r2, @r9\n}\n"},
    {"ADD_STORE_i96", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i96 src0=0 src1=1 seg=1",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i96 t1, r1, r2, @r9\n}\n"},
    {"ADD_STORE_i128", "header sr=9 msg=6\ntuple p0=r1 p1=r2 ; *NOP ; +STORE.i128 src0=0 src1=1 seg=1",
     "ds(0) eos store \n{\n*NOP t0\n+STORE.i128 t1, r1, r2, @r9\n}\n"},
    {"ADD_BARRIER", "header flow=3 msg=8 wait=0x80\ntuple ; *NOP ; +BARRIER",
     "ds(0) nbb barrier dwb(7) \n{\n*NOP t0\n+BARRIER t1\n}\n"},
    {"ADD_BRANCHZ_i32",
     "header flow=1\ntuple p0=r1 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=1\nconst pchi 64",
     "ds(0) nbb br_pc \n{\n*NOP t0\n+BRANCHZ.i32.eq t1, r1, (pc + 64)\n}\n"},
    {"ADD_JUMP", "header flow=1\ntuple fau=c0 ; *NOP ; +JUMP src2=5\nconst pchi -32",
     "ds(0) nbb br_pc \n{\n*NOP t0\n+JUMP t1, (pc + -32)\n}\n"},
};

const CaseGroup kBase(add_cases, kBaseRoundTrips);

} // namespace
} // namespace bifrost_isa_test
