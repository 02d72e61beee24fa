// Specification tests for vplat_testref.  Every expected string was produced
// by the reference tools themselves on the command line, independently of
// this library:
//   llvm-mc-16 --disassemble -triple=aarch64-linux-gnu -mcpu=generic
//              -mattr=+v8a,+fp-armv8,+neon,+crc          (LLVM 16.0.6)
//   cstool arm64 <bytes> 0x1000                           (Capstone 4.0.2)
// and encodings by llvm-mc-16 -triple=aarch64 -show-encoding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/ref/reference.h"

namespace vplat::testref {
namespace {

struct Case {
  uint32_t insn;
  const char* text;  // nullptr: invalid
};

std::string show(const std::optional<std::string>& s) { return s ? *s : std::string("<invalid>"); }

// ---------------------------------------------------------------- LLVM ----

TEST(LlvmA64Disassembler, DisassemblesPlainA64) {
  LlvmA64Disassembler d;
  const Case cases[] = {
      {0x8b020020, "add x0, x1, x2"},
      {0xd503201f, "nop"},
      {0x92401c20, "and x0, x1, #0xff"},  // logical immediates are always hex
      {0xd2800020, "mov x0, #1"},
      {0xb2407fe0, "mov x0, #4294967295"},
      {0xd2a24680, "mov x0, #305397760"},
      {0xc8dffc20, "ldar x0, [x1]"},
      {0xc85f7c20, "ldxr x0, [x1]"},
      {0xc8027c20, "stxr w2, x0, [x1]"},
      {0xa9410fe2, "ldp x2, x3, [sp, #16]"},
      {0xb9400441, "ldr w1, [x2, #4]"},
      {0x1ac24020, "crc32b w0, w1, w2"},
      {0x9ac25c20, "crc32cx w0, w1, x2"},
      {0x2e303820, "uaddlv h0, v1.8b"},
      {0x1e6e1000, "fmov d0, #1.00000000"},
      {0x6f05e540, "movi v0.2d, #0xff00ff00ff00ff00"},
      {0x4cdfa000, "ld1 { v0.16b, v1.16b }, [x0], #32"},
      {0x1f420c20, "fmadd d0, d1, d2, d3"},
      {0x9e620020, "scvtf d0, x1"},
      {0x9e780020, "fcvtzs x0, d1"},
      {0xd65f03c0, "ret"},
      {0xd4000001, "svc #0"},
      {0xd4200020, "brk #0x1"},
      {0xd4400000, "hlt #0"},
      {0xd53b4200, "mrs x0, NZCV"},
      {0xd53b4401, "mrs x1, FPCR"},
      {0xd53bd042, "mrs x2, TPIDR_EL0"},
      {0xd53b0023, "mrs x3, CTR_EL0"},
      {0xd50342df, "msr DAIFSet, #2"},
      {0xd503207f, "wfi"},
      {0xd503203f, "yield"},
      {0xd5033f5f, "clrex"},
      {0xd5033bbf, "dmb ish"},
      {0xd5033f9f, "dsb sy"},
      {0xd5033fdf, "isb"},
      {0xd50b7420, "dc zva, x0"},
      {0xd5384000, "mrs x0, SPSR_EL1"},
      {0x00000000, "udf #0"},  // LLVM 16 decodes the all-zero word as UDF
      {0x00000001, "udf #1"},
      {0x6e0a7f8c, "mov v12.h[2], v28.h[7]"},  // Capstone 4 rejects this one
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << c.insn);
    EXPECT_EQ(show(d.disassemble(c.insn, 0x1000)), c.text);
  }
}

TEST(LlvmA64Disassembler, BranchTargetsAreRelativeAndIndependentOfPc) {
  LlvmA64Disassembler d;
  for (uint64_t pc : {uint64_t{0}, uint64_t{0x1000}, uint64_t{0xffff000012345678}}) {
    EXPECT_EQ(show(d.disassemble(0x14000002, pc)), "b #8");
    EXPECT_EQ(show(d.disassemble(0x94000100, pc)), "bl #1024");
    EXPECT_EQ(show(d.disassemble(0xb4ffffc0, pc)), "cbz x0, #-8");
    EXPECT_EQ(show(d.disassemble(0x36180080, pc)), "tbz w0, #3, #16");
    EXPECT_EQ(show(d.disassemble(0x10000020, pc)), "adr x0, #4");
    EXPECT_EQ(show(d.disassemble(0x90000000, pc)), "adrp x0, #0");
  }
}

TEST(LlvmA64Disassembler, DefaultRejectsPostV80Extensions) {
  LlvmA64Disassembler d;
  const Case invalid[] = {
      {0xb8200020, "ldadd w0, w0, [x1]"},            // LSE
      {0xc8a07c41, "cas x0, x1, [x2]"},              // LSE
      {0xb8208041, "swp w0, w1, [x2]"},              // LSE
      {0xb820003f, "stadd w0, [x1]"},                // LSE
      {0xc8e0fc41, "casal x0, x1, [x2]"},            // LSE
      {0x6e828420, "sqrdmlah v0.4s, v1.4s, v2.4s"},  // RDM (v8.1)
      {0xc8df7c20, "ldlar x0, [x1]"},                // LOR (v8.1)
      {0x1ee22820, "fadd h0, h1, h2"},               // FP16 (v8.2)
      {0x4e829420, "sdot v0.4s, v1.16b, v2.16b"},    // DotProd
      {0x1e7e0000, "fjcvtzs w0, d0"},                // JSCVT (v8.3)
      {0x6e82c420, "fcmla v0.4s, v1.4s, v2.4s, #0"}, // FCMA (v8.3)
      {0xf8bfc020, "ldapr x0, [x1]"},                // LRCPC (v8.3)
      {0xdac10020, "pacia x0, x1"},                  // PAuth
      {0xdac11020, "autia x0, x1"},
      {0xd65f0bff, "retaa"},
      {0xd71f0801, "braa x0, x1"},
      {0xf8200420, "ldraa x0, [x1]"},
      {0xd9400020, "ldapur x0, [x1]"},     // LRCPC2 (v8.4)
      {0xba008402, "rmif x0, #1, #2"},     // FlagM (v8.4)
      {0x1e28c020, "frint32x s0, s1"},     // FRINTTS (v8.5)
      {0x9adf1020, "irg x0, x1"},          // MTE
      {0x1e634000, "bfcvt h0, s0"},        // BF16
      {0x4e284820, "aese v0.16b, v1.16b"}, // crypto is optional in v8.0: not enabled
      {0x5e024020, "sha256h q0, q1, v2.4s"},
  };
  for (const Case& c : invalid) {
    SCOPED_TRACE(testing::Message() << std::hex << c.insn << " " << c.text);
    EXPECT_EQ(d.disassemble(c.insn, 0), std::nullopt);
  }
}

TEST(LlvmA64Disassembler, DefaultPrintsLaterHintsAndSysregsGenerically) {
  LlvmA64Disassembler d;
  const Case cases[] = {
      {0xd503233f, "hint #25"},  // paciasp
      {0xd50323bf, "hint #29"},  // autiasp
      {0xd50320ff, "hint #7"},   // xpaclri
      {0xd503245f, "hint #34"},  // bti c
      {0xd503221f, "hint #16"},  // esb
      {0xd503229f, "csdb"},      // LLVM treats CSDB as base v8.0
      {0xd50330ff, "msr S0_3_C3_C0_7, xzr"},  // sb
      {0xd500419f, "msr S0_0_C4_C1_4, xzr"},  // msr pan, #1
      {0xd5384260, "mrs x0, S3_0_C4_C2_3"},   // mrs x0, pan
      {0xd500401f, "msr S0_0_C4_C0_0, xzr"},  // cfinv
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << c.insn);
    EXPECT_EQ(show(d.disassemble(c.insn, 0)), c.text);
  }
}

