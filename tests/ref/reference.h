// vplat test-reference library (vplat_testref).
//
// Thin wrappers around independent reference implementations of AArch64 that
// vplat's differential tests compare against:
//
//   LlvmA64Disassembler     LLVM 16 MC disassembler (llvm-c C API)
//   CapstoneA64Disassembler Capstone 4 (CS_ARCH_ARM64)
//   UnicornA64              Unicorn 2 (QEMU 5 based) user-level execution
//
// None of these is vplat code; they are the "other opinion".  Measured facts
// about each tool are recorded next to the class (see also reference_test.cpp,
// which pins them as tests, and probe.cpp, which re-measures the statistics).
//
// Thread-safety: every class holds a per-instance handle into a C library.
// One instance per thread is safe; sharing one instance between threads
// without external locking is not.  Construction of LlvmA64Disassembler is
// internally serialised (LLVM target registration is done once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace vplat::testref {

// ---------------------------------------------------------------------------
// LLVM 16
// ---------------------------------------------------------------------------

// Default CPU / features: exactly Armv8.0-A + FP + AdvSIMD + CRC32.
//
// Measured with LLVM 16.0.6 (Debian 1:16.0.6-15~deb12u1); pinned in
// reference_test.cpp and cross-checked against llvm-mc-16 --disassemble:
//  * "+v8a" is HasV8_0aOps only; it does NOT imply v8.1+.  With the default
//    features these are INVALID (nullopt): LSE (LDADD 0xb8200020, CAS, CASAL,
//    SWP, STADD), RDM (SQRDMLAH), LOR (LDLAR), FP16 arithmetic, DotProd,
//    JSCVT (FJCVTZS), FCMA, LRCPC/LRCPC2 (LDAPR, LDAPUR), PAuth non-hint forms
//    (PACIA, AUTIA, RETAA, BRAA, LDRAA), FlagM (RMIF), FRINTTS, MTE (IRG),
//    BF16, and - because crypto is optional in v8.0 - AES/SHA.
//  * HINT-space instructions stay valid (they are NOPs on v8.0) but print as
//    "hint #n" when their name needs a feature: PACIASP "hint #25", AUTIASP
//    "hint #29", XPACLRI "hint #7", BTI c "hint #34", ESB "hint #16".  CSDB
//    prints as "csdb" (LLVM treats it as base).
//  * Later system registers / PSTATE fields / SB / CFINV print generically:
//    "mrs x0, S3_0_C4_C2_3" (PAN), "msr S0_0_C4_C1_4, xzr" (MSR PAN,#1),
//    "msr S0_3_C3_C0_7, xzr" (SB), "msr S0_0_C4_C0_0, xzr" (CFINV).
//  * 0x00000000 is "udf #0" (valid).
//  * LLVM "SoftFail" encodings (llvm-mc: "warning: potentially undefined
//    instruction encoding", e.g. LDAR/LDXR with Rs/Rt2 != 0b11111 such as
//    0x88d785b9) are reported INVALID: the C API treats SoftFail as failure.
//  * System register names are upper case ("mrs x0, NZCV").
//  * Extensions can be added: "+v8a,+fp-armv8,+neon,+crc,+lse,+aes,+sha2,..."
//    (LLVM 16 spellings: lse rdm pauth jsconv rcpc fullfp16 dotprod aes sha2).
//  * LLVM's default for the triple with empty cpu/features is the same minus
//    CRC.
inline constexpr const char* kLlvmA64DefaultCpu = "generic";
inline constexpr const char* kLlvmA64DefaultFeatures = "+v8a,+fp-armv8,+neon,+crc";

class LlvmA64Disassembler {
 public:
  // `features` is an LLVM subtarget feature string (comma separated,
  // "+feat"/"-feat"), `cpu` an LLVM CPU name.  Aborts (std::abort after a
  // message to stderr) if LLVM cannot create a disassembler for the pair.
  explicit LlvmA64Disassembler(const std::string& features = kLlvmA64DefaultFeatures,
                               const std::string& cpu = kLlvmA64DefaultCpu);
  ~LlvmA64Disassembler();
  LlvmA64Disassembler(const LlvmA64Disassembler&) = delete;
  LlvmA64Disassembler& operator=(const LlvmA64Disassembler&) = delete;
  LlvmA64Disassembler(LlvmA64Disassembler&& other) noexcept;
  LlvmA64Disassembler& operator=(LlvmA64Disassembler&& other) noexcept;

  // Disassembles one little-endian instruction word.  nullopt when LLVM
  // reports an invalid encoding (for the configured features).
  //
  // Output is normalised: mnemonic and operands separated by one space, runs
  // of whitespace collapsed to one space, no leading/trailing whitespace.
  // LLVM's own spelling is otherwise kept (lower case, decimal immediates
  // except where LLVM always prints hex, e.g. logical immediates "#0xff").
  //
  // Options: no symboliser callbacks, no markup, no hex immediates, no
  // instruction comments.  Branch/ADR/ADRP targets are printed RELATIVE to
  // the instruction, as LLVM's printer does for the C API
  // (PrintBranchImmAsAddress is off): B at any pc with offset +8 is "b #8",
  // ADRP is "adrp x0, #4096" (page offset in bytes), "cbz x0, #-8".  `pc` therefore does not
  // change the text; it is passed to LLVM for completeness.
  std::optional<std::string> disassemble(uint32_t insn, uint64_t pc = 0);

