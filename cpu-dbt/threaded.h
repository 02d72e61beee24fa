// Threaded handlers for pre-decoded blocks (Core::run_predecoded).
//
// Why: a boot runs ~80 M instructions pre-decoded (a quarter of its guest thread's time with the pre-decoded
// path's dispatch), and ~40% of their host instructions were run_predecoded's loop around the interpreter
// functions (the call, the stores the run loop makes around each instruction, its tests; callgrind, LZ77
// kernel). A handler is one interpreter function compiled once more (by clang, at build time: stencils.py
// threaded) with that work around it and, at its end, a jump to the next instruction's handler: no loop, no
// call, no callee-saved registers (LLVM's GHC convention), tests fitted to the function (an instruction that
// cannot branch does not read the next PC back), and a copy that assumes no open 5-bit field is 31 for the
// words where none is. Unlike baseline code (baseline.h) nothing is made per block, so code that runs a few
// hundred times costs no more than its list.
//
// A handler behaves as one turn of Core::run_predecoded_loop, as far as anything can tell: cur_insn,
// block_done_ and NPC are set before the function runs; a fault, a changed PC or changed attention flags end
// the run, as does the end of the list (`end`). Loads and stores off SP test its alignment first; the other
// instructions with kAroundFlags (LDTR/STTR, load-exclusive) take the shared handler kFlagged, which does the
// Core's work around them.
#pragma once

#include "aarch64_isa.h"

#include <cstddef>
#include <cstdint>

namespace vplat::cpu::threaded {

namespace a64 = vplat::gen::aarch64;

struct Insn;
// `n`: Core::block_done_ for this instruction (the caller's count before the block plus its index). Returns
// the count after the last instruction that completed, or the faulting instruction's count with kFaulted set.
// Handlers have LLVM's GHC calling convention (stencils.py threaded-ghc), which C++ cannot name: C++ code
// only stores them, and runs a list through vplat_threaded_enter.
using Handler = uint64_t (*)(a64::State* s, const Insn* d, uint64_t n, uint64_t end, uint32_t attention);
constexpr uint64_t kFaulted = 1ull << 63;

// One instruction of a pre-decoded block: its interpreter function, what the run loop's decode cache would
// hold for it, and the handler that runs it and goes on (Core::predecode).
struct Insn {
  a64::ExecFn exec;
  uint32_t insn;
  uint32_t info; // as Core::DecodedInsn::info, less the flags whose work cannot apply to the word (predecode)
  Handler handler;
};

// Offsets of the Core's run-loop state from its a64::State base (set once, by the first Core).
struct Layout {
  int32_t cur_insn = 0, block_done = 0, attention = 0, sp_check = 0;
};
extern "C" Layout vplat_threaded_layout;

// The handler compiled for an interpreter function running `word`, nullptr if none was (no clang at build
// time, or a function the generated interpreter files do not hold): the copy that assumes no open 5-bit field
// is 31 where none is.
Handler handler_for(a64::ExecFn exec, uint32_t word);
// The handler of a function running a word with kFlagSpBase (base SP), nullptr if none was compiled.
Handler sp_base_handler_for(a64::ExecFn exec);

// Runs the list from `d` (stencils/threaded_entry.cpp): `n` and `end` as for a handler, end > n.
extern "C" uint64_t vplat_threaded_enter(a64::State* s, const Insn* d, uint64_t n, uint64_t end,
                                         uint32_t attention);
// The handler of instructions with kAroundFlags and of those without a handler of their own (kFlagged) calls
// this (Core, a64_core.cpp): one turn of run_predecoded_loop, returning kGoOn when the run may go on.
extern "C" uint64_t vplat_threaded_flagged_step(a64::State* s, const Insn* d, uint64_t n, uint32_t attention);
constexpr uint64_t kGoOn = ~0ull;
// The SP alignment fault of an instruction with kFlagSpBase (Core): returns n | kFaulted.
extern "C" uint64_t vplat_threaded_sp_fault(a64::State* s, const Insn* d, uint64_t n);
extern const Handler kFlagged; // nullptr without handlers

// The generated table (stencils.py threaded-table) handler_for looks in.
struct Entry {
  a64::ExecFn exec;
  Handler handler;
  Handler not31; // nullptr if the function has no open 5-bit field
  uint32_t lsbs; // of those fields
  Handler sp_base; // with the SP alignment check first, for kFlagSpBase; nullptr if it addresses off no Rn
};
extern const Entry kEntries[];
extern const size_t kNumEntries;

} // namespace vplat::cpu::threaded
