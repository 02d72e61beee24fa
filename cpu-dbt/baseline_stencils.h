// The tables cpu-dbt/stencils/stencils.py makes from the compiled stencils (aarch64_stencils_table.cpp in the
// build tree), read by baseline.cpp: machine code of every stencil and of the functions and constants they
// refer to, each a section with its relocations.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vplat::gen::aarch64 {
struct State;
}

namespace vplat::cpu::stencils {

struct Section {
  uint32_t offset, size, align; // bytes at kBytes + offset
  uint32_t first_reloc, relocs; // in kRelocs
};
enum RelocType : uint8_t { kAbs64, kPc32, kGotPc32, kAbs32, kAbs32S };
// kField: an instruction field's value, sign-extended from its top bit or not, shifted left (a register's
// offset in the state, a scaled immediate, a branch offset): the index sign_extended << 20 | shift << 16 |
// lsb << 8 | width.
enum TargetKind : uint8_t { kHole, kContinuation, kExternal, kSection, kField };
// Holes, in the order stencils.py lists them.
enum Hole : uint8_t { kHolePc, kHoleWord, kHoleAttentionOffset };
enum Continuation : uint8_t { kNext, kFault, kExit };
struct Reloc {
  uint32_t offset; // in its section
  uint8_t type;    // RelocType
  uint8_t kind;    // TargetKind
  uint32_t index;  // of the hole, continuation, external or section
  int64_t addend;
};
struct Stencil {
  void (*exec)(vplat::gen::aarch64::State& s, uint64_t insn); // the interpreter function it wraps
  bool branching; // leaves the block when the instruction changed the next PC
  bool reads_pc;  // its function reads PC: the stencil stores it, from its PC hole
  bool calls;     // calls a function: the glue stores what helpers read, and tests for a fault and attention
  uint32_t section;
  // Not 0: the lsbs of the 5-bit fields this stencil assumes are not 31 (another stencil of `exec` does not).
  uint32_t not31;
  // Not -1: the lsb (0 or 5) of the one field of those it assumes is 31 instead.
  int32_t is31;
};

extern const uint8_t kBytes[];
extern const Section kSections[];
extern const Reloc kRelocs[];
extern const void* const kExternals[];
// Per external: the argument register that holds the State when a stencil calls it (1: rdi, 2: rsi), for
// the memory helpers' slow paths; 0 for the others.
extern const uint8_t kExternalStateArg[];
extern const Stencil kStencils[];
extern const size_t kNumStencils, kNumSections, kNumExternals;

} // namespace vplat::cpu::stencils