 private:
  void* ctx_ = nullptr;  // LLVMDisasmContextRef
};

// ---------------------------------------------------------------------------
// Capstone 4
// ---------------------------------------------------------------------------

// Capstone 4.0.2 (Debian 4.0.2-5) has no feature selection.  Measured
// (vplat_testref_probe verdicts 2000000 1; uniformly random words, takes ~3 s):
//   LLVM 16 (default v8.0 features) valid 595,559; Capstone valid 603,362;
//   both valid 595,422, of which only 135,455 (23%) have identical text.
//   LLVM-only valid:      137 words - UDF #imm16 (Capstone 4 has no UDF) and
//                         DUP/INS(element) with non-canonical imm5/imm4 bits,
//                         e.g. 0x6e0a7f8c "mov v12.h[2], v28.h[7]".
//   Capstone-only valid: 7,940 words - 7,795 are LLVM SoftFail encodings:
//                         load/store-exclusive/acquire with Rs/Rt2 != 11111,
//                         e.g. 0x88d785b9 "ldar w25, [x13]", 0x084e6da3
//                         "ldxrb w3, [x13]"; 145 are crypto (AES/SHA/PMULL
//                         .1q), which Capstone always decodes.
//   Capstone 4 does NOT know LSE atomics, PAuth, RDM, JSCVT, FP16, DotProd
//   (all invalid there too) but does know PAN ("mrs x0, pan", "msr pan, #1").
// Text differences (both normalised): branch/ADR/ADRP targets are ABSOLUTE in
// hex ("b #0x1008" at pc 0x1000; so `pc` matters here), most immediates are
// hex ("ldp x2, x3, [sp, #0x10]", "hint #0x19"), fewer aliases ("movz x0,
// #0x1", "orr x0, xzr, #0xffffffff" where LLVM says "mov"), lower-case
// system registers, "{v0.16b, v1.16b}" without inner spaces.  Use Capstone
// as a second opinion on validity/mnemonic, not for exact text.
class CapstoneA64Disassembler {
 public:
  CapstoneA64Disassembler();
  ~CapstoneA64Disassembler();
  CapstoneA64Disassembler(const CapstoneA64Disassembler&) = delete;
  CapstoneA64Disassembler& operator=(const CapstoneA64Disassembler&) = delete;
  CapstoneA64Disassembler(CapstoneA64Disassembler&& other) noexcept;
  CapstoneA64Disassembler& operator=(CapstoneA64Disassembler&& other) noexcept;

  // Same contract as LlvmA64Disassembler::disassemble (normalised text,
  // nullopt when Capstone rejects the word).
  std::optional<std::string> disassemble(uint32_t insn, uint64_t pc = 0);

 private:
  std::size_t handle_ = 0;  // csh
};

// ---------------------------------------------------------------------------
// Unicorn 2
// ---------------------------------------------------------------------------

// User-visible architectural state.
struct A64State {
  uint64_t x[31];
  uint64_t sp;
  uint64_t pc;
  uint32_t nzcv;  // bits 31:28 (N Z C V), other bits zero, as in the NZCV register
  unsigned __int128 v[32];
  uint32_t fpcr;
  uint32_t fpsr;
};

// FPCR bits that Unicorn (CPU model Cortex-A72, Armv8.0) keeps; all other
// bits read as zero after a write (measured: writing 0xffffffff reads back
// kUnicornFpcrMask).  That is AHP(26) DN(25) FZ(24) RMode(23:22) and the
// AArch32-only Stride(21:20)/Len(18:16) fields.  FZ16 (bit 19, v8.2) and the
// trap enables IDE/IXE/UFE/OFE/DZE/IOE (15, 12:8; QEMU implements no FP
// trapping) read as zero.  vplat should compare FPCR under
// kUnicornFpcrComparableMask (AHP|DN|FZ|RMode), which excludes Len/Stride.
inline constexpr uint32_t kUnicornFpcrMask = 0x07f70000u;
inline constexpr uint32_t kUnicornFpcrComparableMask = 0x07c00000u;
// FPSR: cumulative flags IOC DZC OFC UFC IXC (bits 0-4), IDC (7), QC (27),
// and also the AArch32-only N Z C V bits 31:28 are kept (RES0 in AArch64:
// vplat should compare FPSR under kUnicornFpsrComparableMask).
inline constexpr uint32_t kUnicornFpsrComparableMask = 0x0800009fu;
inline constexpr uint32_t kUnicornFpsrMask = 0xf800009fu;

namespace detail {
struct UnicornPending;  // stop reason recorded by Unicorn hooks
}  // namespace detail

