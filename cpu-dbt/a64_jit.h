// The JIT tier of the A64 core: guest basic blocks translated to host code with LLVM ORC (LLJIT) from the
// IR emitters adlc generates (generator/emit_llvm.cpp) - the same ADL semantics the interpreter runs.
//
// A block starts at a guest PC and ends after a branch, before an instruction the interpreter must run
// (system instructions other than MRS/MSR of a few plain registers and DC ZVA, exception generation,
// WFI/WFE/SEV/SEVL, unallocated encodings), at the next kRegionBytes-aligned address (at most kMaxBlockInsns
// instructions). Blocks are keyed by (virtual PC, physical address, EL): the core finds the physical address
// of PC through its fetch TLB, so a block is only entered where the interpreter could fetch its first
// instruction, and a change of mapping needs no flush. A guest store to a page holding translated code (the
// TLB write fast path misses such pages) drops the translations of that page; an IC instruction drops those
// of the pages whose bytes changed without a store by a core (device DMA, the debugger).
//
// Determinism: a block stops where the run loop's budget ends (inside the block if need be), retires
// exactly the instructions the interpreter would, and returns to the run loop (where interrupts are checked)
// after any instruction that changed the core's attention flags (an interrupt raised by a device access,
// an exit request, translated code overwritten). So the virtual clock and interrupt delivery points do not
// depend on when a background compile finishes.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

namespace vplat::cpu {

class Core;

// Which tier runs guest code. Auto interprets cold code and compiles hot blocks on a background thread;
// Jit translates every block before it first runs, synchronously (for testing the JIT tier).
enum class Engine : uint8_t { Interp, Jit, Auto };
bool parse_engine(std::string_view text, Engine& out);
const char* engine_name(Engine e);

struct JitStats {
  uint64_t blocks_compiled = 0, blocks_run = 0, insns_in_blocks = 0, invalidated_pages = 0, flushes = 0;
  uint64_t fallback_insns = 0;    // instructions inside blocks that call their interpreter function
  uint64_t insns_interpreted = 0; // by the run loop, counted when it next offers a block start
  uint64_t requests_dropped = 0;  // compile requests not seen hot for JitEngine::kMaxWaitMs, dropped unmade
  uint64_t direct_links = 0;      // first-tier exits made to jump straight to their next block
  uint64_t redirected = 0; // translations replaced by another, jumps to them redirected (no new generation)
  uint64_t unlinked_returns =
      0; // chains that returned to the run loop at an exit not linked (yet) to its target
  uint64_t blocks_predecoded = 0; // blocks made to run pre-decoded (JitEngine::kPredecodeThreshold)
  uint64_t insns_predecoded = 0;  // instructions they ran
  uint64_t blocks_baseline = 0;   // of blocks_predecoded: given baseline code (cpu-dbt/baseline.h)
  uint64_t insns_baseline = 0;    // of insns_predecoded: run in it
  uint64_t blocks_entered_threaded = 0; // of blocks_run: entered by the end entry of the block before
  uint64_t invalidated_translated =
      0; // invalidated pages that held compiled code (the rest: pre-decoded only)
  uint64_t blocks_tier2 = 0; // of blocks_compiled: second-tier translations installed
  uint64_t blocks_tier2_looping = 0; // of those: blocks that jump back to their start
  uint64_t tier2_ahead = 0;  // of those: compiled before waiting first-tier requests (dominant blocks)
  uint64_t blocks_backlog = 0; // of blocks_compiled: first-tier ones made while requests queued up
  uint64_t tlb_miss_exits = 0; // second-tier blocks that left before an access access_quietly could not make
  // The run loop's steps from block to block, by the tier each runs in: [from][to][0] went to the block that
  // followed last without a lookup, [from][to][1] looked it up. kNoBlock: the interpreter goes on.
  enum Tier : unsigned { kNoBlock, kTranslated, kBaseline, kThreaded, kTiers };
  uint64_t steps[kTiers][kTiers][2] = {};
};

class JitEngine {
public:
  static constexpr unsigned kMaxBlockInsns = 64;
  // A block that starts this many chains of blocks in the run loop is compiled again with full optimisation
  // and guest registers in SSA values (chains restart at every quantum, so this samples where time goes).
  static constexpr unsigned kTier2Samples = 2000;
  // A compile request waits at most this long (host ms) after its block was last seen hot.
  static constexpr uint64_t kMaxWaitMs = 1000;
  static constexpr uint64_t kRegionBytes = 4 * kMaxBlockInsns; // blocks never cross such an aligned boundary
  // Runs of a block start before Auto compiles it. Compiling a block costs milliseconds (about as much as
  // interpreting a few hundred thousand instructions), so only code that keeps running is worth it; with
  // lower thresholds the queue fills with lukewarm code and hot code waits (measured on the Debian boot:
  // 16 -> ~150 s, 256 -> 37 s, 1024 -> 19 s, 4096 -> 13 s on a loaded 2-core host). 2048 was tried only
  // with a cheaper pass pipeline that a64_jit.cpp does not use (see Optimizer), in single noisy runs.
  static constexpr unsigned kHotThreshold = 4096;
  // Runs of a block start before it runs pre-decoded: its instructions' interpreter functions called in
  // turn, without the run loop's fetch and decode, until its translation is made. Costs microseconds.
  static constexpr unsigned kPredecodeThreshold = 32;
  // Runs of a pre-decoded block before it gets baseline code (cpu-dbt/baseline.h), if that is below the hot
  // threshold. 4096 until session 42 (when its translation was asked for): since each block's code is
  // compact (its exits shared), a boot is ~3% faster at 1024 (512 and 256 alike; 64 slower).
  static constexpr unsigned kBaselineThreshold = 1024;
  static constexpr size_t kMaxBlocks = 32768;              // translations kept before the cache is flushed
  static constexpr size_t kMaxPredecoded = 4 * kMaxBlocks; // and pre-decoded blocks

