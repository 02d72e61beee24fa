// The AArch64 core: architectural state (generated from archdesc/aarch64) plus what the runtime needs to
// execute it: exception levels EL0/EL1, exception entry and return, system registers, the stage-1 MMU with
// a per-core soft TLB, interrupts, WFI/WFE, the exclusive monitors. The interpreter is the cold tier; a
// JIT comes later. See cpu-dbt/README.md for what is modelled and what is not.
//
// Two modes:
//  - user level (Core::Config::system == false, the default): the differential tests and benchmarks. The
//    core runs at EL1 with the MMU off (as Unicorn does) and an exception does not enter the vector table:
//    run() stops with EXC set and PC at the faulting instruction.
//  - system level (system == true): exceptions are taken to EL1 as the architecture says; run() stops only
//    for the reasons in Exit.
#pragma once
#include "aarch64_isa.h"
#include "cpu-dbt/a64_jit.h"
#include "cpu-dbt/a64_mmu.h"
#include "cpu-dbt/threaded.h"
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace vplat::cpu {

namespace a64 = vplat::gen::aarch64;

// Values of State::EXC: why the last instruction did not complete. In system mode this is transient (the
// exception is taken at once); in user mode it is why run() stopped.
enum class Exception : uint8_t {
  None = 0,
  Undefined = 1,        // unallocated encoding, or an instruction this model does not execute
  DataAbort = 2,        // a load or store faulted (translation, permission, external abort)
  InstructionAbort = 3, // instruction fetch faulted
  Alignment = 4,        // an access that must be aligned was not (a data abort with DFSC 0x21)
  SupervisorCall = 5,
  HypervisorCall = 6,
  SecureMonitorCall = 7,
  Breakpoint = 8, // BRK
  Halt = 9,       // HLT
  System = 10,    // kind passed by the ADL for system instructions (handled by the helpers)
  Trap = 11,      // a trapped instruction: FP/SIMD access, MSR/MRS/SYS, WFI/WFE (ESR says which)
  PcAlignment = 12,
  SpAlignment = 13,
  IllegalState = 14,
};

const char* exception_name(Exception e);

// Per-instruction facts the run loop (and the JIT's block builder) needs besides the semantics, from the
// generated metadata.
enum : uint8_t {
  kFlagFp = 1,       // accesses the SIMD&FP registers, FPCR or FPSR: subject to CPACR_EL1.FPEN
  kFlagHint = 2,     // HINT: WFI, WFE, SEV, SEVL
  kFlagExclLoad = 4, // LDXR/LDXP: the global monitor records the physical address
  kFlagSpBase = 8,   // a load/store with base register Rn at bits 9:5: SP alignment check when Rn == 31
  kFlagUnpriv = 16,  // LDTR/STTR family when bits 11:10 == 0b10: EL0 permissions
};
// The flags of the instructions that need work around their interpreter function in a pre-decoded block.
constexpr uint32_t kAroundFlags = kFlagSpBase | kFlagUnpriv | kFlagExclLoad;
uint8_t insn_flags(int id);
// Whether a translated block may start after the instruction: branches, and what blocks leave to the
// interpreter or must end at (the run loop's block starts, and where a run may end: Core::RunEnd).
bool ends_block(int id);

// Physical memory as a core sees it. The platform implements it on its bus; user-level tests on a flat
// buffer. Called on TLB misses and for device (non-RAM) pages only, never on the hot path of RAM accesses.
class MemoryPort {
public:
  virtual ~MemoryPort() = default;
  // Host pointer to the 4 KiB physical page at `page` (4 KiB aligned) if it is RAM the core may read,
  // write and execute with plain memcpy, else nullptr (the page is then accessed through read/write). The
  // pointer must stay valid until the platform calls Core::flush_tlb() (or for the core's lifetime).
  virtual uint8_t* ram_pointer(uint64_t page) {
    (void)page;
    return nullptr;
  }
  // Accesses of 1, 2, 4 or 8 bytes, little-endian, never crossing a 4 KiB page. Return false when
  // nothing answers at pa: the core then takes a synchronous external abort (DFSC/IFSC 0x10).
  virtual bool read(uint64_t pa, unsigned size, uint64_t& value) = 0;
  virtual bool write(uint64_t pa, unsigned size, uint64_t value) = 0;
};

class Core;

// The generic timer registers a core delegates to its platform (Arm ARM D11).
enum class TimerReg : uint8_t { Cntpct, Cntvct, CntpCtl, CntpCval, CntpTval, CntvCtl, CntvCval, CntvTval };

// What the platform provides to a system-level core besides memory. All calls happen on the thread that
// runs the core, from inside Core::run().
class CoreHooks {
public:
  virtual ~CoreHooks() = default;
  // MRS/MSR of a generic timer register of `core` (access rights already checked). CTL reads include
  // ISTATUS; TVAL is the 32-bit signed view. After a write the platform re-evaluates the timer interrupt.
  virtual uint64_t timer_read(Core& core, TimerReg reg) = 0;
  virtual void timer_write(Core& core, TimerReg reg, uint64_t value) = 0;
  // SMC #imm at EL1 (SMC Calling Convention: function id in W0, arguments X1-X3, results in X0-X3). Return
  // true if handled (execution continues after the SMC); false makes the SMC UNDEFINED. The hook may call
  // core.power_off() (PSCI CPU_OFF, SYSTEM_OFF) or power_on() of another core (CPU_ON).
  virtual bool firmware_call(Core& core) {
    (void)core;
    return false;
  }
};

// The cores of one machine, for what crosses cores: the global exclusive monitor (a store by one core to a
// granule another core has marked exclusive clears that core's monitor and sets its event register), TLBI
// broadcast (the Inner Shareable TLBI forms flush every core's TLB) and SEV. All cores of a group must run
// on one host thread (round-robin), which is what makes these plain memory operations safe.
class CoreGroup {
public:
  void add(Core& core);
  const std::vector<Core*>& cores() const { return cores_; }

  // Whether any core may hold an exclusive monitor; stores check only this flag on their fast path.
  bool monitors_active = false;
  // A store by `from` to [pa, pa+size): clears other cores' monitors on the same granule.
  void store_to(Core& from, uint64_t pa, uint64_t size);
  void flush_tlbs(Core& from);
  void flush_tlbs_va(Core& from, uint64_t va);
  void send_event(Core& from);

  // The JIT engine the group's cores share (one code cache; cores run on one thread), once one is set.
  std::shared_ptr<JitEngine> jit;

private:
  std::vector<Core*> cores_;
};

// Why run() returned.
enum class Exit : uint8_t {
  Budget,     // the instruction budget is used up
  Idle,       // WFI with no interrupt pending: skip time to the next event, then run again
  Yield,      // WFE with no event: let the other cores run
  Off,        // the core is powered off (PSCI CPU_OFF, or never powered on)
  Breakpoint, // a debugger breakpoint address was reached (the instruction there has not run)
  Exception,  // user mode only: an exception stopped the core (see Core::exception())
  Request,    // request_exit() was called
};

struct RunResult {
  Exit exit;
  uint64_t retired; // instructions completed (a faulting instruction does not complete)
};

class Core : public a64::State {
public:
  struct Config {
    bool system = false;        // take exceptions (system level) instead of stopping on them
    uint32_t midr = 0x410FD034; // Cortex-A53 r0p4; Cortex-A72 r0p1 is 0x410FD081
    uint64_t mpidr = 0; // affinity fields (Aff0 = core within cluster, Aff1 = cluster); bit 31 is added
    uint32_t revidr = 0;
    uint64_t cntfrq = 50'000'000;
  };

  explicit Core(MemoryPort& memory) : Core(memory, Config{}) {}
  // A core lives in huge pages where the host allows (devices/host_memory.h): its soft TLBs are 1 MiB that
  // translated code indexes at random on every guest load, store and indirect branch.
  static void* operator new(std::size_t size);
  static void operator delete(void* p, std::size_t size);
  Core(MemoryPort& memory, const Config& config, CoreHooks* hooks = nullptr);

  // Where a run ends once its budget is used up. AtBudget: there, exactly. AtBlockBoundary: at the next point
  // where a translated block may start (after a branch, an exception or another instruction that ends blocks,
  // or at a JitEngine::kRegionBytes-aligned PC), at most a region's instructions later. Both engines end a
  // run at the same instruction either way; ending at a block boundary lets the next run start with a
  // translated block rather than interpreting the rest of the block the budget ended inside.
  enum class RunEnd : uint8_t { AtBudget, AtBlockBoundary };

  // Runs `budget` instructions (a taken exception counts as one), or more as `end` says. User mode stops at
  // the first exception with EXC set (exceptions are precise: PC is at the instruction that raised it).
  RunResult run(uint64_t budget, RunEnd end = RunEnd::AtBudget);

  // ---- Platform interface
  // Level of the core's IRQ input (from the GIC). May be called from any thread.
  void set_irq(bool level) {
    if (level)
      attention_.fetch_or(kAttnIrq, std::memory_order_relaxed);
    else
      attention_.fetch_and(~kAttnIrq, std::memory_order_relaxed);
  }
  bool irq_line() const { return attention_.load(std::memory_order_relaxed) & kAttnIrq; }
  // Makes run() return Exit::Request at the next instruction boundary. May be called from any thread.
  void request_exit() { attention_.fetch_or(kAttnExit, std::memory_order_relaxed); }
  // Resets the core to its boot state (EL1h, DAIF masked, MMU and caches off) and starts it at `pc` with
  // X0 = `x0` (PSCI CPU_ON semantics; also the initial boot: X0 = DTB address).
  void power_on(uint64_t pc, uint64_t x0 = 0);
  void power_off() {
    off_ = true;
    attention_.fetch_or(kAttnOff, std::memory_order_relaxed);
  }
  bool powered() const { return !off_; }
  void signal_event() { event_ = true; }
  // Drops every cached translation (TLBI, or the platform remapped RAM).
  void flush_tlb();
  // Drops the cached translations of one virtual page (TLBI by VA, any ASID: the TLB keeps no ASIDs);
  // `va` bits 55:12 name it, as in the TLBI operand.
  void flush_tlb_va(uint64_t va);

  // ---- Debugger interface: accesses through the current translation (EL1 view, no permission checks,
  // no TLB fill, no fault taken, RAM only so that no device sees an access). Return false if any byte is
  // not mapped to RAM. Single step is run(1).
  bool debug_read(uint64_t va, void* buf, size_t len);
  bool debug_write(uint64_t va, const void* buf, size_t len);
  bool debug_translate(uint64_t va, uint64_t& pa);
  void add_breakpoint(uint64_t va);
  void remove_breakpoint(uint64_t va);

  // ---- Exception reporting (user mode) and state
  Exception exception() const { return static_cast<Exception>(EXC); }
  uint64_t fault_address = 0;      // FAR of the last exception
  uint32_t exception_syndrome = 0; // immediate of SVC/HVC/SMC/BRK/HLT, or the encoding for Undefined/System
  uint32_t last_esr = 0;           // ESR the last exception has (or would have) written

  unsigned el() const { return el_; }
  unsigned spsel() const { return spsel_; }
  uint32_t daif() const { return daif_; } // bits 9:6 as in the DAIF register
  bool illegal_state() const { return il_; }
  // SPSR-format PSTATE of the running context.
  uint32_t pstate() const;
  uint64_t sp_el(unsigned el) const; // SP_EL0 / SP_EL1 whichever is current

  // Raises a synchronous exception from a helper: sets EXC; in system mode run() takes it after the
  // instruction returns. `esr_iss` and the EC come from the kind unless given by the specialised raisers.
  void raise(Exception e, uint64_t address = 0);
  void raise_data_abort(uint64_t va, uint8_t dfsc, bool write, bool cm = false, bool s1ptw = false);
  void raise_trap(uint32_t ec, uint32_t iss); // EC 0x01, 0x07, 0x18 traps
  void raise_undefined() { raise(Exception::Undefined); }

  // ---- System registers (the system-register table in a64_system_helpers.cpp reads and writes these)
  struct SysRegs {
    uint64_t sctlr = 0x30D00800; // RES1 bits; MMU, caches, alignment checks off
    uint64_t cpacr = 0, tcr = 0, ttbr0 = 0, ttbr1 = 0, mair = 0, amair = 0, vbar = 0;
    uint64_t esr = 0, far = 0, afsr0 = 0, afsr1 = 0, par = 0, elr = 0, spsr = 0;
    uint64_t contextidr = 0, tpidr_el1 = 0, tpidrro_el0 = 0, csselr = 0, cntkctl = 0;
    uint64_t mdscr = 0, oslsr_oslk = 1, osdlr = 0, mdccint = 0, dbgprcr = 0, dbgclaim = 0, oseccr = 0;
    uint64_t dbgbvr[6]{}, dbgbcr[6]{}, dbgwvr[4]{}, dbgwcr[4]{};
  } sys;
  // User-visible TPIDR_EL0 (the differential harness sets it directly).
  uint64_t tpidr_el0 = 0;
  Config config;
  CoreHooks* hooks = nullptr;
  CoreGroup* group = nullptr;

  MemoryPort& mem;
  uint64_t retired = 0;
  uint64_t jit_retired_mark_ = 0; // `retired` when the JIT tier last counted (its statistics)
  // --cpu-stats: instructions retired per generated instruction id (nullptr: off). The interpreter counts
  // each one; translated blocks count their runs, which flush_insn_counts() adds in (see a64_jit.h).
  uint64_t* insn_counts = nullptr;
  // Starts (or stops, nullptr) counting into `table` (kNumInsns entries); with a JIT tier, translations made
  // without counting are dropped.
  void set_insn_counts(uint64_t* table);
  // Completes insn_counts with what translated blocks ran so far. Call outside run().
  void flush_insn_counts() {
    if (jit_) jit_->flush_counts();
  }
  uint32_t cur_insn = 0; // the instruction being executed
  uint64_t excl_pa = 0;  // physical address the exclusive monitor marks (valid while EXCL_VALID)

  // One instruction of a pre-decoded block (JitEngine): its interpreter function, what the run loop's decode
  // cache would hold for it, and its threaded handler (threaded.h).
  using PredecodedInsn = threaded::Insn;
  static PredecodedInsn predecode(uint32_t insn);

  // ---- Used by the helpers (a64_helpers.cpp, a64_system_helpers.cpp); not an interface.
  struct TlbEntry {
    // The VA page (bits 63:12) if that access hits, else ~0. A data access that hits but must not take the
    // fast paths (an access to a device page, or any access while SCTLR_EL1.A checks alignment) has
    // kSlowPath set in its tag too, so that the fast paths need only the tag compare.
    // A data TLB entry has read and write tags, a fetch TLB entry only a fetch tag, which shares the read
    // tag's place: 32 bytes an entry, so that translated code indexes the table with a shift (a multiply
    // by 40 was on the address path of every load and store).
    union {
      uint64_t read = ~0ull;
      uint64_t fetch;
    };
    uint64_t write = ~0ull;
    // A RAM page's host address minus its VA page, so that a VA's host byte is at host_delta + va: the fast
    // paths add it to the address, with no offset masked out of it first. 0: a device page (also a RAM page
    // whose host address happens to equal its VA, which then takes the slow paths: right, only slower).
    uintptr_t host_delta = 0;
    uint64_t pa = 0; // physical page
    static constexpr uint64_t kSlowPath = 1;
    uint8_t* host(uint64_t va) const { return reinterpret_cast<uint8_t*>(host_delta + va); }
  };
  // 8192 entries map 32 MiB. With 512, xz -1 (a dictionary and hash chains of several MiB) spent ~10% of its
  // time walking page tables (same session, xz -1 on the benchmark input: 32.1 / 38.4 s against 43.8 /
  // 56.0 s with 2048); with 2048 (8 MiB), zstd -9 still spent ~6% of the guest thread in TLB fills (its
  // window is 8 MiB): same session, 2 x 3 runs, medians 15.0 / 15.2 s with 2048 entries, 13.4 / 14.6 s with
  // 8192. sha256sum runs and a shell loop, with their process switches and exits, ran as fast as before.
  static constexpr unsigned kTlbSize = 8192;
  static_assert(sizeof(TlbEntry) == 32);
  // Per translation EL (0, 1), entries hold the permissions of that EL. Data accesses and instruction fetches
  // have a TLB each, as the hardware does: in one direct-mapped TLB a program whose data spans megabytes
  // (bzip2's sort arrays) kept evicting the page its loop ran from, and translated code only runs from a page
  // the fetch TLB maps. `tlb_` entries never permit fetches and `itlb_` entries only permit fetches.
  TlbEntry tlb_[2][kTlbSize];
  TlbEntry itlb_[2][kTlbSize];
  // Data entries a fill displaced, per translation EL, in a small direct-mapped table indexed by more VA bits
  // than the TLB's (victim_slot): a fill finds its page here before walking the tables. Pages whose VAs are
  // a multiple of 32 MiB apart share a TLB slot, and a program whose buffers lie that far apart (zstd -9's
  // tables) alternated between them, each access a table walk. zstd -9 with the guest's address-space
  // randomisation off (one layout): 2.74 M walks, 0.97 M with 256 entries here, 0.73 M with 1024; TLB-miss
  // handling 6.4% of its guest thread before, 2.4% after. Flushed with the TLB (and by TLBI by VA, and code
  // pages lose their write permission here too); only the slow paths look here: translated code is as it
  // was.
  static constexpr unsigned kVictimSize = 1024;
  TlbEntry victims_[2][kVictimSize];
  bool victims_used_ = false;
  static size_t victim_slot(uint64_t va) { return ((va >> 12) ^ (va >> 25)) & (kVictimSize - 1); }
  // Moves what `e` (a data entry at `el`) holds, if it holds a page other than `page`, to its victim slot.
  void displace(unsigned el, TlbEntry& e, uint64_t page);
  // The entries filled since the last flush, while they are few: a flush clears only those rather than all
  // 32768 (1.25 MiB); TLBI by ASID or of everything flushes the whole TLB, as do TTBR/TCR writes.
  static constexpr size_t kFilledListed = 256;
  TlbEntry* filled_[kFilledListed];
  size_t filled_count_ = kFilledListed + 1; // more than listed: clear everything
  void note_filled(TlbEntry& e) {
    if (filled_count_ < kFilledListed) filled_[filled_count_] = &e;
    if (filled_count_ <= kFilledListed) ++filled_count_;
  }
  // Entries hold 4 KiB pieces of larger blocks too, in other slots than the page a TLBI by VA names, so
  // such a TLBI must drop the whole block: the blocks entries came from since the last flush (VA bits 55:0
  // of the base, and the size less one), or, past kBlocksListed of them, a flush of everything.
  static constexpr size_t kBlocksListed = 8;
  static constexpr uint64_t kBlockVaBits = (1ull << 56) - 1; // what a TLBI operand names (bits 55:12)
  struct BlockRange {
    uint64_t base, mask;
  };
  BlockRange blocks_[kBlocksListed];
  size_t block_count_ = 0;
  unsigned access_el_ = 1;                  // EL whose permissions data accesses use (0 for LDTR/STTR at EL1)
  // tlb_[access_el_], which the interpreter's and baseline code's data accesses index (one load instead of
  // the bank's address computed from access_el_ at each); set_access_el keeps the two together.
  TlbEntry* data_tlb_ = tlb_[1];
  void set_access_el(unsigned el) {
    access_el_ = el;
    data_tlb_ = tlb_[el];
  }
  uint64_t align_mask_ = 0;                 // ~0 if SCTLR_EL1.A checks alignment, else 0
  bool* monitors_active_;                   // the group's flag, or a false one

  uint64_t read_slow(uint64_t va, unsigned size);
  void write_slow(uint64_t va, unsigned size, uint64_t value);
  // Translates `va` for `kind` at `el`, filling the TLB; on a fault returns false and fills `fsc`.
  bool translate_fill(uint64_t va, Access kind, unsigned el, TlbEntry*& entry, uint8_t& fsc);
  Translation walk(uint64_t va, Access kind, unsigned el);
  void zero_block(uint64_t va); // DC ZVA
  void eret();
  void write_sctlr(uint64_t v);
  void write_cpacr(uint64_t v);
  void set_sp_sel(unsigned el, unsigned spsel); // switches the SP bank
  void set_daif(uint32_t d) { daif_ = d & 0x3c0; }
  void set_sp_el0(uint64_t v);
  uint64_t get_sp_el0() const;
  // IC IALLU/IALLUIS and debugger writes: the JIT tier drops the translations that are out of date.
  void icache_invalidate() {
    if (jit_) jit_->icache_invalidate(*this);
  }
  // IC IVAU: the same for the page `va` maps to (all pages if the walk does not find it).
  void icache_invalidate_va(uint64_t va);

  // ---- Execution engine (see a64_jit.h). Interp by default; cores of a group share one JitEngine.
  void set_engine(Engine e);
  Engine engine() const { return engine_; }
  const JitEngine* jit() const { return jit_.get(); }
  // A store reached the physical page `pa_page`: if it holds translated code, drop it.
  void note_store(uint64_t pa_page) {
    if (jit_ && jit_->is_code_page(pa_page)) jit_->code_written(*this, pa_page);
  }
  void jit_notify() { attention_.fetch_or(kAttnJit, std::memory_order_relaxed); }
  TranslationRegs translation_regs() const;
  // Instructions completed before the one executing now, whatever the engine: `retired` is updated after
  // each interpreted instruction but only after a run of translated blocks, so inside a block the count is
  // what translated code stores before each helper call of an instruction that may fault (all that can reach
  // a device or the timers).
  uint64_t retired_exact() const { return in_block_ ? retired + block_done_ : retired; }

private:
  friend class JitEngine;
  friend struct CoreLayout;
  // kAttnJit: translated code was overwritten; a running block returns to the run loop (nothing else).
  // kAttnOff mirrors off_, so that the run loop's one attention test per instruction also covers it.
  static constexpr uint32_t kAttnIrq = 1, kAttnExit = 2, kAttnDebug = 4, kAttnJit = 8, kAttnOff = 16;
  Engine engine_ = Engine::Interp;
  std::shared_ptr<JitEngine> jit_;
  std::atomic<uint32_t> attention_{0};
  unsigned el_ = 1, spsel_ = 1;
  uint32_t daif_ = 0x3c0;
  bool il_ = false;
  bool event_ = false;
  bool off_ = false;
  bool fp_trap_ = false;  // FP/SIMD instructions trap at the current EL (CPACR_EL1.FPEN)
  bool sp_check_ = false; // SP alignment checking at the current EL (SCTLR_EL1.SA/SA0)
  uint64_t sp_other_ = 0; // the SP that is not in X[31]
  uint64_t pending_ret_ = 0, pending_far_ = 0;
  bool pending_far_valid_ = false;
  std::vector<uint64_t> breakpoints_;
  bool in_block_ = false;          // a translated block is running (JitEngine::try_run)
  bool run_to_boundary_ = false;   // this run() ends at a block boundary: blocks run even past the budget
  // A block declined the budget left in this run() (second-tier blocks run whole or not at all): the run
  // loop interprets the rest of the run rather than asking for a block at each block start.
  bool jit_declined_ = false;
  uint64_t* block_runs_ = nullptr; // --cpu-stats with a JIT tier: runs of each translated block, by its slot
  uint64_t block_done_ = 0; // in a block: instructions its chain retired before the one calling a helper
  uint64_t baseline_done_ = 0;  // in baseline code: block_done_ at the first instruction of the running block
  threaded::ChainState chain_;  // a pre-decoded run's end entries' (threaded.h)
  uint64_t wrapper_result_ = 0; // a block's slow-path load: the value (JitEngine's memory wrappers)
  bool quiet_declined_ = false; // a second-tier slow-path access left to the interpreter (JitEngine)
  // The exit slots of the block that returned to try_run from its end (nullptr: it left elsewhere): where
  // try_run links the block found next, so that the next time that exit jumps there directly.
  void* last_exit_ = nullptr;
  // The JIT engine's cache generation (JitEngine::Impl::cache_gen), copied here so that translated code tests
  // its links against a field of the state it addresses already rather than through a 64-bit address.
  uint64_t jit_cache_gen_ = 0;

  // The page of the last instruction fetch that hit RAM: while PC stays on it, the next fetch reads the
  // host page directly. A TLB entry is only ever replaced by another valid translation, so only
  // flush_tlb() (TLBI, SCTLR/TTBR/TCR writes, power-on) and an EL change (set_sp_sel) end its validity.
  uint64_t fetch_page_ = ~0ull; // VA of the page; ~0 (never equal to an aligned PC's page): none
  const uint8_t* fetch_host_ = nullptr;

  // What decoding gave for recently run instructions, direct-mapped by PC. An entry keeps the instruction
  // word it was decoded from and is used only while the word fetched at PC is that same word: decoding
  // depends on nothing else, so modified code, remapped pages and EL changes need no invalidation.
  struct DecodedInsn {
    uint32_t insn;
    uint32_t info; // generated instruction id << 8 | insn_flags(id) | kFlagEndsBlock (allocated encodings)
    a64::ExecFn exec; // a64::exec_for(id, insn)
  };
  static constexpr uint32_t kFlagEndsBlock = 0x80; // a translated block may start after it (ends_block)
  static constexpr size_t kDecodedSize = 1u << 15;
  std::unique_ptr<DecodedInsn[]> decoded_; // kDecodedSize entries, made by the first run()
  static uint32_t decoded_info(int id);
  void note_exclusive_load();
  void make_decode_cache();
  // Tests the run loop (and run_predecoded) makes before an instruction with kFlagSpBase / kFlagUnpriv.
  bool sp_misaligned(uint32_t insn) const { return sp_check_ && ((insn >> 5) & 31) == 31 && (X[31] & 15); }
  static bool unprivileged(uint32_t insn) { return ((insn >> 10) & 3) == 2; }
  // Before an instruction with kFlagSpBase or kFlagUnpriv: the SP alignment check (false: it raised the
  // exception) and EL0 permissions for LDTR/STTR.
  bool before_flagged_insn(uint32_t insn, uint32_t info) {
    if ((info & kFlagSpBase) && sp_misaligned(insn)) {
      raise(Exception::SpAlignment);
      return false;
    }
    if ((info & kFlagUnpriv) && unprivileged(insn)) set_access_el(0);
    return true;
  }

  // Runs the `n` instructions at PC one by one as run() would, without fetching or decoding them: at most
  // `limit`, and only on while each goes to the next (a taken branch ends the run) and the attention flags
  // stay `attention`. `done`: the instructions the caller's chain retired before (for retired_exact()).
  // Returns how many completed; `faulted`: the next one raised an exception (EXC set, PC at it);
  // `at_boundary`: the run stopped where a block may start (as run() decides it).
  // Through threaded handlers the run may go on into the blocks that follow (threaded.h, end entry; `limit`
  // still bounds the whole run): then chain_.block is the last block entered.
  // Inline: the JIT's run loop calls it between blocks (threaded handlers; else run_predecoded_looped).
  uint32_t run_predecoded(const PredecodedInsn* insns, uint32_t n, uint64_t limit, uint64_t done,
                          uint32_t attention, bool& faulted, bool& at_boundary) {
    chain_.block = nullptr;
    chain_.entered = 0;
    if (insn_counts || !n || !limit || !insns[0].handler) [[unlikely]]
      return run_predecoded_looped(insns, static_cast<uint32_t>(n < limit ? n : limit), done, attention,
                                   faulted, at_boundary);
    const uint64_t r = threaded::vplat_threaded_enter(this, insns, done, done + limit, attention);
    const uint64_t m = r & ~threaded::kFaulted;
    faulted = (r & threaded::kFaulted) != 0;
    if (!faulted) {
      const PredecodedInsn& last = chain_.block ? chain_.list[m - chain_.base - 1] : insns[m - done - 1];
      at_boundary = (last.info & kFlagEndsBlock) || !(PC & (JitEngine::kRegionBytes - 1));
    }
    return static_cast<uint32_t>(m - done);
  }
  // Counting instructions (--cpu-stats) is the loop's; so are lists made with VPLAT_JIT_THREADED=0.
  uint32_t run_predecoded_looped(const PredecodedInsn* insns, uint32_t count, uint64_t done,
                                 uint32_t attention, bool& faulted, bool& at_boundary);
  // The calls of the threaded handlers into the Core (threaded.h).
  friend uint64_t threaded::vplat_threaded_sp_fault(a64::State* s, const threaded::Insn* d, uint64_t n);
  friend uint64_t threaded::vplat_threaded_flagged_step(a64::State* s, const threaded::Insn* d, uint64_t n,
                                                        uint32_t attention);
  static uint64_t flagged_step(a64::State* s, const threaded::Insn* d, uint64_t n, uint32_t attention);
  template <bool kCounting>
  uint32_t run_predecoded_loop(const PredecodedInsn* insns, uint32_t count, uint64_t done, uint32_t attention,
                               bool& faulted, bool& at_boundary);
  // before_flagged_insn and note_exclusive_load, for the baseline code of pre-decoded blocks (baseline.h).
  static bool before_flagged(a64::State& s, uint32_t insn, uint32_t info);
  static void after_exclusive_load(a64::State& s);

  void update_cached();
  void take_exception(uint32_t esr, uint64_t far, bool far_valid, uint64_t ret, unsigned offset,
                      bool write_esr);
  bool deliver_sync(); // system mode: takes the pending synchronous exception; false if it was none
  bool fetch(uint32_t& insn);
};

inline Core& core_of(a64::State& s) {
  return static_cast<Core&>(s);
}

// The Core's run-loop state as offsets from its a64::State base, for the threaded handlers (threaded.h):
// constants, so that a handler's stores and tests load no offsets first. A Core is a State and nothing
// else is its base, so the State starts it (core_of relies on that too). offsetof on a class that is not
// standard-layout is conditionally supported; GCC and clang give the offsets of such a class's layout.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
struct CoreLayout {
  static constexpr threaded::Layout kThreaded{
      .cur_insn = offsetof(Core, cur_insn),
      .block_done = offsetof(Core, block_done_),
      .attention = offsetof(Core, attention_),
      .sp_check = offsetof(Core, sp_check_),
      .chain = offsetof(Core, chain_),
      .el = offsetof(Core, el_),
      .fp_trap = offsetof(Core, fp_trap_),
      .itlb = offsetof(Core, itlb_),
      .tlb_entries = Core::kTlbSize,
      .tlb_entry_bytes = sizeof(Core::TlbEntry),
      .tlb_fetch = offsetof(Core::TlbEntry, fetch),
      .tlb_pa = offsetof(Core::TlbEntry, pa),
  };
  // What a threaded handler stores before a call (helpers read them): PC, the word, block_done_ (`n`) and NPC.
  static void store_before_call(a64::State* s, uint64_t pc, uint32_t word, uint64_t n) {
    s->PC = pc;
    *reinterpret_cast<uint32_t*>(reinterpret_cast<char*>(s) + kThreaded.cur_insn) = word;
    *reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(s) + kThreaded.block_done) = n;
    s->NPC = pc + 4;
  }
  static_assert(offsetof(Core, PC) == offsetof(a64::State, PC));
  static_assert(sizeof(Core::el_) == sizeof(uint32_t) &&
                sizeof(Core::itlb_[0]) == Core::kTlbSize * sizeof(Core::TlbEntry));
};
#pragma GCC diagnostic pop

// What MRS (`read`) or MSR `insn` does at `el` where it is only a read or a write of one register's storage
// (it cannot raise and has no other effect), so that translated code can do it without calling the
// system-register helpers; kCall where it needs them. The register table that decides it is the helpers'
// (a64_system_helpers.cpp). SP_EL0 at EL1 is such a register only while SPSel is 1 (a run-time test).
struct PlainSysreg {
  enum class What { kCall, kTpidrEl0, kTpidrEl1, kTpidrroEl0, kSpEl0, kConstant } what = What::kCall;
  uint64_t value = 0; // kConstant: what the read gives
};
PlainSysreg plain_sysreg_access(uint32_t insn, unsigned el, bool read);

} // namespace vplat::cpu
