// The JIT tier (see a64_jit.h): block formation, IR for a block from the generated per-instruction
// emitters, compilation with ORC LLJIT on a background thread (or synchronously for Engine::Jit), the
// block cache and its invalidation.
#include "cpu-dbt/a64_jit.h"
#include "aarch64_helpers.h"
#include "aarch64_jit.h"
#include "cpu-dbt/a64_core.h"
#include "cpu-dbt/baseline.h"
#include "cpu-dbt/jit_branch_selects.h"
#include "cpu-dbt/jit_codegen.h"
#include "cpu-dbt/jit_join_loads.h"
#include "cpu-dbt/jit_likely_paths.h"
#include "cpu-dbt/jit_loop_exits.h"
#include "cpu-dbt/jit_narrow_compares.h"
#include "cpu-dbt/jit_overflow_flags.h"
#include "cpu-dbt/jit_perf_map.h"
#include "cpu-dbt/jit_round_trips.h"
#include "cpu-dbt/jit_state_alias.h"
#include "cpu-dbt/jit_state_loads.h"
#include "cpu-dbt/jit_state_stores.h"
#include "cpu-dbt/jit_vector_lanes.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/BasicAliasAnalysis.h>
#include <llvm/Analysis/ScopedNoAliasAA.h>
#include <llvm/Analysis/TypeBasedAliasAnalysis.h>
#include <llvm/CodeGen/Passes.h>
#include <llvm/CodeGen/RegAllocRegistry.h>
#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassTimingInfo.h>
#include <llvm/IR/ProfDataUtils.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Object/SymbolSize.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/DeadStoreElimination.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/JumpThreading.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/Local.h>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#endif

namespace vplat::cpu {

namespace g = vplat::gen::aarch64;

bool parse_engine(std::string_view text, Engine& out) {
  if (text == "interp")
    out = Engine::Interp;
  else if (text == "jit")
    out = Engine::Jit;
  else if (text == "auto")
    out = Engine::Auto;
  else
    return false;
  return true;
}

const char* engine_name(Engine e) {
  switch (e) {
  case Engine::Interp:
    return "interp";
  case Engine::Jit:
    return "jit";
  case Engine::Auto:
    return "auto";
  }
  return "?";
}

namespace {

// An LLVM error the JIT cannot go on after (a module it made does not link): said, then abort.
[[noreturn]] void jit_failed(llvm::Error err) {
  std::fprintf(stderr, "vplat: JIT: %s\n", llvm::toString(std::move(err)).c_str());
  std::abort();
}

// Set on the compile thread while it generates first-tier code (LLJIT compiles on the thread that looks a
// module's symbols up).
thread_local bool first_tier_codegen = false;
// Set with it while FirstTierPasses are applied. The two pick the code generator's pipeline (jit_codegen.h).
thread_local bool first_tier_fewer_passes = false;

// The register allocator both tiers' code generators use (-regalloc=vplat-tiered). The first tier's
// blocks are many and compile time decides how much of a boot or a program's start runs interpreted:
// LLVM's basic allocator costs ~10% less code generation time than the greedy one (llc on 47 first-tier
// modules: 4.5 vs 5.3 s, 190k vs 193k host instructions, 10.9k vs 4.2k of them stack accesses); the
// second tier's few hot blocks keep the greedy allocator's better code.
llvm::FunctionPass* allocate_registers() {
  return first_tier_codegen ? llvm::createBasicRegisterAllocator() : llvm::createGreedyRegisterAllocator();
}
llvm::RegisterRegAlloc tiered_allocator("vplat-tiered", "basic for first-tier blocks, greedy otherwise",
                                        allocate_registers);

// Code generator passes the first tier goes without (LLVM options, set around its code generation on the
// compile thread; the second tier keeps them). On 20 first-tier modules of a zstd run (llc, same session):
// without them ~15% less code generation time, 108.0k instead of 108.5k host instructions, 11.9k instead of
// 16.8k of them stack accesses: constant hoisting kept the blocks' many 64-bit constants (guest PCs, host
// addresses of exit records) in registers across the whole block, which the basic allocator then spilled;
// machine LICM, CSE and sinking, peephole, copy propagation and the cmov converter found little to do in
// straight-line blocks.
class FirstTierPasses {
public:
  FirstTierPasses() {
    auto& registered = llvm::cl::getRegisteredOptions();
    for (const char* name : {"disable-constant-hoisting", "disable-machine-licm", "disable-machine-cse",
                             "disable-machine-sink", "disable-peephole", "disable-copyprop"})
      add(registered, name, true);
    add(registered, "x86-cmov-converter", false);
  }
  // Sets the first tier's values (on) or restores the others (off).
  void apply(bool on) {
    for (Switch& s : switches_) s.opt->setValue(on ? s.first_tier : s.otherwise);
  }

private:
  struct Switch {
    llvm::cl::opt<bool>* opt;
    bool first_tier, otherwise;
  };
  void add(llvm::StringMap<llvm::cl::Option*>& registered, const char* name, bool value) {
    auto it = registered.find(name);
    if (it == registered.end()) return; // another LLVM version: the pass runs
    auto* opt = static_cast<llvm::cl::opt<bool>*>(it->second);
    switches_.push_back({opt, value, opt->getValue()});
  }
  std::vector<Switch> switches_;
};

// A tuning number from the environment: the value of `name` if set and within [lo, hi], else `fallback`.
uint64_t env_number(const char* name, uint64_t lo, uint64_t hi, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  const unsigned long long n = std::strtoull(v, nullptr, 10);
  return n >= lo && n <= hi ? n : fallback;
}

// A code generator level from the environment: `name` set to a single digit 0..3, else `fallback`.
llvm::CodeGenOpt::Level codegen_level(const char* name, llvm::CodeGenOpt::Level fallback) {
  const char* v = std::getenv(name);
  return v && v[0] >= '0' && v[0] <= '3' && !v[1] ? static_cast<llvm::CodeGenOpt::Level>(v[0] - '0') : fallback;
}

// A switch from the environment that is on unless `name` is set to something starting with '0'.
bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return !v || *v != '0';
}

// The second tier's code generator selects instructions fast off its blocks' likely paths
// (jit_likely_paths.h). VPLAT_JIT_COLD_FAST_ISEL=0: the full selector everywhere, for comparisons.
bool cold_paths_selected_fast() {
  static const bool on = env_on("VPLAT_JIT_COLD_FAST_ISEL");
  return on;
}

// The second tier emits SIMD instructions' elements as vector elements and vectorizes them
// (jit_vector_lanes.h). VPLAT_JIT_VECTOR_LANES=0: shifts and masks in both tiers, for comparisons.
bool vector_lanes_on() {
  static const bool on = env_on("VPLAT_JIT_VECTOR_LANES");
  return on;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && *v != '0';
}

// How a block treats an instruction.
enum class Role : uint8_t {
  Body,    // translated; the block continues after it
  Last,    // translated and ends the block (branches)
  Outside, // not in blocks: the interpreter runs it (the block ends before it)
};

bool has_token(const char* list, std::string_view t) {
  std::string_view l(list);
  size_t pos = 0;
  while (pos <= l.size()) {
    size_t end = l.find(',', pos);
    if (end == std::string_view::npos) end = l.size();
    if (l.substr(pos, end - pos) == t) return true;
    pos = end + 1;
  }
  return false;
}

// System instructions, exception generation and undefined encodings change or consult what the run loop
// owns (EL, DAIF, translation regime, exception entry, the timers): they stay in the interpreter, except
// the few below (plain_sysreg, dc_zva). So do WFI/WFE/SEV/SEVL, which the run loop treats specially.
// (Load-exclusives are translated, followed by what the run loop does after them: note_exclusive_load.)
// What depends on the id alone is worked out once from the metadata.
enum class Kind : uint8_t { Plain, Branch, Outside, Hint, SysReg, Sys };

std::array<Kind, g::kNumInsns> build_kinds() {
  std::array<Kind, g::kNumInsns> k{};
  for (int id = 0; id < g::kNumInsns; ++id) {
    const auto& i = g::kInsnInfo[id];
    std::string_view cls(i.cls), name(i.name);
    if (name == "MRS" || name == "MSR" || name == "MRS_TPIDR" || name == "MSR_TPIDR") {
      k[id] = Kind::SysReg;
      continue;
    }
    if (name == "SYS") {
      k[id] = Kind::Sys;
      continue;
    }
    k[id] = i.is_branch ? Kind::Branch : Kind::Plain;
    if (cls.substr(0, 4) == "sys_" && cls != "sys_nop") k[id] = Kind::Outside;
    for (const char* h : {"raise_exception", "sysreg_read", "sysreg_write", "undefined"})
      if (has_token(i.helpers, h)) k[id] = Kind::Outside;
    if (k[id] != Kind::Outside && (insn_flags(id) & kFlagHint)) k[id] = Kind::Hint;
  }
  return k;
}

const std::array<Kind, g::kNumInsns>& kinds() {
  static const std::array<Kind, g::kNumInsns> k = build_kinds();
  return k;
}

// op0:op1:CRn:CRm:op2 as bits 20:5 of MRS/MSR/SYS hold them.
constexpr uint32_t sys_enc(unsigned op0, unsigned op1, unsigned crn, unsigned crm, unsigned op2) {
  return op0 << 14 | op1 << 11 | crn << 7 | crm << 3 | op2;
}

// Registers whose MRS/MSR only move a value between a general-purpose register and the core: nothing the
// run loop, the TLB or translated code keeps depends on them, and their helpers raise what the access
// rules ask for (precisely, as any helper in a block). They are frequent: the kernel keeps the current
// task in SP_EL0 and the per-CPU offset in TPIDR_EL1, user code its thread pointer in TPIDR_EL0; the kernel's
// cache maintenance reads CTR_EL0 and glibc's memset DCZID_EL0 (a boot: ~170 k reads of the two, each of
// which had ended a block). Where plain_sysreg_access allows it, translated code makes them inline.
bool plain_sysreg(uint32_t insn) {
  const bool read = insn >> 21 & 1;
  switch ((insn >> 5) & 0xffff) {
  case sys_enc(3, 0, 4, 1, 0):  // SP_EL0
  case sys_enc(3, 0, 13, 0, 4): // TPIDR_EL1
  case sys_enc(3, 3, 13, 0, 2): // TPIDR_EL0
  case sys_enc(3, 3, 13, 0, 3): // TPIDRRO_EL0
    return true;
  case sys_enc(3, 3, 4, 2, 1): // DAIF: reads only (a write may unmask a pending interrupt)
  case sys_enc(3, 0, 4, 2, 2): // CurrentEL
  case sys_enc(3, 3, 0, 0, 1): // CTR_EL0 (EL0 access trapped unless SCTLR_EL1.UCT: the helper raises it)
  case sys_enc(3, 3, 0, 0, 7): // DCZID_EL0
    return read;
  default:
    return false;
  }
}

// DC ZVA zeroes a block through the data TLB like a store (clear_page, memset); a store to translated code
// sets the attention flag as any store does.
bool dc_zva(uint32_t insn) {
  return ((insn >> 5) & 0xffff) == sys_enc(1, 3, 7, 4, 1);
}

Role role_of(int id, uint32_t insn) {
  if (id < 0) return Role::Outside;
  switch (kinds()[id]) {
  case Kind::Plain:
    return Role::Body;
  case Kind::Branch:
    return Role::Last;
  case Kind::Hint: {
    unsigned op = (insn >> 5) & 0x7f;
    return op >= 2 && op <= 5 ? Role::Outside : Role::Body;
  }
  case Kind::SysReg:
    return plain_sysreg(insn) ? Role::Body : Role::Outside;
  case Kind::Sys:
    return dc_zva(insn) ? Role::Body : Role::Outside;
  case Kind::Outside:
    break;
  }
  return Role::Outside;
}

// Conditional direct branches (B.cond, CB(N)Z, TB(N)Z) do not end a block: it goes on with the way not
// taken and leaves through a side exit when the branch is taken, so a loop body with early-out tests is one
// block (one exit per iteration instead of one per test).
bool is_conditional_branch(int id) {
  return id >= 0 && std::string_view(g::kInsnInfo[id].cls) == "branch_cond";
}

// The exits of a block of these instructions: one per conditional branch before its last instruction, and
// its end.
unsigned exit_count(const std::vector<uint32_t>& words) {
  unsigned n = 1;
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (is_conditional_branch(g::decode(words[i]))) ++n;
  return n;
}

struct Key {
  uint64_t va, pa;
  unsigned el;
  bool operator==(const Key& o) const { return va == o.va && pa == o.pa && el == o.el; }
};
struct KeyHash {
  size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.va * 31 + k.pa * 7 + k.el); }
};

// A translated block: uint64_t (State* s, uint32_t attention, uint64_t limit, uint64_t done) in LLVM's GHC
// calling convention, which has no callee-saved registers: blocks jump to one another (tail calls), and in
// the C convention each jump popped and the next block pushed six registers again. C++ enters a chain
// through EnterFn, which saves them once. `limit` (>= 1): the most instructions the call may retire (the run
// loop's budget left); `done`: the instructions the chain of blocks this call continues retired before it.
// Returns `done` plus what this block and the blocks it jumped to retired, with kFaulted set when the next
// instruction raised an exception, kAtBoundary when the chain left at a block boundary (Core::RunEnd),
// kMissedTlb when it left before a load or store that missed the soft TLB and that the quiet slow path
// declined (second tier: a fault, a device...), for the run loop to run that instruction interpreted.
struct BlockCode;
using BlockFn = const BlockCode*;
using EnterFn = uint64_t (*)(BlockFn fn, g::State* s, uint32_t attention, uint64_t limit, uint64_t done);
constexpr auto kBlockCallingConv = llvm::CallingConv::GHC;
// The target of the direct branch `word` at `pc` (B, BL, B.cond, CBZ/CBNZ, TBZ/TBNZ), if it is one.
bool direct_branch_target(uint32_t word, uint64_t pc, uint64_t& target) {
  auto offset = [&](unsigned lsb, unsigned bits) {
    const uint64_t imm = (word >> lsb) & ((1ull << bits) - 1);
    const uint64_t sign = 1ull << (bits - 1);
    return ((imm ^ sign) - sign) << 2; // sign-extended, in bytes
  };
  if ((word & 0x7c000000u) == 0x14000000u) { // B, BL
    target = pc + offset(0, 26);
  } else if ((word & 0xff000010u) == 0x54000000u || (word & 0x7e000000u) == 0x34000000u) { // B.cond, CB(N)Z
    target = pc + offset(5, 19);
  } else if ((word & 0x7e000000u) == 0x36000000u) { // TB(N)Z
    target = pc + offset(5, 14);
  } else {
    return false;
  }
  return true;
}
// The IR type of a BlockFn, and a new function of that type and convention in `module`.
llvm::FunctionType* block_type(llvm::LLVMContext& ctx) {
  auto* i64 = llvm::Type::getInt64Ty(ctx);
  return llvm::FunctionType::get(i64, {llvm::PointerType::get(ctx, 0), llvm::Type::getInt32Ty(ctx), i64, i64},
                                 false);
}
llvm::Function* make_block_function(llvm::Module& module, const std::string& name) {
  auto* f =
      llvm::Function::Create(block_type(module.getContext()), llvm::Function::ExternalLinkage, name, &module);
  f->setCallingConv(kBlockCallingConv);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  return f;
}
constexpr uint64_t kFaulted = 1ull << 63, kAtBoundary = 1ull << 62, kMissedTlb = 1ull << 61;
// The byte offset of `va`'s entry in a TLB bank: one shift and one mask, as the first tier has no InstCombine
// to fold an index's shift, mask and scaling together (its backlog code took three host instructions).
llvm::Value* tlb_entry_offset(llvm::IRBuilder<>& b, llvm::Value* va) {
  static_assert(sizeof(Core::TlbEntry) == 32);
  constexpr unsigned kEntryShift = 5;
  return b.CreateAnd(b.CreateLShr(va, b.getInt64(12 - kEntryShift)),
                     b.getInt64(uint64_t{Core::kTlbSize - 1} << kEntryShift));
}

// Where a block's end jumps next without returning to the run loop: the block found at `va` the last times
// this block ended there (try_run fills the slots, translated code reads them). A slot is followed only
// while the cache generation it was filled in lasts (dropping any block bumps it, so `fn` is never freed
// code) and while the fetch TLB still maps `va` to the physical page the target was translated from.
struct ExitSlot {
  uint64_t va = 0, pa_page = 0, gen = 0; // gen 0: empty (generations start at 1)
  BlockFn fn = nullptr;
};
constexpr unsigned kExitSlots = 2; // per block: a conditional branch's two ways
// One exit of a block: its slots, and what the first tier's shared chain probe (Impl::make_probe) needs to
// know of it besides the target: the page (virtual and physical) and EL of the block it leaves, whether the
// target may be anything (an indirect branch: the jump cache after the slots) and whether the point after
// it is a block boundary (Core::RunEnd).
struct Block;
struct BlockExit {
  ExitSlot slots[kExitSlots];
  uint64_t page_va = 0, page_pa = 0;
  uint32_t el = 0;
  uint8_t any_target = 0, boundary = 0;
  // A first-tier exit with one target, at a block boundary, jumps to `direct` while `direct_gen` is the
  // current generation (Impl::cache_gen), else to the shared probe; link() sets both when it finds the
  // target on the exit's own page, or, if the exit `checks_mapping`, on `mapped_page`: its target's, known
  // when the block is made, for which the exit tests before it jumps that the fetch TLB maps it to
  // `direct_pa` (the physical page of the block linked). The exit writes its target to `target` as it is
  // taken: Core::last_exit_ may be an earlier exit of the chain (a second-tier exit jumps on without setting
  // it), so link() checks that this exit does lead to the block it links.
  uint8_t linkable = 0, checks_mapping = 0;
  uint64_t target = 0, direct_gen = 0, mapped_page = 0, direct_pa = 0;
  BlockFn direct = nullptr;
  // In a first-tier block's first exit: the block's runs since the run loop last looked (Impl::promote_hot).
  uint64_t runs = 0;
  // The block without a translation the run loop went on to from here last (Block::next, for exits that
  // cannot link to it: try_run), while `next_gen` is Impl::block_gen.
  Block* next = nullptr;
  uint64_t next_gen = 0;
};
constexpr uint32_t kNoSlot = ~0u; // a block without a run counter (--cpu-stats off)

// The code of one compiled module. When the last block using it is dropped, its memory is released at the
// next safe point (the run loop, outside translated code).
// The exit slots of its blocks are released with it: a block dropped by a store it made still reads its
// own slots when it ends.
struct Graveyard {
  std::vector<llvm::orc::ResourceTrackerSP> code;
  std::vector<std::unique_ptr<BlockExit[]>> slots;
  std::vector<std::unique_ptr<Core::PredecodedInsn[]>> predecoded;
  std::vector<baseline::Fn> baseline; // back to Impl::baseline_compiler
  bool empty() const { return code.empty() && slots.empty() && predecoded.empty() && baseline.empty(); }
};
struct Chunk;
// The installed modules, for Impl::redirect_jumps (see Block::linked_from). A released module's exits may
// be listed there: they are kept here (not released at the next safe point) until the lists are made again
// without them, once more than the live exits (and `slack` more) have piled up: when a second-tier
// translation replaces the last first-tier block of a module the module goes, and making the lists again at
// each such release took longer than the walk they replace.
struct LinkIndex {
  std::unordered_set<Chunk*> chunks; // installed modules
  size_t exits = 0;                  // their exits
  std::vector<std::unique_ptr<BlockExit[]>> released;
  size_t released_exits = 0;
  size_t added = 0;        // exits listed since the lists were last made
  bool incomplete = false; // too many: no more are listed until the lists are made again
  // How many more than the live exits may be released or listed (VPLAT_JIT_LINK_SLACK; 0, for tests: any
  // release makes the lists again).
  const size_t slack = env_number("VPLAT_JIT_LINK_SLACK", 0, 1ull << 30, 65536);
  bool stale() const { return incomplete || released_exits > (slack ? exits + slack : 0); }
};
struct Chunk {
  llvm::orc::ResourceTrackerSP rt;
  std::unique_ptr<BlockExit[]> slots; // the exits of the module's blocks
  size_t exits;
  Graveyard* graveyard;
  // The engine's index of installed modules' links, once one of this module's blocks is installed.
  LinkIndex* installed = nullptr;
  Chunk(llvm::orc::ResourceTrackerSP r, std::unique_ptr<BlockExit[]> s, size_t n, Graveyard* g)
      : rt(std::move(r)), slots(std::move(s)), exits(n), graveyard(g) {}
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
  ~Chunk() {
    graveyard->code.push_back(std::move(rt));
    if (installed) {
      installed->chunks.erase(this);
      installed->exits -= exits;
      installed->released_exits += exits;
      installed->released.push_back(std::move(slots));
    } else {
      graveyard->slots.push_back(std::move(slots));
    }
  }
};

// The instructions of a pre-decoded block (see Impl::predecode), released like translated code: a store one
// of them makes may drop the block while it runs.
struct Predecoded {
  std::unique_ptr<Core::PredecodedInsn[]> insns;
  baseline::Fn code = nullptr; // their baseline code, if made
  bool baseline_tried = false; // (not all blocks can have it: make it once)
  Graveyard* graveyard = nullptr;
  size_t* live = nullptr; // the engine's count of pre-decoded blocks
  Predecoded(uint32_t count, Graveyard* g, size_t* l)
      : insns(new Core::PredecodedInsn[count]), graveyard(g), live(l) {
    ++*live;
  }
  Predecoded(const Predecoded&) = delete;
  Predecoded& operator=(const Predecoded&) = delete;
  ~Predecoded() {
    graveyard->predecoded.push_back(std::move(insns));
    if (code) {
      baseline::Compiler::retire(code); // links to it are followed no more
      graveyard->baseline.push_back(code);
    }
    --*live;
  }
};

struct Block;
// The first-tier blocks that count their runs (Impl::promote_hot reads and zeroes their counters): a list,
// as the block table is too large to walk at every look.
struct CountedBlocks {
  std::vector<Block*> list;
  void add(Block* b);
  void remove(Block* b);
};

// Of a pre-decoded block, the head (runs, the block that followed it last, fp, and its list while it has no
// baseline code: threaded.h) is what try_run and the end entries of threaded lists read at every run. The
// block that followed it last is entered without a lookup while `next_gen` is Impl::block_gen, where the
// fetch TLB maps `next_va` to that block's page.
struct Block : threaded::BlockHead {
  Key key;
  unsigned len = 0; // 0: nothing translatable starts here
  BlockFn fn = nullptr;
  std::shared_ptr<Chunk> code;
  std::unique_ptr<Predecoded> pre; // without fn: the block runs pre-decoded until it is compiled
  // Of a pre-decoded block, kept here (not behind `pre`) as try_run reads it at every run: its instructions
  // (`len` of them, and the end entry).
  const Core::PredecodedInsn* insns = nullptr;
  baseline::Fn baseline = nullptr; // Predecoded::code
  // Tiers: how often the run loop started a chain here (a sample of where time goes: chains restart at
  // each quantum), and whether this is the optimised translation already (or one is being made).
  uint32_t samples = 0;
  uint64_t* runs_counted = nullptr; // a first-tier translation's run counter (BlockExit::runs)
  CountedBlocks* counted_in = nullptr; // listed there (at counted_at) while runs_counted is set
  size_t counted_at = 0;
  bool optimized = false;   // the second-tier translation was asked for
  bool second_tier = false; // this is it
  uint8_t warm_periods = 0; // promotion periods in a row it ran steady_insns or more (Impl::promote_hot)
  // --cpu-stats: the slot of the run counter the code bumps on entry, and the instruction ids it runs.
  uint32_t count_slot = kNoSlot;
  std::vector<uint16_t> ids;
  // The exits that lead here (exit slots or direct links holding `fn`), for Impl::redirect_jumps, which had
  // walked every installed module's exits at each second-tier install (~2.5% of the guest thread in a shell
  // loop's last seconds, and growing with the code installed). Impl::link adds an exit as it makes one lead
  // here, so every such exit is listed; the list may also name exits that lead elsewhere by now, or exits of
  // released modules (LinkIndex keeps their memory). Once those, or the entries of exits linked back and
  // forth, are many, the lists are made again from the installed modules' exits (LinkIndex::stale).
  std::vector<BlockExit*> linked_from;
  Block() = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() {
    if (counted_in) counted_in->remove(this);
  }
};

void CountedBlocks::add(Block* b) {
  b->counted_in = this;
  b->counted_at = list.size();
  list.push_back(b);
}
void CountedBlocks::remove(Block* b) {
  Block* last = list.back();
  list[b->counted_at] = last;
  last->counted_at = b->counted_at;
  list.pop_back();
  b->counted_in = nullptr;
}

struct Request {
  Key key;
  std::vector<uint32_t> words;
  uint64_t epoch = 0, page_gen = 0;
  uint32_t count_slot = kNoSlot; // counting: chosen when the request is made (the compiler thread reads it)
  bool optimized = false;        // the second tier: a block that ran hot, compiled with full optimisation
  uint64_t hot_ms = 0;           // when the block was last seen hot (steady clock, ms)
  bool ahead = false;            // taken before waiting first-tier requests (a dominant block's)
  bool backlog = false;          // made by the backlog's code generator (Impl::jit_backlog)
};

struct Result {
  Request req;
  BlockFn fn = nullptr;
  uint64_t* runs = nullptr; // the first tier's run counter (BlockExit::runs)
  bool loops = false;       // the block jumps back to its start (build_function)
  std::shared_ptr<Chunk> code; // shared by the blocks compiled in one module
};

// Offsets (from the State base of a Core) of the Core members translated code touches.
struct CoreOffsets {
  size_t attention, access_el, cur_insn, sp_check, tlb, itlb, data_tlb, block_runs;
  size_t retired, block_done, last_exit, fp_trap, run_to_boundary, wrapper_result, quiet_declined;
  size_t cache_gen; // Core::jit_cache_gen_
  // Storage of the registers plain_sysreg_access names, and SPSel (SP_EL0 is sp_other_ while it is 1).
  size_t tpidr_el0, tpidr_el1, tpidrro_el0, sp_other, spsel;
  // The flag stores test for exclusive monitors (Core::monitors_active_): the group's, the same for every
  // core of an engine (CoreGroup::add gives the group's cores a new engine), so a constant in the code.
  const bool* monitors = nullptr;
};

// --cpu-stats: an exit of a block that retired fewer than all its instructions takes the `count` it did not
// retire, whose ids are at `ids` (a constant of the block's module), off the core's table.
void uncount(g::State* s, const uint16_t* ids, uint64_t count) {
  uint64_t* table = core_of(*s).insn_counts;
  if (!table) return;
  for (uint64_t i = 0; i < count; ++i) --table[ids[i]];
}

} // namespace

struct JitEngine::Impl {
  bool sync;
  std::unique_ptr<llvm::orc::LLJIT> jit;     // first tier: every hot block, compiled cheaply
  std::unique_ptr<llvm::orc::LLJIT> jit_opt; // second tier: the hottest blocks, compiled with optimisation
  // First tier while requests queue up (see Impl::work): CodeGenOpt::None, a third less code generation
  // time per block for a quarter more host instructions.
  std::unique_ptr<llvm::orc::LLJIT> jit_backlog;
  bool tier1_at_none = false; // VPLAT_JIT_CODEGEN=0: `jit` too
  std::vector<Core*> cores;
  CoreOffsets off{};
  JitStats stats;

