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

TEST(Exports, VectorElementsCountFromTheLeastSignificantEnd) {
  using vplat::adlrt::u128;
  const u128 q = (u128(0x0123456789abcdefull) << 64) | 0xfedcba9876543210ull;
  EXPECT_EQ(duo::element(q, 8, 0), 0x10u);
  EXPECT_EQ(duo::element(q, 8, 15), 0x01u);
  EXPECT_EQ(duo::element(q, 16, 5), 0x89abu);
  EXPECT_EQ(duo::element(q, 32, 1), 0xfedcba98u);
  EXPECT_EQ(duo::element(q, 64, 1), 0x0123456789abcdefull);
  EXPECT_EQ(duo::element(q, 4, 31), 0x0u); // the top nibble
  // Bits beyond 127 read as zero: element 2 of 64 bits, and the part of an element past bit 127.
  EXPECT_EQ(duo::element(q, 64, 2), 0u);
  EXPECT_EQ(duo::element(q, 32, 3), 0x01234567u);
  EXPECT_EQ(duo::element(q, 48, 2), 0x01234567u); // bits 96..143: the top 32 bits
  // Replacing an element keeps every other bit and takes only the element's width of x.
  EXPECT_EQ(duo::with_element(q, 8, 1, 0xabcd), (q & ~(u128(0xff) << 8)) | (u128(0xcd) << 8));
  EXPECT_EQ(duo::with_element(q, 64, 1, 7), (u128(7) << 64) | 0xfedcba9876543210ull);
  EXPECT_EQ(duo::with_element(q, 16, 7, 0), q & ~(u128(0xffff) << 112));
  // Element 2 of 48 bits is bits 96..143: its low 32 bits land in bits 96..127, the rest is dropped.
  EXPECT_EQ(duo::with_element(q, 48, 2, 0xffffffffffff), q | (u128(0xffffffff) << 96));
  EXPECT_EQ(duo::with_element(q, 64, 2, 1), q); // wholly beyond bit 127: dropped
}

TEST(Builtins, CountAndReverseBitsOfA64BitValue) {
  EXPECT_EQ(duo::leading_zeros(0), 64u); // as A64's CLZ: a zero has 64
  EXPECT_EQ(duo::leading_zeros(1), 63u);
  EXPECT_EQ(duo::leading_zeros(0x8000000000000000ull), 0u);
  EXPECT_EQ(duo::leading_zeros(0x00000000ffff0000ull), 32u);
  EXPECT_EQ(duo::bits_reversed(1), 0x8000000000000000ull);
  EXPECT_EQ(duo::bits_reversed(0x00000000000000f2ull), 0x4f00000000000000ull);
  EXPECT_EQ(duo::bits_reversed(0x0123456789abcdefull), 0xf7b3d591e6a2c480ull);
  EXPECT_EQ(duo::bytes_reversed(0x0123456789abcdefull), 0xefcdab8967452301ull);
  EXPECT_EQ(duo::ones(0), 0u);
  EXPECT_EQ(duo::ones(0xf0f0000000000001ull), 9u);
  EXPECT_EQ(duo::ones(~0ull), 64u);
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