// Unicorn-based reference CPU.
//
// Configuration: CPU model Cortex-A72 (Armv8.0-A + FP + AdvSIMD + CRC32 +
// AES/SHA/PMULL), executing at EL1h (Unicorn's reset state, PSTATE 0x3c5 i.e.
// DAIF masked; set_state() does not touch DAIF/EL), MMU off (flat
// addressing), CPACR_EL1.FPEN = 3 so FP/SIMD does not trap.  EL0 was tried
// and rejected: Unicorn 2.0.1 accepts PSTATE.M=0 but keeps translating as
// EL1 (MRS SCTLR_EL1 works, CurrentEL reads 4) while runtime checks see EL0,
// and ERET then asserts inside QEMU.  Consequences of EL1: privileged
// instructions (MRS SCTLR_EL1, MSR DAIFSet) execute instead of UNDEF; don't
// use ERET/MSR SPSel/exception returns in differential tests.  Measured:
// HVC and HLT are UNDEFINED, SMC reports EXCP 13 with pc after it, WFI/YIELD
// just continue, DC ZVA and CTR_EL0 work, unaligned loads succeed (MMU off
// Device-memory alignment faults are not modelled by QEMU 5), v8.1+
// instructions (LDADD, SQRDMLAH, FJCVTZS, FADD h, PACIA) are UNDEFINED,
// PACIASP & co (HINT space) are NOPs.
//
// Unicorn 2.0.1 does not invalidate translated code on uc_mem_write; write()
// therefore calls uc_ctl_remove_cache on the written range, so rewriting an
// instruction slot between runs is safe.
//
// Throughput (vplat_testref_probe bench, 2-core dev VM, RelWithDebInfo):
//   warm run(until, 1), no state sync                    ~2.0 M runs/s
//   warm set_state + run(1) + state()                    ~0.9 M runs/s
//   set_state + state() alone                            ~1.0 M pairs/s
//   set_state + run(until=pc+4, count=0)                 ~0.25 M runs/s
//   write() insn + set_state + run(1) (retranslate)      ~0.16 M runs/s
//   cold run(1) per new pc in {insn; b .} slots          ~0.15 M runs/s
//   cold run(1) per new pc in long straight-line code    ~4.4 k runs/s (!)
//   one long run(count=N)                                ~100-300 M insns/s
//   first count=0 run after count>0 runs                 ~270 ms (TB flush)
// Advice: (1) always pass count > 0 (use `until` together with a generous
// count rather than count = 0): switching between count = 0 and count > 0
// flushes every translation, and until-only runs are ~4x slower per run.
// (2) Each new start pc translates a block up to the next branch, so lay
// test instructions out as short slots terminated by a branch ("insn; b .")
// and single-step into them; never single-step through long fresh straight
// code.  (3) set_state/state cost about as much as a run; only sync state
// when comparing.  10 M single-instruction differential steps with full
// state sync take ~10-15 s.
class UnicornA64 {
 public:
  UnicornA64();
  ~UnicornA64();
  UnicornA64(const UnicornA64&) = delete;
  UnicornA64& operator=(const UnicornA64&) = delete;

  // Maps [addr, addr+size) read/write/execute; both must be 4 KiB aligned.
  // Aborts with a message on failure (overlap, misalignment).
  void map(uint64_t addr, std::size_t size);
  // Abort with a message if the range is not mapped.
  void write(uint64_t addr, const void* p, std::size_t n);
  void read(uint64_t addr, void* p, std::size_t n);

  void set_state(const A64State& s);
  A64State state();

  struct RunResult {
    bool ok;            // stopped at `until` or after `count` instructions
    std::string error;  // empty when ok; otherwise e.g.
                        //  "undefined instruction at pc=0x1000"
                        //  "unmapped read at 0xdead0000 (pc=0x1004)"
                        //  "exception svc (EXCP 2) at pc=0x1008"
                        //  "uc_err 8: Invalid memory fetch (UC_ERR_FETCH_UNMAPPED)"
    // Kind of stop, for tests that want to branch on it without parsing.
    enum class Kind { Ok, Undefined, Unmapped, Exception, Other } kind = Kind::Ok;
    uint64_t fault_addr = 0;  // for Unmapped: the data/fetch address
    uint32_t exception = 0;   // for Undefined/Exception: QEMU EXCP_* number
  };
  // Runs from state().pc until `count` instructions have executed (count 0:
  // no limit, see the advice above) or pc reaches `until` (~0ull: never).  On an
  // exception pc is left AT the faulting instruction (UDF, unmapped access)
  // or, for SVC/SMC/BRK, at the value QEMU reports (after SVC and SMC: the
  // next instruction; BRK: the BRK itself); no exception is "taken", i.e.
  // PSTATE/ELR/ESR are not modified, the guest just stops.
  RunResult run(uint64_t until, std::size_t count);

  // Raw engine handle (uc_engine*) for tests that need something extra.
  void* engine() { return uc_; }

 private:
  void* uc_ = nullptr;  // uc_engine*
  void* hooks_[2] = {};
  detail::UnicornPending* pending_ = nullptr;
};

}  // namespace vplat::testref