  CountedBlocks counted; // before `blocks`: its blocks leave it as they go
  LinkIndex links;       // before `blocks`: their modules leave it as they go
  std::unordered_map<Key, std::unique_ptr<Block>, KeyHash> blocks;
  struct Page {
    uint64_t gen = 0;
    std::vector<Key> keys; // blocks and requests on this page
    bool code = false;     // translated (or being translated): stores to it must take the slow path
    // The page's bytes before its first block was read (RAM pages only): what IC instructions compare with
    // to tell whether a writer outside the CPU changed it since.
    std::vector<uint8_t> source;
  };
  std::unordered_map<uint64_t, Page> pages; // code pages (physical)
  // Direct-mapped cache of block starts and their blocks (nullptr: none yet).
  struct Entry {
    uint64_t va = ~0ull, pa = 0;
    unsigned el = 0;
    uint64_t gen = 0;
    Block* block = nullptr;
  };
  static constexpr size_t kCache = 16384;
  std::vector<Entry> cache = std::vector<Entry>(kCache);
  // Kernel and user code share low address bits, so the index mixes in the upper bits.
  static size_t cache_index(uint64_t va) { return ((va >> 2) ^ (va >> 16) ^ (va >> 40)) & (kCache - 1); }
  // The hotness table (JitEngine::kHeat).
  std::vector<uint16_t> heat = std::vector<uint16_t>(kHeat);
  size_t predecoded_live = 0; // blocks that run pre-decoded (not translations: kMaxBlocks leaves them out)
  uint64_t cache_gen = 1;     // bumped (bump_cache_gen) when blocks are dropped: every entry is then stale
  void bump_cache_gen() {
    ++cache_gen;
    for (Core* c : cores) c->jit_cache_gen_ = cache_gen;
  }
  uint64_t block_gen = 1; // bumped when any Block goes (also one replaced by its translation): Block::next
  std::unordered_set<Key, KeyHash> pending; // submitted to the background compiler

  // --cpu-stats (see JitEngine::count_instructions). Every core has a run counter per slot; a slot belongs to
  // one request or block at a time and is free again once its runs are folded into the cores' tables.
  bool counting = false;
  std::vector<std::vector<uint64_t>> block_runs; // per core (as in `cores`), per slot
  std::vector<uint32_t> free_slots;
  uint32_t slots = 0; // slots handed out so far (free or not)

  uint32_t take_slot() {
    if (!free_slots.empty()) {
      uint32_t s = free_slots.back();
      free_slots.pop_back();
      return s;
    }
    if (slots == (block_runs.empty() ? 0 : block_runs[0].size())) {
      // Outside translated code (blocks load the table's address on entry), so it may move.
      size_t grown = std::max<size_t>(1024, 2 * slots);
      for (size_t i = 0; i < cores.size(); ++i) {
        block_runs[i].resize(grown);
        cores[i]->block_runs_ = block_runs[i].data();
      }
    }
    return slots++;
  }
  // Adds the block's runs, per core, to that core's table (each run counted as complete; the short exits
  // were taken off when they happened) and zeroes them.
  void fold_counts(const Block& b) {
    if (b.count_slot == kNoSlot) return;
    for (size_t i = 0; i < cores.size(); ++i) {
      uint64_t& runs = block_runs[i][b.count_slot];
      if (runs && cores[i]->insn_counts)
        for (uint16_t id : b.ids) cores[i]->insn_counts[id] += runs;
      runs = 0;
    }
  }
  // Before a block is dropped.
  void release_counts(Block& b) {
    if (b.count_slot == kNoSlot) return;
    fold_counts(b);
    free_slots.push_back(b.count_slot);
    b.count_slot = kNoSlot;
  }

  Block* lookup(Core& c, bool count);

  // Makes the end of the block whose exit slots are `exits` jump straight to `n` next time it reaches n's
  // start (translated code checks the generation and the fetch TLB, as lookup does). Both ways of a branch
  // fit; a third target (an indirect branch) replaces the second.
  void link(BlockExit* exit, Block& n) {
    // A direct link needs only some of the probe's tests (the exit makes them: the budget, the attention
    // flags, the generation and, on another page, the fetch TLB's mapping): the target is the only one, and
    // the exit's own page is mapped as it was when the chain entered it (see the exits in build_function).
    const uint64_t pa_page = n.key.pa & ~0xfffull;
    const uint64_t va_page = n.key.va & ~0xfffull;
    const bool page_ok = va_page == exit->page_va ? pa_page == exit->page_pa
                                                  : exit->checks_mapping && va_page == exit->mapped_page;
    if (exit->linkable && exit->target == n.key.va && page_ok && n.key.el == exit->el &&
        (exit->direct != n.fn || exit->direct_gen != cache_gen || exit->direct_pa != pa_page)) {
      if (exit->direct != n.fn) note_link(exit, n);
      exit->direct = n.fn;
      exit->direct_gen = cache_gen;
      exit->direct_pa = pa_page;
      ++stats.direct_links;
    }
    ExitSlot* exits = exit->slots;
    ExitSlot* s = &exits[exits[0].gen == cache_gen && exits[0].va != n.key.va ? 1 : 0];
    s->va = n.key.va;
    s->pa_page = n.key.pa & ~0xfffull;
    s->gen = cache_gen;
    if (s->fn != n.fn) note_link(exit, n);
    s->fn = n.fn;
  }
  void note_link(BlockExit* exit, Block& n) {
    if (links.incomplete) return; // the rebuild will find it
    n.linked_from.push_back(exit);
    if (++links.added > 4 * links.exits + links.slack) links.incomplete = true;
  }
  void rebuild_links() {
    std::unordered_map<BlockFn, Block*> by_code;
    for (auto& [key, blk] : blocks) {
      blk->linked_from.clear();
      if (blk->fn) by_code[blk->fn] = blk.get();
    }
    auto add = [&](BlockExit& e, BlockFn fn) {
      // Code no block has any more was replaced (redirected) or dropped (a new cache generation): not
      // followed.
      if (auto it = by_code.find(fn); it != by_code.end()) it->second->linked_from.push_back(&e);
    };
    for (Chunk* chunk : links.chunks)
      for (size_t i = 0; i < chunk->exits; ++i) {
        BlockExit& e = chunk->slots[i];
        for (ExitSlot& slot : e.slots)
          if (slot.fn) add(e, slot.fn);
        if (e.direct) add(e, e.direct);
      }
    links.added = 0;
    links.incomplete = false;
    links.released.clear();
    links.released_exits = 0;
  }
  // Where indirect branches (BR, BLR, RET) go when neither exit slot holds their target: a direct-mapped
  // table of the blocks try_run last ran, by start VA and EL. A return reaches many call sites, so two slots
  // per block kept sending the busybox shell back to the run loop (~440 times per iteration of a shell loop).
  // An entry is followed under the exit slots' conditions: its generation is current and the fetch TLB maps
  // the target to its physical page (for a target on the jumping block's page: that page is the entry's).
  struct JumpEntry {
    uint64_t tag = ~0ull, pa_page = 0, gen = 0; // tag: start VA | EL
    BlockFn fn = nullptr;
  };
  static constexpr size_t kJumpCacheSize = 4096;
  const std::unique_ptr<JumpEntry[]> jump_cache{new JumpEntry[kJumpCacheSize]};
  // The entry for `va`; translated code computes the same with jump_index_ir.
  static constexpr unsigned kJumpLowShift = 2, kJumpHighShift = 14;
  static uint64_t jump_index(uint64_t va) {
    return ((va >> kJumpLowShift) ^ (va >> kJumpHighShift)) & (kJumpCacheSize - 1);
  }
  static llvm::Value* jump_index_ir(llvm::IRBuilder<>& b, llvm::Value* va) {
    return b.CreateAnd(b.CreateXor(b.CreateLShr(va, kJumpLowShift), b.CreateLShr(va, kJumpHighShift)),
                       b.getInt64(kJumpCacheSize - 1));
  }
  void remember_jump(const Block& n) {
    JumpEntry& e = jump_cache[jump_index(n.key.va)];
    e.tag = n.key.va | n.key.el;
    e.pa_page = n.key.pa & ~0xfffull;
    e.gen = cache_gen;
    e.fn = n.fn;
  }
  Graveyard graveyard; // released at the next safe point
  // Pre-decoded blocks that run often run as baseline code (baseline.h) where the host has it (see
  // baseline_threshold); the compiler is made by add_core, which knows the offsets.
  std::unique_ptr<baseline::Compiler> baseline_compiler;
  uint64_t epoch = 0, next_name = 0;

  // Background compilation.
  std::thread worker;
  std::mutex m;
  std::condition_variable cv;
  // First-tier requests go before second-tier ones: a first-tier translation replaces the interpreter
  // (several times faster), a second-tier one only improves a translation. With one queue, the second tier's
  // compiles (tens of milliseconds each) kept code that had just become hot waiting in the interpreter:
  // during bzip2 in the guest, ~0.9 G of its instructions were interpreted while their blocks were queued.
  // Within a tier, the block seen hot most often lately goes first, and requests not seen hot for
  // max_wait_ms are dropped unmade (see work()).
  std::vector<Request> queue, queue_tier2;
  struct Heat {
    uint64_t last_ms = 0; // when last seen hot again
    double score = 0;     // decayed count of the times, as of last_ms
    uint64_t dominant_ms = 0; // when promote_hot last found it running dominant_insns or more
  };
  std::unordered_map<Key, Heat, KeyHash> hot_again; // queued keys seen hot again since they were queued
  std::vector<Result> results;
  std::atomic<bool> results_ready{false};
  bool stopping = false;

  // VPLAT_JIT_DUMP: print each module's IR as compiled (VPLAT_JIT_DUMP=pre: as emitted, before the passes;
  // t2 and t2-pre: the same for second-tier modules only).
  const char* dump_env = std::getenv("VPLAT_JIT_DUMP");
  const bool dump_tier2_only = dump_env && std::string_view(dump_env).substr(0, 2) == "t2";
  const bool dump_pre =
      dump_env && (std::string_view(dump_env) == "pre" || std::string_view(dump_env) == "t2-pre");
  const bool dump_ir = dump_env && !dump_pre;
  // VPLAT_JIT_STATE_CACHE=0: the second tier keeps the state in memory.
  const bool state_cache = env_on("VPLAT_JIT_STATE_CACHE");
  // VPLAT_JIT_T1_PASSES=all: the first tier's code generator runs the passes FirstTierPasses leaves out.
  const bool keep_codegen_passes = [] {
    const char* v = std::getenv("VPLAT_JIT_T1_PASSES");
    return v && std::string_view(v) == "all";
  }();
  // VPLAT_JIT_LOG=1: one line per block as the compile thread takes it; 2: also one as the run loop asks
  // for it (for tuning: how long requests wait).
  const int compile_log = [] {
    const char* v = std::getenv("VPLAT_JIT_LOG");
    return v && (*v == '1' || *v == '2') && !v[1] ? *v - '0' : 0;
  }();
  void log_request(const Request& r) const {
    const uint64_t t = now_ms();
    std::fprintf(stderr, "jit-log: %llu.%03llu asked tier%d %llx pa %llx el%u %zu insns\n",
                 static_cast<unsigned long long>(t / 1000), static_cast<unsigned long long>(t % 1000),
                 r.optimized ? 2 : 1, static_cast<unsigned long long>(r.key.va),
                 static_cast<unsigned long long>(r.key.pa), r.key.el, r.words.size());
  }
  const std::unique_ptr<PerfMap> perf_map =
      PerfMap::from_environment(); // VPLAT_JIT_PERF_MAP (jit_perf_map.h)
  // Sizes of the functions in the objects the JITs load, by symbol name, while perf_map is open: a perf map
  // entry covers [start, start + size).
  struct FunctionSizes : llvm::JITEventListener {
    std::mutex lock;
    std::unordered_map<std::string, uint64_t> size_of;
    void notifyObjectLoaded(ObjectKey, const llvm::object::ObjectFile& obj,
                            const llvm::RuntimeDyld::LoadedObjectInfo&) override {
      std::lock_guard<std::mutex> l(lock);
      for (const auto& [sym, size] : llvm::object::computeSymbolSizes(obj)) {
        auto type = sym.getType();
        auto name = sym.getName();
        if (type && *type == llvm::object::SymbolRef::ST_Function && name)
          size_of[name->str()] = size;
        else {
          if (!type) llvm::consumeError(type.takeError());
          if (!name) llvm::consumeError(name.takeError());
        }
      }
    }
    // The size of `symbol` (forgotten after), 1 when it is not known.
    uint64_t take(const std::string& symbol) {
      std::lock_guard<std::mutex> l(lock);
      auto it = size_of.find(symbol);
      if (it == size_of.end()) return 1;
      const uint64_t size = it->second;
      size_of.erase(it);
      return size ? size : 1;
    }
  } function_sizes;
  // VPLAT_JIT_HOT=N (1..32767): the hotness threshold instead of kHotThreshold, for tuning.
  const unsigned hot_threshold =
      static_cast<unsigned>(env_number("VPLAT_JIT_HOT", 1, kHeatCount, JitEngine::kHotThreshold));
  // VPLAT_JIT_PREDECODE=N: runs of a block start before it runs pre-decoded (0: never; below hot_threshold).
  // A synchronous engine compiles at once instead.
  const unsigned predecode_threshold = [this] {
    const auto n = static_cast<unsigned>(
        env_number("VPLAT_JIT_PREDECODE", 0, kHeatCount, JitEngine::kPredecodeThreshold));
    return sync || n >= hot_threshold ? 0u : n;
  }();
  // VPLAT_JIT_BASELINE=N: runs of a pre-decoded block before it gets baseline code (0: never; 1: when it is
  // pre-decoded; JitEngine::kBaselineThreshold by default; at most hot_threshold, where its first-tier
  // request is made).
  const unsigned baseline_threshold = static_cast<unsigned>(std::min<uint64_t>(
      env_number("VPLAT_JIT_BASELINE", 0, kHeatCount, JitEngine::kBaselineThreshold), hot_threshold));
  // VPLAT_JIT_COMPILE=0: no LLVM translations in an asynchronous engine (blocks stay pre-decoded, with
  // baseline code), for tests and comparisons.
  const bool llvm_tiers = env_on("VPLAT_JIT_COMPILE");
  // Block starts are counted up to this: the first threshold a start meets.
  const unsigned first_threshold = predecode_threshold ? predecode_threshold : hot_threshold;

