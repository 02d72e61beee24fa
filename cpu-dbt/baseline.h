// The baseline tier: machine code for a pre-decoded block in microseconds, by copy and patch.
//
// Why: in a boot a third of the guest's instructions run pre-decoded (Core::run_predecoded, ~6 ns each)
// while their blocks wait for the LLVM first tier, which compiles ~200 blocks a second. Here a block's code
// is the concatenation of one stencil per instruction: the interpreter function of that instruction, compiled
// by clang at build time (cpu-dbt/stencils/stencils.py) with the instruction word (and a branch's PC) left as
// holes and its end a tail call to the next stencil. Copying them and filling in the holes takes
// microseconds; the code runs the instruction's semantics inline, without the interpreter loop's dispatch.
// The semantics are the interpreter's own, generated from archdesc/aarch64.
//
// A block's code behaves as Core::run_predecoded with a limit of at least its length, as far as anything
// can tell: what helpers read (PC, cur_insn, block_done_) is stored by a thunk of each call an instruction's
// code makes, before the callee runs (and PC by the code of an instruction that reads it), faults and
// attention changes are tested after those instructions (nothing else raises or reaches a device), the SP
// alignment check comes before a load or store with base SP and the monitor's address after a load-exclusive;
// it stops after a taken branch, an exception, or when the attention flags change. Its ends may be linked to
// the next block's code (Compiler::link), so one run may go through several.
//
// x86-64 hosts with the stencils built (`available()`); elsewhere blocks run through run_predecoded.
#pragma once

#include "cpu-dbt/a64_core.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace vplat::cpu::baseline {

// What the code needs of a Core: offsets of run-loop state from its a64::State base, and the functions it
// calls around the instructions that need more than their interpreter function.
struct Layout {
  int32_t cur_insn = 0, block_done = 0, attention = 0, sp_check = 0;
  int32_t block_base = 0; // where a block's code keeps `done` (Core::baseline_done_) for its calls' stores
  // Links between blocks (Compiler::link) are followed while the next block's runs stay below this, and
  // where the fetch TLB (Core::itlb_, at this offset) maps the next block's page as when it was read.
  uint32_t hot_runs = 0;
  int32_t itlb = 0;
  uint32_t ends_block = 0; // the flag in PredecodedInsn::info of an instruction that ends a block
  bool (*before)(a64::State& s, uint32_t insn, uint32_t info) = nullptr; // false: it raised an exception
  void (*exclusive_loaded)(a64::State& s) = nullptr;
};

// What a run of baseline code tells its caller besides its result: a block's end may jump straight to the
// next block's code (a link, Compiler::link), so a run may go through several blocks.
struct Chain {
  uint64_t before = 0;   // instructions the blocks before the last one retired
  void* block = nullptr; // the last block (the engine's)
  int64_t left = 0;     // in: the most instructions the run may retire
  void* exit = nullptr; // out: the exit the run left through, if it can be linked
};

// Runs a whole block from its first instruction (PC at it), and the blocks its exits are linked to:
// `done` is the caller's count before it (for Core::block_done_). Returns how many instructions of the last
// block completed, with kFaultedBit set when the next one raised an exception (EXC set, PC at it), else
// kEndsBlockBit when the last one completed ends a block (Core::kFlagEndsBlock; a region boundary is the
// caller's to see).
using Fn = uint64_t (*)(a64::State* s, uint32_t attention, uint64_t done, Chain* chain);
constexpr uint64_t kFaultedBit = 1ull << 63, kEndsBlockBit = 1ull << 62;

bool available();

class Compiler {
public:
  explicit Compiler(const Layout& layout);
  Compiler(const Compiler&) = delete;
  Compiler& operator=(const Compiler&) = delete;
  ~Compiler();
  // nullptr when an instruction has no stencil (or needs what stencils do not do: LDTR/STTR at EL0
  // permissions) or no memory could be had.
  Fn make(const Core::PredecodedInsn* insns, uint32_t n, uint64_t va, unsigned el);
  // When the block whose code `fn` is goes (before its memory does): links to it are followed no more.
  static void retire(Fn fn);
  void release(Fn fn); // later, at a safe point (no block runs its code): the memory is reused
  // Makes `exit` (Chain::exit of a run) jump to `to`'s code (`len` < 65536 instructions) while the PC is
  // `va`, the fetch TLB maps it to the physical page `pa_page` and `to` is not retired: `to` was made for
  // that page, at the exit's block's EL; `block` and `runs` (the engine's) live as long as `to` is not
  // retired. `pa_page` kSamePage: `to` starts on the exit's block's page (the run entered that block where
  // the fetch TLB maps it alike).
  static constexpr uint64_t kSamePage = ~0ull;
  static void link(void* exit, uint64_t va, uint64_t pa_page, Fn to, void* block, uint32_t len,
                   uint32_t* runs);
  size_t bytes_mapped() const { return mapped_; }
  size_t last_size() const { return last_size_; } // of the code make() returned last
  // The support code's places and sizes, for a perf map (the table's sections by index, then the shared
  // exits by EL).
  std::vector<std::pair<const void*, size_t>> support() const;

private:
  uint8_t* allocate(size_t bytes);
  uint8_t* map_chunk();
  // `calls_to`: where a call at relocation k goes instead of its target (nullptr: to the target).
  bool relocate(uint8_t* code, uint32_t section, uint64_t pc, uint32_t word, uint8_t* next, uint8_t* fault,
                uint8_t* exit, uint8_t* const* calls_to = nullptr);
  bool place_support();
  bool place_shared_exits();

  Layout layout_;
  bool ok_ = false;
  struct Choice {
    int32_t any = -1;   // the stencil of an interpreter function
    int32_t not31 = -1; // and the one for words without 31 in the fields at `lsbs`, if it has one
    uint32_t lsbs = 0;
    int32_t one31[2] = {-1, -1}; // and for words with 31 in the field at lsb 0 / 5 alone, if it has them
  };
  std::unordered_map<const void*, Choice> by_exec_;
  std::vector<uint8_t*> section_at_;  // support code and constants, placed once (nullptr for stencils)
  std::vector<uint8_t*> thunk_, got_; // per external: a jump to it near the code, and its address
  uint8_t* shared_exit_[4] = {};      // per EL: the code of the blocks' linkable exits (place_shared_exits)
  // Executable memory in size classes with free lists (blocks come and go with the guest's code pages).
  static constexpr unsigned kClasses = 10; // 256 B .. 128 KiB
  static constexpr size_t kChunkBytes = 1u << 20;
  std::vector<uint8_t*> free_[kClasses];
  std::vector<uint8_t*> chunks_;
  uint8_t* bump_ = nullptr;
  size_t left_ = 0, mapped_ = 0;
  uintptr_t next_hint_ = 0;
  size_t last_size_ = 0;
};

} // namespace vplat::cpu::baseline
