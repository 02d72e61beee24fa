// Every instruction of archdesc/bifrost: an assembled micro-shader runs on a quad whose four lanes hold
// different values, and each lane's result is compared with a CPU computation written here independently
// (host IEEE arithmetic under the requested rounding mode, plain integer C++). Then assemble -> encode ->
// decode -> disassemble round trips, per instruction and per clause shape, against Mesa-syntax text written
// by hand. InstructionList prints every instruction with its metadata and pass status, and fails if one has
// no test. The cases themselves live in one isa_*_cases.cpp file per instruction group (isa_cases.h: the
// registry).
#include "isa_cases.h"
#include <memory>

namespace bifrost_isa_test {

namespace {
struct Registry {
  CaseMap cases;
  std::vector<RoundTrip> round_trips;
  std::vector<void (*)(CaseMap&)> pending;
};
Registry& registry() {
  static Registry r;
  return r;
}
} // namespace

CaseGroup::CaseGroup(void (*add)(CaseMap& cases), std::initializer_list<RoundTrip> round_trips) {
  registry().pending.push_back(add);
  registry().round_trips.insert(registry().round_trips.end(), round_trips.begin(), round_trips.end());
}

CaseMap& all_cases() {
  Registry& r = registry();
  for (auto add : r.pending) add(r.cases);
  r.pending.clear();
  return r.cases;
}

const std::vector<RoundTrip>& all_round_trips() {
  return registry().round_trips;
}

namespace {

class Instruction : public ::testing::TestWithParam<std::string> {};

TEST_P(Instruction, RunsOnAQuad) {
  auto& c = all_cases();
  auto it = c.find(GetParam());
  ASSERT_NE(it, c.end()) << "no test for " << GetParam();
  std::string why;
  EXPECT_TRUE(it->second(why)) << why;
}

std::vector<std::string> insn_names() {
  std::vector<std::string> v;
  for (int i = 0; i < gen::kNumInsns; ++i) v.push_back(gen::kInsnInfo[i].name);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Bifrost, Instruction, ::testing::ValuesIn(insn_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(Instructions, InstructionList) {
  auto& c = all_cases();
  unsigned pass = 0, fail = 0, missing = 0;
  std::printf("%-22s %-5s %-12s %-8s %s\n", "instruction", "unit", "class", "message", "status");
  for (int i = 0; i < gen::kNumInsns; ++i) {
    const auto& info = gen::kInsnInfo[i];
    std::string status;
    auto it = c.find(info.name);
    if (it == c.end()) {
      status = "NO TEST";
      ++missing;
    } else {
      std::string why;
      bool ok = it->second(why);
      status = ok ? "PASS" : "FAIL: " + why;
      ok ? ++pass : ++fail;
    }
    std::string msg = gen::insn_attr(i, "message");
    std::printf("%-22s %-5s %-12s %-8s %s\n", info.name, info.unit, info.cls, msg.empty() ? "-" : msg.c_str(),
                status.c_str());
  }
  std::printf("%u instructions: %u pass, %u fail, %u without a test\n", gen::kNumInsns, pass, fail, missing);
  EXPECT_EQ(fail, 0u);
  EXPECT_EQ(missing, 0u);
}

// ---------------------------------------------------------------- round trips

std::string decode_and_print(const std::vector<uint64_t>& words, uint64_t address, DecodedClause& dc) {
  size_t i = 0;
  bool ok = decode_clause(
      address,
      [&](uint64_t, uint64_t& lo, uint64_t& hi) {
        if (i + 1 >= words.size()) return false;
        lo = words[i];
        hi = words[i + 1];
        i += 2;
        return true;
      },
      dc);
  if (!ok) return "<read past the end>";
  if (dc.exception) return "<invalid: " + dc.error + ">";
  if (dc.qwords * 2 != words.size()) return "<size mismatch>";
  return disassemble_clause(dc);
}

class RoundTripTest : public ::testing::TestWithParam<RoundTrip> {};

TEST_P(RoundTripTest, AssembleDecodeDisassemble) {
  const RoundTrip& rt = GetParam();
  std::vector<uint64_t> words;
  ASSERT_NO_THROW(words = bifrost_asm::assemble(rt.source)) << rt.source;
  DecodedClause dc;
  EXPECT_EQ(decode_and_print(words, kCodeVa, dc), rt.text);
  // The decoded words are the instruction itself and re-encode identically from its fields.
  bool found = false;
  for (unsigned t = 0; t < dc.tuple_count; ++t) {
    const auto& tu = dc.tuples[t];
    for (int id : {tu.fma_id, tu.add_id})
      if (id >= 0 && std::string(gen::kInsnInfo[id].name) == rt.name) found = true;
  }
  EXPECT_TRUE(found) << rt.name << " not in the decoded clause";
}

INSTANTIATE_TEST_SUITE_P(Bifrost, RoundTripTest, ::testing::ValuesIn(all_round_trips()),
                         [](const ::testing::TestParamInfo<RoundTrip>& i) {
                           return std::string(i.param.name);
                         });

TEST(RoundTrip, EveryInstructionHasOne) {
  for (int i = 0; i < gen::kNumInsns; ++i) {
    bool has = false;
    for (auto& rt : all_round_trips()) has |= std::string(rt.name) == gen::kInsnInfo[i].name;
    EXPECT_TRUE(has) << gen::kInsnInfo[i].name;
  }
}

// Every clause shape: 1..8 tuples, with and without embedded constants (and the constant quadwords that
// follow), reading and writing registers so the register blocks use several modes. The decoded tuples must be
// the assembled ones and the disassembly must list them in order.
TEST(RoundTrip, EveryClauseFormat) {
  for (unsigned n = 1; n <= 8; ++n)
    for (unsigned consts = 0; consts <= 5; ++consts) {
      unsigned room = gen::kTable_CLAUSE_EC0[n - 1];
      for (unsigned p = 0; p < 15; ++p) room += gen::kTable_CONST_POS_TUPLES[p] == n ? 2 : 0;
      if (consts > room) continue;
      std::string src = "header flow=3 ncph\n";
      std::string want_body;
      // Odd tuples write both results (mode W_W_ADD); the last may not: its block is the first tuple's.
      auto both = [&](unsigned t) { return t % 2 == 1 && t + 1 < n; };
      for (unsigned t = 0; t < n; ++t) {
        unsigned a = t + 1, b = 20 + t;
        bool use_const = consts && t == 0;
        src += "tuple p0=r" + std::to_string(a) + " p1=r" + std::to_string(b) + (use_const ? " fau=c0" : "") +
               " ; *IMUL.i32 src0=0 src1=" + (use_const ? "4" : "1") + " ; +IADD.s32 src0=0 src1=1 ; fma->r" +
               std::to_string(40 + t) + (both(t) ? " add->r" + std::to_string(50 + t) : "") + "\n";
        want_body += "*IMUL.i32 r" + std::to_string(40 + t) + ":t0, r" + std::to_string(a) + ", " +
                     (use_const ? "0x00000120 /* 0.000000 */" : "r" + std::to_string(b)) + "\n";
        want_body += "+IADD.s32 " + (both(t) ? "r" + std::to_string(50 + t) + ":t1" : std::string("t1")) +
                     ", r" + std::to_string(a) + ", r" + std::to_string(b) + "\n";
      }
      for (unsigned k = 0; k < consts; ++k) src += "const " + std::to_string(0x120 + k) + "\n";
      std::vector<uint64_t> words;
      ASSERT_NO_THROW(words = bifrost_asm::assemble(src)) << src;
      DecodedClause dc;
      std::string text = decode_and_print(words, kCodeVa, dc);
      EXPECT_EQ(dc.tuple_count, n) << src;
      EXPECT_EQ(text, "ds(0) nbb ncph \n{\n" + want_body + "}\n") << src;
      for (unsigned k = 0; k < consts; ++k) EXPECT_EQ(dc.constants[k], (0x120u + k) >> 4) << src;
    }
}

// A program's words laid out from kCodeVa, as the disassembler's clause reader.
auto words_at_code_va(const std::vector<uint64_t>& words) {
  return [&words](uint64_t addr, uint64_t& lo, uint64_t& hi) {
    size_t i = (addr - kCodeVa) / 8;
    if (i + 1 >= words.size()) return false;
    lo = words[i];
    hi = words[i + 1];
    return true;
  };
}

std::string listing(const std::vector<uint64_t>& words) {
  return disassemble_program(kCodeVa, words_at_code_va(words));
}

// A two-clause program as Mesa's disassemble_bifrost lays it out: labels in quadwords, a blank line after
// each clause, stopping after the end-of-shader clause; FAU specials and uniforms named as dump_fau_src names
// them.
TEST(RoundTrip, ProgramListing) {
  auto a = bifrost_asm::assemble(
      "header flow=3 ncph\ntuple fau=lane_id ; *MOV.i32 src0=4 ; +MOV.i32 src0=5 ; fma->r1");
  auto b = bifrost_asm::assemble("tuple fau=u3 ; *NOP ; +MOV.i32 src0=5 ; add->r2");
  std::vector<uint64_t> words = a;
  words.insert(words.end(), b.begin(), b.end());
  words.insert(words.end(), a.begin(), a.end()); // after the end: not listed
  std::string text = listing(words);
  EXPECT_EQ(text, "clause_0:\nds(0) nbb ncph \n{\n*MOV.i32 r1:t0, lane_id.x\n+MOV.i32 t1, lane_id.y\n}\n\n"
                  "clause_1:\nds(0) eos \n{\n*NOP t0\n+MOV.i32 r2:t1, u3.w1\n}\n\n");
}

// A shader with an early return: clause A branches over clause B (an end-of-shader clause) to clause C, which
// ends the shader. Mesa lists every clause of the binary and names branch targets by their label (A's label +
// offset / 16), so the listing goes on past B to C and stops after C, which no branch jumps past.
TEST(RoundTrip, ProgramListingEarlyReturn) {
  auto b = bifrost_asm::assemble("tuple fau=u3 ; *NOP ; +MOV.i32 src0=5 ; add->r2");
  auto c = bifrost_asm::assemble("tuple fau=u4 ; *NOP ; +MOV.i32 src0=4 ; add->r3");
  auto a_with = [](long offset) {
    return bifrost_asm::assemble(
        "header flow=1\ntuple p0=r1 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=1\n"
        "const pchi " +
        std::to_string(offset));
  };
  // Quadwords of each clause; A's size does not depend on the offset's value.
  size_t qa = a_with(0).size() / 2, qb = b.size() / 2;
  ASSERT_EQ(a_with(16 * long(qa + qb)).size() / 2, qa);
  std::vector<uint64_t> words = a_with(16 * long(qa + qb));
  words.insert(words.end(), b.begin(), b.end());
  words.insert(words.end(), c.begin(), c.end());
  words.insert(words.end(), b.begin(), b.end()); // after the last reachable end: not listed
  auto read = words_at_code_va(words);
  std::string label_c = "clause_" + std::to_string(qa + qb);
  EXPECT_EQ(disassemble_program(kCodeVa, read),
            "clause_0:\nds(0) nbb br_pc \n{\n*NOP t0\n+BRANCHZ.i32.eq t1, r1, " + label_c + "\n}\n\n" +
                "clause_" + std::to_string(qa) + ":\nds(0) eos \n{\n*NOP t0\n+MOV.i32 r2:t1, u3.w1\n}\n\n" +
                label_c + ":\nds(0) eos \n{\n*NOP t0\n+MOV.i32 r3:t1, u4.w0\n}\n\n");
  // The clause alone (no program around it) keeps the byte offset.
  DecodedClause alone;
  ASSERT_TRUE(decode_clause(kCodeVa, read, alone));
  EXPECT_NE(disassemble_clause(alone).find("(pc + " + std::to_string(16 * (qa + qb)) + ")"),
            std::string::npos);
}

// A loop whose back edge is the last clause (not an end-of-shader clause), followed by Mesa's zero padding:
// the listing stops at the padding, as Mesa's disassembler does at a zero word.
TEST(RoundTrip, ProgramListingStopsAtPadding) {
  auto a = bifrost_asm::assemble("header flow=1 ncph\ntuple fau=u3 ; *NOP ; +MOV.i32 src0=5 ; add->r2");
  auto back = bifrost_asm::assemble("header flow=1\ntuple fau=c0 ; *NOP ; +JUMP src2=5\nconst pchi -" +
                                    std::to_string(16 * (a.size() / 2)));
  std::vector<uint64_t> words = a;
  words.insert(words.end(), back.begin(), back.end());
  words.insert(words.end(), {0, 0, 0, 0}); // padding
  words.insert(words.end(), a.begin(), a.end());
  std::string text = listing(words);
  EXPECT_NE(text.find("+JUMP t1, clause_0\n}\n\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("clause_" + std::to_string((a.size() + back.size()) / 2) + ":"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("invalid"), std::string::npos) << text;
}

// An embedded constant prints with its float value in full, as Mesa's dump_const_imm ("0x%08x /* %f */"):
// FLT_MAX = (2 - 2^-23) x 2^127 = 340282346638528859811704183484516925440.
TEST(RoundTrip, LargeConstantPrintsInFull) {
  auto a = bifrost_asm::assemble("tuple fau=c0 ; *NOP ; +MOV.i32 src0=4\nconst 0x7f7fffff");
  std::string text = listing(a);
  EXPECT_NE(text.find("0x7f7fffff /* 340282346638528859811704183484516925440.000000 */"), std::string::npos)
      << text;
}

// A branch to its own clause: Mesa's dump_pc_imm adds a warning comment to the label.
TEST(RoundTrip, ProgramListingSelfBranch) {
  auto a = bifrost_asm::assemble("header flow=1\ntuple fau=c0 ; *NOP ; +JUMP src2=5\nconst pchi 0");
  auto b = bifrost_asm::assemble("tuple fau=u3 ; *NOP ; +MOV.i32 src0=5 ; add->r2");
  std::vector<uint64_t> words = a;
  words.insert(words.end(), b.begin(), b.end());
  std::string text = listing(words);
  EXPECT_NE(text.find("+JUMP t1, clause_0 /* XXX: likely an infinite loop */\n"), std::string::npos) << text;
}

} // namespace
} // namespace bifrost_isa_test
