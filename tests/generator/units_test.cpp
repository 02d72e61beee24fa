// The ADL features of units.adl: decode units, constant tables, exported functions, attributes and field
// metadata. Expected values are worked out by hand from units.adl and archdesc/README.md.
#include "duo_isa.h"
#include <gtest/gtest.h>

namespace duo = vplat::gen::duo;

namespace {

TEST(Units, EachUnitDecodesItsOwnWidth) {
  EXPECT_EQ(duo::kUnitWidth_wide, 7);
  EXPECT_EQ(duo::kUnitWidth_narrow, 3);
  EXPECT_EQ(duo::decode_wide(0b0'01'10'00), duo::I_SQ);
  EXPECT_EQ(duo::decode_wide(0b1'01'10'00), duo::I_NEG);
  EXPECT_EQ(duo::decode_narrow(0b01'0), duo::I_ONE);
  EXPECT_EQ(duo::decode_narrow(0b01'1), duo::I_TWO);
  // Bits above the unit's width are not part of the word.
  EXPECT_EQ(duo::decode_narrow(0b1000'01'1), duo::I_TWO);
}

TEST(Units, GuardsMayCallPureExportedFunctionsAndTables) {
  EXPECT_EQ(duo::decode_wide(0b1'00'00'11), -1); // square(3) == 9: not NEG
  EXPECT_EQ(duo::decode_wide(0b1'00'00'10), duo::I_NEG);
}

TEST(Tables, SemanticsReadTables) {
  duo::State s{};
  duo::kExec[duo::I_SQ](s, 0b0'10'11'00); // R[2] = SQUARES[3]
  EXPECT_EQ(s.R[2], 9u);
  duo::kExec[duo::I_NEG](s, 0b1'01'00'00); // R[1] = SIGNED[0] = -1
  EXPECT_EQ(s.R[1], 0xffffffffu);
  duo::kExec[duo::I_NEG](s, 0b1'01'00'01); // SIGNED[1] = 100
  EXPECT_EQ(s.R[1], 100u);
}

TEST(Tables, AreVisibleToCpp) {
  EXPECT_EQ(duo::kTable_SQUARES[4], 16);
  EXPECT_EQ(duo::kTable_SIGNED[0], -1);
  EXPECT_STREQ(duo::kTable_NAMES[2], "two");
}

TEST(Exports, PureAndStatefulFunctions) {
  EXPECT_EQ(duo::square(2), 4u);
  EXPECT_EQ(duo::square(7), 49u);
  duo::State s{};
  s.R[0] = 5;
  s.R[3] = 7;
  EXPECT_EQ(duo::sum(s, 0, 3), 12u);
  vplat::adlrt::u128 q = (vplat::adlrt::u128(0x0123456789abcdefull) << 64) | 0xfedcba9876543210ull;
  EXPECT_EQ(duo::middle(q), uint64_t(q >> 36));
}

TEST(Disassembly, StringTables) { EXPECT_EQ(duo::disassemble(duo::I_SQ, 0b0'01'11'00), "sq r1, three"); }

TEST(Metadata, UnitsAttributesAndFields) {
  const auto& sq = duo::kInsnInfo[duo::I_SQ];
  EXPECT_STREQ(sq.unit, "wide");
  EXPECT_EQ(sq.width, 7);
  EXPECT_EQ(duo::insn_attr(duo::I_SQ, "kind"), "alu");
  EXPECT_EQ(duo::insn_attr(duo::I_ONE, "kind"), "mov");
  EXPECT_EQ(duo::insn_attr(duo::I_TWO, "kind"), "");
  ASSERT_EQ(sq.num_fields, 4);
  EXPECT_STREQ(sq.fields[0].name, "op");
  EXPECT_EQ(sq.fields[0].lsb, 6);
  EXPECT_EQ(sq.fields[0].bound, 0);
  EXPECT_STREQ(sq.fields[2].name, "b");
  EXPECT_EQ(sq.fields[2].lsb, 2);
  EXPECT_EQ(sq.fields[2].width, 2);
  EXPECT_EQ(sq.fields[2].bound, -1);
}

} // namespace
