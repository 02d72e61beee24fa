// The clause container rules of archdesc/bifrost/base.adl against Mesa's clause-packing test vectors
// (src/panfrost/compiler/test/test-pack-formats.cpp: tuples, header and embedded constant in, quadwords out, the
// first one taken from the Mali blob). Here the quadwords go in and the description must recover the inputs.
#include "bifrost_isa.h"
#include <gtest/gtest.h>
#include <vector>

namespace gen = vplat::gen::bifrost;
using u128 = vplat::adlrt::u128;

namespace {

struct Vector {
  const char* name;
  std::vector<std::pair<uint64_t, uint64_t>> tuples; // bi_packed_tuple {lo, hi}
  uint64_t header;
  uint64_t ec0;                  // as Mesa passes it (already >> 4); checked when the tuple count packs one
  std::vector<unsigned> rows;    // bi_clause_formats indices Mesa packed with
  std::vector<uint64_t> qwords;  // expected output, lo/hi pairs
};

const std::vector<Vector>& vectors() {
  static const std::vector<Vector> v = {
      {"1", {{0x2380cb1c02200000, 0x10e0}}, 0x021000011800, 0, {1}, {0x80cb1c022000004a, 0x10800008c000e023}},
      {"2", {{0x9380cb6044000044, 0xf65}, {0xaf8721a05c000081, 0x1831}}, 0x52800011800, 0, {0, 2},
       {0x80cb604400004429, 0x29400008c0076593, 0x8721a05c00008103, 0x60000000000031af}},
      {"3", {{0x93805b8040000000, 0xf65}, {0x93886db05c000000, 0xf65}, {0xb380cb180c000080, 0x18b1}}, 0x3100000000,
       0, {0, 3, 4},
       {0x805b804000000029, 0x0188000000076593, 0x886db05c00000021, 0x58c0600004076593, 0x0000000000000044,
        0x60002c6ce0300000}},
      {"4",
       {{0xad8c87004000005f, 0x2f18}, {0xad8c87385c00004f, 0x2f18}, {0xad8c87385c00006e, 0x2f18},
        {0xb380cb182c000080, 0x18b1}},
       0x3100000000, 0x10000001ff000000 >> 4, {0, 3, 6},
       {0x8c87004000005f2d, 0x01880000000718ad, 0x8c87385c00004f25, 0x39c2e000037718ad, 0x80cb182c00008005,
        0xac01c62b6320b1b3}},
      {"5",
       {{0x9380688040000000, 0xf65}, {0xd4057300c000040, 0xf26}, {0x1f80cb1858000000, 0x19ab},
        {0x937401f85c000000, 0xf65}, {0xb380cb180c000080, 0x18a1}},
       0x3100000000, 0x183f800000 >> 4, {0, 3, 7, 8},
       {0x8068804000000029, 0x0188000000076593, 0x4057300c00004021, 0x58c2c0000007260d, 0x7401f85c0000008b,
        0x00006ac7e0376593, 0x80cb180c00008053, 0x000000183f80a1b3}},
      {"6",
       {{0xad8c870068000048, 0x2f18}, {0xad8c87385c000050, 0x2f18}, {0xad8c87385c00006a, 0x2f18},
        {0xad8c87385c000074, 0x2f18}, {0xad8c87385c000020, 0x2f18}, {0xad8c87385c000030, 0x2f18}},
       0x60000011800, 0x345678912345670 >> 4, {0, 3, 5, 9, 10},
       {0x8c8700680000482d, 0x30000008c00718ad, 0x8c87385c00005025, 0x39c2e000035718ad, 0x8c87385c00007401,
        0xb401c62b632718ad, 0x8c87385c00002065, 0x39c2e000018718ad, 0x3456789123456706, 0xa001c62b63200000}},
      {"7",
       {{0x9020074040000083, 0xf65}, {0x90000d4058100080, 0xf65}, {0x90000a3058700082, 0xf65},
        {0x9020074008114581, 0xf65}, {0x90000d0058000080, 0xf65}, {0x9000083058700082, 0xf65},
        {0x2380cb199ac38400, 0x327a}},
       0x3000100000, 0, {0, 3, 5, 9, 11},
       {0x2007404000008329, 0x0180008000076590, 0x000d405810008021, 0x5182c38004176590, 0x2007400811458101,
        0x2401d96400076590, 0x000d005800008061, 0x4182c38004176590, 0x80cb199ac3840047, 0x3801d96400027a23}},
      {"8",
       {{0x442087037a2f8643, 0x3021}, {0x84008d0586100043, 0x200}, {0x7c008d0028014543, 0x0},
        {0x1c00070058200081, 0x1980}, {0x1600dd878320400, 0x200}, {0x49709c1b08308900, 0x200},
        {0x6c2007807881ca00, 0x40}, {0x8d70fc0d94900083, 0x800}},
       0x61001311800, 0x32e635d0 >> 4, {0, 3, 5, 9, 12, 13},
       {0x2087037a2f86432e, 0x30800988c0002144, 0x008d058610004320, 0x6801400a2a1a0084, 0x0007005820008101,
        0x0c00001f0021801c, 0x600dd87832040060, 0xe0d8418448020001, 0x2007807881ca00c0, 0xc6ba80125c20406c,
        0x70fc0d9490008359, 0x0000000032e0008d}},
  };
  return v;
}

void PrintTo(const Vector& v, std::ostream* os) { *os << "Mesa PackFormats." << v.name; }

class MesaVectors : public ::testing::TestWithParam<Vector> {};

TEST_P(MesaVectors, DescriptionRecoversTuplesHeaderAndConstant) {
  const Vector& v = GetParam();
  unsigned n = static_cast<unsigned>(v.tuples.size());
  ASSERT_EQ(v.qwords.size(), 2 * v.rows.size());
  EXPECT_EQ(gen::kTable_CLAUSE_QWORDS[n - 1], v.rows.size());
  std::vector<u128> tuples(8);
  uint64_t header = 0, ec0 = 0;
  for (size_t i = 0; i < v.rows.size(); ++i) {
    u128 q = (u128(v.qwords[2 * i + 1]) << 64) | v.qwords[2 * i];
    unsigned row = gen::qword_row(q);
    EXPECT_EQ(row, v.rows[i]) << "quadword " << i;
    EXPECT_EQ(gen::kTable_CLAUSE_ROWS[(n - 1) * 6 + i], v.rows[i]) << "CLAUSE_ROWS for " << n << " tuples";
    for (unsigned t = 0; t < 8; ++t) tuples[t] |= gen::qword_tuple_bits(q, row, t);
    if (gen::kTable_FMT_S56[row] == 16) header = gen::qword_header(q);
    ec0 |= gen::qword_ec0_bits(q, row);
  }
  for (unsigned t = 0; t < n; ++t) {
    u128 want = (u128(v.tuples[t].second) << 64) | v.tuples[t].first;
    EXPECT_TRUE(tuples[t] == want) << "tuple " << t;
  }
  for (unsigned t = n; t < 8; ++t) EXPECT_TRUE(tuples[t] == 0) << "tuple " << t;
  EXPECT_EQ(header, v.header);
  if (gen::kTable_CLAUSE_EC0[n - 1]) {
    // Formats 5/10 carry only EC0's low 15 bits next to 6/11's upper 45; formats 3/8 all 60.
    EXPECT_EQ(ec0, v.ec0 & ((1ull << 60) - 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Bifrost, MesaVectors, ::testing::ValuesIn(vectors()),
                         [](const ::testing::TestParamInfo<Vector>& i) { return std::string("tuples_") + i.param.name; });

// A tuple from vector 1 in detail: its FMA word is *NOP and its ADD word +LD_ATTR_IMM (ISA.xml), and its header
// says flow nbb with attribute messages, as a blob vertex shader's would.
TEST(Container, BlobTupleFields) {
  u128 t = (u128(0x10e0) << 64) | 0x2380cb1c02200000;
  EXPECT_EQ(gen::tuple_fma(t), 0x701963u);
  EXPECT_EQ(gen::decode_fma(gen::tuple_fma(t)), gen::I_FMA_NOP);
  EXPECT_EQ(gen::tuple_add(t) & 0xf0400, 0x40000u); // LD_ATTR_IMM's mask/exact: not described yet
  EXPECT_EQ(gen::decode_add(gen::tuple_add(t)), -1);
  uint64_t h = 0x021000011800;
  EXPECT_EQ(gen::header_flow(h), 3u);
  EXPECT_EQ(gen::header_message_type(h), 2u);
  EXPECT_EQ(gen::header_next_message_type(h), 2u);
  EXPECT_EQ(gen::header_text(h), "ds(0) nbb attr ncph next_attr ");
}

TEST(Container, ConstantModifiers) {
  // disassemble.c decode_M: M1 >= 8 none; M1 = 4 PC_HI for the first constant; M1 = 7 defers to M2.
  EXPECT_EQ(gen::const_mod(8, 0, 0), 0u);
  EXPECT_EQ(gen::const_mod(4, 0, 0), 2u);
  EXPECT_EQ(gen::const_mod(4, 0, 1), 0u);
  EXPECT_EQ(gen::const_mod(1, 0, 0), 1u);
  EXPECT_EQ(gen::const_mod(7, 2, 1), 3u);
  EXPECT_EQ(gen::const_mod(3, 0, 0), 4u); // reserved
  // PC_HI: the high word is the clause address plus a 28-bit signed byte offset, the low word as stored.
  uint64_t stored = (uint64_t(0x0ffffff0) << 32 | 0x12345670) >> 4; // offset -16
  EXPECT_EQ(gen::const_value(stored, 0x40, 2, 0x10000100), (uint64_t(0x100000f0) << 32) | 0x12345670);
}

} // namespace