TEST(LlvmA64Disassembler, FeatureStringEnablesExtensions) {
  LlvmA64Disassembler d("+v8a,+fp-armv8,+neon,+crc,+lse,+aes,+sha2,+pauth,+rdm");
  EXPECT_EQ(show(d.disassemble(0xb8200020, 0)), "ldadd w0, w0, [x1]");
  EXPECT_EQ(show(d.disassemble(0xc8a07c41, 0)), "cas x0, x1, [x2]");
  EXPECT_EQ(show(d.disassemble(0x4e284820, 0)), "aese v0.16b, v1.16b");
  EXPECT_EQ(show(d.disassemble(0x5e024020, 0)), "sha256h q0, q1, v2.4s");
  EXPECT_EQ(show(d.disassemble(0xd503233f, 0)), "paciasp");
  EXPECT_EQ(show(d.disassemble(0xdac10020, 0)), "pacia x0, x1");
  EXPECT_EQ(show(d.disassemble(0x6e828420, 0)), "sqrdmlah v0.4s, v1.4s, v2.4s");
}

TEST(LlvmA64Disassembler, SoftFailEncodingsAreInvalid) {
  // llvm-mc prints "ldar w25, [x13]" with "warning: potentially undefined
  // instruction encoding" (SoftFail: Rs/Rt2 should be 0b11111).  The C API
  // treats SoftFail as a failure; Capstone 4 accepts the word.
  LlvmA64Disassembler d;
  EXPECT_EQ(d.disassemble(0x88d785b9, 0), std::nullopt);
  EXPECT_EQ(show(d.disassemble(0x88dffdb9, 0)), "ldar w25, [x13]");
}