  explicit JitEngine(bool synchronous);
  ~JitEngine();
  JitEngine(const JitEngine&) = delete;
  JitEngine& operator=(const JitEngine&) = delete;

  void add_core(Core& core);

  // Called by the run loop at a block start, outside any translated code. Runs the block at core.PC (and
  // those that follow it) for at most `budget_left` instructions (or on to the next block boundary past it,
  // when the run ends at one: Core::RunEnd) if there is one; returns false (nothing ran) otherwise.
  // `retired` is the number of instructions completed; `faulted` says the next instruction raised an
  // exception (EXC set, PC at it); `at_boundary` whether the last block left at a block boundary
  // (ends_block of its last instruction, or a region start) rather than inside a block.
  bool try_run(Core& core, uint64_t budget_left, uint32_t attention, uint32_t& retired, bool& faulted,
               bool& at_boundary);
  // Whether try_run is worth calling at a block start at `pc`: false while the start is cold (no block made
  // for it, hotness below the threshold), counting it as try_run would have. The run loop asks at block
  // starts after the first of a run (whose try_run also installs finished compiles): in a boot with nothing
  // compiled, calling try_run at every block start made interpreting ~10% slower.
  bool worth_a_try(uint64_t pc, unsigned el) {
    uint16_t& h = heat_[heat_index(pc, el)];
    if ((h & kHasBlock) || sync_ || (h & kHeatCount) + 1u >= hot_threshold_) return true;
    ++h;
    return false;
  }

  // How often each block start ran interpreted, in a table of its own so that a start whose cache entry
  // another start keeps replacing still gets hot (a shared counter only makes a start hot sooner).
  // The top bit of an entry says that a block (or a "nothing to translate" marker) was made for a start
  // with this index: while it is clear, the start is cold without a probe of the block cache, which is
  // what most interpreted block starts are. It is never cleared (a stale bit only costs a probe).
  static constexpr size_t kHeat = 65536;
  static constexpr uint16_t kHasBlock = 0x8000, kHeatCount = 0x7fff;
  static size_t heat_index(uint64_t va, unsigned el) {
    return ((va >> 2) ^ (va >> 18) ^ (va >> 41) ^ el) & (kHeat - 1);
  }

  // Whether the physical page holds (or is being compiled into) translated code.
  bool is_code_page(uint64_t pa_page) const;
  // A store by `writer` reached a code page: drops its translations and makes the running block return.
  void code_written(Core& writer, uint64_t pa_page);
  // IC IALLU/IALLUIS, IC IVAU, debugger writes. CPU stores already drop the translations of the pages they
  // reach, so only writers outside the CPU (device DMA, the debugger, the loader) can leave a translation
  // stale: these drop the translations of the code pages (all, or the one at `pa_page`) whose bytes differ
  // from what they were when translated, and keep the rest.
  void icache_invalidate(Core& core);
  void icache_invalidate_page(Core& core, uint64_t pa_page);

  const JitStats& stats() const;

  // --cpu-stats (Core::insn_counts). Counting is per translated block, not per instruction: a block made
  // while counting is on adds one to its run counter (a per-core slot) on entry, and the rare exits that
  // retire fewer than all its instructions (the budget ends inside it, an exception at instruction i, the
  // attention flags changed) take the instructions they did not retire off the core's table at once.
  // flush_counts() multiplies the run counters out against each block's instruction ids into the cores'
  // tables (as does dropping a block); until then the tables lack what blocks ran and may hold those
  // corrections (wrapped). Called outside translated code: count_instructions() turns counting on for good,
  // dropping translations made without it.
  void count_instructions();
  void flush_counts();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t* heat_ = nullptr;               // Impl's hotness table
  unsigned hot_threshold_ = kHotThreshold; // the first threshold a block start meets
  bool sync_ = false;
};

} // namespace vplat::cpu
