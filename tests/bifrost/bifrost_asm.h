// A test assembler for Bifrost: the text of one clause -> its quadwords. Instruction words are built from the
// description's own encodings (kInsnInfo mask/value and field positions), the container from its format tables
// (FMT_*, CLAUSE_ROWS, CONST_POS_*) and the register block from its mode table (REG_SLOT*); every block it builds
// is checked by decoding it back with the description's functions. Test-only: it refuses what it cannot encode
// rather than guessing.
//
// Syntax (one directive per line, '#' starts a comment):
//   header flow=N sr=N msg=N next_msg=N ds=N wait=N [ncph] [td] [osrb]
//   tuple [p0=R] [p1=R] [p2=R] [fau=uN|cK|0xNN|lane_id] ; FMA-op ; ADD-op [; fma->rN] [add->rN]
//       ops: "NAME field=value ..." with NAME an ADL name (FMA_FADD_f32), a Mesa name (*FADD.f32 / +NOP) or a
//       bare Mesa name (FADD.f32: the unit comes from the position); unset fields are 0.
//       p0/p1/p2: the registers the tuple reads through ports 0, 1, 2 (p0 < p1 when both are used).
//       fma->rN / add->rN: where this tuple's FMA / ADD result goes (slot writes in the next tuple's block).
//   const VALUE          an embedded constant (64-bit; its low 4 bits are carried by the FAU index)
//   const pchi OFFSET    a PC-relative constant: the high word reads as clause address + OFFSET (bytes)
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace bifrost_asm {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Op {
  std::string name;                       // ADL instruction name
  std::map<std::string, uint64_t> fields;
};

struct Tuple {
  int port[3] = {-1, -1, -1};
  int fau = 0;            // the 8-bit FAU index (resolved from fau=...)
  int fau_const = -1;     // fau=cK: the constant K (the index's low nibble comes from it)
  Op fma{"FMA_NOP", {}}, add{"ADD_NOP", {}};
  int write_fma = -1, write_add = -1;
};

struct Clause {
  uint64_t header = 0;
  std::vector<Tuple> tuples;
  std::vector<uint64_t> constants;
  int pc_relative = -1;   // index of the `const pchi` constant
};

// Builds the word of one instruction (FMA: 23 bits, ADD: 20 bits).
uint32_t encode_op(const Op& op, bool fma_unit);
// Canonical ADL name for "*FADD.f32", "+NOP", "FADD.f32" (with the unit) or an ADL name.
std::string adl_name(const std::string& text, bool fma_unit);

Clause parse(const std::string& text);
// The clause's quadwords, as little-endian 64-bit halves (lo, hi, lo, hi, ...).
std::vector<uint64_t> encode(const Clause& c);
inline std::vector<uint64_t> assemble(const std::string& text) { return encode(parse(text)); }

} // namespace bifrost_asm