TEST(LlvmA64Disassembler, OutputIsNormalised) {
  LlvmA64Disassembler d;
  std::mt19937 rng(7);
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    auto t = d.disassemble(static_cast<uint32_t>(rng()), 0);
    if (!t) continue;
    ++valid;
    ASSERT_FALSE(t->empty());
    EXPECT_EQ(t->find('\t'), std::string::npos) << *t;
    EXPECT_EQ(t->find("  "), std::string::npos) << *t;
    EXPECT_NE(t->front(), ' ') << *t;
    EXPECT_NE(t->back(), ' ') << *t;
  }
  EXPECT_GT(valid, 4000);  // ~30% of random words are valid v8.0
}

TEST(LlvmA64Disassembler, IsMovable) {
  LlvmA64Disassembler a;
  LlvmA64Disassembler b(std::move(a));
  EXPECT_EQ(show(b.disassemble(0x8b020020, 0)), "add x0, x1, x2");
  LlvmA64Disassembler c("+v8a");
  c = std::move(b);
  EXPECT_EQ(show(c.disassemble(0x1ac24020, 0)), "crc32b w0, w1, w2");
}

// ------------------------------------------------------------ Capstone ----

TEST(CapstoneA64Disassembler, AgreesWithLlvmOnCommonEncodings) {
  LlvmA64Disassembler llvm;
  CapstoneA64Disassembler cs;
  const uint32_t same[] = {0x8b020020, 0xd503201f, 0x92401c20, 0xc8dffc20, 0xc85f7c20,
                           0xc8027c20, 0xb9400441, 0xf9400020, 0x1ac24020, 0x9ac25c20,
                           0x2e303820, 0x1e6e1000, 0x6f05e540, 0x1f420c20, 0x9e620020,
                           0x9e780020, 0xd65f03c0, 0xd4000001, 0xd4200020, 0xd4400000,
                           0xd503207f, 0xd5033bbf, 0xd5033fdf, 0xd50b7420};
  for (uint32_t w : same) {
    SCOPED_TRACE(testing::Message() << std::hex << w);
    auto a = llvm.disassemble(w, 0x1000);
    auto b = cs.disassemble(w, 0x1000);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*a, *b);
  }
}

