// Specification of the ADL compiler's output, on the toy ISA in toy.adl. Expected values are worked out by
// hand from the language rules in archdesc/README.md.
#include "toy_isa.h"
#include <cstdio>
#include <gtest/gtest.h>

namespace toy = vplat::gen::toy;

namespace vplat::gen::toy {
// The test's memory: address 0xbad faults, anything else reads as twice its address.
uint64_t toy_load(State& s, uint64_t addr) {
  if (addr == 0xbad) {
    s.F = 1;
    return 0;
  }
  return addr * 2;
}
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
} // namespace vplat::gen::toy

namespace {

toy::State run(toy::State s, uint16_t insn) {
  int id = toy::decode(insn);
  EXPECT_GE(id, 0) << std::hex << insn;
  s.NPC = s.PC + 2;
  if (id >= 0) toy::kExec[id](s, insn);
  return s;
}

TEST(Decoder, EarlierOverlapMemberWins) {
  EXPECT_EQ(toy::decode(0x0000), toy::I_ZERO);
  EXPECT_EQ(toy::decode(0x0001), toy::I_MOVI);
  EXPECT_EQ(toy::decode(0x0500), toy::I_MOVI);
}

TEST(Decoder, FailedGuardMeansUnallocated) {
  EXPECT_EQ(toy::decode(0x5100), toy::I_SWAP); // a=0 b=1
  EXPECT_EQ(toy::decode(0x5500), -1);          // a=1 b=1
}

TEST(Decoder, FixedBitsSeparateInstructions) {
  EXPECT_EQ(toy::decode(0x4000), toy::I_UDIV);
  EXPECT_EQ(toy::decode(0x4080), toy::I_SDIV);
  EXPECT_EQ(toy::decode(0xc000), -1); // no pattern starts 1100
}

TEST(Semantics, BoundAndDecodedFields) {
  toy::State s{};
  s = run(s, 0x0bff); // movi a=2 b=3 imm=255
  EXPECT_EQ(s.R[2], 258u);
}

TEST(Semantics, SignedCastSignExtends) {
  toy::State s{};
  EXPECT_EQ(run(s, 0x1480).R[1], 0xffffffffffffff80ull); // s8(0x80) = -128
  EXPECT_EQ(run(s, 0x147f).R[1], 0x7fu);
}

TEST(Semantics, ShiftsByWidthOrMoreAreTotal) {
  toy::State s{};
  s.R[0] = 0x8000000000000001ull;
  s.R[1] = 64;
  EXPECT_EQ(run(s, 0x2100).R[0], 0u);                    // shl by 64
  EXPECT_EQ(run(s, 0x3100).R[0], 0xffffffffffffffffull); // asr by 64 fills with the sign
  s.R[1] = 1;
  EXPECT_EQ(run(s, 0x2100).R[0], 2u);
  EXPECT_EQ(run(s, 0x3100).R[0], 0xc000000000000000ull);
}

TEST(Semantics, DivisionIsTotal) {
  toy::State s{};
  s.R[0] = 100;
  s.R[1] = 0;
  EXPECT_EQ(run(s, 0x4100).R[0], 0u); // x / 0 = 0
  s.R[0] = 0x8000000000000000ull;
  s.R[1] = ~0ull;
  EXPECT_EQ(run(s, 0x4180).R[0], 0x8000000000000000ull); // INT64_MIN / -1
  s.R[0] = static_cast<uint64_t>(-7);
  s.R[1] = 2;
  EXPECT_EQ(run(s, 0x4180).R[0], static_cast<uint64_t>(-3)); // truncates toward zero
}

TEST(Semantics, LetBindsBeforeAssignments) {
  toy::State s{};
  s.R[0] = 5;
  s.R[3] = 9;
  s = run(s, 0x5300);
  EXPECT_EQ(s.R[0], 9u);
  EXPECT_EQ(s.R[3], 5u);
}

TEST(Semantics, FaultStopsTheInstructionBeforeItWritesState) {
  toy::State s{};
  s.R[1] = 0x10;
  s.R[2] = 77;
  s = run(s, 0x6900); // load r2, [r1]
  EXPECT_EQ(s.R[2], 0x20u);
  EXPECT_EQ(s.F, 0);
  s.R[1] = 0xbad;
  s = run(s, 0x6900);
  EXPECT_EQ(s.F, 1);
  EXPECT_EQ(s.R[2], 0x20u); // unchanged
}

TEST(Semantics, LoopRunsItsDecodeTimeCount) {
  toy::State s{};
  s.R[1] = 10;
  EXPECT_EQ(run(s, 0x7700).R[1], 13u); // n = 3
  EXPECT_EQ(run(s, 0x7400).R[1], 10u); // n = 0
}

TEST(Semantics, BranchWritesNextPc) {
  toy::State s{};
  s.PC = 0x100;
  s.R[2] = 0x4000;
  EXPECT_EQ(run(s, 0x8800).NPC, 0x4000u);
}

TEST(Semantics, ConcatenationAndNarrowArithmeticWrap) {
  toy::State s{};
  s.R[0] = 0x1234;
  s.R[1] = 0xabcd;
  EXPECT_EQ(run(s, 0x9100).R[0], 0x34cdu);
  s.R[0] = 0x1ff;
  EXPECT_EQ(run(s, 0xa100).R[1], 0u); // u8: 0xff + 1 wraps to 0
}

TEST(Semantics, Vector128) {
  toy::State s{};
  s.R[0] = 0xff00;
  s.R[1] = 0x0ff0;
  s = run(s, 0xb100);
  EXPECT_EQ(s.R[0], 0xf0f0u);
  EXPECT_EQ(static_cast<uint64_t>(s.Q >> 64), 0xff00u);
}

TEST(Disassembly, TemplatesAndBlocks) {
  EXPECT_EQ(toy::disassemble(toy::decode(0x0bff), 0x0bff), "movi r2, #255");
  EXPECT_EQ(toy::disassemble(toy::decode(0x1480), 0x1480), "sext r1, #0x80");
  EXPECT_EQ(toy::disassemble(toy::decode(0xb500), 0xb500), "wide r1");
  EXPECT_EQ(toy::disassemble(toy::decode(0xb100), 0xb100), "wide r0, r1, {r0:r1}");
}

TEST(Metadata, StateEffectsAreDerivedFromTheSemantics) {
  const auto& load = toy::kInsnInfo[toy::I_LOAD];
  EXPECT_STREQ(load.cls, "mem_load");
  EXPECT_STREQ(load.reads, "R");
  EXPECT_STREQ(load.writes, "R");
  EXPECT_STREQ(load.helpers, "toy_load");
  EXPECT_TRUE(load.may_fault);
  EXPECT_FALSE(load.is_branch);
  const auto& br = toy::kInsnInfo[toy::I_BR];
  EXPECT_TRUE(br.is_branch);
  EXPECT_FALSE(br.may_fault);
  EXPECT_STREQ(toy::kInsnInfo[toy::I_WIDE].writes, "Q,R");
}

} // namespace