  static std::unique_ptr<llvm::orc::LLJIT> make_jit(llvm::CodeGenOpt::Level level, bool fast_isel,
                                                    llvm::JITEventListener* listener) {
    auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!jtmb) {
      std::fprintf(stderr, "vplat: cannot create the JIT: %s\n", llvm::toString(jtmb.takeError()).c_str());
      std::abort();
    }
    jtmb->setCodeGenOptLevel(level);
    jtmb->getOptions().EnableFastISel = fast_isel;
    llvm::orc::LLJITBuilder builder;
    builder.setJITTargetMachineBuilder(std::move(*jtmb));
    // VPLAT_JIT_REUSE_PIPELINE=0: a new code generator pipeline for every module (ORC's SimpleCompiler).
    if (env_on("VPLAT_JIT_REUSE_PIPELINE"))
      builder.setCompileFunctionCreator(
          [](llvm::orc::JITTargetMachineBuilder from)
              -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
            auto tm = from.createTargetMachine();
            if (!tm) return tm.takeError();
            return std::make_unique<ReusedPipelineCompiler>(std::move(*tm), [] {
              return (first_tier_codegen ? 1u : 0u) | (first_tier_fewer_passes ? 2u : 0u);
            });
          });
    // The object layer LLJIT makes by default on x86-64 ELF, named here for its event listeners (perf map).
    builder.setObjectLinkingLayerCreator(
        [listener](llvm::orc::ExecutionSession& session, const llvm::Triple&) {
          auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
              session, [] { return std::make_unique<llvm::SectionMemoryManager>(); });
          if (listener) layer->registerJITEventListener(*listener);
          return llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>>(std::move(layer));
        });
    auto j = builder.create();
    if (!j) {
      std::fprintf(stderr, "vplat: cannot create the JIT: %s\n", llvm::toString(j.takeError()).c_str());
      std::abort();
    }
    // Wide division and memory intrinsics may become calls to the C runtime (__udivti3, memcpy).
    auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        (*j)->getDataLayout().getGlobalPrefix());
    if (gen) (*j)->getMainJITDylib().addGenerator(std::move(*gen));
    return std::move(*j);
  }

  // Code shared by the blocks (not a block): its module is added to `j` and compiled at the first lookup.
  static void add_shared(llvm::orc::LLJIT& j, std::unique_ptr<llvm::LLVMContext> ctx,
                         std::unique_ptr<llvm::Module> mod) {
    if (llvm::verifyModule(*mod, &llvm::errs())) std::abort();
    if (auto err = j.addIRModule(llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
      jit_failed(std::move(err));
  }
  static void* find_shared(llvm::orc::LLJIT& j, const char* name) {
    auto sym = j.lookup(name);
    if (!sym) jit_failed(sym.takeError());
    return llvm::jitTargetAddressToPointer<void*>(sym->getValue());
  }

  // The C entry into translated code (see BlockFn).
  static EnterFn make_enter(llvm::orc::LLJIT& j) {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>("enter", *ctx);
    mod->setDataLayout(j.getDataLayout());
    llvm::IRBuilder<> b(*ctx);
    auto* ft = llvm::FunctionType::get(
        b.getInt64Ty(), {b.getPtrTy(), b.getPtrTy(), b.getInt32Ty(), b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, "vplat_enter", mod.get());
    f->addFnAttr(llvm::Attribute::NoUnwind);
    b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", f));
    llvm::CallInst* call = b.CreateCall(block_type(*ctx), f->getArg(0),
                                        {f->getArg(1), f->getArg(2), f->getArg(3), f->getArg(4)});
    call->setCallingConv(kBlockCallingConv);
    b.CreateRet(call);
    add_shared(j, std::move(ctx), std::move(mod));
    return reinterpret_cast<EnterFn>(find_shared(j, "vplat_enter"));
  }
  EnterFn enter = nullptr;

  // The core's attention flags, which other threads set (IRQ lines, exit requests): an atomic load.
  // Monotonic where it decides whether a block loops or chains (no optimiser may merge it with another
  // load); `unordered` is for the tests in the middle of a first-tier block, which the optimiser treats as
  // ordinary loads: a monotonic load counts as a write of all memory for alias analysis, and would stop
  // register values from being forwarded past every guest memory access.
  llvm::Value* load_attention(llvm::IRBuilder<>& b, llvm::Value* state, bool unordered = false) const {
    auto* ld =
        b.CreateLoad(b.getInt32Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.attention));
    ld->setAtomic(unordered ? llvm::AtomicOrdering::Unordered : llvm::AtomicOrdering::Monotonic);
    ld->setAlignment(llvm::Align(4));
    return ld;
  }

  // The first tier's exits all end in one shared function: uint64_t probe(State*, attention, left, total), a
  // BlockFn that the exit jumps to (a tail call) after storing PC = the target and Core::last_exit_ = its
  // BlockExit. It jumps to the block an exit slot (or, for an indirect branch, the jump cache) holds for the
  // target under the conditions try_run checks between blocks, or returns to the run loop. A copy of this in
  // every exit was ~12 basic blocks; with the probe a boot's first tier makes 24.4 IR instructions per guest
  // instruction after its passes instead of 29.6, and compiles 13281 guest instructions instead of 11441
  // in the same compile thread time. The second tier keeps its copies (one jump less on hot paths).
  // VPLAT_JIT_PROBE=0: the first tier's exits carry their copies too, for comparisons.
  void* chain_probe = nullptr;
  const bool shared_probe = env_on("VPLAT_JIT_PROBE");
  // VPLAT_JIT_EXIT_TAIL=0: each first-tier exit with its own jump to the probe or its direct link.
  const bool shared_exit_tail = env_on("VPLAT_JIT_EXIT_TAIL");
  // Whether a jump from block to block (and a block's loop) tests the attention flags. Within a chain they
  // change only in helpers, after which the block returns at once (leave_after_if, "attention"); on the
  // juno machine devices raise interrupts on the guest thread, inside helpers or between turns. What else
  // sets them from another thread (a debugger's or a signal's exit request) is seen when the chain's
  // budget runs out (a turn: at most 200000 instructions) and by try_run between blocks.
  // VPLAT_JIT_ATTENTION_AT_JUMPS=1 tests them at every jump, as before session 28.
  const bool attention_between_blocks = env_set("VPLAT_JIT_ATTENTION_AT_JUMPS");
  // Whether a chain goes on to another block (or around its loop): budget left, and the attention flags as
  // the chain began where they are tested (`unordered`: see load_attention).
  llvm::Value* chain_goes_on(llvm::IRBuilder<>& b, llvm::Value* state, llvm::Value* attention,
                             llvm::Value* left, bool unordered = false) const {
    llvm::Value* go_on = b.CreateICmpSGT(left, b.getInt64(0));
    if (attention_between_blocks)
      go_on = b.CreateAnd(go_on, b.CreateICmpEQ(load_attention(b, state, unordered), attention));
    return go_on;
  }
  // Exits (and the probe) jump to the next block without testing the budget: every block tests it on entry
  // anyway (`left` below its length, or not above 0, declines: it returns with PC = its start and the count
  // so far, at a block boundary, which is what the exit would have returned), so the test at the exit only
  // repeated it. A test and a branch less per block followed (bench/jit-code.sh, session 49: second tier
  // lz 6.350 -> 6.097, calls 9.689 -> 9.323; first tier at Less lz 11.660 -> 11.283, calls 14.965 ->
  // 14.239). With attention_between_blocks, exits still test both. VPLAT_JIT_BUDGET_AT_TARGET=0: they test
  // the budget too (for comparisons).
  const bool budget_at_target = env_on("VPLAT_JIT_BUDGET_AT_TARGET");
  bool exits_test_budget() const { return attention_between_blocks || !budget_at_target; }
  // VPLAT_JIT_PARTIAL_WRITE_BACK=0: every write-back of a second-tier block stores all that the block
  // writes.
  const bool partial_write_backs = env_on("VPLAT_JIT_PARTIAL_WRITE_BACK");
  void make_probe() {
    llvm::orc::LLJIT& j = *jit;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>("probe", *ctx);
    mod->setDataLayout(j.getDataLayout());
    llvm::IRBuilder<> b(*ctx);
    auto* i64 = b.getInt64Ty();
    auto* i32 = b.getInt32Ty();
    auto* i8 = b.getInt8Ty();
    llvm::Function* f = make_block_function(*mod, "vplat_chain_probe");
    llvm::FunctionType* ft = f->getFunctionType();
    llvm::Value* state = f->getArg(0);
    llvm::Value* attention = f->getArg(1);
    llvm::Value* left = f->getArg(2);
    llvm::Value* total = f->getArg(3);
    auto block = [&](const char* name) { return llvm::BasicBlock::Create(*ctx, name, f); };
    b.SetInsertPoint(block("entry"));
    auto host_ptr = [&](const void* p) {
      return b.CreateIntToPtr(b.getInt64(reinterpret_cast<uintptr_t>(p)), b.getPtrTy());
    };
    auto at = [&](llvm::Value* base, size_t offset) {
      return b.CreateConstInBoundsGEP1_64(i8, base, offset);
    };
    auto load64 = [&](llvm::Value* base, size_t offset) { return b.CreateLoad(i64, at(base, offset)); };
    llvm::Value* exit = b.CreateLoad(b.getPtrTy(), at(state, off.last_exit));
    llvm::Value* target = load64(state, offsetof(g::State, PC));
    auto* out = block("out");
    auto* again = block("again");
    if (exits_test_budget())
      b.CreateCondBr(chain_goes_on(b, state, attention, left), again, out);
    else
      b.CreateBr(again);
    b.SetInsertPoint(again);
    llvm::Value* gen = b.CreateLoad(i64, at(state, off.cache_gen));
    llvm::Value* target_page = b.CreateAnd(target, b.getInt64(~0xfffull));
    llvm::Value* el = b.CreateZExt(b.CreateLoad(i32, at(exit, offsetof(BlockExit, el))), i64);
    llvm::Value* any =
        b.CreateICmpNE(b.CreateLoad(i8, at(exit, offsetof(BlockExit, any_target))), b.getInt8(0));
    auto jump_to = [&](llvm::Value* fn_slot) {
      llvm::Value* fn = b.CreateLoad(b.getPtrTy(), fn_slot);
      llvm::CallInst* call = b.CreateCall(ft, fn, {state, attention, left, total});
      call->setCallingConv(kBlockCallingConv);
      call->setTailCallKind(llvm::CallInst::TCK_MustTail);
      b.CreateRet(call);
    };
    // The slots, then (indirect branches) the jump cache; `page`: the physical page the target must be on,
    // `mapped`: whether the fetch TLB maps it there (null: known).
    auto probe = [&](llvm::Value* page, llvm::Value* mapped) {
      for (unsigned s = 0; s < kExitSlots; ++s) {
        const size_t slot = offsetof(BlockExit, slots) + s * sizeof(ExitSlot);
        llvm::Value* hit = b.CreateAnd(b.CreateICmpEQ(load64(exit, slot + offsetof(ExitSlot, gen)), gen),
                                       b.CreateICmpEQ(load64(exit, slot + offsetof(ExitSlot, va)), target));
        if (mapped)
          hit = b.CreateAnd(b.CreateAnd(hit, mapped),
                            b.CreateICmpEQ(load64(exit, slot + offsetof(ExitSlot, pa_page)), page));
        auto* go = block("jump");
        auto* miss = block("miss");
        b.CreateCondBr(hit, go, miss);
        b.SetInsertPoint(go);
        jump_to(at(exit, slot + offsetof(ExitSlot, fn)));
        b.SetInsertPoint(miss);
      }
      auto* cached = block("jump_cache");
      b.CreateCondBr(any, cached, out);
      b.SetInsertPoint(cached);
      llvm::Value* entry = b.CreateGEP(i8, host_ptr(jump_cache.get()),
                                       b.CreateMul(jump_index_ir(b, target), b.getInt64(sizeof(JumpEntry))));
      llvm::Value* ok =
          b.CreateAnd(b.CreateICmpEQ(load64(entry, offsetof(JumpEntry, tag)), b.CreateOr(target, el)),
                      b.CreateICmpEQ(load64(entry, offsetof(JumpEntry, gen)), gen));
      ok = b.CreateAnd(ok, b.CreateICmpEQ(load64(entry, offsetof(JumpEntry, pa_page)), page));
      if (mapped) ok = b.CreateAnd(ok, mapped);
      auto* go = block("jump_cached");
      b.CreateCondBr(ok, go, out);
      b.SetInsertPoint(go);
      jump_to(at(entry, offsetof(JumpEntry, fn)));
    };
    // A target on the exit's own page needs no TLB check (see the exits in build_function).
    auto* same = block("same_page");
    auto* other = block("other_page");
    b.CreateCondBr(b.CreateICmpEQ(target_page, load64(exit, offsetof(BlockExit, page_va))), same, other);
    b.SetInsertPoint(same);
    probe(load64(exit, offsetof(BlockExit, page_pa)), nullptr);
    b.SetInsertPoint(other);
    llvm::Value* bank = b.CreateMul(el, b.getInt64(sizeof(Core::TlbEntry) * Core::kTlbSize));
    llvm::Value* entry = b.CreateGEP(i8, at(state, off.itlb), b.CreateAdd(bank, tlb_entry_offset(b, target)));
    llvm::Value* mapped = b.CreateICmpEQ(load64(entry, offsetof(Core::TlbEntry, fetch)), target_page);
    probe(load64(entry, offsetof(Core::TlbEntry, pa)), mapped);
    b.SetInsertPoint(out);
    llvm::Value* boundary =
        b.CreateICmpNE(b.CreateLoad(i8, at(exit, offsetof(BlockExit, boundary))), b.getInt8(0));
    b.CreateRet(b.CreateSelect(boundary, b.CreateOr(total, b.getInt64(kAtBoundary)), total));
    add_shared(j, std::move(ctx), std::move(mod));
    chain_probe = find_shared(j, "vplat_chain_probe");
    name_in_perf_map(chain_probe, "vplat_chain_probe");
  }

  // VPLAT_JIT_PERF_MAP=1: a name for perf for the code of `symbol` (by default the name itself).
  void name_in_perf_map(const void* code, const char* name) { name_in_perf_map(code, name, name); }
  void name_in_perf_map(const void* code, const char* name, const std::string& symbol) {
    if (!perf_map) return;
    perf_map->add(code, function_sizes.take(symbol), name);
  }

  // The memory helpers as blocks call them on their slow paths: through a function in LLVM's preserve_most
  // convention, which keeps every general register but r11 for its caller. In the C convention a call
  // clobbers nine of them, and the blocks' code (the GHC convention: no callee-saved registers at all)
  // kept every value that lives across a load's or a store's slow path (the state pointer, registers
  // read before the access) in a stack slot, loaded again on the fast path as well: LLVM's basic
  // allocator, the first tier's, spills a live range everywhere.
  // VPLAT_JIT_PRESERVE=0: the slow paths call the helpers in the C convention, for comparisons.
  const bool preserving_calls = env_on("VPLAT_JIT_PRESERVE");
  void* mem_read_wrapper = nullptr;
  void* mem_write_wrapper = nullptr;
  void* quiet_read_wrapper = nullptr;
  void* quiet_write_wrapper = nullptr;
  // A second-tier load or store that missed the TLB: made here when it can be without raising anything or
  // reaching a device (its one or two pages RAM the access is permitted to, no alignment checking; the TLB
  // entries filled as needed). Else nothing is done and Core::quiet_declined_ is set: the block leaves
  // before the instruction, for the interpreter to run it. The same arguments as mem_read and mem_write.
  static bool quiet_pages(Core& c, uint64_t addr, uint64_t size, bool write, uintptr_t (&delta)[2],
                          uint64_t& first_bytes) {
    const uint64_t pages[2] = {addr & ~0xfffull, (addr + size - 1) & ~0xfffull};
    const unsigned count = pages[0] == pages[1] ? 1 : 2;
    uint64_t pa[2] = {};
    for (unsigned k = 0; k < count; ++k) {
      Core::TlbEntry* e = &c.data_tlb_[(pages[k] >> 12) & (Core::kTlbSize - 1)];
      if ((write ? e->write : e->read) != pages[k]) {
        uint8_t fsc = 0;
        if (!c.translate_fill(pages[k], write ? Access::Write : Access::Read, c.access_el_, e, fsc) ||
            (write ? e->write : e->read) != pages[k])
          return false;
      }
      delta[k] = e->host_delta;
      pa[k] = e->pa;
    }
    first_bytes = count == 1 ? size : pages[1] - addr;
    if (write && *c.monitors_active_) {
      c.group->store_to(c, pa[0] | (addr & 0xfff), first_bytes);
      if (count == 2) c.group->store_to(c, pa[1], size - first_bytes);
    }
    return true;
  }
  static uint64_t read_quietly(g::State& s, uint64_t addr, uint64_t size) {
    Core& c = core_of(s);
    uintptr_t delta[2] = {};
    uint64_t first_bytes = 0, v = 0;
    c.quiet_declined_ = !quiet_pages(c, addr, size, false, delta, first_bytes);
    if (c.quiet_declined_) return 0;
    if (first_bytes == size && size <= 8) { // one page (the host is little-endian, as the guest)
      std::memcpy(&v, reinterpret_cast<const void*>(delta[0] + addr), size);
      return v;
    }
    for (uint64_t i = 0; i < size; ++i)
      v |= uint64_t{*reinterpret_cast<const uint8_t*>((i < first_bytes ? delta[0] : delta[1]) + addr + i)}
           << (8 * i);
    return v;
  }
  static void write_quietly(g::State& s, uint64_t addr, uint64_t size, uint64_t value) {
    Core& c = core_of(s);
    uintptr_t delta[2] = {};
    uint64_t first_bytes = 0;
    c.quiet_declined_ = !quiet_pages(c, addr, size, true, delta, first_bytes);
    if (c.quiet_declined_) return;
    if (first_bytes == size && size <= 8) {
      std::memcpy(reinterpret_cast<void*>(delta[0] + addr), &value, size);
      return;
    }
    for (uint64_t i = 0; i < size; ++i)
      *reinterpret_cast<uint8_t*>((i < first_bytes ? delta[0] : delta[1]) + addr + i) =
          static_cast<uint8_t>(value >> (8 * i));
  }
  void make_memory_wrappers() {
    llvm::orc::LLJIT& j = *jit;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>("memory_wrappers", *ctx);
    mod->setDataLayout(j.getDataLayout());
    llvm::IRBuilder<> b(*ctx);
    auto* i64 = b.getInt64Ty();
    auto* p = b.getPtrTy();
    // `ret`: the helper's value, which the wrapper stores in Core::wrapper_result_ (nullptr: none).
    auto wrap = [&](const char* name, void* helper, llvm::Type* ret, std::vector<llvm::Type*> params) {
      auto* f = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false),
                                       llvm::Function::ExternalLinkage, name, *mod);
      f->setCallingConv(llvm::CallingConv::PreserveMost);
      b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", f));
      std::vector<llvm::Value*> args;
      for (llvm::Argument& a : f->args()) args.push_back(&a);
      llvm::Value* callee = b.CreateIntToPtr(b.getInt64(reinterpret_cast<uintptr_t>(helper)), p);
      llvm::CallInst* r =
          b.CreateCall(llvm::FunctionType::get(ret ? ret : b.getVoidTy(), params, false), callee, args);
      if (ret)
        b.CreateStore(r, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), f->getArg(0), off.wrapper_result));
      b.CreateRetVoid();
    };
    wrap("vplat_mem_read", reinterpret_cast<void*>(&g::mem_read), i64, {p, i64, i64});
    wrap("vplat_mem_write", reinterpret_cast<void*>(&g::mem_write), nullptr, {p, i64, i64, i64});
    wrap("vplat_read_quietly", reinterpret_cast<void*>(&read_quietly), i64, {p, i64, i64});
    wrap("vplat_write_quietly", reinterpret_cast<void*>(&write_quietly), nullptr, {p, i64, i64, i64});
    add_shared(j, std::move(ctx), std::move(mod));
    mem_read_wrapper = find_shared(j, "vplat_mem_read");
    mem_write_wrapper = find_shared(j, "vplat_mem_write");
    quiet_read_wrapper = find_shared(j, "vplat_read_quietly");
    quiet_write_wrapper = find_shared(j, "vplat_write_quietly");
    name_in_perf_map(quiet_read_wrapper, "vplat_read_quietly");
    name_in_perf_map(quiet_write_wrapper, "vplat_write_quietly");
    name_in_perf_map(mem_read_wrapper, "vplat_mem_read");
    name_in_perf_map(mem_write_wrapper, "vplat_mem_write");
  }

  llvm::JITEventListener* listener() { return perf_map ? &function_sizes : nullptr; }

  explicit Impl(bool synchronous) : sync(synchronous) {
    static std::once_flag init;
    std::call_once(init, [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      // Machine scheduling and loop strength reduction cost code generation time (~6%) for nothing
      // measurable in blocks (straight-line code, loops of one block). VPLAT_JIT_LLVM_ARGS: more options for
      // LLVM's code generator ("-regalloc=greedy": that allocator for both tiers), for tuning.
      {
        // -optimize-regalloc: at CodeGenOpt::None (jit_backlog) too, registers are allocated across the
        // basic blocks of a function (the other levels always do).
        std::vector<std::string> words{"vplat", "-enable-misched=false", "-disable-lsr",
                                       "-optimize-regalloc"};
        const char* v = std::getenv("VPLAT_JIT_LLVM_ARGS");
        if (!v || !std::strstr(v, "-regalloc")) words.emplace_back("-regalloc=vplat-tiered");
        for (std::string_view rest(v ? v : ""); !rest.empty();) {
          size_t sp = rest.find(' ');
          if (sp) words.emplace_back(rest.substr(0, sp));
          rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
        }
        std::vector<const char*> argv;
        for (auto& w : words) argv.push_back(w.c_str());
        if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &llvm::errs()))
          std::exit(2);
      }
    });
    // The first tier's blocks are many: fast instruction selection, at CodeGenOpt::Less for its register
    // allocator. At None, registers are allocated one basic block at a time, and a block of translated code
    // has many (memory fast and slow paths, exits): every value live from one into the next went through
    // the stack (on 50 modules of a boot and shell loop: 427k host instructions, 132k of them stack
    // accesses; at Less 245k and 5k, for ~3x the code generation time). Shell loop of 100k iterations in
    // the same session: 24.3 and 23.9 s at None, 15.7 and 16.9 s at Less; boot and sha256sum about the same.
    // The second tier's few blocks run for most of a workload's time: the full code generator. While
    // requests queue up (a boot), the first tier's modules are made at None with the same register
    // allocator as at Less (-optimize-regalloc): see backlog_requests.
    // VPLAT_JIT_CODEGEN=0..3: the first tier's code generator level otherwise, for tuning and tests.
    const llvm::CodeGenOpt::Level level = codegen_level("VPLAT_JIT_CODEGEN", llvm::CodeGenOpt::Less);
    jit = make_jit(level, true, listener());
    tier1_at_none = level == llvm::CodeGenOpt::None;
    // The second tier selects instructions fast off its blocks' likely paths (FullSelectionOnLikelyPaths).
    // VPLAT_JIT_T2_CODEGEN=0..3: the second tier's code generator level (2), for tuning.
    jit_opt = make_jit(codegen_level("VPLAT_JIT_T2_CODEGEN", llvm::CodeGenOpt::Default),
                       cold_paths_selected_fast(), listener());
    if (backlog_requests && !sync) jit_backlog = make_jit(llvm::CodeGenOpt::None, true, listener());
    enter = make_enter(*jit);
    name_in_perf_map(reinterpret_cast<const void*>(enter), "vplat_enter");
    if (!sync) worker = std::thread([this] { work(); });
  }

  ~Impl() {
    if (worker.joinable()) {
      {
        std::lock_guard<std::mutex> l(m);
        stopping = true;
      }
      cv.notify_all();
      worker.join();
    }
    // VPLAT_JIT_LLVM_ARGS="-time-passes": LLVM's report of its passes' times (nothing prints it otherwise in
    // a program that does not shut LLVM down).
    if (llvm::TimePassesIsEnabled) llvm::reportAndResetTimings(&llvm::errs());
    results.clear();
    blocks.clear();
    graveyard.code.clear();
    graveyard.slots.clear();
    graveyard.predecoded.clear();
  }

  // ---------------------------------------------------------------------------------- translation

  // IR for one block: uint64_t fn(State*, uint32_t attention) returning the instructions retired, with
  // kFaulted when the next one raised an exception.
  // One module for a batch of blocks: the code generator's set-up cost is paid once per module.
  std::vector<Result> compile(std::vector<Request>&& reqs) {
    // CPU time of this thread: the compile thread shares the host with the guest's.
    auto now = [] {
      timespec ts{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
    };
    const uint64_t t0 = now();
    const bool optimized = reqs.front().optimized; // a batch is of one tier
    const bool backlog = reqs.front().backlog && jit_backlog;
    llvm::orc::LLJIT& jit = optimized ? *jit_opt : backlog ? *jit_backlog : *this->jit;
    auto ctx = std::make_unique<llvm::LLVMContext>();
    auto mod = std::make_unique<llvm::Module>(optimized ? "blocks_t2" : "blocks", *ctx); // named for dumps
    mod->setDataLayout(jit.getDataLayout());
    std::vector<std::string> names;
    std::vector<size_t> first_exit;
    size_t exits = 0;
    for (const Request& req : reqs) {
      first_exit.push_back(exits);
      exits += exit_count(req.words);
    }
    std::unique_ptr<BlockExit[]> slots(new BlockExit[exits]());
    std::vector<bool> loops;
    for (size_t i = 0; i < reqs.size(); ++i) {
      names.push_back("blk" + std::to_string(reqs[i].key.va) + "_" + std::to_string(next_name_atomic()));
      loops.push_back(build_function(*ctx, *mod, reqs[i], names.back(), &slots[first_exit[i]]));
    }
    const uint64_t t1 = now();
    const uint64_t ir_before = ir_size(*mod);
    if (dump_pre && (optimized || !dump_tier2_only)) mod->print(llvm::errs(), nullptr);
    // The passes that make up for what CodeGenOpt::None leaves out, for the modules generated at it.
    optimize(*mod, optimized, !optimized && (backlog || tier1_at_none));
    // Where the IR is checked before the passes, it is checked after them too: a pass that breaks it
    // (a value used where it is not yet defined) makes code that runs wild.
    if (verify_ir && llvm::verifyModule(*mod, &llvm::errs())) {
      std::fprintf(stderr, "vplat: the JIT's passes made invalid IR for the block at 0x%llx\n",
                   static_cast<unsigned long long>(reqs[0].key.va));
      std::abort();
    }
    const uint64_t t2 = now();
    if (!optimized) {
      ir_tier1_before += ir_before;
      ir_tier1_after += ir_size(*mod);
      for (const Request& req : reqs) guest_tier1 += req.words.size();
    }
    if (dump_ir && (optimized || !dump_tier2_only)) mod->print(llvm::errs(), nullptr);
    auto rt = jit.getMainJITDylib().createResourceTracker();
    if (auto err = jit.addIRModule(rt, llvm::orc::ThreadSafeModule(std::move(mod), std::move(ctx))))
      jit_failed(std::move(err));
    // One lookup for the whole module: each lookup is a round trip through the execution session.
    llvm::orc::SymbolLookupSet wanted;
    std::vector<llvm::orc::SymbolStringPtr> symbols;
    for (const std::string& n : names) {
      symbols.push_back(jit.mangleAndIntern(n));
      wanted.add(symbols.back());
    }
    static FirstTierPasses first_tier_passes; // once the command line is parsed (the values it set)
    first_tier_codegen = !optimized;
    const bool fewer_passes = !optimized && !keep_codegen_passes;
    if (fewer_passes) first_tier_passes.apply(true);
    first_tier_fewer_passes = fewer_passes;
    auto found = jit.getExecutionSession().lookup(llvm::orc::makeJITDylibSearchOrder(&jit.getMainJITDylib()),
                                                  std::move(wanted));
    if (fewer_passes) first_tier_passes.apply(false);
    first_tier_codegen = first_tier_fewer_passes = false;
    if (!found) jit_failed(found.takeError());
    BlockExit* const exits_base = slots.get();
    auto code = std::make_shared<Chunk>(std::move(rt), std::move(slots), exits, &graveyard);
    std::vector<Result> out;
    for (size_t i = 0; i < reqs.size(); ++i) {
      Result r;
      r.fn = llvm::jitTargetAddressToPointer<BlockFn>((*found)[symbols[i]].getAddress());
      r.loops = loops[i];
      if (!optimized && counting_runs) r.runs = &exits_base[first_exit[i]].runs;
      if (perf_map) {
        char name[64];
        std::snprintf(name, sizeof name, "blk_%llx_el%u%s", static_cast<unsigned long long>(reqs[i].key.va),
                      reqs[i].key.el, reqs[i].optimized ? "_t2" : "");
        name_in_perf_map(reinterpret_cast<const void*>(r.fn), name, names[i]);
      }
      r.code = code;
      r.req = std::move(reqs[i]);
      out.push_back(std::move(r));
    }
    const uint64_t t3 = now();
    time_ir += t1 - t0;
    time_opt += t2 - t1;
    time_codegen += t3 - t2;
    ++modules;
    if (optimized) {
      time_tier2 += t3 - t0;
      time_tier2_opt += t2 - t1;
      time_tier2_codegen += t3 - t2;
    }
    return out;
  }
  // Where compile time goes (VPLAT_JIT_STATS): IR emission, the pass pipeline, code generation and linking;
  // and how much IR the first tier's guest instructions make before and after its passes.
  std::atomic<uint64_t> time_ir{0}, time_opt{0}, time_codegen{0}, modules{0}, time_tier2{0};
  std::atomic<uint64_t> time_tier2_opt{0}, time_tier2_codegen{0};
  std::atomic<uint64_t> ir_tier1_before{0}, ir_tier1_after{0}, guest_tier1{0};
  static uint64_t ir_size(const llvm::Module& mod) {
    uint64_t n = 0;
    for (const llvm::Function& fn : mod) n += fn.getInstructionCount();
    return n;
  }

  Result compile(Request&& req) {
    std::vector<Request> one;
    one.push_back(std::move(req));
    return std::move(compile(std::move(one)).front());
  }

  // IR for one block, a BlockFn (see there). Where a run ends at its budget (Core::RunEnd::AtBudget), a block
  // runs only if `limit` covers all of it; where it ends at a block boundary, a block runs if `limit` is not
  // used up, and leaves at the first block boundary it reaches past it (ends_block of the instruction just
  // run, or a region start: the end, a side exit, or a check after such an instruction inside the block),
  // except at the second tier, whose blocks run whole or not at all either way (`whole_runs`). Either way
  // the run ends exactly where the interpreter would end it.
  // Returns whether the block jumps back to its start.
  bool build_function(llvm::LLVMContext& lctx, llvm::Module& module, const Request& req,
                      const std::string& name, BlockExit* all_exits) {
    llvm::LLVMContext* ctx = &lctx;
    llvm::IRBuilder<> b(*ctx);
    auto* i64 = b.getInt64Ty();
    llvm::Function* f = make_block_function(module, name);
    llvm::FunctionType* ft = f->getFunctionType();
    llvm::Value* state = f->getArg(0);
    llvm::Value* attention = f->getArg(1);
    llvm::Value* limit = f->getArg(2);
    llvm::Value* done = f->getArg(3);
    b.SetInsertPoint(llvm::BasicBlock::Create(*ctx, "entry", f));
    // A block whose end jumps back to its own start loops inside the function (no call, and values may stay
    // in host registers from one iteration to the next): `limit` and `done` are per iteration. The checks
    // before the first iteration are made once (`checks`); a jump back makes the next iteration's itself
    // (loop_back).
    llvm::Value* const entry_limit = limit;
    llvm::Value* const entry_done = done;
    // A second-tier block (and each iteration of its loop) runs whole or not at all also where a run ends at
    // a block boundary: then the budget cannot run out inside, and no path through it tests it at its
    // internal block boundaries (the interpreter runs the few instructions past the budget instead).
    const bool whole_runs = req.optimized && state_cache;
    const bool miss_exits = miss_exits_on && (req.optimized || t1_miss_exits);
    auto* checks = llvm::BasicBlock::Create(*ctx, "checks", f);
    auto* loop = llvm::BasicBlock::Create(*ctx, "loop", f);
    b.CreateBr(checks);
    b.SetInsertPoint(loop);
    llvm::PHINode* done_phi = b.CreatePHI(i64, 2);
    llvm::PHINode* limit_phi = b.CreatePHI(i64, 2);
    limit = limit_phi;
    done = done_phi;
    bool loops = false; // whether any jump back was made (loop_back)
    // What the instructions up to the last jump back write (Ctx::written_so_far() there): an iteration that
    // jumped back wrote no more than that before the next one reaches any point.
    std::vector<bool> written_before_loop_back;
    std::function<void()> note_loop_back;
    auto loop_from = [&](llvm::BasicBlock* from, llvm::Value* limit_then, llvm::Value* done_then) {
      done_phi->addIncoming(done_then, from);
      limit_phi->addIncoming(limit_then, from);
    };
    auto* i8 = b.getInt8Ty();
    auto at_offset = [&](llvm::IRBuilder<>& bb, size_t offset) {
      return bb.CreateConstInBoundsGEP1_64(bb.getInt8Ty(), state, offset);
    };
    auto host_ptr = [&](llvm::IRBuilder<>& bb, const void* p) {
      return bb.CreateIntToPtr(bb.getInt64(reinterpret_cast<uintptr_t>(p)), bb.getPtrTy());
    };
    // Where a run ends at its budget, a block runs whole or not at all: when the budget left is shorter, it
    // returns at once and the run loop interprets up to the budget's end (one check here instead of one per
    // instruction). FP/SIMD blocks also return at once while FP traps (the run loop checks the first block
    // of a chain; this is the same check for the blocks jumped to).
    const unsigned n = static_cast<unsigned>(req.words.size());
    bool has_fp = false;
    for (uint32_t w : req.words)
      if (insn_flags(g::decode(w)) & kFlagFp) has_fp = true;
    // Exits, slow paths and faults are rare: marked so, code generation lays the fast path out as one
    // straight line and moves the rest out of the way.
    llvm::MDNode* unlikely = llvm::MDBuilder(*ctx).createBranchWeights(1, 1 << 20);
    llvm::MDNode* likely = llvm::MDBuilder(*ctx).createBranchWeights(1 << 20, 1);
    auto* decline = llvm::BasicBlock::Create(*ctx, "decline", f); // completed at the end
    // Where a declined run returns from: the first iteration's checks, or a jump back (`done` is then the
    // count so far).
    llvm::PHINode* decline_done = llvm::PHINode::Create(i64, 2, "declined_after", decline);
    // First tier, a budget shorter than the block: where the run ends at a block boundary the iteration runs
    // if any budget is left (an exit jumps here without testing it), else it is declined.
    auto run_on_or_decline = [&](llvm::IRBuilder<>& sb, llvm::Value* limit_then, llvm::Value* done_then) {
      loop_from(sb.GetInsertBlock(), limit_then, done_then);
      decline_done->addIncoming(done_then, sb.GetInsertBlock());
      llvm::Value* to_boundary =
          sb.CreateICmpNE(sb.CreateLoad(i8, at_offset(sb, off.run_to_boundary)), sb.getInt8(0));
      sb.CreateCondBr(sb.CreateAnd(to_boundary, sb.CreateICmpSGT(limit_then, sb.getInt64(0))), loop, decline);
    };
    {
      // FP traps are switched by system register writes and EL changes, outside blocks: tested before the
      // first iteration only.
      llvm::IRBuilder<> cb(checks);
      auto* short_budget = whole_runs ? decline : llvm::BasicBlock::Create(*ctx, "short_budget", f);
      if (has_fp) {
        auto* fp_ok = llvm::BasicBlock::Create(*ctx, "fp_ok", f);
        decline_done->addIncoming(entry_done, cb.GetInsertBlock());
        cb.CreateCondBr(cb.CreateICmpNE(cb.CreateLoad(i8, at_offset(cb, off.fp_trap)), cb.getInt8(0)),
                        decline, fp_ok, unlikely);
        cb.SetInsertPoint(fp_ok);
      }
      if (whole_runs) decline_done->addIncoming(entry_done, cb.GetInsertBlock());
      loop_from(cb.GetInsertBlock(), entry_limit, entry_done);
      cb.CreateCondBr(cb.CreateICmpSLT(entry_limit, cb.getInt64(n)), short_budget, loop, unlikely);
      if (!whole_runs) {
        cb.SetInsertPoint(short_budget);
        run_on_or_decline(cb, entry_limit, entry_done);
      }
    }
    // A jump back to the start after an iteration that retired `total`, leaving `left` of the budget: the
    // next iteration runs if the budget covers all of it (left >= n, the test before the first iteration),
    // and otherwise as the checks before the first would have it (0 < left < n: declined, or run where a run
    // ends at a block boundary, first tier); with the budget used up (or, with attention_between_blocks, the
    // attention flags changed), `otherwise`.
    auto loop_back = [&](llvm::IRBuilder<>& eb, llvm::Value* left, llvm::Value* total,
                         llvm::BasicBlock* otherwise) {
      loops = true;
      if (note_loop_back) note_loop_back();
      auto* again = llvm::BasicBlock::Create(*ctx, "again", f);
      auto* short_left = llvm::BasicBlock::Create(*ctx, "short_left", f);
      if (attention_between_blocks) {
        auto* whole = llvm::BasicBlock::Create(*ctx, "whole", f);
        eb.CreateCondBr(eb.CreateICmpSGE(left, eb.getInt64(n)), whole, short_left, likely);
        eb.SetInsertPoint(whole);
        eb.CreateCondBr(eb.CreateICmpEQ(load_attention(eb, state), attention), again, otherwise, likely);
      } else {
        eb.CreateCondBr(eb.CreateICmpSGE(left, eb.getInt64(n)), again, short_left, likely);
      }
      llvm::IRBuilder<>(again).CreateBr(loop);
      loop_from(again, left, total);
      llvm::IRBuilder<> sb(short_left);
      auto* declines = llvm::BasicBlock::Create(*ctx, "short_budget", f);
      sb.CreateCondBr(chain_goes_on(sb, state, attention, left), declines, otherwise);
      sb.SetInsertPoint(declines);
      if (whole_runs) {
        decline_done->addIncoming(total, declines);
        sb.CreateBr(decline);
      } else {
        run_on_or_decline(sb, left, total);
      }
    };
    // A first-tier block counts its runs, so that the run loop sees where the time goes inside chains of
    // linked blocks, which rarely start at the hot blocks (Impl::promote_hot). One add to memory per run.
    if (!req.optimized && counting_runs) {
      llvm::Value* runs = host_ptr(b, &all_exits[0].runs);
      b.CreateStore(b.CreateAdd(b.CreateLoad(i64, runs), b.getInt64(1)), runs);
    }

    vplat::adljit::Ctx c(b, state);
    c.vector_lanes = req.optimized && vector_lanes_on();
    note_loop_back = [&] {
      std::vector<bool> now = c.written_so_far();
      if (written_before_loop_back.size() < now.size()) written_before_loop_back.resize(now.size());
      for (size_t v = 0; v < now.size(); ++v)
        written_before_loop_back[v] = written_before_loop_back[v] || now[v];
    };
    // The general-purpose, flag and vector registers, and the next PC a branch computes: what the memory
    // helpers neither read nor write. (In the second tier's state cache, a branch's target is then an SSA
    // value, stored at the exits only.)
    auto is_register = [](size_t o) {
      return o < offsetof(g::State, PC) || o == offsetof(g::State, NPC) ||
             (o >= offsetof(g::State, NF) && o <= offsetof(g::State, VF)) ||
             (o >= offsetof(g::State, V) && o < offsetof(g::State, V) + sizeof(g::State::V));
    };
    c.set_register_scope(is_register);
    // Second tier (unless VPLAT_JIT_STATE_CACHE=0): guest registers and flags live in SSA values for the
    // whole block (loops included) and reach the state at the exits and around helper calls (helpers take the
    // state and may read or write any of it; the memory helpers touch none of these).
    if (req.optimized && state_cache) {
      c.enable_state_cache(&f->getEntryBlock(), is_register);
      // NPC: the run loop sets it before each instruction it runs, and no helper uses it (the exits store
      // their target in PC).
      c.set_local_only([](size_t o) { return o == offsetof(g::State, NPC); });
    }
    // Where the cache reaches the state. The stores are placed once the whole block is built: a block that
    // loops back to its start reaches an exit or a call with what instructions up to its last jump back wrote
    // in the previous iteration, so there each point writes back that and what the instructions before it
    // write; in a block that does not loop, only the latter (an exit before the block's compare stored the
    // flags it had loaded, and so kept them loaded and in a register or a stack slot all the way).
    struct WriteBack {
      llvm::BasicBlock* block = nullptr;
      std::vector<bool> written; // Ctx::written_so_far() where it was made
      // For an exit before an instruction ran (a TLB miss exit): the values as they were where that
      // instruction's code began, after `start_after` in `start_block` (at its start when null).
      bool before_insn = false;
      llvm::BasicBlock* start_block = nullptr;
      llvm::Instruction* start_after = nullptr;
    };
    std::vector<WriteBack> write_backs;
    // A write-back point at `eb` (its stores are placed once the block is built); `point`'s `block` is filled
    // here. By default what was written so far, as it is there.
    auto write_back = [&](llvm::IRBuilder<>& eb, WriteBack point = {}) {
      if (!c.state_cache_enabled()) return;
      auto* wb = llvm::BasicBlock::Create(*ctx, "write_back", f);
      auto* cont = llvm::BasicBlock::Create(*ctx, "written", f);
      eb.CreateBr(wb);
      llvm::IRBuilder<>(wb).CreateBr(cont);
      point.block = wb;
      if (!point.before_insn) point.written = c.written_so_far();
      write_backs.push_back(std::move(point));
      eb.SetInsertPoint(cont);
    };
    // The memory helpers read and write none of the cached state: the cache reaches the state on their
    // fault path only (their slow paths are many, and a write-back of the whole cache in each made most of
    // the second tier's IR in load/store-heavy blocks).
    auto memory_helper = [](void* fn) {
      return fn == reinterpret_cast<void*>(&g::mem_read) || fn == reinterpret_cast<void*>(&g::mem_write);
    };
    llvm::BasicBlock* memory_fault = nullptr; // of the current instruction: write-back, then its fault exit
    if (c.state_cache_enabled()) {
      c.around_call = [&](void* fn, bool after) {
        if (memory_helper(fn)) return;
        if (!after)
          write_back(b);
        else
          c.reload(b); // no variable is made after the first call (Ctx::cached), so this list is complete
      };
      c.keeps_registers = memory_helper;
      c.fault_exit_for = [&](void* fn) -> llvm::BasicBlock* {
        if (!memory_helper(fn)) return nullptr;
        if (!memory_fault) {
          memory_fault = llvm::BasicBlock::Create(*ctx, "memory_fault", f);
          llvm::IRBuilder<> mb(memory_fault);
          write_back(mb);
          mb.CreateBr(c.fault_block());
        }
        return memory_fault;
      };
    }
    if (preserving_calls)
      c.preserving_wrapper = [this](void* fn) -> vplat::adljit::Ctx::Wrapper {
        if (fn == reinterpret_cast<void*>(&g::mem_read)) return {mem_read_wrapper, off.wrapper_result};
        if (fn == reinterpret_cast<void*>(&g::mem_write)) return {mem_write_wrapper, 0};
        return {};
      };
    unsigned access_el = req.key.el; // EL whose TLB data accesses use (0 for LDTR/STTR)
    Accesses accesses;
    c.inline_call = [&](void* fn, const std::vector<llvm::Value*>& args, llvm::Value*& result) {
      return inline_memory(c, fn, args, access_el, result, accesses) ||
             inline_sysreg(c, fn, args, req.key.el, result);
    };
    c.pc_offset = offsetof(g::State, PC);
    c.fault_flag_offset = offsetof(g::State, EXC);
    const size_t npc = offsetof(g::State, NPC), pc_off = offsetof(g::State, PC);
    auto store64 = [&](llvm::IRBuilder<>& bb, size_t offset, llvm::Value* v) {
      bb.CreateStore(v, bb.CreateConstInBoundsGEP1_64(bb.getInt8Ty(), state, offset));
    };
    // --cpu-stats: one more run on entry; an exit that retires k < n instructions calls `uncount` for the
    // ids from k on (see JitEngine::count_instructions).
    llvm::GlobalVariable* ids = nullptr;
    auto uncount_from = [&](llvm::IRBuilder<>& eb, llvm::Value* k) {
      if (!ids) return;
      auto* ft = llvm::FunctionType::get(eb.getVoidTy(), {eb.getPtrTy(), eb.getPtrTy(), i64}, false);
      llvm::Value* callee =
          eb.CreateIntToPtr(eb.getInt64(reinterpret_cast<uintptr_t>(&uncount)), eb.getPtrTy());
      eb.CreateCall(ft, callee,
                    {state, eb.CreateInBoundsGEP(eb.getInt16Ty(), ids, k), eb.CreateSub(eb.getInt64(n), k)});
    };
    if (req.count_slot != kNoSlot) {
      std::vector<uint16_t> id_list;
      for (uint32_t w : req.words) id_list.push_back(static_cast<uint16_t>(g::decode(w)));
      llvm::Constant* init = llvm::ConstantDataArray::get(*ctx, llvm::ArrayRef<uint16_t>(id_list));
      ids = new llvm::GlobalVariable(module, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                     name + "_ids");
      llvm::Value* table =
          b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.block_runs));
      llvm::Value* counter = b.CreateConstInBoundsGEP1_64(i64, table, req.count_slot);
      b.CreateStore(b.CreateAdd(b.CreateLoad(i64, counter), b.getInt64(1)), counter);
    }
    // The block's end, PC = `target` (stored here where the block does not loop back to its start), `k`
    // instructions retired: jump to the block an exit slot holds for `target` (with attention_between_blocks,
    // if the budget covers more and the attention flags are as the chain began) if the fetch TLB maps
    // `target` to that block's page, which declines if the budget is used up; else return to the run loop,
    // telling it which slots to fill.
    unsigned exits_made = 0;
    // The first tier's shared exit tail (made by the first exit that needs it) and its incoming values.
    struct {
      llvm::BasicBlock* block = nullptr;
      llvm::PHINode *target = nullptr, *exit = nullptr, *left = nullptr, *total = nullptr, *page_ok = nullptr;
    } tail;
    // First tier: a direct link's test of the target's page. On the exit's own page none is needed (see
    // Impl::link); a target on another page known when the block is made (a B or BL, a conditional branch
    // taken, the fall-through past the page's end) is tested against the fetch TLB entry for it, at a
    // constant offset. Calls to other pages had gone through the shared probe (a shell loop: ~70 M of a
    // boot's and the loop's ~105 M probe runs), whose one indirect jump all exits share.
    auto direct_page_test = [&](llvm::IRBuilder<>& eb, BlockExit* exit, llvm::Value* target, unsigned k) {
      uint64_t to = 0;
      if (auto* c_to = llvm::dyn_cast<llvm::ConstantInt>(target))
        to = c_to->getZExtValue();
      else if (!direct_branch_target(req.words[k - 1], req.key.va + 4ull * (k - 1), to))
        return static_cast<llvm::Value*>(eb.getTrue()); // unknown: link() links it on its own page only
      if ((to & ~0xfffull) == exit->page_va) return static_cast<llvm::Value*>(eb.getTrue());
      exit->checks_mapping = 1;
      exit->mapped_page = to & ~0xfffull; // the page tested: link() links no other
      const size_t entry = off.itlb + (req.key.el * Core::kTlbSize + ((to >> 12) & (Core::kTlbSize - 1))) *
                                          sizeof(Core::TlbEntry);
      llvm::Value* fetch = eb.CreateLoad(i64, at_offset(eb, entry + offsetof(Core::TlbEntry, fetch)));
      llvm::Value* epa = eb.CreateLoad(i64, at_offset(eb, entry + offsetof(Core::TlbEntry, pa)));
      return eb.CreateAnd(eb.CreateICmpEQ(fetch, eb.getInt64(to & ~0xfffull)),
                          eb.CreateICmpEQ(epa, eb.CreateLoad(i64, host_ptr(eb, &exit->direct_pa))));
    };
    // Whether the point after the block's first k instructions is a block boundary (Core::RunEnd).
    auto boundary_after = [&](unsigned k) {
      return ends_block(g::decode(req.words[k - 1])) || (req.key.va + 4ull * k) % kRegionBytes == 0;
    };
    // `targets`: what the exit's target may be (one constant, either way of a conditional branch, or
    // anything: an indirect branch).
    enum class Targets { One, Two, Any };
    // Whether a direct branch's target, read from the next PC, may be this block's start. The next PC is a
    // local variable of the block (the state cache's, second tier) that branches set to constants
    // (decode-time fields folded), either way of a conditional one, or selects between constants: if no
    // constant the branch stores there is the start, the exit does not loop. Without this every block that
    // ends in B or BL or has a side exit counted as one that loops, whose write-backs stored all it writes
    // anywhere, loaded at its entry for the purpose; and with the stores of every branch before it counted, a
    // branch after a loop's jump back did (its write-backs then stored what the code after it writes).
    // (Anything else stored there, and the first tier's next PC in memory: it may.) `earlier_npc_stores`:
    // the stores of the instructions before the current branch, which stores PC + 4 there first.
    std::unordered_set<const llvm::User*> earlier_npc_stores;
    auto may_be_start = [&](llvm::Value* target) {
      auto* load = llvm::dyn_cast<llvm::LoadInst>(target);
      auto* var = load ? llvm::dyn_cast<llvm::AllocaInst>(load->getPointerOperand()) : nullptr;
      if (!var) return true;
      bool start = false, known = true;
      auto note = [&](llvm::Value* v) {
        if (auto* k = llvm::dyn_cast<llvm::ConstantInt>(v))
          start |= k->getZExtValue() == req.key.va;
        else
          known = false;
      };
      for (llvm::User* u : var->users()) {
        auto* st = llvm::dyn_cast<llvm::StoreInst>(u);
        if (!st || st->getPointerOperand() != var || earlier_npc_stores.count(st)) continue;
        llvm::Value* v = st->getValueOperand();
        // The cache's load of the state's stale next PC at the function's start, which no branch reads.
        if (st->getParent() == &f->getEntryBlock() && llvm::isa<llvm::LoadInst>(v)) continue;
        if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
          note(sel->getTrueValue());
          note(sel->getFalseValue());
        } else {
          note(v);
        }
      }
      return start || !known;
    };
    auto chain = [&](llvm::IRBuilder<>& eb, llvm::Value* target, unsigned k, Targets targets) {
      const bool indirect = targets == Targets::Any;
      BlockExit* exit = all_exits + exits_made++;
      exit->page_va = req.key.va & ~0xfffull;
      exit->page_pa = req.key.pa & ~0xfffull;
      exit->el = req.key.el;
      exit->any_target = indirect;
      exit->boundary = boundary_after(k);
      ExitSlot* exits = exit->slots;
      if (k < n) uncount_from(eb, eb.getInt64(k)); // a side exit: the rest of the block did not run
      llvm::Value* total = eb.CreateAdd(done, eb.getInt64(k));
      llvm::Value* left = eb.CreateSub(limit, eb.getInt64(k));
      if (chain_probe && !req.optimized) {
        // First tier: only a jump back to this block's own start stays here; every other exit goes to the
        // shared probe, which finds the next block or returns to the run loop (see make_probe).
        auto* maybe_loop = llvm::BasicBlock::Create(*ctx, "maybe_loop", f);
        auto* to_probe = llvm::BasicBlock::Create(*ctx, "to_probe", f);
        eb.CreateCondBr(eb.CreateICmpEQ(target, eb.getInt64(req.key.va)), maybe_loop, to_probe);
        eb.SetInsertPoint(maybe_loop);
        loop_back(eb, left, total, to_probe);
        exit->linkable = targets == Targets::One && exit->boundary;
        if (!shared_exit_tail) {
          eb.SetInsertPoint(to_probe);
          store64(eb, pc_off, target);
          eb.CreateStore(host_ptr(eb, exit), at_offset(eb, off.last_exit));
          llvm::Value* next = host_ptr(eb, chain_probe);
          if (exit->linkable) {
            // The link is of the current generation (see budget_at_target for the budget and
            // attention_between_blocks for the flags).
            llvm::Value* go_on = eb.CreateICmpEQ(eb.CreateLoad(i64, host_ptr(eb, &exit->direct_gen)),
                                                 eb.CreateLoad(i64, at_offset(eb, off.cache_gen)));
            if (exits_test_budget())
              go_on = eb.CreateAnd(chain_goes_on(eb, state, attention, left, true), go_on);
            go_on = eb.CreateAnd(go_on, direct_page_test(eb, exit, target, k));
            eb.CreateStore(target, host_ptr(eb, &exit->target));
            next = eb.CreateSelect(go_on, eb.CreateLoad(eb.getPtrTy(), host_ptr(eb, &exit->direct)), next);
          }
          llvm::CallInst* call = eb.CreateCall(ft, next, {state, attention, left, total});
          call->setCallingConv(kBlockCallingConv);
          call->setTailCallKind(llvm::CallInst::TCK_MustTail);
          eb.CreateRet(call);
          return;
        }
        // Every exit of the function ends in one tail, which makes the direct link's tests with the exit's
        // record as a value: an exit that cannot link never has the current generation in `direct_gen`
        // (generations start at 1), so its test sends it to the probe. A jump and a return are code the
        // fast instruction selector leaves to the full one, for the whole basic block that holds them:
        // with a tail per exit, a fifth of the first tier's IR was selected the slow way.
        if (!tail.block) {
          tail.block = llvm::BasicBlock::Create(*ctx, "exit_tail", f);
          llvm::IRBuilder<> tb(tail.block);
          tail.target = tb.CreatePHI(i64, 4);
          tail.exit = tb.CreatePHI(tb.getPtrTy(), 4);
          tail.left = tb.CreatePHI(i64, 4);
          tail.total = tb.CreatePHI(i64, 4);
          tail.page_ok = tb.CreatePHI(tb.getInt1Ty(), 4);
          store64(tb, pc_off, tail.target);
          tb.CreateStore(tail.exit, at_offset(tb, off.last_exit));
          tb.CreateStore(tail.target,
                         tb.CreateConstInBoundsGEP1_64(i8, tail.exit, offsetof(BlockExit, target)));
          llvm::Value* linked_gen = tb.CreateLoad(
              i64, tb.CreateConstInBoundsGEP1_64(i8, tail.exit, offsetof(BlockExit, direct_gen)));
          llvm::Value* go_on = tb.CreateICmpEQ(linked_gen, tb.CreateLoad(i64, at_offset(tb, off.cache_gen)));
          if (exits_test_budget())
            go_on = tb.CreateAnd(chain_goes_on(tb, state, attention, tail.left, true), go_on);
          go_on = tb.CreateAnd(go_on, tail.page_ok);
          llvm::Value* direct = tb.CreateLoad(
              tb.getPtrTy(), tb.CreateConstInBoundsGEP1_64(i8, tail.exit, offsetof(BlockExit, direct)));
          llvm::Value* next = tb.CreateSelect(go_on, direct, host_ptr(tb, chain_probe));
          llvm::CallInst* call = tb.CreateCall(ft, next, {state, attention, tail.left, tail.total});
          call->setCallingConv(kBlockCallingConv);
          call->setTailCallKind(llvm::CallInst::TCK_MustTail);
          tb.CreateRet(call);
        }
        tail.target->addIncoming(target, to_probe);
        tail.exit->addIncoming(host_ptr(eb, exit), to_probe);
        tail.left->addIncoming(left, to_probe);
        tail.total->addIncoming(total, to_probe);
        llvm::IRBuilder<> pb(to_probe);
        tail.page_ok->addIncoming(exit->linkable ? direct_page_test(pb, exit, target, k) : pb.getTrue(),
                                  to_probe);
        pb.CreateBr(tail.block);
        return;
      }
      // A jump back to this block's start loops here (if the budget covers the next iteration whole; see
      // loop_back); every other way out writes the state
      // cache back once, before the slots are tried. (The loop's tests are branches of their own: as one
      // conjunction, code generation made each of its truth values in a register, then their AND.)
      auto* out = llvm::BasicBlock::Create(*ctx, "out", f);
      auto* leave = llvm::BasicBlock::Create(*ctx, "leave", f);
      // An indirect branch, which rarely goes there, does not loop: the state cache would carry every
      // variable the block writes around that back edge, so a block ending in RET loaded them all at its
      // entry and stored them all at each exit (see "Write-backs" in cpu-dbt/README.md), for a jump that
      // the exit's jump cache makes as well.
      auto* c_target = llvm::dyn_cast<llvm::ConstantInt>(target);
      if (c_target ? c_target->getZExtValue() == req.key.va : !indirect && may_be_start(target)) {
        if (!c_target) {
          auto* to_start = llvm::BasicBlock::Create(*ctx, "to_start", f);
          eb.CreateCondBr(eb.CreateICmpEQ(target, eb.getInt64(req.key.va)), to_start, leave);
          eb.SetInsertPoint(to_start);
        }
        loop_back(eb, left, total, leave);
      } else {
        eb.CreateBr(leave);
      }
      eb.SetInsertPoint(leave);
      write_back(eb);
      auto* probe = llvm::BasicBlock::Create(*ctx, "probe", f);
      if (exits_test_budget())
        eb.CreateCondBr(chain_goes_on(eb, state, attention, left), probe, out, likely);
      else
        eb.CreateBr(probe);
      eb.SetInsertPoint(probe);
      llvm::Value* gen = eb.CreateLoad(i64, at_offset(eb, off.cache_gen));
      auto field = [&](const void* p) { return eb.CreateLoad(i64, host_ptr(eb, p)); };
      // An exit with one target only ever links it, into the first slot (link()): a current generation says
      // the slot holds it.
      const bool direct = targets == Targets::One;
      const unsigned slots = direct ? 1 : kExitSlots;
      std::array<llvm::Value*, kExitSlots> hit{};
      std::array<llvm::BasicBlock*, kExitSlots> jump{};
      for (unsigned j = 0; j < slots; ++j) {
        hit[j] = eb.CreateICmpEQ(field(&exits[j].gen), gen);
        if (!direct) hit[j] = eb.CreateAnd(eb.CreateICmpEQ(field(&exits[j].va), target), hit[j]);
        jump[j] = llvm::BasicBlock::Create(*ctx, "jump", f);
        llvm::IRBuilder<> jb(jump[j]);
        llvm::Value* fn = jb.CreateLoad(jb.getPtrTy(), host_ptr(jb, &exits[j].fn));
        llvm::CallInst* call = jb.CreateCall(ft, fn, {state, attention, left, total});
        call->setCallingConv(kBlockCallingConv);
        call->setTailCallKind(llvm::CallInst::TCK_MustTail);
        jb.CreateRet(call);
      }
      // A target on this block's own page needs no TLB check: the chain entered this block through the
      // page's current mapping, and nothing in a block can change it (TLB maintenance and translation
      // registers are interpreted); so the slot's block, found at this VA, is on this block's physical page.
      auto* same = llvm::BasicBlock::Create(*ctx, "same_page", f);
      auto* other = llvm::BasicBlock::Create(*ctx, "other_page", f);
      eb.CreateCondBr(
          eb.CreateICmpEQ(eb.CreateAnd(target, eb.getInt64(~0xfffull)), eb.getInt64(req.key.va & ~0xfffull)),
          same, other);
      // The jump cache after both slots missed: `page` is the physical page the target must be on.
      auto probe_jump_cache = [&](llvm::Value* page, llvm::Value* mapped) {
        llvm::Value* entry =
            eb.CreateGEP(i8, host_ptr(eb, jump_cache.get()),
                         eb.CreateMul(jump_index_ir(eb, target), eb.getInt64(sizeof(JumpEntry))));
        auto member = [&](size_t offset) {
          return eb.CreateLoad(i64, eb.CreateConstInBoundsGEP1_64(i8, entry, offset));
        };
        llvm::Value* ok =
            eb.CreateAnd(eb.CreateICmpEQ(member(offsetof(JumpEntry, tag)), eb.CreateOr(target, req.key.el)),
                         eb.CreateICmpEQ(member(offsetof(JumpEntry, gen)), gen));
        ok = eb.CreateAnd(ok, eb.CreateICmpEQ(member(offsetof(JumpEntry, pa_page)), page));
        if (mapped) ok = eb.CreateAnd(ok, mapped);
        auto* go = llvm::BasicBlock::Create(*ctx, "jump_cached", f);
        auto* miss = llvm::BasicBlock::Create(*ctx, "miss", f);
        eb.CreateCondBr(ok, go, miss);
        llvm::IRBuilder<> jb(go);
        llvm::Value* fn =
            jb.CreateLoad(jb.getPtrTy(), jb.CreateConstInBoundsGEP1_64(i8, entry, offsetof(JumpEntry, fn)));
        llvm::CallInst* call = jb.CreateCall(ft, fn, {state, attention, left, total});
        call->setCallingConv(kBlockCallingConv);
        call->setTailCallKind(llvm::CallInst::TCK_MustTail);
        jb.CreateRet(call);
        eb.SetInsertPoint(miss);
      };
      eb.SetInsertPoint(same);
      for (unsigned j = 0; j < slots; ++j) {
        auto* miss = llvm::BasicBlock::Create(*ctx, "miss", f);
        eb.CreateCondBr(hit[j], jump[j], miss);
        eb.SetInsertPoint(miss);
      }
      if (indirect) probe_jump_cache(eb.getInt64(req.key.pa & ~0xfffull), nullptr);
      eb.CreateBr(out);
      eb.SetInsertPoint(other);
      const size_t bank = off.itlb + req.key.el * sizeof(Core::TlbEntry) * Core::kTlbSize;
      llvm::Value* entry = eb.CreateGEP(i8, at_offset(eb, bank), tlb_entry_offset(eb, target));
      llvm::Value* fetch =
          eb.CreateLoad(i64, eb.CreateConstInBoundsGEP1_64(i8, entry, offsetof(Core::TlbEntry, fetch)));
      llvm::Value* epa =
          eb.CreateLoad(i64, eb.CreateConstInBoundsGEP1_64(i8, entry, offsetof(Core::TlbEntry, pa)));
      llvm::Value* mapped = eb.CreateICmpEQ(fetch, eb.CreateAnd(target, eb.getInt64(~0xfffull)));
      for (unsigned j = 0; j < slots; ++j) {
        auto* miss = llvm::BasicBlock::Create(*ctx, "miss", f);
        eb.CreateCondBr(
            eb.CreateAnd(eb.CreateAnd(hit[j], mapped), eb.CreateICmpEQ(field(&exits[j].pa_page), epa)),
            jump[j], miss);
        eb.SetInsertPoint(miss);
      }
      if (indirect) probe_jump_cache(epa, mapped);
      eb.CreateBr(out);
      // PC only on the way back to the run loop: a block jumped to never reads it (it stores its own where a
      // helper or a fault may look, and where it declines).
      eb.SetInsertPoint(out);
      store64(eb, pc_off, target);
      eb.CreateStore(host_ptr(eb, exits), at_offset(eb, off.last_exit));
      eb.CreateRet(boundary_after(k) ? eb.CreateOr(total, eb.getInt64(kAtBoundary)) : total);
    };
    // Returns to the run loop after instruction i (not the last) when `cond` holds, at the next instruction.
    auto leave_after_if = [&](unsigned i, llvm::Value* cond, const char* why) {
      const uint64_t next = req.key.va + 4ull * (i + 1);
      auto* leave = llvm::BasicBlock::Create(*ctx, why, f);
      auto* cont = llvm::BasicBlock::Create(*ctx, "next", f);
      b.CreateCondBr(cond, leave, cont, unlikely);
      llvm::IRBuilder<> lb(leave);
      write_back(lb);
      store64(lb, pc_off, lb.getInt64(next));
      uncount_from(lb, lb.getInt64(i + 1));
      llvm::Value* total = lb.CreateAdd(done, lb.getInt64(i + 1));
      lb.CreateRet(boundary_after(i + 1) ? lb.CreateOr(total, lb.getInt64(kAtBoundary)) : total);
      b.SetInsertPoint(cont);
    };
    // After instruction i, a block boundary inside the block: where a run that ends at a block boundary and
    // has used up its budget leaves (never where it ends at the budget: then `limit` covers the block).
    auto leave_if_budget_used = [&](unsigned i) {
      leave_after_if(i, b.CreateICmpSLE(limit, b.getInt64(i + 1)), "budget_used");
    };
    bool ended = false;
    for (unsigned i = 0; i < n && !ended; ++i) {
      const uint32_t insn = req.words[i];
      const uint64_t pc = req.key.va + 4ull * i;
      // Where this instruction's code begins, for an exit that leaves before it ran.
      llvm::BasicBlock* const start_block = b.GetInsertBlock();
      llvm::Instruction* const start_after = start_block->empty() ? nullptr : &start_block->back();
      const std::vector<bool> written_at_start = miss_exits ? c.written_so_far() : std::vector<bool>{};
      const int id = g::decode(insn);
      const auto& info = g::kInsnInfo[id];
      const uint8_t flags = insn_flags(id);
      const bool branch = role_of(id, insn) == Role::Last;
      const bool sp_check = (flags & kFlagSpBase) && ((insn >> 5) & 31) == 31;
      const bool unpriv = (flags & kFlagUnpriv) && Core::unprivileged(insn);
      const bool fallback = g::kJitFallback[id] != nullptr;
      // Anything that may raise an exception needs PC (the return address) and the instruction word.
      const bool precise = info.may_fault || sp_check || fallback;
      c.pc = pc;
      c.unsupported = false;
      // Where an exception raised by this instruction leaves the block: i instructions completed.
      c.fault_bb = nullptr;
      memory_fault = nullptr;
      c.make_fault_bb = [&, pc, i] {
        auto* fault = llvm::BasicBlock::Create(*ctx, "fault", f);
        llvm::IRBuilder<> fb(fault);
        uncount_from(fb, fb.getInt64(i));
        fb.CreateRet(fb.CreateOr(fb.CreateAdd(done, fb.getInt64(i)), fb.getInt64(kFaulted)));
        return fault;
      };
      // Exceptions are raised, and the clock and devices read, by helpers only: the fast paths of inlined
      // loads and stores need neither. Core::retired_exact (the virtual clock) reads block_done_.
      // Only a helper call can change the attention flags, so they are checked after instructions that
      // emitted one, on the paths that made a call: `helper_ran` is a constant on every path once promoted
      // to SSA, and the passes thread the branch on it, so the fast paths of loads and stores skip the test.
      bool called = false;
      llvm::AllocaInst* helper_ran = nullptr;
      c.before_call = nullptr;
      if (precise) {
        helper_ran = c.local(b.getInt1Ty());
        b.CreateStore(b.getFalse(), helper_ran);
        c.before_call = [&, pc, insn, i, helper_ran] {
          called = true;
          b.CreateStore(b.getTrue(), helper_ran);
          store64(b, pc_off, b.getInt64(pc));
          b.CreateStore(b.getInt32(insn), at_offset(b, off.cur_insn));
          store64(b, off.block_done, b.CreateAdd(done, b.getInt64(i)));
        };
      }
      // Second tier: a load or store that misses the soft TLB calls read_quietly or write_quietly, which
      // raise nothing and reach no device; where they decline, the block leaves before the instruction,
      // with the state as it was then, and the run loop runs that instruction (and the rest of the block)
      // interpreted. So the slow path has no fault exit, and the instruction no attention test: one
      // write-back per access instead of two (second-tier compile work -6% and -9% on two kernels of
      // bench/jit-kernels).
      // Not once a helper of the instruction has been called or guest memory written (its effects are
      // done: only_locals_stored), nor for LDTR/STTR (their access EL is set in the state around them).
      leave_before_access = nullptr;
      may_leave = nullptr;
      if (miss_exits && !unpriv) {
        may_leave = [&, start_block, start_after](llvm::BasicBlock* from) {
          return !called && only_locals_stored(from, start_block, start_after);
        };
        leave_before_access = [&, i, pc, start_block, start_after](llvm::IRBuilder<>& lb) {
          uncount_from(lb, lb.getInt64(i));
          store64(lb, pc_off, lb.getInt64(pc));
          lb.CreateStore(llvm::ConstantPointerNull::get(lb.getPtrTy()), at_offset(lb, off.last_exit));
          write_back(lb, {nullptr, written_at_start, true, start_block, start_after});
          lb.CreateRet(lb.CreateOr(lb.CreateAdd(done, lb.getInt64(i)), lb.getInt64(kMissedTlb)));
        };
      }
      if (sp_check) {
        // SCTLR_EL1.SA/SA0 for the current EL, cached in the core: an unaligned SP base faults first.
        llvm::LoadInst* chk =
            b.CreateLoad(b.getInt8Ty(), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.sp_check));
        c.like_registers(chk); // changed by SCTLR writes and EL changes, outside blocks
        llvm::Value* sp = c.load_elem(offsetof(g::State, X), 64, false, c.k64(31));
        llvm::Value* bad =
            b.CreateAnd(b.CreateICmpNE(chk, b.getInt8(0)), b.CreateICmpNE(b.CreateAnd(sp, 15), c.k64(0)));
        auto* raise = llvm::BasicBlock::Create(*ctx, "sp_align", f);
        auto* cont = llvm::BasicBlock::Create(*ctx, "sp_ok", f);
        b.CreateCondBr(bad, raise, cont, unlikely);
        b.SetInsertPoint(raise);
        c.call_helper(reinterpret_cast<void*>(&raise_sp_alignment), vplat::adljit::Ctx::Ret::Void, true, {},
                      false);
        b.CreateBr(c.fault_block());
        b.SetInsertPoint(cont);
      }
      // Core::set_access_el: the EL and its data TLB bank (which the interpreter functions index).
      auto set_access_el = [&](unsigned el) {
        b.CreateStore(b.getInt32(el), b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.access_el));
        b.CreateStore(
            b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.tlb + el * sizeof(Core::TlbEntry) * Core::kTlbSize),
            b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, off.data_tlb));
      };
      if (unpriv) set_access_el(0);
      access_el = unpriv ? 0 : req.key.el;
      if (branch) {
        c.store_state(npc, 64, c.k64(pc + 4));
        earlier_npc_stores.clear();
        if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&b.GetInsertBlock()->back()))
          for (const llvm::User* u : st->getPointerOperand()->users())
            if (u != st) earlier_npc_stores.insert(u);
      }
      if (fallback || !g::kJitEmit[id](c, insn)) {
        ++stats_fallback;
        c.call_helper(reinterpret_cast<void*>(g::kExec[id]), vplat::adljit::Ctx::Ret::Void, true,
                      {c.k64(insn)}, true);
      }
      if (flags & kFlagExclLoad)
        c.call_helper(reinterpret_cast<void*>(&note_exclusive_load), vplat::adljit::Ctx::Ret::Void, true, {},
                      false);
      if (unpriv) set_access_el(req.key.el);
      if (branch && i + 1 < n) { // a conditional branch inside the block: a side exit when taken
        llvm::Value* target = c.load_state(npc, 64, false);
        auto* taken = llvm::BasicBlock::Create(*ctx, "taken", f);
        auto* stay = llvm::BasicBlock::Create(*ctx, "not_taken", f);
        llvm::Value* leaving = b.CreateICmpNE(target, b.getInt64(pc + 4));
        // With the state cache, a run whose budget is used up here leaves through the same exit, not taken
        // (PC = NPC = the next instruction; the exit does not jump on with the budget used up): one
        // write-back of the cache on the way out instead of two, and the flags the branch tested are then
        // used only on the way out, so the passes sink their computation there when nothing else reads them.
        const bool one_way_out = c.state_cache_enabled();
        if (one_way_out && !whole_runs)
          leaving = b.CreateOr(leaving, b.CreateICmpSLE(limit, b.getInt64(i + 1)));
        b.CreateCondBr(leaving, taken, stay);
        llvm::IRBuilder<> tb(taken);
        chain(tb, target, i + 1, Targets::One);
        b.SetInsertPoint(stay);
        if (!one_way_out) leave_if_budget_used(i);
        continue;
      }
      if (branch) {
        llvm::Value* target = c.load_state(npc, 64, false);
        chain(b, target, i + 1,
              std::string_view(info.cls) == "branch_imm" ? Targets::One
              : is_conditional_branch(id)                ? Targets::Two
                                                         : Targets::Any);
        ended = true;
        break;
      }
      if (called && i + 1 < n) {
        // A device access may have raised an interrupt, or a store overwritten translated code: return to
        // the run loop, which looks at the attention flags before the next instruction as it always does.
        auto* check = llvm::BasicBlock::Create(*ctx, "attention_check", f);
        llvm::BranchInst* skip = b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), helper_ran), check, check);
        b.SetInsertPoint(check);
        leave_after_if(i, b.CreateICmpNE(load_attention(b, state, !req.optimized), attention), "attention");
        skip->setSuccessor(1, b.GetInsertBlock());
      }
      if (i + 1 < n && boundary_after(i + 1) && !whole_runs) leave_if_budget_used(i);
    }
    if (!ended) {
      uint64_t end = req.key.va + 4ull * n;
      c.store_state(npc, 64, c.k64(end));
      chain(b, b.getInt64(end), n, Targets::One);
    }
    {
      // Declined (at the first iteration or after jumping back to the start): what the loop wrote so far, and
      // PC, which a jump back to the start does not store (a helper call on the way may have stored its
      // instruction's). A block is entered at a block boundary (see chain).
      llvm::IRBuilder<> db(decline);
      store64(db, pc_off, db.getInt64(req.key.va));
      write_back(db);
      if (!write_backs.empty()) write_backs.back().written.clear(); // before any instruction ran
      db.CreateRet(db.CreateOr(decline_done, db.getInt64(kAtBoundary)));
    }
    leave_before_access = nullptr;
    may_leave = nullptr;
    for (WriteBack& wb : write_backs) {
      llvm::IRBuilder<> wbb(wb.block->getTerminator());
      llvm::Instruction* then = nullptr; // where the values of an exit before an instruction are read
      if (wb.before_insn) {
        then = wb.start_after ? wb.start_after->getNextNode() : nullptr;
        if (!then || llvm::isa<llvm::PHINode>(then)) then = &*wb.start_block->getFirstInsertionPt();
      }
      if (!partial_write_backs) {
        if (then)
          c.write_back_as_at(wbb, std::vector<bool>(c.written_so_far().size(), true), then);
        else
          c.write_back(wbb);
        continue;
      }
      if (loops) {
        // A point inside a block that loops is reached after any number of iterations, each of which ended
        // at a jump back: what was written before the point, or before the last jump back. Not what only
        // the code past the last jump back writes (a loop followed by the code after it in the same block
        // stored every register that code writes, unchanged, at each of the loop's exits).
        if (wb.written.size() < written_before_loop_back.size())
          wb.written.resize(written_before_loop_back.size());
        for (size_t v = 0; v < written_before_loop_back.size(); ++v)
          wb.written[v] = wb.written[v] || written_before_loop_back[v];
      }
      if (then)
        c.write_back_as_at(wbb, wb.written, then);
      else
        c.write_back_some(wbb, wb.written);
    }
    if (verify_ir && llvm::verifyFunction(*f, &llvm::errs())) {
      std::fprintf(stderr, "vplat: JIT produced invalid IR for the block at 0x%llx\n",
                   static_cast<unsigned long long>(req.key.va));
      std::abort();
    }
    return loops;
  }

  // The IR of each block is checked before the passes see it where the engine compiles synchronously (the
  // differential tests, `--cpu-engine jit`) or VPLAT_JIT_VERIFY=1 asks for it. Not otherwise: the check
  // was 3.3% of the compile thread's time in a boot and 2% in bzip2 (perf), and the emitters' output
  // for every instruction passes it in the tests.
  const bool verify_ir = sync || env_set("VPLAT_JIT_VERIFY");

  // Whether the engine runs more than one core. A store clears other cores' exclusive monitors only
  // (CoreGroup::store_to), so with one core the stores' fast path does not test the monitors' flag
  // (VPLAT_JIT_MONITOR_TEST=1: it does anyway). Translations are dropped when a second core joins.
  std::atomic<bool> several_cores{env_set("VPLAT_JIT_MONITOR_TEST")};

  // An access inline_memory made that looked its page up: for the second access of a pair (the access made
  // last) and for later ones off the same base (Anchor).
  struct LastAccess {
    llvm::Value* addr = nullptr;
    bool read = false;
    unsigned el = 0;
    llvm::BasicBlock *fast = nullptr, *join = nullptr;
    llvm::Value* delta = nullptr;           // its host delta, on its fast path
    llvm::PHINode* delta_at_join = nullptr; // that or null (its slow path), made when a pair needs it
    // Its address plus its size less one, whose page its tag compare takes (null where that folded).
    llvm::BinaryOperator* last_byte = nullptr;
    uint64_t size = 0;
    // Once later accesses off its base take its delta: its address plus the lowest and the highest offsets
    // of their bytes, which its fast path tests to lie on its page (its delta is null where they do not).
    llvm::BinaryOperator *group_low = nullptr, *group_high = nullptr;
    int64_t group_span_low = 0, group_span_high = 0;
  };
  // An address as a base plus a constant. The second tier keeps registers in locals (promoted to SSA values
  // by the passes), so a register read is a load of its local: the base is then that local, and `read` the
  // load (two loads of a local with no store to it between them read one value).
  struct Base {
    llvm::Value* base = nullptr;
    llvm::LoadInst* read = nullptr;
    int64_t offset = 0;
  };
  // The accesses inline_memory made in a function that looked their page up, for later ones off the same
  // base register: a function's prologue stores its registers at SP plus a few offsets, its epilogue loads
  // them back, and a memset stores 16-byte registers at one pointer plus 0, 16, 32... (busybox's shell loop:
  // after pairs, ~45% of the accesses in its hot blocks have an earlier one off the same base in the block).
  struct Anchor {
    LastAccess access;
    Base base;                         // its address's
    llvm::BasicBlock* start = nullptr; // the block its code began in
  };
  struct Accesses {
    std::vector<Anchor> anchors;
    bool last_is_anchor = false; // the access made last is anchors.back() (one that took no other's delta)
    // Each access's join block, and the block its code began in: what dominates the join.
    std::unordered_map<llvm::BasicBlock*, llvm::BasicBlock*> start_of_join;
  };
  static Base base_and_offset(llvm::Value* v) {
    Base r;
    for (int k = 0; k < 8; ++k) {
      auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v);
      auto* k_op = op ? llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1)) : nullptr;
      if (!k_op || (op->getOpcode() != llvm::Instruction::Add && op->getOpcode() != llvm::Instruction::Sub))
        break;
      const uint64_t n = k_op->getZExtValue(), sum = static_cast<uint64_t>(r.offset);
      r.offset = static_cast<int64_t>(op->getOpcode() == llvm::Instruction::Add ? sum + n : sum - n);
      v = op->getOperand(0);
    }
    r.base = v;
    if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(v);
        ld && llvm::isa<llvm::AllocaInst>(ld->getPointerOperand())) {
      r.base = ld->getPointerOperand();
      r.read = ld;
    }
    return r;
  }
  // Whether the instructions of `bb` from `from` (its start: null) to `until` (its end: null) call nothing
  // (intrinsics aside) and store nothing to `local` (if not null).
  static bool calls_nothing(const llvm::BasicBlock* bb, const llvm::Value* local,
                            const llvm::Instruction* from = nullptr,
                            const llvm::Instruction* until = nullptr) {
    auto it = from ? from->getIterator() : bb->begin();
    for (; it != bb->end() && &*it != until; ++it) {
      if (llvm::isa<llvm::CallInst>(*it) && !llvm::isa<llvm::IntrinsicInst>(*it)) return false;
      if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&*it); st && local && st->getPointerOperand() == local)
        return false;
    }
    return true;
  }
  // The block that dominates `bb` one step up, or null: its only predecessor; for an access's join, the
  // block the access began in (its slow path's helper call, in between, fills the TLB but changes no
  // mapping, nor any register: only helpers outside accesses and TLB maintenance change mappings); for a
  // merge (the attention test after an instruction that may have called a helper), the block its
  // predecessors' walks meet at, the blocks on their ways calling nothing and storing nothing to `local`.
  // `steps` bounds the walk.
  static llvm::BasicBlock* dominator_above(llvm::BasicBlock* bb, const Accesses& made,
                                           const llvm::Value* local, int& steps) {
    if (--steps < 0) return nullptr;
    if (auto it = made.start_of_join.find(bb); it != made.start_of_join.end()) return it->second;
    if (llvm::BasicBlock* p = bb->getSinglePredecessor()) return p;
    llvm::BasicBlock* meet = nullptr;
    for (llvm::BasicBlock* p : llvm::predecessors(bb)) {
      meet = meet ? meeting_point(meet, p, made, local, steps) : p;
      if (!meet) return nullptr;
    }
    return meet;
  }
  static llvm::BasicBlock* meeting_point(llvm::BasicBlock* a, llvm::BasicBlock* b, const Accesses& made,
                                         const llvm::Value* local, int& steps) {
    std::vector<llvm::BasicBlock*> up_a{a}, up_b{b};
    auto on = [](const std::vector<llvm::BasicBlock*>& v, llvm::BasicBlock* x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    llvm::BasicBlock* meet = nullptr;
    while (!meet) {
      if (on(up_b, up_a.back())) {
        meet = up_a.back();
      } else if (on(up_a, up_b.back())) {
        meet = up_b.back();
      } else {
        llvm::BasicBlock* na = up_a.size() < 16 ? dominator_above(up_a.back(), made, local, steps) : nullptr;
        llvm::BasicBlock* nb = up_b.size() < 16 ? dominator_above(up_b.back(), made, local, steps) : nullptr;
        if (!na && !nb) return nullptr;
        if (na) up_a.push_back(na);
        if (nb) up_b.push_back(nb);
      }
    }
    for (const auto* way : {&up_a, &up_b})
      for (llvm::BasicBlock* x : *way) {
        if (x == meet) break;
        if (!calls_nothing(x, local)) return nullptr;
      }
    return meet;
  }
  // Whether the access `a`, whose address was `a_base`, serves one at `base` in the block being built: its
  // join dominates the block, and the code between calls nothing outside other accesses and, where the bases
  // are different reads of a register's local, stores nothing to that local between the two reads.
  static bool reaches_back(llvm::BasicBlock* from, const LastAccess& a, const Base& a_base, const Base& base,
                           const Accesses& made, llvm::BasicBlock* a_start) {
    // (One read serving both, as for an LDP's two accesses: no store between them.)
    const llvm::Value* local = base.read && base.read != a_base.read ? base.base : nullptr;
    if (local &&
        (a_base.read->getParent() != a_start || !calls_nothing(a_start, local, a_base.read->getNextNode())))
      return false;
    bool past_read = !local; // walking up past the later read (stores before it matter)
    int steps = 64;
    for (llvm::BasicBlock* bb = from; bb;
         bb = dominator_above(bb, made, past_read ? local : nullptr, steps)) {
      if (!calls_nothing(bb, nullptr)) return false;
      if (!past_read && base.read->getParent() == bb) {
        if (!calls_nothing(bb, local, nullptr, base.read)) return false;
        past_read = true;
      } else if (past_read && !calls_nothing(bb, local)) {
        return false;
      }
      if (bb == a.join) return past_read;
    }
    return false;
  }
  // Whether the code from `start_after` in `start` (its beginning when null) to `from`, whose predecessors up
  // to `start` are one each, stores to nothing but locals and calls nothing: then an exit at `from` may
  // leave as if that code had not run (its loads read guest memory, which it has not written). A state
  // variable that the cache does not hold, a guest store (the first of a pair) or a helper call, and the
  // access's slow path calls the memory helper instead.
  static bool only_locals_stored(llvm::BasicBlock* from, llvm::BasicBlock* start,
                                 llvm::Instruction* start_after) {
    for (llvm::BasicBlock* bb = from; bb;) {
      for (auto it = bb->rbegin(); it != bb->rend(); ++it) {
        if (bb == start && &*it == start_after) return true;
        if (auto* st = llvm::dyn_cast<llvm::StoreInst>(&*it))
          if (!llvm::isa<llvm::AllocaInst>(st->getPointerOperand())) return false;
        if (llvm::isa<llvm::CallInst>(&*it) && !llvm::isa<llvm::IntrinsicInst>(&*it)) return false;
      }
      if (bb == start) return true;
      bb = bb->getSinglePredecessor();
    }
    return false;
  }

  // VPLAT_JIT_PAIRS=0: every access makes its own TLB lookup (for comparisons).
  const bool pair_accesses = env_on("VPLAT_JIT_PAIRS");
  // VPLAT_JIT_WIDE_PAIRS=0: a pair's first access checks only its own bytes' page, and the second tests
  // that it lies on the same page (for comparisons).
  const bool wide_pair_tags = env_on("VPLAT_JIT_WIDE_PAIRS");
  // The first access's compare covers the second's bytes up to this many from its address; beyond, the
  // second tests its page offset (a wider compare would send the first access to its helper more often, as
  // an access whose bytes cross a page goes).
  static constexpr uint64_t kWidePairBytes = 128;
  // VPLAT_JIT_GROUPS=0: an access takes only the access just before its (a pair's) TLB hit (for comparisons).
  const bool group_accesses = env_on("VPLAT_JIT_GROUPS");
  // The earlier accesses off the same base an access looks at, most recent first.
  static constexpr size_t kAnchorsLooked = 4;
  // The most bytes, from the lowest to the highest, that one access's page test covers for later ones (the
  // more, the more often they lie across a page and look their pages up).
  static constexpr int64_t kGroupBytes = 512;
  // Second tier: loads and stores that miss the soft TLB go to read_quietly/write_quietly, and leave the
  // block where those decline (set per instruction by build_function; empty: the slow path calls mem_read
  // or mem_write). VPLAT_JIT_MISS_EXITS=0: always the latter, for comparisons.
  const bool miss_exits_on = env_on("VPLAT_JIT_MISS_EXITS");
  // VPLAT_JIT_T1_MISS_EXITS=1: the first tier's too (its registers are in the state, so only accesses
  // before which the instruction stored nothing qualify). Off: boots to the banner were slower with it in 12
  // of 16 alternating pairs (faster in 15 of 16 without huge pages: the difference was the host clearing
  // huge pages), though its compile work and code are smaller (cpu-dbt/README.md "Session 51").
  const bool t1_miss_exits = env_set("VPLAT_JIT_T1_MISS_EXITS");
  std::function<bool(llvm::BasicBlock* from)> may_leave; // whether an access emitted at `from` may leave
  std::function<void(llvm::IRBuilder<>&)> leave_before_access;
  // The soft-TLB fast path of mem_read/mem_write (a64_helpers.cpp) in IR, for accesses of a constant size:
  // a tag compare in the TLB bank of the access EL (a hit is a RAM page without SCTLR.A alignment checking:
  // Core::TlbEntry), no page crossing, and for stores (on an engine of several cores) no exclusive monitor
  // to update. Everything else calls the helper, as the interpreter does.
  bool inline_memory(vplat::adljit::Ctx& c, void* fn, const std::vector<llvm::Value*>& args, unsigned el,
                     llvm::Value*& result, Accesses& made) {
    static const LastAccess kNone;
    const LastAccess& last = made.last_is_anchor ? made.anchors.back().access : kNone;
    const bool read = fn == reinterpret_cast<void*>(&g::mem_read);
    if (!read && fn != reinterpret_cast<void*>(&g::mem_write)) return false;
    if (!vplat::adljit::Ctx::is_const(args[1])) return false;
    const uint64_t size = vplat::adljit::Ctx::const_u64(args[1]);
    if (size != 1 && size != 2 && size != 4 && size != 8) return false;
    auto& b = c.b;
    auto* i8 = b.getInt8Ty();
    llvm::Value* addr = args[0];
    llvm::Value* s = c.state;
    llvm::Function* f = b.GetInsertBlock()->getParent();
    llvm::Type* vt = b.getIntNTy(static_cast<unsigned>(8 * size));
    // The access at host_delta + the address (Core::TlbEntry); a load's value.
    auto access_host = [&](llvm::Value* delta) -> llvm::Value* {
      llvm::Value* p = b.CreateGEP(i8, delta, addr);
      if (!read) {
        auto* st = b.CreateStore(size == 8 ? args[2] : b.CreateTrunc(args[2], vt), p);
        st->setAlignment(llvm::Align(1));
        c.not_registers(st);
        return nullptr;
      }
      auto* ld = b.CreateLoad(vt, p);
      ld->setAlignment(llvm::Align(1));
      c.not_registers(ld);
      return size == 8 ? static_cast<llvm::Value*>(ld) : b.CreateZExt(ld, c.i64);
    };
    // The second access of a pair (LDP/STP: `addr + bytes` right after `addr`, of the same kind, with no
    // branch between them): where the first one hit the TLB and this one lies on the same page, its host
    // delta serves this one too (an offset test instead of a TLB index, tag load and compare, and a delta
    // load). Nothing between the two can change the TLB (the first's fast path calls nothing).
    llvm::BasicBlock* pair_fast = nullptr;
    llvm::Value* pair_value = nullptr;
    llvm::BasicBlock* start = b.GetInsertBlock();
    // An earlier access's host delta where its paths join: its fast path's, or null (its slow path).
    auto delta_at_join = [&](LastAccess& a) {
      if (!a.delta_at_join) {
        llvm::IRBuilder<> jb(a.join, a.join->begin());
        a.delta_at_join = jb.CreatePHI(c.ptr, 2);
        for (llvm::BasicBlock* pred : llvm::predecessors(a.join))
          a.delta_at_join->addIncoming(
              pred == a.fast ? a.delta : llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(c.ptr)),
              pred);
      }
      return a.delta_at_join;
    };
    // The same for later accesses off its base at `low`..`high` (their bytes' offsets from its address): its
    // fast path goes on with its delta only where those lie on its page too, and with null otherwise (they
    // look their pages up then). Its own compare stays as it was: a stack frame across a page would otherwise
    // send it to its helper at every run.
    auto group_delta = [&](LastAccess& a, int64_t low, int64_t high) -> llvm::Value* {
      llvm::PHINode* phi = delta_at_join(a);
      auto* null = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(c.ptr));
      if (!a.group_low) {
        // fast: ... br join  ->  fast: ... br (its address's page offset + low) <= 0xfff - (high - low),
        // wide, join; wide: br join. (Both constants change as later accesses widen the span.)
        llvm::Instruction* term = a.fast->getTerminator();
        auto* in_page = llvm::BinaryOperator::CreateAnd(a.addr, c.k64(0xfff), "group.offset", term);
        a.group_low = llvm::BinaryOperator::CreateAdd(in_page, c.k64(0), "group.low", term);
        a.group_high = llvm::BinaryOperator::CreateAdd(c.k64(0xfff), c.k64(0), "group.limit", term);
        auto* on_page =
            new llvm::ICmpInst(term, llvm::ICmpInst::ICMP_ULE, a.group_low, a.group_high, "group.on_page");
        auto* wide = llvm::BasicBlock::Create(c.ctx, "group.wide", f);
        llvm::BranchInst::Create(a.join, wide);
        llvm::BranchInst::Create(wide, a.join, on_page, term)
            ->setMetadata(llvm::LLVMContext::MD_prof, llvm::MDBuilder(c.ctx).createBranchWeights(1 << 20, 1));
        term->eraseFromParent();
        for (llvm::PHINode& p : a.join->phis())
          p.addIncoming(&p == phi ? a.delta : p.getIncomingValueForBlock(a.fast), wide);
        phi->setIncomingValueForBlock(a.fast, null);
        a.group_span_low = 0;
        a.group_span_high = static_cast<int64_t>(a.size) - 1;
      }
      // Offsets from `low` to `high` lie on the page where offset + low >= 0 and offset + high <= 0xfff.
      a.group_span_low = std::min(a.group_span_low, low);
      a.group_span_high = std::max(a.group_span_high, high);
      a.group_low->setOperand(1, c.k64(static_cast<uint64_t>(a.group_span_low)));
      a.group_high->setOperand(1, c.k64(static_cast<uint64_t>(-(a.group_span_high - a.group_span_low))));
      return phi;
    };
    // Where `hit` holds, the access at `delta` (an earlier access's); else the TLB lookup below.
    auto shared_fast_path = [&](llvm::Value* hit, llvm::Value* delta) {
      pair_fast = llvm::BasicBlock::Create(c.ctx, read ? "ld.pair" : "st.pair", f);
      auto* lookup = llvm::BasicBlock::Create(c.ctx, "pair.lookup", f);
      b.CreateCondBr(hit, pair_fast, lookup, llvm::MDBuilder(c.ctx).createBranchWeights(1 << 20, 1));
      b.SetInsertPoint(pair_fast);
      pair_value = access_host(delta);
      b.SetInsertPoint(lookup);
    };
    uint64_t offset = 0;
    auto* sum = llvm::dyn_cast<llvm::BinaryOperator>(addr);
    if (pair_accesses && last.addr && last.read == read && last.el == el && b.GetInsertBlock() == last.join &&
        sum && sum->getOpcode() == llvm::Instruction::Add && sum->getOperand(0) == last.addr &&
        llvm::isa<llvm::ConstantInt>(sum->getOperand(1)) &&
        (offset = llvm::cast<llvm::ConstantInt>(sum->getOperand(1))->getZExtValue()) > 0 &&
        offset + size <= 4096) {
      llvm::Value* delta = delta_at_join(made.anchors.back().access);
      // Its last byte on the first access's page. The first access's tag compare takes the page of the
      // pair's last byte instead of its own: where it hits, the whole pair is on that page, and where the
      // pair crosses a page, the first access goes through its helper (as one crossing it does) and this one
      // looks its page up. Else (an address folded to a constant, or bytes more than kWidePairBytes on) a
      // test: (first & 0xfff) + offset + size - 1 < 4096.
      llvm::Value* hit = b.CreateIsNotNull(delta);
      if (last.last_byte && last.last_byte->getOperand(0) == last.addr && wide_pair_tags &&
          offset + size <= kWidePairBytes) {
        auto* old_end = llvm::cast<llvm::ConstantInt>(last.last_byte->getOperand(1));
        if (old_end->getZExtValue() < offset + size - 1)
          last.last_byte->setOperand(1, c.k64(offset + size - 1));
      } else {
        llvm::Value* in_page =
            b.CreateICmpULT(b.CreateAnd(last.addr, c.k64(0xfff)), c.k64(4096 - (offset + size - 1)));
        hit = b.CreateAnd(in_page, hit);
      }
      shared_fast_path(hit, delta);
    }
    // Else an earlier access off the same base (an earlier instruction's, or a Q register's other half) whose
    // join dominates this one with nothing between that could change a mapping: where it hit the TLB and
    // the bytes of all the accesses that take its delta lie on its page (one test on its fast path, for
    // them all, whose span grows with each: group_delta), its host delta serves this one; else the lookup
    // below. The jump threading pass then sends the earlier one's fast path straight on through the later
    // ones' (an epilogue's four LDPs off SP: one page test, and their loads merged in pairs).
    const Base base = base_and_offset(addr);
    if (!pair_fast && group_accesses && c.state_cache_enabled() && !llvm::isa<llvm::Constant>(base.base)) {
      for (size_t k = made.anchors.size(), looked = 0; k-- > 0 && looked < kAnchorsLooked;) {
        Anchor& a = made.anchors[k];
        // A load may take a store's hit: Core::translate_fill gives both tags from one translation, and a
        // page the EL may write it may read (AArch64 has no write-only pages). Not the other way round.
        if (a.base.base != base.base || (a.access.read && !read) || a.access.el != el) continue;
        ++looked;
        const auto distance =
            static_cast<int64_t>(static_cast<uint64_t>(base.offset) - static_cast<uint64_t>(a.base.offset));
        if (distance <= -4096 || distance >= 4096 ||
            !reaches_back(b.GetInsertBlock(), a.access, a.base, base, made, a.start))
          continue;
        const int64_t low = std::min<int64_t>(0, distance);
        const int64_t high = std::max<int64_t>(static_cast<int64_t>(a.access.size) - 1,
                                               distance + static_cast<int64_t>(size) - 1);
        if (std::max(high, a.access.group_span_high) - std::min(low, a.access.group_span_low) >= kGroupBytes)
          continue; // (the span so far is 0..size-1 before the first)
        llvm::Value* delta = group_delta(a.access, low, high);
        llvm::Value* hit = b.CreateIsNotNull(delta);
        shared_fast_path(hit, delta);
        break;
      }
    }
    llvm::Value* page = b.CreateAnd(addr, c.k64(~0xfffull));
    const size_t bank = off.tlb + el * sizeof(Core::TlbEntry) * Core::kTlbSize;
    llvm::Value* entry =
        b.CreateGEP(i8, b.CreateConstInBoundsGEP1_64(i8, s, bank), tlb_entry_offset(b, addr));
    const size_t tag_off = read ? offsetof(Core::TlbEntry, read) : offsetof(Core::TlbEntry, write);
    llvm::Value* tag = b.CreateLoad(c.i64, b.CreateConstInBoundsGEP1_64(i8, entry, tag_off));
    // The tag compare with the page of the access's last byte also rejects page-crossing accesses: a tag at
    // this index never holds the next page.
    llvm::Value* last_byte = size > 1 || wide_pair_tags ? b.CreateAdd(addr, c.k64(size - 1)) : addr;
    llvm::Value* last_page = last_byte == addr ? page : b.CreateAnd(last_byte, c.k64(~0xfffull));
    llvm::Value* ok = b.CreateICmpEQ(tag, last_page);
    if (!read && several_cores.load(std::memory_order_relaxed)) {
      llvm::Value* mon_ptr = b.CreateIntToPtr(c.k64(reinterpret_cast<uintptr_t>(off.monitors)), c.ptr);
      // Set only by the helper that follows a load-exclusive (not a memory helper).
      llvm::LoadInst* monitors = b.CreateLoad(i8, mon_ptr);
      c.like_registers(monitors);
      ok = b.CreateAnd(ok, b.CreateICmpEQ(monitors, b.getInt8(0)));
    }
    auto* fast = llvm::BasicBlock::Create(c.ctx, read ? "ld.fast" : "st.fast", f);
    auto* slow = llvm::BasicBlock::Create(c.ctx, read ? "ld.slow" : "st.slow", f);
    auto* join = llvm::BasicBlock::Create(c.ctx, "mem.done", f);
    const bool leave = leave_before_access && may_leave(b.GetInsertBlock());
    b.CreateCondBr(ok, fast, slow, llvm::MDBuilder(c.ctx).createBranchWeights(1 << 20, 1));
    b.SetInsertPoint(fast);
    llvm::LoadInst* delta =
        b.CreateLoad(c.ptr, b.CreateConstInBoundsGEP1_64(i8, entry, offsetof(Core::TlbEntry, host_delta)));
    // A hit's delta is never 0 (Core::translate_fill gives a page without one, or with one that would be 0,
    // tags that send every access to the slow path): so the test of a pair's second access on the first
    // one's delta where their paths join (null from its slow path) is threaded, the first's fast path going
    // straight on to the second's.
    if (wide_pair_tags) delta->setMetadata(llvm::LLVMContext::MD_nonnull, llvm::MDNode::get(c.ctx, {}));
    llvm::Value* fast_value = access_host(delta);
    b.CreateBr(join);
    b.SetInsertPoint(slow);
    llvm::Value* slow_value = nullptr;
    llvm::BasicBlock* slow_end = nullptr;
    if (leave) {
      // Made by read_quietly or write_quietly where it can be; else the block leaves before the
      // instruction, for the interpreter to run it (a fault, a device, an access to translated code...).
      void* quiet = read ? reinterpret_cast<void*>(&read_quietly) : reinterpret_cast<void*>(&write_quietly);
      void* wrapper = read ? quiet_read_wrapper : quiet_write_wrapper;
      std::vector<llvm::Type*> params{c.ptr, c.i64, c.i64};
      if (!read) params.push_back(c.i64);
      std::vector<llvm::Value*> call_args{s, addr, c.k64(size)};
      if (!read) call_args.push_back(args[2]);
      llvm::CallInst* call = b.CreateCall(
          llvm::FunctionType::get(wrapper || !read ? b.getVoidTy() : c.i64, params, false),
          b.CreateIntToPtr(c.k64(reinterpret_cast<uintptr_t>(wrapper ? wrapper : quiet)), c.ptr), call_args);
      c.not_registers(call);
      if (wrapper) call->setCallingConv(llvm::CallingConv::PreserveMost);
      if (read && wrapper) {
        llvm::LoadInst* ld = b.CreateLoad(c.i64, b.CreateConstInBoundsGEP1_64(i8, s, off.wrapper_result));
        c.not_registers(ld);
        slow_value = ld;
      } else if (read) {
        slow_value = call;
      }
      llvm::LoadInst* declined =
          b.CreateLoad(b.getInt8Ty(), b.CreateConstInBoundsGEP1_64(i8, s, off.quiet_declined));
      c.not_registers(declined);
      llvm::Value* done_ok = b.CreateICmpEQ(declined, b.getInt8(0));
      slow_end = b.GetInsertBlock();
      auto* miss = llvm::BasicBlock::Create(c.ctx, read ? "ld.miss" : "st.miss", f);
      b.CreateCondBr(done_ok, join, miss, llvm::MDBuilder(c.ctx).createBranchWeights(1 << 20, 1));
      llvm::IRBuilder<> mb(miss);
      leave_before_access(mb);
    } else {
      slow_value = c.call_helper_direct(
          fn, read ? vplat::adljit::Ctx::Ret::I64 : vplat::adljit::Ctx::Ret::Void, true, args, true);
      c.not_registers(c.last_call);
      if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(slow_value)) c.not_registers(ld); // a wrapper's result
      slow_end = b.GetInsertBlock();
      b.CreateBr(join);
    }
    if (pair_fast) llvm::BranchInst::Create(join, pair_fast);
    b.SetInsertPoint(join);
    result = nullptr;
    if (read) {
      llvm::PHINode* phi = b.CreatePHI(c.i64, 3);
      phi->addIncoming(fast_value, fast);
      if (slow_end) phi->addIncoming(slow_value, slow_end);
      if (pair_fast) phi->addIncoming(pair_value, pair_fast);
      result = phi;
    }
    const bool grouping = group_accesses && c.state_cache_enabled();
    if (grouping) made.start_of_join[join] = start;
    // An access that took an earlier one's delta is not the first of another (its delta would need a third
    // way): later ones off the same base take the earlier one's too.
    made.last_is_anchor = !pair_fast;
    if (!pair_fast) {
      LastAccess made_now{addr, read, el, fast, join, delta, nullptr};
      made_now.last_byte = llvm::dyn_cast<llvm::BinaryOperator>(last_byte);
      made_now.size = size;
      made.anchors.push_back(Anchor{made_now, base, start});
    }
    return true;
  }

  // VPLAT_JIT_INLINE_SYSREGS=0: MRS/MSR call the helpers in translated code too (for comparisons).
  const bool inline_sysregs = env_on("VPLAT_JIT_INLINE_SYSREGS");
  // MRS/MSR of a register that is plain storage at the block's EL (plain_sysreg_access): a load or a store
  // instead of a helper call, around which the second tier writes its cached registers back and reloads
  // them. glibc reads TPIDR_EL0 ~26 times per iteration of a busybox shell loop; a boot's kernel reads
  // SP_EL0 (`current`) ~2 M times and TPIDR_EL1 (per-CPU data) ~0.75 M times.
  bool inline_sysreg(vplat::adljit::Ctx& c, void* fn, const std::vector<llvm::Value*>& args, unsigned el,
                     llvm::Value*& result) {
    const bool read = fn == reinterpret_cast<void*>(&g::sysreg_read);
    if ((!read && fn != reinterpret_cast<void*>(&g::sysreg_write)) ||
        !vplat::adljit::Ctx::is_const(args[0]) || !inline_sysregs)
      return false;
    using What = PlainSysreg::What;
    const PlainSysreg plain =
        plain_sysreg_access(static_cast<uint32_t>(vplat::adljit::Ctx::const_u64(args[0])), el, read);
    auto& b = c.b;
    auto at = [&](size_t offset) { return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), c.state, offset); };
    // Only helpers change these (MSR, exception entry and return, all interpreted or calls), so a load is
    // in the registers' scope: guest memory accesses do not make it load again.
    auto access = [&](size_t offset) -> llvm::Value* {
      if (!read) {
        b.CreateStore(args[1], at(offset));
        return nullptr;
      }
      llvm::LoadInst* ld = b.CreateLoad(c.i64, at(offset));
      c.like_registers(ld);
      return ld;
    };
    switch (plain.what) {
    case What::kCall:
      return false;
    case What::kConstant:
      if (!read) return false;
      result = c.k64(plain.value);
      return true;
    case What::kTpidrEl0:
      result = access(off.tpidr_el0);
      return true;
    case What::kTpidrEl1:
      result = access(off.tpidr_el1);
      return true;
    case What::kTpidrroEl0:
      result = access(off.tpidrro_el0);
      return true;
    case What::kSpEl0:
      break;
    }
    // SP_EL0 at EL1: the other stack pointer while SPSel is 1; with SPSel 0 the helper raises UNDEFINED.
    llvm::LoadInst* spsel = b.CreateLoad(b.getInt32Ty(), at(off.spsel));
    c.like_registers(spsel);
    llvm::Function* f = b.GetInsertBlock()->getParent();
    auto* fast = llvm::BasicBlock::Create(c.ctx, "sp_el0.fast", f);
    auto* slow = llvm::BasicBlock::Create(c.ctx, "sp_el0.slow", f);
    auto* join = llvm::BasicBlock::Create(c.ctx, "sp_el0.done", f);
    b.CreateCondBr(b.CreateICmpNE(spsel, b.getInt32(0)), fast, slow,
                   llvm::MDBuilder(c.ctx).createBranchWeights(1 << 20, 1));
    b.SetInsertPoint(fast);
    llvm::Value* fast_value = access(off.sp_other);
    b.CreateBr(join);
    b.SetInsertPoint(slow);
    llvm::Value* slow_value = c.call_helper_direct(
        fn, read ? vplat::adljit::Ctx::Ret::I64 : vplat::adljit::Ctx::Ret::Void, true, args, true);
    llvm::BasicBlock* slow_end = b.GetInsertBlock();
    b.CreateBr(join);
    b.SetInsertPoint(join);
    result = nullptr;
    if (read) {
      llvm::PHINode* phi = b.CreatePHI(c.i64, 2);
      phi->addIncoming(fast_value, fast);
      phi->addIncoming(slow_value, slow_end);
      result = phi;
    }
    return true;
  }

  static void raise_sp_alignment(g::State& s) { core_of(s).raise(Exception::SpAlignment); }
  // After a load-exclusive, as the run loop does after one: the global monitor records the physical
  // address (the load has just filled the TLB entry) and stores start checking the monitors.
  static void note_exclusive_load(g::State& s) {
    Core& c = core_of(s);
    const Core::TlbEntry& e = c.tlb_[c.el()][(c.EXCL_ADDR >> 12) & (Core::kTlbSize - 1)];
    c.excl_pa = (e.read & ~Core::TlbEntry::kSlowPath) == (c.EXCL_ADDR & ~0xfffull)
                    ? e.pa | (c.EXCL_ADDR & 0xfff)
                    : c.EXCL_ADDR;
    if (c.group) *c.monitors_active_ = true;
  }

  static uint64_t now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
  }
  // VPLAT_JIT_MAX_WAIT=ms (1..600000): how long a queued request waits without being seen hot again.
  const uint64_t max_wait_ms = env_number("VPLAT_JIT_MAX_WAIT", 1, 600000, JitEngine::kMaxWaitMs);
  // A queued block reached its tier's threshold again: its heat goes up by one.
  void still_hot(const Key& key) {
    const uint64_t t = now_ms();
    std::lock_guard<std::mutex> l(m);
    Heat& h = hot_again[key];
    h.score = decayed(h.score, h.last_ms, t) + 1.0;
    h.last_ms = t;
  }
  // How often a queued block was seen hot lately: each time adds one, and the sum halves every
  // kHeatHalfLifeMs. The block that runs most now goes first.
  static constexpr double kHeatHalfLifeMs = 250.0;
  static double decayed(double score, uint64_t since_ms, uint64_t now) {
    return now <= since_ms ? score
                           : score * std::exp2(-static_cast<double>(now - since_ms) / kHeatHalfLifeMs);
  }

  // VPLAT_JIT_STATS: why chains of blocks returned to try_run (an unlinked exit goes on in its loop).
  struct {
    uint64_t fault = 0, declined = 0, budget = 0, attention = 0, unlinked = 0, unlinked_indirect = 0,
             no_block = 0, missed_tlb = 0;
  } chain_ends;
  static JitStats::Tier tier_of(const Block* b) {
    return !b            ? JitStats::kNoBlock
           : b->fn       ? JitStats::kTranslated
           : b->baseline ? JitStats::kBaseline
                         : JitStats::kThreaded;
  }
  std::atomic<uint64_t> name_counter{0};
  std::atomic<uint64_t> stats_fallback{0};
  // VPLAT_JIT_TIER2=N: N chain starts make a block hot for the second tier (0: no second tier).
  const unsigned tier2_samples =
      static_cast<unsigned>(env_number("VPLAT_JIT_TIER2", 0, 10000000, JitEngine::kTier2Samples));

  // Chain starts miss the blocks a chain goes through: a loop of linked first-tier blocks (a shell's command
  // loop, SHA-256's rounds in 256-byte regions) starts its chains elsewhere or never returns to the run
  // loop. So the first tier's blocks count their runs (BlockExit::runs), and every kPromotionPeriod guest
  // instructions in blocks the run loop asks for the second tier of each block that ran at least
  // promotion_insns of them in that period (and refreshes the requests of those asked for already).
  // VPLAT_JIT_PROMOTE=N: that threshold (0: promotion by chain starts only).
  // While nothing waits to be compiled and no first-tier request was made in the period, the threshold is
  // promotion_insns / idle_promotion_divisor: a program whose time is spread over hundreds of blocks (a
  // shell's command loop: ~450 first-tier blocks at 0.1-0.2% of the instructions each, ~28% of them in all)
  // would otherwise stay in the first tier for good while the compile thread idles. (With the queues' state
  // alone, the short lulls of a boot's compile backlog put second-tier modules in the way of the first
  // tier's: boot to the banner 4.47 -> 5.10 s, medians of 8 alternating runs; so did keeping requests
  // fresh at the lower threshold at other times.)
  // VPLAT_JIT_PROMOTE_IDLE=N: that divisor (1, the default: the same threshold always). Not on by default:
  // in the benchmark's workloads (3 alternating runs each way) the shell loop gained ~1.7 s at 16 (19.71 ->
  // 17.97 s, medians) while bzip2 and xz lost about as much (17.67 -> 19.77 s, 18.65 -> 20.79 s); an
  // earlier A/B of 3 runs each way had the whole set faster (80.3 -> 73.3 s). Not explained: bzip2 alone
  // after a boot made only 34 more second-tier blocks (174 against 140), so the global unlinking at each
  // install that replaces a first-tier block is not it.
  static constexpr uint64_t kPromotionPeriod = 1ull << 26;
  const uint64_t promotion_insns = env_number("VPLAT_JIT_PROMOTE", 0, 1ull << 26, 1ull << 17);
  const uint64_t idle_promotion_divisor = env_number("VPLAT_JIT_PROMOTE_IDLE", 1, 1ull << 26, 1);
  // A block that ran steady_insns or more in each of kSteadyPeriods periods in a row is asked for too: code
  // that keeps running at a steady share under the threshold (a shell's command loop: ~450 first-tier
  // blocks of ~100 k instructions a period each, ~40% of the guest thread at steady state) is a program's
  // steady state, worth the second tier's compiles, where a workload's warm-up is not.
  // VPLAT_JIT_PROMOTE_STEADY=N: that share (0: off).
  static constexpr unsigned kSteadyPeriods = 4;
  const uint64_t steady_insns = env_number("VPLAT_JIT_PROMOTE_STEADY", 0, 1ull << 26, 1ull << 14);
  const bool counting_runs = !sync && tier2_samples && promotion_insns; // first-tier code counts its runs
  uint64_t next_promotion = kPromotionPeriod;
  uint64_t tier1_requests = 0, tier1_requests_seen = 0; // first-tier batches queued, at the last look
  void promote_hot(Core& c) {
    next_promotion = stats.insns_in_blocks + kPromotionPeriod;
    if (!counting_runs) return;
    const uint64_t low = std::max<uint64_t>(1, promotion_insns / idle_promotion_divisor);
    bool idle = low < promotion_insns && tier1_requests == tier1_requests_seen; // the queues' lock only then
    tier1_requests_seen = tier1_requests;
    if (idle) {
      std::lock_guard<std::mutex> l(m);
      idle = queue.empty() && queue_tier2.empty();
    }
    std::vector<std::pair<Block*, uint64_t>> hot; // and the instructions each ran
    for (Block* b : counted.list) {
      const uint64_t insns = *b->runs_counted * b->len;
      *b->runs_counted = 0;
      if (steady_insns && insns >= steady_insns)
        b->warm_periods = static_cast<uint8_t>(std::min<unsigned>(b->warm_periods + 1u, kSteadyPeriods));
      else
        b->warm_periods = 0;
      if (insns >= (idle ? low : promotion_insns) || b->warm_periods >= kSteadyPeriods)
        hot.emplace_back(b, insns);
    }
    std::vector<Key> dominant;
    for (auto [b, insns] : hot) {
      if (b->optimized) {
        still_hot(b->key);
      } else if (fetch_maps(c, b->key)) { // the request reads the block's words through the fetch TLB
        tier_up(c, b);
      }
      if (insns >= dominant_insns && pending.count(b->key)) dominant.push_back(b->key);
    }
    if (!dominant.empty()) {
      const uint64_t t = now_ms();
      std::lock_guard<std::mutex> l(m);
      for (const Key& k : dominant) hot_again[k].dominant_ms = t;
    }
  }
  // A block that ran this many of a promotion period's instructions is dominant: its second-tier request
  // goes before first-tier ones for kDominantMs (VPLAT_JIT_DOMINANT=N; see the compile thread's order).
  const uint64_t dominant_insns = env_number("VPLAT_JIT_DOMINANT", 1, UINT64_MAX, kPromotionPeriod / 16);
  static constexpr uint64_t kDominantMs = 500;

  // The fetch TLB entry for `va` at `el`, and whether it maps the start of block `k` to k's page now.
  static const Core::TlbEntry& fetch_entry(const Core& c, unsigned el, uint64_t va) {
    return c.itlb_[el][(va >> 12) & (Core::kTlbSize - 1)];
  }
  static bool fetch_maps(const Core& c, const Key& k) {
    const Core::TlbEntry& e = fetch_entry(c, k.el, k.va);
    return e.fetch == (k.va & ~0xfffull) && e.pa == (k.pa & ~0xfffull);
  }

  // Asks for the second-tier translation of `b` (its start is mapped by the fetch TLB now). Synchronous
  // engines install it before returning it; otherwise the request joins the second tier's queue and `b`
  // keeps running until the result is installed. Returns the block to run now.
  Block* tier_up(Core& c, Block* b) {
    b->optimized = true; // asked once
    const Core::TlbEntry& e = fetch_entry(c, b->key.el, b->key.va);
    auto p = pages.find(b->key.pa & ~0xfffull);
    if (p == pages.end()) return b;
    Request r = form(c, b->key, e, kMaxBlockInsns);
    if (r.words.empty()) return b;
    r.optimized = true;
    r.hot_ms = now_ms();
    r.page_gen = p->second.gen;
    pending.insert(r.key);
    if (sync) {
      Block* nb = install(compile(std::move(r)));
      return nb ? nb : b;
    }
    if (compile_log == 2) log_request(r);
    {
      std::lock_guard<std::mutex> l(m);
      queue_tier2.push_back(std::move(r));
    }
    cv.notify_one();
    return b;
  }
  uint64_t next_name_atomic() { return name_counter.fetch_add(1, std::memory_order_relaxed); }

  // A 64-bit load whose users all take its low half becomes a 32-bit load (the host is little-endian),
  // which x86 selects as one zero-extending load, folded into its user where FastISel can. Run after the
  // loads that could be forwarded from 64-bit stores have been.
  struct NarrowLoads : llvm::PassInfoMixin<NarrowLoads> {
    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
      llvm::Type* i32 = llvm::Type::getInt32Ty(f.getContext());
      std::vector<llvm::LoadInst*> wide; // found first: the rewrite erases instructions that follow them
      for (llvm::BasicBlock& bb : f)
        for (llvm::Instruction& inst : bb)
          if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(&inst);
              ld && ld->isSimple() && ld->getType()->isIntegerTy(64) && !ld->use_empty() &&
              llvm::all_of(ld->users(), [&](llvm::User* u) {
                return llvm::isa<llvm::TruncInst>(u) && u->getType() == i32;
              }))
            wide.push_back(ld);
      for (llvm::LoadInst* ld : wide) {
        auto* low = new llvm::LoadInst(i32, ld->getPointerOperand(), "", false, ld->getAlign(), ld);
        low->copyMetadata(*ld);
        for (llvm::User* u : llvm::make_early_inc_range(ld->users())) {
          llvm::cast<llvm::Instruction>(u)->replaceAllUsesWith(low);
          llvm::cast<llvm::Instruction>(u)->eraseFromParent();
        }
        ld->eraseFromParent();
      }
      return wide.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
    }
  };

  // NPC: a branch stores the next PC and its block reads it back as a value (the exits store PC); the run
  // loop sets it before each instruction it interprets, and no helper reads it. So where a first-tier
  // block loads none of it back (EarlyCSE forwarded them all), its stores of it are dead: one per branch.
  // (The second tier keeps NPC in an SSA value only, see set_local_only.)
  struct NextPcStores : llvm::PassInfoMixin<NextPcStores> {
    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
      std::vector<llvm::StoreInst*> stores;
      for (llvm::User* u : f.getArg(0)->users()) {
        auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(u);
        if (!gep || gep->getNumIndices() != 1 || !gep->getSourceElementType()->isIntegerTy(8)) continue;
        auto* k = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1));
        if (!k || k->getZExtValue() != offsetof(g::State, NPC)) continue;
        for (llvm::User* a : gep->users()) {
          auto* st = llvm::dyn_cast<llvm::StoreInst>(a);
          if (!st || st->getPointerOperand() != gep || !st->isSimple()) return llvm::PreservedAnalyses::all();
          stores.push_back(st);
        }
      }
      for (llvm::StoreInst* st : stores) {
        llvm::Value* v = st->getValueOperand();
        st->eraseFromParent();
        llvm::RecursivelyDeleteTriviallyDeadInstructions(v);
      }
      return stores.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
    }
  };

  // Fast instruction selection folds an address computation into a load or store only within one basic
  // block, and at CodeGenOpt::None nothing sinks it there (CodeGenPrepare does at the other levels):
  // EarlyCSE leaves one computation of each state field's address (and of each TLB entry's), used in many
  // blocks, so each address went through a register and the basic allocator had to keep them live across
  // the block. An address used in another block is computed again there.
  struct AddressesWhereUsed : llvm::PassInfoMixin<AddressesWhereUsed> {
    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
      bool changed = false;
      // Last first, so that an address computed from another one (a TLB entry's field, from the entry, from
      // the TLB's bank) is copied with the ones it is computed from: a copy's own base, used in the copy's
      // block now, is looked at again. (First to last, a fast path's load of an entry's host offset took the
      // bank's address from a register kept live for it, made by two more instructions at every access.)
      std::vector<llvm::WeakTrackingVH> work;
      for (llvm::BasicBlock& bb : f)
        for (llvm::Instruction& inst : bb)
          if (llvm::isa<llvm::GetElementPtrInst>(inst)) work.emplace_back(&inst);
      while (!work.empty()) {
        auto* gep = llvm::cast_or_null<llvm::GetElementPtrInst>(work.back());
        work.pop_back();
        if (!gep) continue; // erased meanwhile
        llvm::SmallDenseMap<llvm::BasicBlock*, llvm::Instruction*, 8> copies;
        for (llvm::Use& use : llvm::make_early_inc_range(gep->uses())) {
          auto* user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
          if (!user || llvm::isa<llvm::PHINode>(user) || user->getParent() == gep->getParent()) continue;
          llvm::Instruction*& copy = copies[user->getParent()];
          if (!copy) {
            copy = gep->clone();
            copy->insertBefore(&*user->getParent()->getFirstInsertionPt());
            if (auto* base = llvm::dyn_cast<llvm::GetElementPtrInst>(gep->getPointerOperand()))
              work.emplace_back(base);
          }
          use.set(copy);
          changed = true;
        }
        if (gep->use_empty()) gep->eraseFromParent();
      }
      if (!changed) return llvm::PreservedAnalyses::all();
      llvm::PreservedAnalyses kept;
      kept.preserveSet<llvm::CFGAnalyses>();
      return kept;
    }
  };

  // A branch on the conjunction of two compares (the TLB tag and the exclusive monitors on a store's fast
  // path, the budget and the attention flags at a side exit) is, at CodeGenOpt::None, two set-on-condition
  // instructions, an AND, a test and a jump where two compare-and-jumps do (CodeGenPrepare splits it at
  // the other levels). Split again: the second compare moves into a block of its own.
  struct SplitConjunctions : llvm::PassInfoMixin<SplitConjunctions> {
    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
      const bool split = split_logical_branches(f, [](const llvm::Instruction& both) {
        return both.getOpcode() == llvm::Instruction::And && llvm::isa<llvm::CmpInst>(both.getOperand(0)) &&
               llvm::isa<llvm::CmpInst>(both.getOperand(1));
      });
      return split ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
    }
  };

  // The first tier's code generator keeps the IR's block order at CodeGenOpt::None (no block placement).
  // Blocks are laid out depth first from the entry along the edges not marked unlikely, the likelier way
  // (or, unweighted, the way not taken: FastISel jumps to the taken way of a branch on a value that is not
  // a compare in the same block, and falls through to the other) next; the blocks reached only through
  // unlikely edges (slow paths of loads and stores, exceptions, exits on attention or at the budget's
  // end) follow in their order.
  struct LikelyPathsFirst : llvm::PassInfoMixin<LikelyPathsFirst> {
    llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager&) {
      llvm::SmallPtrSet<llvm::BasicBlock*, 32> placed;
      llvm::SmallVector<llvm::BasicBlock*, 32> order, work{&f.getEntryBlock()};
      while (!work.empty()) {
        llvm::BasicBlock* bb = work.pop_back_val();
        if (!placed.insert(bb).second) continue;
        order.push_back(bb);
        llvm::Instruction* term = bb->getTerminator();
        const unsigned n = term->getNumSuccessors();
        uint64_t weight_true = 0, weight_false = 0;
        const bool weighted = n == 2 && llvm::extractBranchWeights(*term, weight_true, weight_false);
        // Pushed last, taken first: the likelier way.
        const bool true_first = weighted && weight_true > weight_false;
        for (unsigned k = 0; k < n; ++k) {
          const unsigned i = n == 2 ? (true_first ? 1 - k : k) : k;
          if (unlikely_successor(*term, i)) continue;
          if (llvm::BasicBlock* next = term->getSuccessor(i); !placed.count(next)) work.push_back(next);
        }
      }
      for (llvm::BasicBlock& bb : f)
        if (!placed.count(&bb)) order.push_back(&bb);
      for (size_t i = 1; i < order.size(); ++i) order[i]->moveAfter(order[i - 1]);
      llvm::PreservedAnalyses kept;
      kept.preserveSet<llvm::CFGAnalyses>();
      return kept;
    }
  };

  // The optimisation pipeline, built once per thread that compiles (building it costs more than running it
  // on a small block).
  struct Optimizer {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb;
    llvm::FunctionPassManager fpm;
    // `at_none`: a first-tier module for code generation at CodeGenOpt::None (the backlog's).
    Optimizer(bool full, bool at_none) {
      // Alias queries about the state answered from its offsets first (jit_state_alias.h); the default
      // analyses after it (registered first, this pipeline replaces the default one). VPLAT_JIT_STATE_AA=0:
      // LLVM's default alias analyses only, for comparisons.
      fam.registerPass([] { return StateAlias(); });
      if (env_on("VPLAT_JIT_STATE_AA"))
        fam.registerPass([] {
          llvm::AAManager aa;
          aa.registerFunctionAnalysis<StateAlias>();
          aa.registerFunctionAnalysis<llvm::ScopedNoAliasAA>();
          aa.registerFunctionAnalysis<llvm::BasicAA>();
          aa.registerFunctionAnalysis<llvm::TypeBasedAA>();
          return aa;
        });
      pb.registerModuleAnalyses(mam);
      pb.registerCGSCCAnalyses(cgam);
      pb.registerFunctionAnalyses(fam);
      pb.registerLoopAnalyses(lam);
      pb.crossRegisterProxies(lam, fam, cgam, mam);
      // VPLAT_JIT_PASSES: another first-tier function pipeline in opt's syntax ("sroa,early-cse,..."), for
      // tuning.
      if (const char* text = std::getenv("VPLAT_JIT_PASSES"); text && !full) {
        if (auto err = pb.parsePassPipeline(fpm, text)) {
          std::fprintf(stderr, "vplat: VPLAT_JIT_PASSES: %s\n", llvm::toString(std::move(err)).c_str());
          std::exit(2);
        }
        return;
      }
      // What partially evaluated emitter output needs: allocas to registers, folding of what the constant
      // fields left, CFG cleanup, and removal of state stores that a later instruction overwrites.
      // The first tier runs no InstCombine: it took half of the pass time and barely shrank the IR (29.0 vs
      // 30.6 IR instructions per guest instruction); code that stays hot is compiled again at the second
      // tier. Guest script in one session (boot, 30k shell loop, sha256sum, gzip -6; s): with it 14.2, 9.4,
      // 3.5, 34.5, without 13.6, 9.6, 4.0, 22.5: its compile time had kept hot code waiting in the
      // interpreter. The second tier forwards guest registers and flags from stores to later loads across the
      // block's internal branches (memory fast/slow paths, side exits), which EarlyCSE leaves (GVN), and runs
      // InstCombine once, before GVN (a second run after DSE took ~5% of its compile time: on the SHA-256
      // kernel's blocks 0.1% fewer host instructions, 206969 instead of 207130 IR instructions). It threads
      // jumps first: after an inlined load or store, the test whether its helper ran (see `helper_ran`) is a
      // phi that InstCombine turns into the TLB hit test, and SimplifyCFG then no longer threads it (the
      // block that joins the fast and slow paths also joins the loaded value): each access tested the hit
      // twice.
      fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
      fpm.addPass(llvm::EarlyCSEPass(full));
      if (full) fpm.addPass(llvm::JumpThreadingPass());
      if (full) fpm.addPass(llvm::InstCombinePass());
      // Compares of 32-bit values as 32-bit compares (both tiers; jit_narrow_compares.h); in the second tier
      // after InstCombine, which narrows compares of extensions but leaves those of masked values.
      // VPLAT_JIT_NARROW_COMPARES=0: off, for comparisons.
      const bool narrow_compares = env_on("VPLAT_JIT_NARROW_COMPARES");
      if (full && narrow_compares) fpm.addPass(NarrowCompares());
      fpm.addPass(llvm::SimplifyCFGPass());
      // The first tier threads jumps too (session 46), after the CFG is cleaned up: the branch on whether an
      // inlined access's helper ran (`helper_ran`) joins the fast and slow paths with the rest of the
      // instruction, which SimplifyCFG does not duplicate, so each fast path zeroed, tested and jumped on a
      // constant. `TIERS=1 bench/jit-code.sh`, host instructions per guest instruction at Less / None:
      // rc 11.500 -> 11.274 / 12.805 -> 12.765, lz 13.447 -> 12.834 / 14.490 -> 13.875, gz 11.463 -> 11.060
      // / 12.399 -> 12.176, calls 15.821 -> 15.495 / 17.821 -> 17.778; pass time per guest instruction in a
      // boot ~1-2% more. VPLAT_JIT_T1_THREAD=0: off, for comparisons.
      if (!full && env_on("VPLAT_JIT_T1_THREAD")) fpm.addPass(llvm::JumpThreadingPass());
      // Registers stored on every path into a join and loaded after it: a phi of the stored values
      // (jit_join_loads.h; the second tier's GVN does this). VPLAT_JIT_JOIN_LOADS=0: off, for comparisons.
      if (!full && env_on("VPLAT_JIT_JOIN_LOADS")) fpm.addPass(ForwardStoresToJoins());
      if (full) {
        fpm.addPass(llvm::GVNPass());
        // A block that loops: flags and the next PC that only its exits read leave the loop (after GVN, which
        // makes the state cache's values final). VPLAT_JIT_LOOP_EXITS=0: off, for comparisons.
        if (env_on("VPLAT_JIT_LOOP_EXITS")) fpm.addPass(LoopExitValues());
      } else {
        fpm.addPass(llvm::EarlyCSEPass(true));
        fpm.addPass(NarrowLoads());
        if (narrow_compares) fpm.addPass(NarrowCompares());
      }
      // A subtraction's N and V from its overflow intrinsic, where they are materialised (both tiers, after
      // the compares are narrowed and, in the second tier, moved to the exits; jit_overflow_flags.h).
      // VPLAT_JIT_OVERFLOW_FLAGS=0: off, for comparisons.
      if (env_on("VPLAT_JIT_OVERFLOW_FLAGS")) fpm.addPass(OverflowFlags());
      // Both tiers remove overwritten stores of the state only, without MemorySSA (cpu-dbt/README.md
      // "First tier: state stores overwritten"; the second tier since session 32: on four kernels the same
      // host instructions per guest instruction as with LLVM's DSE, for 3-8% less compile work).
      // VPLAT_JIT_T1_DSE=1 / VPLAT_JIT_T2_DSE=1: LLVM's DSE instead in that tier, for comparisons.
      if (std::getenv(full ? "VPLAT_JIT_T2_DSE" : "VPLAT_JIT_T1_DSE"))
        fpm.addPass(llvm::DSEPass());
      else
        fpm.addPass(OverwrittenStateStores());
      fpm.addPass(llvm::SimplifyCFGPass()); // branches folding decided (e.g. a same-page exit)
      // The state cache's loads where their values are used (jit_state_loads.h). VPLAT_JIT_STATE_LOADS=0:
      // all at the block's start, for comparisons.
      if (full && env_on("VPLAT_JIT_STATE_LOADS")) fpm.addPass(StateLoadsWhereUsed());
      // Flags and NPC stored and read back (the InstCombine folds this tier needs most; cpu-dbt/README.md
      // "First tier: flags read back"). VPLAT_JIT_ROUND_TRIPS=0: off, for comparisons.
      if (!full && env_on("VPLAT_JIT_ROUND_TRIPS")) fpm.addPass(BooleanRoundTrips());
      // VPLAT_JIT_NPC_STORES=1: the first tier keeps them (for comparisons).
      if (!full && !std::getenv("VPLAT_JIT_NPC_STORES")) fpm.addPass(NextPcStores());
      // VPLAT_JIT_BRANCH_SELECTS=0: off, for comparisons.
      if (!full && env_on("VPLAT_JIT_BRANCH_SELECTS")) fpm.addPass(SelectsOnBranchConditions());
      // SIMD instructions' element operations as vector operations (jit_vector_lanes.h; the emitters build
      // them in this tier only: vector_lanes_on()).
      if (full && vector_lanes_on()) fpm.addPass(VectorLanes());
      if (full && cold_paths_selected_fast()) fpm.addPass(FullSelectionOnLikelyPaths());
      if (at_none) {
        fpm.addPass(AddressesWhereUsed());
        fpm.addPass(SplitConjunctions());
        fpm.addPass(LikelyPathsFirst());
      }
    }
  };

  static void optimize(llvm::Module& mod, bool full, bool at_none) {
    thread_local Optimizer cheap(false, false), cheap_at_none(false, true), thorough(true, false);
    Optimizer& opt = full ? thorough : at_none ? cheap_at_none : cheap;
    for (auto& fn : mod)
      if (!fn.isDeclaration()) {
        opt.fpm.run(fn, opt.fam);
        opt.fam.clear(fn, fn.getName());
      }
  }

  void work() {
    for (;;) {
      std::vector<Request> batch;
      std::vector<Result> dropped;
      {
        std::unique_lock<std::mutex> l(m);
        cv.wait(l, [&] { return stopping || !queue.empty() || !queue_tier2.empty(); });
        if (stopping) return;
        // A boot makes blocks hot faster than LLVM compiles them. The code seen hot last is the code
        // running now; a request not seen hot for a while belongs to a phase that is over, and compiling it
        // would keep the current phase waiting (with one queue in arrival order, a boot's backlog of
        // ~1300 first-tier and ~2500 second-tier requests lasted well into the workloads after it, and
        // the workloads' own hot loops never reached the second tier). Dropped requests come back once
        // their blocks are hot again.
        const uint64_t now = now_ms();
        auto last_hot = [&](const Request& r) {
          auto it = hot_again.find(r.key);
          return it == hot_again.end() ? r.hot_ms : std::max(r.hot_ms, it->second.last_ms);
        };
        // The block that runs most now goes first: a program's hot loop reaches its threshold again many
        // times a second (bzip2 -9's ~700 while queued), blocks its start-up made hot once do not.
        auto heat_of = [&](const Request& r) {
          double score = decayed(1.0, r.hot_ms, now);
          if (auto it = hot_again.find(r.key); it != hot_again.end())
            score += decayed(it->second.score, it->second.last_ms, now);
          return score;
        };
        for (std::vector<Request>* q : {&queue, &queue_tier2}) {
          auto stale = std::stable_partition(
              q->begin(), q->end(), [&](const Request& r) { return last_hot(r) + max_wait_ms >= now; });
          for (auto it = stale; it != q->end(); ++it) {
            hot_again.erase(it->key);
            Result gone;
            gone.req = std::move(*it);
            dropped.push_back(std::move(gone));
          }
          q->erase(stale, q->end());
        }
        // First-tier requests go first, except second-tier ones of dominant blocks (promote_hot): a loop
        // that runs a large share of all instructions gains more from the second tier than any queued
        // block from the first (the boot's RSA self-test ran ~500 M instructions in the first tier while
        // ~500 first-tier requests waited).
        auto dominant = [&](const Request& r) {
          auto it = hot_again.find(r.key);
          return it != hot_again.end() && it->second.dominant_ms + kDominantMs >= now;
        };
        const bool ahead = !queue.empty() && std::any_of(queue_tier2.begin(), queue_tier2.end(), dominant);
        // A module holds blocks of one tier. Second-tier modules are small, so that first-tier requests
        // made meanwhile do not wait long.
        const bool tier2 = queue.empty() || ahead;
        std::vector<Request>& from = tier2 ? queue_tier2 : queue;
        const size_t take = std::min(from.size(), tier2 ? kBatchTier2 : batch_size);
        std::vector<double> heat_now(from.size());
        for (size_t i = 0; i < from.size(); ++i)
          heat_now[i] = ahead && dominant(from[i]) ? HUGE_VAL : heat_of(from[i]);
        std::vector<size_t> order(from.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                          [&](size_t a, size_t b) { return heat_now[a] > heat_now[b]; });
        std::vector<bool> taken(from.size());
        for (size_t i = 0; i < take; ++i) {
          Request& r = from[order[i]];
          r.ahead = ahead;
          hot_again.erase(r.key);
          batch.push_back(std::move(r));
          taken[order[i]] = true;
        }
        size_t kept = 0;
        for (size_t i = 0; i < from.size(); ++i)
          if (!taken[i]) {
            if (kept != i) from[kept] = std::move(from[i]);
            ++kept;
          }
        from.resize(kept);
        if (!tier2 && backlog_requests && queue.size() >= backlog_requests)
          for (Request& r : batch) r.backlog = true;
        if (compile_log)
          for (const Request& r : batch)
            std::fprintf(
                stderr,
                "jit-log: %llu.%03llu tier%d %llx pa %llx el%u %zu insns, queued %zu + %zu, dropped %zu\n",
                static_cast<unsigned long long>(now / 1000), static_cast<unsigned long long>(now % 1000),
                r.optimized ? 2 : 1, static_cast<unsigned long long>(r.key.va),
                static_cast<unsigned long long>(r.key.pa), r.key.el, r.words.size(), queue.size(),
                queue_tier2.size(), dropped.size());
      }
      std::vector<Result> done = batch.empty() ? std::vector<Result>() : compile(std::move(batch));
      std::lock_guard<std::mutex> l(m);
      for (auto& r : done) results.push_back(std::move(r));
      for (auto& r : dropped) results.push_back(std::move(r));
      if (!results.empty()) results_ready.store(true, std::memory_order_release);
    }
  }
  // Blocks per module when requests queue up. A module takes the compile thread ~30-80 ms, which a request
  // made hot meanwhile waits out whatever its heat. Boots to the banner with 8 against 16 (one code
  // generator pipeline for all modules, guest thread pinned to the faster host CPU): -0.044 s, lower in
  // 11 of 16 pairs; 4 against 8 +0.042 s (5 of 16), as each module costs its own set-up.
  static constexpr size_t kBatch = 8;
  // A block's straight-line continuations on its page requested with it: at most this many blocks.
  static constexpr size_t kStraightRun = 16;
  // VPLAT_JIT_BATCH=N (1..64): first-tier blocks per module instead of kBatch, for tuning.
  const size_t batch_size = env_number("VPLAT_JIT_BATCH", 1, 64, kBatch);
  static constexpr size_t kBatchTier2 = 2;
  // While this many first-tier requests are left waiting after a module's, it is made with the backlog's
  // code generator (VPLAT_JIT_BACKLOG=N; 0: never). A boot's queue holds hundreds for seconds, and ~70% of
  // the instructions it runs pre-decoded ran while their blocks' requests were queued; a workload's steady
  // state queues few, and its first-tier code runs long.
  static constexpr size_t kBacklogRequests = 16;
  const size_t backlog_requests = env_number("VPLAT_JIT_BACKLOG", 0, 1u << 20, kBacklogRequests);

  // ---------------------------------------------------------------------------------- cache

  // A filter in front of `pages` for is_code_page, which every TLB fill and every store on the slow path
  // asks (most of them about data pages): a clear flag says the page is not code. Flags are set with a code
  // page and cleared only with all of them (drop_all); a set flag is checked in `pages`. Before, the hash
  // table lookup was ~2% of the guest thread's time in zstd -9 (a window of several MiB: many TLB fills).
  static constexpr size_t kCodeFilterSize = 1 << 16;
  std::vector<uint8_t> code_filter = std::vector<uint8_t>(kCodeFilterSize);
  static size_t code_filter_index(uint64_t pa_page) { return (pa_page >> 12) & (kCodeFilterSize - 1); }

  void mark_code_page(uint64_t pa_page) {
    Page& p = pages[pa_page];
    if (p.code) return;
    p.code = true;
    code_filter[code_filter_index(pa_page)] = 1;
    // Existing TLB entries would let stores reach the page on the fast path.
    for (Core* c : cores) {
      for (auto& bank : c->tlb_)
        for (auto& e : bank)
          if (e.pa == pa_page) e.write = ~0ull;
      for (auto& bank : c->victims_)
        for (auto& e : bank)
          if (e.pa == pa_page) e.write = ~0ull;
    }
  }

  // Reads the instructions of a block at `key`: up to the page end, `max_len`, the first branch, or the
  // first instruction blocks leave to the interpreter.
  Request form(Core& c, const Key& key, const Core::TlbEntry& e, unsigned max_len) {
    Request r;
    r.key = key;
    r.words = read_words(c, key, e, max_len);
    r.epoch = epoch;
    if (counting && !r.words.empty()) r.count_slot = take_slot();
    return r;
  }
  std::vector<uint32_t> read_words(Core& c, const Key& key, const Core::TlbEntry& e, unsigned max_len) {
    std::vector<uint32_t> words;
    uint64_t off = key.va & 0xfff;
    // Blocks end at every kRegionBytes boundary (the run loop offers a block start there), so that code
    // entered in the middle of a long straight run (after an interrupt, or at the start of a run() quantum)
    // meets the same block starts again within one region.
    unsigned limit =
        std::min<unsigned>(max_len, static_cast<unsigned>((kRegionBytes - (off & (kRegionBytes - 1))) / 4));
    for (unsigned i = 0; i < limit; ++i) {
      uint32_t insn;
      if (e.host_delta) {
        std::memcpy(&insn, e.host(key.va + 4 * i), 4);
      } else {
        uint64_t v;
        if (!c.mem.read(e.pa | (off + 4 * i), 4, v)) break;
        insn = static_cast<uint32_t>(v);
      }
      const int id = g::decode(insn);
      Role role = role_of(id, insn);
      if (role == Role::Outside) break;
      words.push_back(insn);
      if (role == Role::Last && !is_conditional_branch(id)) break;
    }
    return words;
  }

  // A pre-decoded block reached baseline_threshold runs: baseline code until its translation is installed.
  void make_baseline(Core& c, Block& b) {
    if (!baseline_compiler || c.insn_counts || !b.pre || b.pre->baseline_tried) return;
    b.pre->baseline_tried = true;
    b.pre->code = baseline_compiler->make(b.insns, b.len, b.key.va, b.key.el);
    b.baseline = b.pre->code;
    if (b.baseline) {
      b.list = nullptr; // end entries go to it no more (try_run runs its code)
      ++stats.blocks_baseline;
    }
    if (perf_map && b.baseline) {
      char name[32];
      std::snprintf(name, sizeof name, "base_%llx", static_cast<unsigned long long>(b.key.va));
      perf_map->add(reinterpret_cast<const void*>(b.baseline), baseline_compiler->last_size(), name);
    }
  }

  // The first tier's compiles take milliseconds each and queue up where a program starts (bzip2 -9 ran
  // interpreted for its first ~3 s while ~170 blocks waited), so a block start that gets warm first runs
  // pre-decoded: its instructions' interpreter functions called in turn, without the run loop's fetch and
  // decode (made at once, on this thread). Its runs are counted on towards the first tier's threshold.
  Block* predecode(Core& c, const Key& key, const Core::TlbEntry& e) {
    const uint64_t page = key.pa & ~0xfffull;
    snapshot(c, page);
    const std::vector<uint32_t> words = read_words(c, key, e, kMaxBlockInsns);
    auto blk = std::make_unique<Block>();
    blk->key = key;
    if (!words.empty()) {
      mark_code_page(page);
      blk->len = static_cast<unsigned>(words.size());
      blk->pre = std::make_unique<Predecoded>(blk->len + 1, &graveyard, &predecoded_live);
      for (unsigned i = 0; i < blk->len; ++i) {
        Core::PredecodedInsn& d = blk->pre->insns[i];
        d = Core::predecode(words[i]);
        d.info |= (blk->len - i) << Core::PredecodedInsn::kToEndShift; // (ids are below 1 << 16)
        if (insn_flags(g::decode(words[i])) & kFlagFp) blk->fp = true;
      }
      Core::PredecodedInsn& end = blk->pre->insns[blk->len];
      end.block = blk.get();
      end.insn = end.info = 0;
      end.handler = threaded::kEnd;
      blk->insns = blk->pre->insns.get();
      blk->va = key.va;
      blk->pa_page = key.pa & ~0xfffull;
      blk->el = static_cast<uint16_t>(key.el);
      if (blk->insns[0].handler) blk->list = blk->insns;
      if (baseline_threshold == 1) make_baseline(c, *blk);
      ++stats.blocks_predecoded;
    } // else nothing to run here: a marker, so the run loop stops asking (as submit makes)
    pages[page].keys.push_back(key);
    Block* raw = blk.get();
    auto& slot = blocks[key];
    if (slot) ++block_gen;
    slot = std::move(blk);
    set_entry(key, raw);
    return raw->pre ? raw : nullptr;
  }

  // A block start reached a threshold: it runs pre-decoded from now on, or (already pre-decoded, or with
  // pre-decoding off) it is queued for the first tier.
  Block* became_hot(Core& c, const Key& key, const Core::TlbEntry& e) {
    if (predecode_threshold && !blocks.count(key)) return predecode(c, key, e);
    if (!pending.count(key))
      submit(c, key, e, kMaxBlockInsns, false, nullptr);
    else
      still_hot(key);
    return nullptr;
  }

  Block* install(Result&& res) {
    const Key& k = res.req.key;
    pending.erase(k);
    auto p = pages.find(k.pa & ~0xfffull);
    const bool changed = res.req.epoch != epoch || p == pages.end() || p->second.gen != res.req.page_gen;
    if (!res.fn || changed) {
      // Dropped unmade, or the code changed while this was compiling (either way the slot's counters are
      // still zero: it never ran). A dropped block may be asked for again.
      if (res.req.count_slot != kNoSlot) free_slots.push_back(res.req.count_slot);
      if (!res.fn) {
        if (auto it = blocks.find(k); res.req.optimized && it != blocks.end() && !it->second->second_tier) {
          it->second->optimized = false;
          it->second->samples = 0;
        }
        ++stats.requests_dropped;
      }
      return nullptr;
    }
    auto blk = std::make_unique<Block>();
    blk->key = k;
    blk->len = static_cast<unsigned>(res.req.words.size());
    for (uint32_t w : res.req.words)
      if (insn_flags(g::decode(w)) & kFlagFp) blk->fp = true;
    blk->fn = res.fn;
    blk->optimized = blk->second_tier = res.req.optimized;
    if (res.req.optimized) {
      ++stats.blocks_tier2;
      if (res.loops) ++stats.blocks_tier2_looping;
    }
    if (res.req.ahead) ++stats.tier2_ahead;
    if (res.req.backlog) ++stats.blocks_backlog;
    blk->code = std::move(res.code);
    if (!blk->code->installed) { // its exits lead nowhere yet
      blk->code->installed = &links;
      links.chunks.insert(blk->code.get());
      links.exits += blk->code->exits;
    }
    blk->runs_counted = res.runs;
    blk->count_slot = res.req.count_slot;
    if (blk->count_slot != kNoSlot)
      for (uint32_t w : res.req.words) blk->ids.push_back(static_cast<uint16_t>(g::decode(w)));
    Block* raw = blk.get();
    auto& slot = blocks[k];
    if (slot && slot->pre) {
      // A pre-decoded block becomes its translation in place: the pre-decoded blocks whose `next` names it go
      // on to the translation, and nothing else points at it (exit slots, direct links and the jump cache
      // lead only to translated code; set_entry replaces its cache entry), so no generation changes. (A
      // new block generation at each install had sent a boot's pre-decoded blocks to lookup ~200 times a
      // second.)
      Block& old = *slot;
      release_counts(old);
      old.pre.reset(); // its instructions are released at the next safe point
      old.insns = nullptr;
      old.list = nullptr;
      old.baseline = nullptr; // released with `pre`
      old.next = nullptr;
      old.runs = old.samples = 0;
      old.len = blk->len;
      old.fp = blk->fp;
      old.fn = blk->fn;
      old.code = std::move(blk->code);
      old.runs_counted = blk->runs_counted;
      if (old.runs_counted && !old.counted_in) counted.add(&old);
      old.optimized = blk->optimized;
      old.second_tier = blk->second_tier;
      old.count_slot = blk->count_slot;
      old.ids = std::move(blk->ids);
      raw = &old;
    } else {
      if (slot) {
        // What jumps to the code replaced (exit slots, direct links, the jump cache) jumps to the new code
        // from now on. A new cache generation here had sent every chain back to the run loop to be linked
        // again at each second-tier install (in a shell loop's warm-up, dozens a second).
        if (slot->fn && !redirect_jumps_off)
          redirect_jumps(*slot, *raw);
        else
          bump_cache_gen();
        ++block_gen; // Block::next may name the Block replaced
        release_counts(*slot);
      }
      slot = std::move(blk);
      if (raw->runs_counted) counted.add(raw);
    }
    set_entry(k, raw);
    ++stats.blocks_compiled;
    return raw;
  }

  // VPLAT_JIT_REDIRECT=0: a translation replaced by another starts a new cache generation instead.
  const bool redirect_jumps_off = !env_on("VPLAT_JIT_REDIRECT");
  void redirect_jumps(Block& old, Block& now) {
    const BlockFn from = old.fn, to = now.fn;
    if (links.stale()) rebuild_links();
    for (BlockExit* e : old.linked_from) {
      bool led_there = false;
      for (ExitSlot& s : e->slots)
        if (s.fn == from) s.fn = to, led_there = true;
      if (e->direct == from) e->direct = to, led_there = true;
      if (led_there) now.linked_from.push_back(e);
    }
    old.linked_from.clear();
    JumpEntry& j = jump_cache[jump_index(now.key.va)];
    if (j.fn == from) j.fn = to;
    ++stats.redirected;
  }

  void set_entry(const Key& k, Block* b) {
    cache[cache_index(k.va)] = Entry{k.va, k.pa, k.el, cache_gen, b};
    heat[heat_index(k.va, k.el)] |= kHasBlock;
  }

  void drop_page(uint64_t pa_page) {
    auto p = pages.find(pa_page);
    if (p == pages.end()) return;
    // Exit slots, direct links and the jump cache lead only to compiled code: a page of pre-decoded blocks
    // alone (most pages, as pages of exited programs are reused for data) needs no new generation, which
    // would send every chain back to the run loop to be linked again; its blocks' cache entries go.
    bool translated = false;
    for (const Key& k : p->second.keys) {
      auto it = blocks.find(k);
      if (it == blocks.end()) continue;
      if (it->second->fn) translated = true;
      if (Entry& en = cache[cache_index(k.va)]; en.block == it->second.get()) en.gen = 0;
      release_counts(*it->second);
      blocks.erase(it);
    }
    if (translated) {
      bump_cache_gen();
      ++stats.invalidated_translated;
    }
    ++block_gen;
    uint64_t gen = p->second.gen + 1;
    pages.erase(p);
    // Keep the generation so that a compile in flight for this page is not installed.
    page_gens[pa_page] = gen;
    ++stats.invalidated_pages;
  }
  std::unordered_map<uint64_t, uint64_t> page_gens;

  void drop_all() {
    for (auto& [key, blk] : blocks) release_counts(*blk);
    blocks.clear();
    bump_cache_gen();
    ++block_gen;
    pages.clear();
    std::fill(code_filter.begin(), code_filter.end(), 0);
    pending.clear();
    ++epoch;
    ++stats.flushes;
  }

  void collect_garbage() {
    for (auto& rt : graveyard.code)
      if (rt) cantFail(rt->remove());
    graveyard.code.clear();
    graveyard.slots.clear();
    graveyard.predecoded.clear();
    for (baseline::Fn fn : graveyard.baseline) baseline_compiler->release(fn);
    graveyard.baseline.clear();
    if (links.stale()) rebuild_links(); // also where no translation is replaced for a while
  }

  // Taken before any block of the page is read, so that a concurrent write by a device is either in the
  // copy or makes the copy differ from memory at the next IC instruction.
  void snapshot(Core& c, uint64_t pa_page) {
    Page& p = pages[pa_page];
    if (!p.source.empty()) return;
    if (const uint8_t* h = c.mem.ram_pointer(pa_page)) p.source.assign(h, h + 0x1000);
  }

  // Whether the page still holds the bytes its translations were made from (unknown: no).
  bool unchanged(Core& c, uint64_t pa_page, const Page& p) const {
    const uint8_t* h = c.mem.ram_pointer(pa_page);
    return h && p.source.size() == 0x1000 && std::memcmp(h, p.source.data(), 0x1000) == 0;
  }

  void submit(Core& c, const Key& key, const Core::TlbEntry& e, unsigned max_len, bool now, Block** out) {
    if (!now && !llvm_tiers) return;
    uint64_t page = key.pa & ~0xfffull;
    snapshot(c, page);
    Request r = form(c, key, e, max_len);
    if (r.words.empty()) {
      // Nothing to translate here: remember it, so the run loop stops asking.
      auto blk = std::make_unique<Block>();
      blk->key = key;
      Block* raw = blk.get();
      auto& slot = blocks[key];
      if (slot) ++block_gen;
      slot = std::move(blk);
      set_entry(key, raw);
      pages[page].keys.push_back(key);
      if (out) *out = raw;
      return;
    }
    mark_code_page(page);
    Page& p = pages[page];
    if (auto g = page_gens.find(page); g != page_gens.end() && p.gen < g->second) p.gen = g->second;
    p.keys.push_back(key);
    r.page_gen = p.gen;
    r.hot_ms = now ? 0 : now_ms();
    pending.insert(key);
    if (now) {
      // VPLAT_JIT_TIER2=1 (one chain start makes a block hot for the second tier) with the synchronous
      // engine: every block is made at the second tier from the start, also those that chains only pass
      // through (the differential tests and measurements of that tier's code).
      r.optimized = tier2_samples == 1;
      Block* b = install(compile(std::move(r)));
      if (out) *out = b;
      return;
    }
    // A block cut at a region boundary runs into the next one every time it runs: translate the rest of
    // the straight-line code on this page now rather than after another kHotThreshold passes each.
    std::vector<Request> batch;
    batch.push_back(std::move(r));
    while (batch.size() < kStraightRun) {
      const Request& prev = batch.back();
      const unsigned len = static_cast<unsigned>(prev.words.size());
      const Key next{prev.key.va + 4ull * len, prev.key.pa + 4ull * len, prev.key.el};
      if (next.va & (kRegionBytes - 1) ||
          role_of(g::decode(prev.words.back()), prev.words.back()) != Role::Body)
        break;
      if (!(next.va & 0xfff) || pending.count(next)) break;
      if (auto it = blocks.find(next); it != blocks.end() && !it->second->pre) break;
      Request nr = form(c, next, e, kMaxBlockInsns);
      if (nr.words.empty()) break;
      nr.page_gen = p.gen;
      nr.hot_ms = prev.hot_ms;
      p.keys.push_back(next);
      pending.insert(next);
      batch.push_back(std::move(nr));
    }
    if (compile_log == 2)
      for (const Request& q : batch) log_request(q);
    {
      std::lock_guard<std::mutex> l(m);
      for (auto& q : batch) queue.push_back(std::move(q));
    }
    ++tier1_requests;
    cv.notify_one();
  }

  void poll_results() {
    if (!results_ready.load(std::memory_order_acquire)) return;
    std::vector<Result> done;
    {
      std::lock_guard<std::mutex> l(m);
      done.swap(results);
      results_ready.store(false, std::memory_order_relaxed);
    }
    for (auto& r : done) install(std::move(r));
  }
};