TEST(CapstoneA64Disassembler, PinnedText) {
  CapstoneA64Disassembler cs;
  const Case cases[] = {
      {0xd2800020, "movz x0, #0x1"},
      {0xb2407fe0, "orr x0, xzr, #0xffffffff"},
      {0xa9410fe2, "ldp x2, x3, [sp, #0x10]"},
      {0x4cdfa000, "ld1 {v0.16b, v1.16b}, [x0], #0x20"},
      {0xd53b4200, "mrs x0, nzcv"},
      {0xd503233f, "hint #0x19"},
      {0xd503229f, "hint #0x14"},
      {0x4e284820, "aese v0.16b, v1.16b"},  // crypto always on
      {0xd5384260, "mrs x0, pan"},
      {0x88d785b9, "ldar w25, [x13]"},      // LLVM: SoftFail -> invalid
      {0x00000000, nullptr},                // no UDF in Capstone 4
      {0xb8200020, nullptr},                // no LSE in Capstone 4
      {0xdac10020, nullptr},                // no PAuth
      {0x6e0a7f8c, nullptr},                // LLVM: mov v12.h[2], v28.h[7]
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << std::hex << c.insn);
    EXPECT_EQ(show(cs.disassemble(c.insn, 0x1000)), c.text ? c.text : "<invalid>");
  }
}

TEST(CapstoneA64Disassembler, BranchTargetsAreAbsolute) {
  CapstoneA64Disassembler cs;
  EXPECT_EQ(show(cs.disassemble(0x14000002, 0x1000)), "b #0x1008");
  EXPECT_EQ(show(cs.disassemble(0x94000100, 0x1000)), "bl #0x1400");
  EXPECT_EQ(show(cs.disassemble(0xb4ffffc0, 0x1000)), "cbz x0, #0xff8");
  EXPECT_EQ(show(cs.disassemble(0x36180080, 0x1000)), "tbz w0, #3, #0x1010");
  EXPECT_EQ(show(cs.disassemble(0x10000020, 0x1000)), "adr x0, #0x1004");
  EXPECT_EQ(show(cs.disassemble(0x90000000, 0x1000)), "adrp x0, #0x1000");
  EXPECT_EQ(show(cs.disassemble(0x14000002, 0x2000)), "b #0x2008");
}

// ------------------------------------------------------------- Unicorn ----

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kData = 0x20000;

struct UnicornFixture : testing::Test {
  UnicornA64 u;
  UnicornFixture() {
    u.map(kCode, 0x1000);
    u.map(kData, 0x1000);
  }
  // Writes the program at kCode and a state with pc = kCode.
  A64State load(std::vector<uint32_t> prog) {
    u.write(kCode, prog.data(), prog.size() * 4);
    A64State s{};
    s.pc = kCode;
    s.sp = kData + 0x800;
    return s;
  }
};

TEST_F(UnicornFixture, ExecutesAdd) {
  A64State s = load({0x8b020020});  // add x0, x1, x2
  s.x[1] = 0x1234567800000001ull;
  s.x[2] = 0x0000000100000002ull;
  u.set_state(s);
  auto r = u.run(~0ull, 1);
  ASSERT_TRUE(r.ok) << r.error;
  A64State t = u.state();
  EXPECT_EQ(t.x[0], 0x1234567900000003ull);
  EXPECT_EQ(t.pc, kCode + 4);
}

TEST_F(UnicornFixture, AllRegistersRoundTrip) {
  std::mt19937_64 rng(3);
  A64State s{};
  for (auto& x : s.x) x = rng();
  s.sp = rng() & ~0xfull;
  s.pc = kCode + 0x40;
  s.nzcv = 0xa0000000;
  for (auto& v : s.v) v = (static_cast<unsigned __int128>(rng()) << 64) | rng();
  s.fpcr = 0x03c00000;  // DN | FZ | RMode=RZ
  s.fpsr = 0x0800009f;  // QC + all cumulative flags
  u.set_state(s);
  A64State t = u.state();
  EXPECT_EQ(std::memcmp(&s, &t, sizeof s), 0);
  for (int i = 0; i < 31; ++i) EXPECT_EQ(t.x[i], s.x[i]) << "x" << i;
  EXPECT_EQ(t.sp, s.sp);
  EXPECT_EQ(t.pc, s.pc);
  EXPECT_EQ(t.nzcv, s.nzcv);
  for (int i = 0; i < 32; ++i) EXPECT_TRUE(t.v[i] == s.v[i]) << "v" << i;
  EXPECT_EQ(t.fpcr, s.fpcr);
  EXPECT_EQ(t.fpsr, s.fpsr);
}

