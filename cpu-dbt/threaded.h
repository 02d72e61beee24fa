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
// A handler behaves as one turn of Core::run_predecoded_loop, as far as anything can tell: before a function
// that calls anything (helpers read them) PC, cur_insn, block_done_ and NPC are set, and after it a fault or
// changed attention flags end the run; the budget (`end`) ends it after any instruction, and PC is stored
// where it ends. Between those points the guest PC travels in a register (the handlers' `pc`), and the
// handler of a function that calls nothing (chosen at build time from its compiled code: stencils.py
// threaded-ghc) stores only what the function itself reads (PC, for ADR or BL) and tests only the budget:
// nothing it does can raise, reach a device or change the attention flags; that of a load or store stores
// them in wrappers of the memory helpers' slow paths it calls (stencils/threaded_entry.cpp, vplat_thw_*)
// instead of before its fast path. Loads and stores off SP test its alignment first; the other instructions
// with kAroundFlags (LDTR/STTR, load-exclusive) take the shared handler kFlagged, which does the Core's work
// around them.
//
// A list ends in one more entry, whose handler (kEnd) is reached after the block's last instruction and after
// any taken branch. It goes on into the list of the block that followed this one last, where the JIT engine's
// run loop would have gone without a lookup (JitEngine::try_run: same successor, same block generation,
// mapped by the fetch TLB as when it was made, below its thresholds, no FP trap in its way), and otherwise
// returns. In a boot, ~18 M runs of pre-decoded blocks (~4.6 instructions each) each cost a return to the
// run loop and its checks otherwise.
#pragma once

#include "aarch64_isa.h"

#include <cstddef>
#include <cstdint>

namespace vplat::cpu::threaded {

namespace a64 = vplat::gen::aarch64;

struct Insn;
struct BlockHead;
// `n`: Core::block_done_ for this instruction (the caller's count before the block plus its index). Returns
// the count after the last instruction that completed, or the faulting instruction's count with kFaulted set.
// Handlers have LLVM's GHC calling convention (stencils.py threaded-ghc), which C++ cannot name: C++ code
// only stores them, and runs a list through vplat_threaded_enter.
// `pc`: the guest PC of `d`'s instruction, which the state's PC need not hold while a run goes on (a handler
// stores it where anything may read it, and where the run ends).
using Handler = uint64_t (*)(a64::State* s, const Insn* d, uint64_t n, uint64_t end, uint32_t attention,
                             uint64_t pc);
constexpr uint64_t kFaulted = 1ull << 63;

// One instruction of a pre-decoded block: its interpreter function, what the run loop's decode cache would
// hold for it, and the handler that runs it and goes on (Core::predecode).
struct Insn {
  union {
    a64::ExecFn exec;
    const BlockHead* block; // the end entry: the block the list is of
  };
  uint32_t insn;
  // As Core::DecodedInsn::info, less the flags whose work cannot apply to the word (predecode); in a JIT
  // block's list bits 31:24 count the entries from here to the end entry (Insn::kToEndShift).
  uint32_t info;
  Handler handler;
  static constexpr unsigned kToEndShift = 24;
};

// What the end entry reads of its own block and of the next one: the part of the JIT engine's pre-decoded
// Block the run loop's known-successor path reads (a Block is one). One cache line: the end entry reads two
// of them, and prefetches a third.
struct alignas(64) BlockHead {
  // Its list, while the block runs through its handlers only (no baseline code, no translation).
  const Insn* list = nullptr;
  uint64_t va = 0, pa_page = 0; // where it starts, and the physical page it was read from
  // The block that followed it last, while `next_gen` is the engine's block generation.
  BlockHead* next = nullptr;
  uint64_t next_va = 0, next_gen = 0;
  // `next`'s list when it was named (for a prefetch only: it may have gone since).
  const Insn* next_list = nullptr;
  uint32_t runs = 0; // since it was made or last asked to be compiled
  uint16_t el = 0;
  bool fp = false; // holds FP/SIMD instructions (they trap when CPACR_EL1.FPEN says so)
};
static_assert(sizeof(BlockHead) == 64);

// Per core: what the end entry needs of the JIT engine, and what it tells the run loop.
struct ChainState {
  const uint64_t* block_gen = nullptr; // the engine's block generation (BlockHead::next_gen)
  uint32_t runs_limit = 0;             // a block is entered while its runs + 1 stay below this
  uint32_t entered = 0;                // blocks entered from the one before in this run
  const BlockHead* block = nullptr;    // the last block entered (nullptr: none; the run's own block)
  const Insn* list = nullptr;          // its list, which outlives the block (released at a safe point)
  uint64_t base = 0;                   // `n` at its first instruction
};

// Offsets of the Core's run-loop state from its a64::State base, and the shape of the fetch TLB
// (Core::itlb_: per EL, tlb_entries entries of tlb_entry_bytes; the fetch tag and the physical page at those
// offsets in an entry): cpu::CoreLayout::kThreaded (a64_core.h), compile-time constants.
struct Layout {
  int32_t cur_insn = 0, block_done = 0, attention = 0, sp_check = 0;
  int32_t chain = 0, el = 0, fp_trap = 0, itlb = 0;
  uint32_t tlb_entries = 0, tlb_entry_bytes = 0, tlb_fetch = 0, tlb_pa = 0;
};

// Of the 5-bit fields at `lsbs` (a bit per field's lsb), those that hold 31 in `word`: which copy of a
// function's handler (and of its baseline stencil) fits the word.
inline uint32_t fields_at_31(uint32_t lsbs, uint32_t word) {
  uint32_t at31 = 0;
  for (; lsbs; lsbs &= lsbs - 1)
    if (((word >> __builtin_ctz(lsbs)) & 31) == 31) at31 |= lsbs & -lsbs;
  return at31;
}

// The handler compiled for an interpreter function running `word`, nullptr if none was (no clang at build
// time, or a function the generated interpreter files do not hold): the copy that assumes no open 5-bit field
// is 31 where none is, or that the one at lsb 0 or 5 alone is where that holds.
Handler handler_for(a64::ExecFn exec, uint32_t word);
// The handler of a function running a word with kFlagSpBase (base SP), nullptr if none was compiled.
Handler sp_base_handler_for(a64::ExecFn exec, uint32_t word);

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
extern const Handler kEnd;     // the end entry's (stencils/threaded_entry.cpp); nullptr without handlers

// The generated table (stencils.py threaded-table) handler_for looks in.
struct Entry {
  a64::ExecFn exec;
  Handler handler;
  Handler not31; // nullptr if the function has no open 5-bit field
  uint32_t lsbs; // of those fields
  Handler sp_base; // with the SP alignment check first, for kFlagSpBase; nullptr if it addresses off no Rn
  // The copies for words where the field at lsb 0 / lsb 5 is 31 and no other open 5-bit field is (nullptr:
  // none; only fields naming a general register have them), and the latter with the SP alignment check.
  Handler one31[2];
  Handler sp_rn31;
};
extern const Entry kEntries[];
extern const size_t kNumEntries;

} // namespace vplat::cpu::threaded