namespace {
// The CPU time of the calling thread (the one that ran the guest, when the engine goes away at exit).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
} // namespace

JitEngine::JitEngine(bool synchronous) : impl_(std::make_unique<Impl>(synchronous)) {
  heat_ = impl_->heat.data();
  hot_threshold_ = impl_->first_threshold;
  sync_ = synchronous;
}
JitEngine::~JitEngine() {
  // VPLAT_JIT_STATS=1: what the tier did, for tuning.
  if (const char* v = std::getenv("VPLAT_JIT_STATS"); v && *v == '1') {
    const JitStats& s = stats();
    std::fprintf(
        stderr,
        "jit: %llu blocks compiled, %llu block runs, %llu instructions in blocks, %llu page invalidations, "
        "%llu flushes, %llu interpreter calls compiled into blocks, %llu instructions interpreted, %llu "
        "requests "
        "dropped\n",
        static_cast<unsigned long long>(s.blocks_compiled), static_cast<unsigned long long>(s.blocks_run),
        static_cast<unsigned long long>(s.insns_in_blocks),
        static_cast<unsigned long long>(s.invalidated_pages), static_cast<unsigned long long>(s.flushes),
        static_cast<unsigned long long>(s.fallback_insns),
        static_cast<unsigned long long>(s.insns_interpreted),
        static_cast<unsigned long long>(s.requests_dropped));
    std::fprintf(
        stderr,
        "jit: %llu blocks pre-decoded, %llu of the instructions in blocks ran pre-decoded (%llu blocks, %llu "
        "instructions in baseline code; %llu runs entered from the block before, through threaded handlers); "
        "%llu of the pages invalidated held compiled code\n",
        static_cast<unsigned long long>(s.blocks_predecoded),
        static_cast<unsigned long long>(s.insns_predecoded),
        static_cast<unsigned long long>(s.blocks_baseline), static_cast<unsigned long long>(s.insns_baseline),
        static_cast<unsigned long long>(s.blocks_entered_threaded),
        static_cast<unsigned long long>(s.invalidated_translated));
    const auto& e = impl_->chain_ends;
    std::fprintf(
        stderr,
        "jit: returns to the run loop: %llu at the budget, %llu attention, %llu faults, %llu declined, "
        "%llu before loads or stores that missed the TLB, "
        "%llu no block next; %llu exits not linked yet (%llu of indirect branches); %llu direct links made; "
        "%llu replaced translations' jumps redirected\n",
        static_cast<unsigned long long>(e.budget), static_cast<unsigned long long>(e.attention),
        static_cast<unsigned long long>(e.fault), static_cast<unsigned long long>(e.declined),
        static_cast<unsigned long long>(e.missed_tlb), static_cast<unsigned long long>(e.no_block),
        static_cast<unsigned long long>(e.unlinked), static_cast<unsigned long long>(e.unlinked_indirect),
        static_cast<unsigned long long>(s.direct_links), static_cast<unsigned long long>(s.redirected));
    {
      // T: translated, B: baseline code, P: pre-decoded (threaded handlers), -: no block (the interpreter).
      std::string line = "jit: run-loop steps between blocks (from>to: without a lookup/with one):";
      static constexpr char kName[] = "-TBP";
      for (unsigned from = JitStats::kTranslated; from < JitStats::kTiers; ++from)
        for (unsigned to = 0; to < JitStats::kTiers; ++to) {
          const uint64_t* n = s.steps[from][to];
          if (n[0] + n[1])
            line += " " + std::string{kName[from], '>', kName[to]} + " " + std::to_string(n[0]) + "/" +
                    std::to_string(n[1]);
        }
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fprintf(
        stderr,
        "jit: %llu modules; compile thread CPU time: IR %.2f s, passes %.2f s, code generation %.2f s "
        "(second tier: %llu blocks, %llu of them ahead of first-tier requests, %.2f s: passes %.2f s, "
        "code generation %.2f s; first tier: %llu "
        "blocks made while requests queued up); this thread's CPU time %.2f s\n",
        static_cast<unsigned long long>(impl_->modules.load()), impl_->time_ir.load() * 1e-9,
        impl_->time_opt.load() * 1e-9, impl_->time_codegen.load() * 1e-9,
        static_cast<unsigned long long>(impl_->stats.blocks_tier2),
        static_cast<unsigned long long>(impl_->stats.tier2_ahead), impl_->time_tier2.load() * 1e-9,
        impl_->time_tier2_opt.load() * 1e-9, impl_->time_tier2_codegen.load() * 1e-9,
        static_cast<unsigned long long>(impl_->stats.blocks_backlog), thread_cpu_seconds());
    const double guest = static_cast<double>(std::max<uint64_t>(1, impl_->guest_tier1.load()));
    std::fprintf(
        stderr,
        "jit: first tier: %llu guest instructions, IR instructions per guest instruction %.1f before "
        "passes, %.1f after\n",
        static_cast<unsigned long long>(impl_->guest_tier1.load()), impl_->ir_tier1_before.load() / guest,
        impl_->ir_tier1_after.load() / guest);
  }
}

void JitEngine::add_core(Core& core) {
  auto& im = *impl_;
  if (std::find(im.cores.begin(), im.cores.end(), &core) == im.cores.end()) {
    im.cores.push_back(&core);
    im.block_runs.emplace_back(im.block_runs.empty() ? 0 : im.block_runs[0].size());
    core.block_runs_ = im.block_runs.back().data();
    // Translations made so far were made for one core.
    if (im.cores.size() == 2 && !im.several_cores.exchange(true) &&
        (!im.blocks.empty() || !im.pending.empty()))
      im.drop_all();
  }
  // The end entries of threaded lists enter a block where try_run's known-successor path would
  // (VPLAT_JIT_THREADED_CHAIN=0: never, for comparisons).
  static const bool chain_threaded = env_number("VPLAT_JIT_THREADED_CHAIN", 0, 1, 1) != 0;
  core.chain_.block_gen = &im.block_gen;
  // (baseline_threshold is at most hot_threshold; 0: no baseline code)
  core.chain_.runs_limit = !chain_threaded         ? 0
                           : im.baseline_threshold ? im.baseline_threshold
                                                   : im.hot_threshold;
  auto* base = reinterpret_cast<char*>(static_cast<g::State*>(&core));
  im.off.attention = static_cast<size_t>(reinterpret_cast<char*>(&core.attention_) - base);
  im.off.access_el = static_cast<size_t>(reinterpret_cast<char*>(&core.access_el_) - base);
  im.off.cur_insn = static_cast<size_t>(reinterpret_cast<char*>(&core.cur_insn) - base);
  im.off.sp_check = static_cast<size_t>(reinterpret_cast<char*>(&core.sp_check_) - base);
  im.off.tlb = static_cast<size_t>(reinterpret_cast<char*>(&core.tlb_) - base);
  im.off.data_tlb = static_cast<size_t>(reinterpret_cast<char*>(&core.data_tlb_) - base);
  im.off.itlb = static_cast<size_t>(reinterpret_cast<char*>(&core.itlb_) - base);
  if (im.off.monitors && im.off.monitors != core.monitors_active_) {
    std::fprintf(stderr, "vplat: cores of one JIT engine with different exclusive monitor groups\n");
    std::abort();
  }
  im.off.monitors = core.monitors_active_;
  im.off.block_runs = static_cast<size_t>(reinterpret_cast<char*>(&core.block_runs_) - base);
  im.off.retired = static_cast<size_t>(reinterpret_cast<char*>(&core.retired) - base);
  im.off.block_done = static_cast<size_t>(reinterpret_cast<char*>(&core.block_done_) - base);
  im.off.wrapper_result = static_cast<size_t>(reinterpret_cast<char*>(&core.wrapper_result_) - base);
  im.off.quiet_declined = static_cast<size_t>(reinterpret_cast<char*>(&core.quiet_declined_) - base);
  im.off.last_exit = static_cast<size_t>(reinterpret_cast<char*>(&core.last_exit_) - base);
  im.off.cache_gen = static_cast<size_t>(reinterpret_cast<char*>(&core.jit_cache_gen_) - base);
  core.jit_cache_gen_ = im.cache_gen;
  im.off.fp_trap = static_cast<size_t>(reinterpret_cast<char*>(&core.fp_trap_) - base);
  im.off.run_to_boundary = static_cast<size_t>(reinterpret_cast<char*>(&core.run_to_boundary_) - base);
  im.off.tpidr_el0 = static_cast<size_t>(reinterpret_cast<char*>(&core.tpidr_el0) - base);
  im.off.tpidr_el1 = static_cast<size_t>(reinterpret_cast<char*>(&core.sys.tpidr_el1) - base);
  im.off.tpidrro_el0 = static_cast<size_t>(reinterpret_cast<char*>(&core.sys.tpidrro_el0) - base);
  im.off.sp_other = static_cast<size_t>(reinterpret_cast<char*>(&core.sp_other_) - base);
  im.off.spsel = static_cast<size_t>(reinterpret_cast<char*>(&core.spsel_) - base);
  if (baseline::available() && im.baseline_threshold && !im.baseline_compiler) {
    auto at = [base](const void* member) {
      return static_cast<int32_t>(static_cast<const char*>(member) - base);
    };
    im.baseline_compiler = std::make_unique<baseline::Compiler>(
        baseline::Layout{at(&core.cur_insn), at(&core.block_done_), at(&core.attention_), at(&core.sp_check_),
                         at(&core.baseline_done_), im.hot_threshold, at(&core.itlb_), Core::kFlagEndsBlock,
                         &Core::before_flagged, &Core::after_exclusive_load});
    if (im.perf_map) {
      size_t k = 0;
      for (auto [at_, size] : im.baseline_compiler->support())
        im.perf_map->add(at_, size, "base_support_" + std::to_string(k++));
    }
  }
  if (core.insn_counts) count_instructions();
  // The probe reads the offsets just set (the same for every core); nothing is compiled before a core runs.
  if (!im.chain_probe && im.shared_probe) im.make_probe();
  if (!im.mem_read_wrapper && im.preserving_calls) im.make_memory_wrappers();
  static_assert(sizeof(core.attention_) == 4 && sizeof(core.access_el_) == 4 && sizeof(core.cur_insn) == 4 &&
                sizeof(core.sp_check_) == 1 && sizeof(core.fp_trap_) == 1 &&
                sizeof(core.run_to_boundary_) == 1 && sizeof(core.retired) == 8);
}

// The block at core.PC if the fetch TLB maps it to RAM (or any memory, in user mode) and a translation
// exists; counts the start for hotness (Auto) or translates it now (Jit) otherwise.
Block* JitEngine::Impl::lookup(Core& c, bool count) {
  const uint64_t pc = c.PC;
  if (pc & 3) return nullptr;
  const unsigned el = c.el_;
  // Code without a block is only counted: the interpreter asks at every branch, and the fetch TLB entry
  // (often a cache miss) is needed only once the code is hot. Looked up first, it was ~20% of this
  // function's time in a boot.
  uint16_t& h = heat[heat_index(pc, el)];
  const bool counting_only = !(h & kHasBlock) && !sync;
  if (counting_only) {
    if (!count || (++h & kHeatCount) < first_threshold) return nullptr;
    h &= kHasBlock; // hot now: counted again from zero whatever follows
  }
  const Core::TlbEntry* ep = &fetch_entry(c, el, pc);
  if (ep->fetch != (pc & ~0xfffull)) {
    // After a TLB flush (every context switch) the first block of each page would otherwise be interpreted.
    // A fault is left to the interpreter's fetch, which raises it.
    Core::TlbEntry* filled = nullptr;
    uint8_t fsc = 0;
    if (!c.translate_fill(pc, Access::Fetch, el, filled, fsc) || filled->fetch != (pc & ~0xfffull))
      return nullptr;
    ep = filled;
  }
  const Core::TlbEntry& e = *ep;
  if (!e.host_delta && c.config.system) return nullptr; // code outside RAM is interpreted
  const uint64_t pa = e.pa | (pc & 0xfff);
  if (counting_only) return became_hot(c, Key{pc, pa, el}, e);
  Entry& en = cache[cache_index(pc)];
  if (en.gen != cache_gen || en.va != pc || en.pa != pa || en.el != el) {
    const Key key{pc, pa, el};
    auto it = blocks.find(key);
    en = Entry{pc, pa, el, cache_gen, it == blocks.end() ? nullptr : it->second.get()};
  }
  if (Block* b = en.block) {
    if (count && b->pre) {
      ++b->runs;
      if (b->runs >= baseline_threshold && !b->baseline && baseline_threshold) make_baseline(c, *b);
      if (b->runs >= hot_threshold) {
        b->runs = 0;
        became_hot(c, b->key, e);
      }
    }
    return b;
  }
  if (!count) return nullptr;
  const Key key{pc, pa, el};
  if (sync) {
    Block* b = nullptr;
    submit(c, key, e, kMaxBlockInsns, true, &b);
    return b;
  }
  if ((++h & kHeatCount) >= first_threshold) {
    h &= kHasBlock;
    return became_hot(c, key, e);
  }
  return nullptr;
}

bool JitEngine::try_run(Core& c, uint64_t budget_left, uint32_t attention, uint32_t& retired, bool& faulted,
                        bool& at_boundary) {
  auto& im = *impl_;
  im.stats.insns_interpreted += c.retired - c.jit_retired_mark_;
  c.jit_retired_mark_ = c.retired;
  if (!im.graveyard.empty()) im.collect_garbage();
  im.poll_results();
  if (im.blocks.size() - im.predecoded_live > kMaxBlocks || im.predecoded_live > kMaxPredecoded)
    im.drop_all();
  if (c.il_) return false;
  Block* b = im.lookup(c, true);
  if (!b || !(b->fn || b->pre) || (b->fp && c.fp_trap_)) return false;
  if (b->fn && im.tier2_samples && !b->second_tier && ++b->samples >= im.tier2_samples) {
    b->samples = 0;
    if (b->optimized)
      im.still_hot(b->key); // asked for already
    else
      b = im.tier_up(c, b);
  }
  if (b->fn) im.remember_jump(*b);
  // Blocks follow one another while nothing the run loop checks between instructions has changed: the
  // attention flags are as they were (EL, DAIF, the power state and the FP trap cannot change inside blocks:
  // the instructions that change them are interpreted), and the budget is not used up (with a run that ends
  // at its budget, the next block declines unless the budget covers it). A block's end jumps to the next
  // block itself through its exit slots once this loop has linked them (and the block jumped to declines
  // when the budget is used up); the loop handles the ends it has not linked yet. (`retired` is 32 bits wide:
  // a chain stops after 2^31 instructions.)
  budget_left = std::min<uint64_t>(budget_left, 1ull << 31);
  uint64_t total = 0;
  c.in_block_ = true;
  void* baseline_exit = nullptr; // where the last baseline run left, if it may be linked to the next block
  for (;;) {
    c.last_exit_ = nullptr;
    baseline_exit = nullptr;
    const uint64_t before = total;
    uint64_t r;
    if (b->fn) {
      r = im.enter(b->fn, &c, attention, budget_left - total, total);
    } else {
      bool fault = false, boundary = false;
      uint32_t k;
      if (b->baseline && budget_left - total >= b->len && !c.insn_counts) {
        // The run may go on through linked blocks; the last one is used only while the attention flags are
        // unchanged (a store it makes may drop it).
        baseline::Chain chain;
        chain.block = b;
        chain.left = static_cast<int64_t>(budget_left - total);
        const uint64_t t = b->baseline(&c, attention, total, &chain);
        const auto last = static_cast<uint32_t>(t);
        k = static_cast<uint32_t>(chain.before) + last;
        im.stats.insns_baseline += k;
        fault = (t & baseline::kFaultedBit) != 0;
        if (!fault) boundary = (t & baseline::kEndsBlockBit) || !(c.PC & (JitEngine::kRegionBytes - 1));
        b = static_cast<Block*>(chain.block);
        baseline_exit = chain.exit;
      } else {
        // Its end entry reads the head and list of the block that followed it last (see vplat_th_end).
        __builtin_prefetch(b->next);
        __builtin_prefetch(b->next_list);
        k = c.run_predecoded(b->insns, b->len, budget_left - total, total, attention, fault, boundary);
        if (c.chain_.block) {
          // The end entries went on into the blocks that followed: the run loop goes on from the last.
          b = static_cast<Block*>(const_cast<threaded::BlockHead*>(c.chain_.block));
          im.stats.blocks_run += c.chain_.entered;
          im.stats.blocks_entered_threaded += c.chain_.entered;
        }
      }
      im.stats.insns_predecoded += k;
      r = (total + k) | (fault ? kFaulted : 0) | (boundary ? kAtBoundary : 0);
    }
    total = r & ~(kFaulted | kAtBoundary | kMissedTlb);
    ++im.stats.blocks_run;
    if (r & kFaulted) {
      faulted = true;
      ++im.chain_ends.fault;
      break;
    }
    // Left before a load or store that missed the TLB: the run loop runs it (not a block start, so it does
    // not come back here first; a block entered again there would leave again).
    if (r & kMissedTlb) {
      ++im.chain_ends.missed_tlb;
      at_boundary = false;
      break;
    }
    // A block longer than the budget left declines; the interpreter runs to the budget's end.
    if (total == before) {
      ++im.chain_ends.declined;
      c.jit_declined_ = true;
      break;
    }
    at_boundary = (r & kAtBoundary) != 0;
    if (total >= budget_left) {
      ++im.chain_ends.budget;
      break;
    }
    if (c.attention_.load(std::memory_order_relaxed) != attention) {
      ++im.chain_ends.attention;
      break;
    }
    auto* exits = static_cast<BlockExit*>(c.last_exit_);
    if (exits) {
      ++im.chain_ends.unlinked;
      if (exits->any_target) ++im.chain_ends.unlinked_indirect;
    }
    // A pre-decoded block's run goes on to the block that followed it last without a lookup: on its own
    // page (mapped as when the chain entered it; pre-decoded blocks neither link nor jump), or on a page the
    // fetch TLB still maps where that block is (calls and returns: two thirds of a boot's successors), while
    // the lookup it skips would do nothing else: no first-tier request due, and no baseline code (made, not
    // to be made, or not due yet).
    // From a translation, the exit it left through remembers the block it went on to instead (the exit
    // names its target as it is taken; Core::last_exit_ may be an earlier exit of the chain).
    Block* const prev = b;
    BlockExit* const from_exit = prev->fn && exits && exits->target == c.PC ? exits : nullptr;
    Block* const next = from_exit ? from_exit->next : static_cast<Block*>(prev->next);
    const bool known =
        next && (from_exit ? from_exit->next_gen : prev->next_gen) == im.block_gen &&
        (from_exit ? next->key.va == c.PC : !prev->fn && prev->next_va == c.PC) &&
        (next->fn || (next->runs + 1 < im.hot_threshold &&
                      (next->baseline || !im.baseline_threshold || next->runs + 1 < im.baseline_threshold)));
    auto mapped_there = [&] {
      const uint64_t page = from_exit ? from_exit->page_va : prev->key.va & ~0xfffull;
      if ((c.PC & ~0xfffull) == page) return true;
      return next->key.el == c.el_ && Impl::fetch_maps(c, next->key); // next->key.va == PC
    };
    if (known && mapped_there()) {
      b = next;
      if (!b->fn) ++b->runs;
    } else {
      b = im.lookup(c, !im.sync);
      if (b && !prev->fn) {
        prev->next = b;
        prev->next_va = b->key.va;
        prev->next_gen = im.block_gen;
        prev->next_list = b->list;
      } else if (b && from_exit && !b->fn) {
        from_exit->next = b;
        from_exit->next_gen = im.block_gen;
      }
    }
    ++im.stats.steps[Impl::tier_of(prev)][Impl::tier_of(b)][known && b == next ? 0 : 1];
    if (!b || !(b->fn || b->pre) || (b->fp && c.fp_trap_)) {
      ++im.chain_ends.no_block;
      break;
    }
    if (b->fn) {
      if (exits) im.link(exits, *b);
      im.remember_jump(*b);
    } else if (baseline_exit && b->baseline && !b->fp && b->key.el == prev->key.el) {
      // A baseline block goes on to another: its exit jumps there itself from now on (while the fetch TLB
      // maps it there).
      const bool same_page = (b->key.va & ~0xfffull) == (prev->key.va & ~0xfffull);
      baseline::Compiler::link(baseline_exit, b->key.va,
                               same_page ? baseline::Compiler::kSamePage : b->key.pa & ~0xfffull, b->baseline,
                               b, b->len, &b->runs);
    }
  }
  c.in_block_ = false;
  if (total == 0 && !faulted) return false;
  im.stats.insns_in_blocks += total;
  if (im.stats.insns_in_blocks >= im.next_promotion) im.promote_hot(c);
  c.jit_retired_mark_ += total; // the run loop adds them to c.retired
  retired = static_cast<uint32_t>(total);
  return true;
}

bool JitEngine::is_code_page(uint64_t pa_page) const {
  if (!impl_->code_filter[Impl::code_filter_index(pa_page)]) return false;
  auto it = impl_->pages.find(pa_page);
  return it != impl_->pages.end() && it->second.code;
}

void JitEngine::code_written(Core& writer, uint64_t pa_page) {
  impl_->drop_page(pa_page);
  writer.jit_notify();
}

void JitEngine::icache_invalidate(Core& core) {
  auto& im = *impl_;
  std::vector<uint64_t> stale;
  for (const auto& [pa, p] : im.pages)
    if (p.code && !im.unchanged(core, pa, p)) stale.push_back(pa);
  for (uint64_t pa : stale) code_written(core, pa);
}

void JitEngine::icache_invalidate_page(Core& core, uint64_t pa_page) {
  auto& im = *impl_;
  auto it = im.pages.find(pa_page);
  if (it != im.pages.end() && it->second.code && !im.unchanged(core, pa_page, it->second))
    code_written(core, pa_page);
}

void JitEngine::count_instructions() {
  auto& im = *impl_;
  if (im.counting) return;
  im.counting = true;
  im.drop_all(); // made without run counters
}

void JitEngine::flush_counts() {
  for (auto& [key, blk] : impl_->blocks) impl_->fold_counts(*blk);
}

const JitStats& JitEngine::stats() const {
  impl_->stats.fallback_insns = impl_->stats_fallback.load();
  impl_->stats.unlinked_returns = impl_->chain_ends.unlinked;
  impl_->stats.tlb_miss_exits = impl_->chain_ends.missed_tlb;
  return impl_->stats;
}

} // namespace vplat::cpu