TEST_F(UnicornFixture, WritableFpcrFpsrNzcvBits) {
  A64State s{};
  s.pc = kCode;
  s.fpcr = 0xffffffffu;
  s.fpsr = 0xffffffffu;
  s.nzcv = 0xffffffffu;
  u.set_state(s);
  A64State t = u.state();
  EXPECT_EQ(t.fpcr, kUnicornFpcrMask);  // no FZ16, no trap enables
  EXPECT_EQ(t.fpsr, kUnicornFpsrMask);
  EXPECT_EQ(t.nzcv, 0xf0000000u);
}

TEST_F(UnicornFixture, FlagsAndFpStateFromExecution) {
  // subs x0, x1, x1 ; fdiv d0, d1, d2 ; fadd d3, d1, d2 ; mrs x4, nzcv ; mrs x5, fpsr
  A64State s = load({0xeb010020, 0x1e621820, 0x1e622823, 0xd53b4204, 0xd53b4425});
  s.x[1] = 5;
  double one = 1.0, three = 3.0;
  uint64_t b1, b3;
  std::memcpy(&b1, &one, 8);
  std::memcpy(&b3, &three, 8);
  s.v[1] = b1;
  s.v[2] = b3;
  u.set_state(s);
  auto r = u.run(~0ull, 5);
  ASSERT_TRUE(r.ok) << r.error;
  A64State t = u.state();
  EXPECT_EQ(t.x[0], 0u);
  EXPECT_EQ(t.nzcv, 0x60000000u);  // Z and C
  EXPECT_EQ(t.x[4], 0x60000000u);
  double q;
  uint64_t qb = static_cast<uint64_t>(t.v[0]);
  std::memcpy(&q, &qb, 8);
  EXPECT_EQ(q, 1.0 / 3.0);
  EXPECT_EQ(static_cast<uint64_t>(t.v[0] >> 64), 0u);  // scalar write zeroes the top
  EXPECT_EQ(t.fpsr, 0x10u);                            // IXC
  EXPECT_EQ(t.x[5], 0x10u);
  double sum;
  uint64_t sb = static_cast<uint64_t>(t.v[3]);
  std::memcpy(&sum, &sb, 8);
  EXPECT_EQ(sum, 4.0);
}

TEST_F(UnicornFixture, RoundingModeIsHonoured) {
  A64State s = load({0x1e621820});  // fdiv d0, d1, d2
  double one = 1.0, three = 3.0;
  std::memcpy(&s.v[1], &one, 8);
  std::memcpy(&s.v[2], &three, 8);
  s.fpcr = 2u << 22;  // RMode = RM (towards minus infinity)
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  uint64_t down = static_cast<uint64_t>(u.state().v[0]);
  s.fpcr = 1u << 22;  // RP
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  uint64_t up = static_cast<uint64_t>(u.state().v[0]);
  EXPECT_EQ(up, down + 1);
}

TEST_F(UnicornFixture, UndefinedInstructionIsReported) {
  A64State s = load({0x8b020020, 0x00000000, 0x8b020020});  // add ; udf #0 ; add
  u.set_state(s);
  auto r = u.run(~0ull, 3);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Undefined);
  EXPECT_EQ(r.error, "undefined instruction at pc=0x10004");
  EXPECT_EQ(u.state().pc, kCode + 4);  // left at the UDF, not skipped
}

TEST_F(UnicornFixture, PostV80InstructionsAreUndefined) {
  for (uint32_t w : {0xb8200020u /*ldadd*/, 0x6e828420u /*sqrdmlah*/, 0x1e7e0000u /*fjcvtzs*/,
                     0x1ee22820u /*fadd h*/, 0xdac10020u /*pacia*/}) {
    SCOPED_TRACE(testing::Message() << std::hex << w);
    A64State s = load({w});
    s.x[1] = kData;
    u.set_state(s);
    auto r = u.run(~0ull, 1);
    EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Undefined) << r.error;
  }
  // The A72 model has crypto and CRC32.
  A64State s = load({0x4e284820, 0x1ac24020});
  u.set_state(s);
  EXPECT_TRUE(u.run(~0ull, 2).ok);
}

TEST_F(UnicornFixture, UnmappedAccessIsReported) {
  A64State s = load({0xf9400020});  // ldr x0, [x1]
  s.x[1] = 0xdead0000;
  u.set_state(s);
  auto r = u.run(~0ull, 1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Unmapped);
  EXPECT_EQ(r.fault_addr, 0xdead0000u);
  EXPECT_EQ(r.error, "unmapped read at 0xdead0000 (pc=0x10000)");
  EXPECT_EQ(u.state().pc, kCode);

  s = load({0xf9000420});  // str x0, [x1, #8]
  s.x[1] = 0xbeef0000;
  u.set_state(s);
  r = u.run(~0ull, 1);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Unmapped);
  EXPECT_EQ(r.error, "unmapped write at 0xbeef0008 (pc=0x10000)");

  s = load({0xd61f0020});  // br x1
  s.x[1] = 0x700000;
  u.set_state(s);
  r = u.run(~0ull, 2);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Unmapped) << r.error;
  EXPECT_EQ(r.fault_addr, 0x700000u);
}

TEST_F(UnicornFixture, SingleStepOfBranchLandsOnTarget) {
  A64State s = load({0x14000002, 0x8b020020, 0x94000002});  // b #8 ; add ; bl #8
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  EXPECT_EQ(u.state().pc, kCode + 8);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  A64State t = u.state();
  EXPECT_EQ(t.pc, kCode + 16);
  EXPECT_EQ(t.x[30], kCode + 12);
}

TEST_F(UnicornFixture, StopsAtUntilOrCount) {
  std::vector<uint32_t> prog(8, 0x91000400);  // add x0, x0, #1
  A64State s = load(prog);
  u.set_state(s);
  ASSERT_TRUE(u.run(kCode + 12, 0).ok);
  EXPECT_EQ(u.state().pc, kCode + 12);
  EXPECT_EQ(u.state().x[0], 3u);
  ASSERT_TRUE(u.run(~0ull, 2).ok);
  EXPECT_EQ(u.state().pc, kCode + 20);
  EXPECT_EQ(u.state().x[0], 5u);
  ASSERT_TRUE(u.run(kCode + 24, 100).ok);
  EXPECT_EQ(u.state().x[0], 6u);
}

TEST_F(UnicornFixture, SvcAndBrkAreReported) {
  A64State s = load({0xd4000001});  // svc #0
  u.set_state(s);
  auto r = u.run(~0ull, 1);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Exception);
  EXPECT_EQ(r.exception, 2u);
  EXPECT_EQ(r.error, "exception svc (EXCP 2) at pc=0x10004");
  s = load({0xd4200020});  // brk #1
  u.set_state(s);
  r = u.run(~0ull, 1);
  EXPECT_EQ(r.kind, UnicornA64::RunResult::Kind::Exception);
  EXPECT_EQ(r.exception, 7u);
  EXPECT_EQ(u.state().pc, kCode);
}

TEST_F(UnicornFixture, RewrittenCodeIsExecuted) {
  A64State s = load({0x91000400});  // add x0, x0, #1
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  EXPECT_EQ(u.state().x[0], 1u);
  s = load({0x91002800});  // add x0, x0, #10
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 1).ok);
  EXPECT_EQ(u.state().x[0], 10u);
}

TEST_F(UnicornFixture, MemoryReadWriteAndSimdLoad) {
  const uint8_t bytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  u.write(kData + 0x100, bytes, 16);
  A64State s = load({0x3dc00020, 0xf9000441});  // ldr q0, [x1] ; str x1, [x2, #8]
  s.x[1] = kData + 0x100;
  s.x[2] = kData + 0x200;
  u.set_state(s);
  ASSERT_TRUE(u.run(~0ull, 2).ok);
  A64State t = u.state();
  unsigned __int128 expect;
  std::memcpy(&expect, bytes, 16);
  EXPECT_TRUE(t.v[0] == expect);
  uint64_t stored = 0;
  u.read(kData + 0x208, &stored, 8);
  EXPECT_EQ(stored, kData + 0x100);
}

}  // namespace
}  // namespace vplat::testref
