// UnicornA64: Unicorn 2 (QEMU 5) as a user-level AArch64 reference CPU.
#include <unicorn/unicorn.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/ref/reference.h"

namespace vplat::testref {

namespace {

[[noreturn]] void fail(const char* what, uc_err err) {
  std::fprintf(stderr, "vplat_testref: %s failed: %s (uc_err %d)\n", what, uc_strerror(err),
               static_cast<int>(err));
  std::abort();
}

void check(uc_err err, const char* what) {
  if (err != UC_ERR_OK) fail(what, err);
}

// QEMU exception numbers (target/arm/cpu.h, include/exec/cpu-all.h) as seen by UC_HOOK_INTR.
const char* excp_name(uint32_t n) {
  switch (n) {
    case 1: return "undefined instruction";
    case 2: return "svc";
    case 3: return "prefetch abort";
    case 4: return "data abort";
    case 5: return "irq";
    case 6: return "fiq";
    case 7: return "brk";
    case 11: return "hvc";
    case 12: return "hyp trap";
    case 13: return "smc";
    case 16: return "semihosting";
    case 22: return "unaligned";
    case 0x10001: return "wfi/halt";
    case 0x10002: return "debug";
    case 0x10003: return "halted";
    case 0x10004: return "yield";
    default: return "exception";
  }
}

constexpr uint32_t kExcpUdef = 1;

uint64_t get_pc(uc_engine* uc) {
  uint64_t pc = 0;
  uc_reg_read(uc, UC_ARM64_REG_PC, &pc);
  return pc;
}

}  // namespace

struct detail::UnicornPending {
  bool have = false;
  UnicornA64::RunResult::Kind kind = UnicornA64::RunResult::Kind::Ok;
  uint64_t addr = 0;
  uint64_t pc = 0;
  uint32_t excp = 0;
  uc_mem_type mem_type = UC_MEM_READ;
};

namespace {

void hook_intr(uc_engine* uc, uint32_t intno, void* user) {
  auto* p = static_cast<detail::UnicornPending*>(user);
  if (!p->have) {
    p->have = true;
    p->kind = intno == kExcpUdef ? UnicornA64::RunResult::Kind::Undefined
                                 : UnicornA64::RunResult::Kind::Exception;
    p->excp = intno;
    p->pc = get_pc(uc);
  }
  // Without this, execution would continue after the hook (SVC) or retry the
  // faulting instruction forever (UDF).
  uc_emu_stop(uc);
}

bool hook_unmapped(uc_engine* uc, uc_mem_type type, uint64_t address, int /*size*/,
                   int64_t /*value*/, void* user) {
  auto* p = static_cast<detail::UnicornPending*>(user);
  if (!p->have) {
    p->have = true;
    p->kind = UnicornA64::RunResult::Kind::Unmapped;
    p->addr = address;
    p->mem_type = type;
    p->pc = get_pc(uc);
  }
  return false;  // not handled: uc_emu_start returns UC_ERR_*_UNMAPPED
}

}  // namespace

UnicornA64::UnicornA64() {
  uc_engine* uc = nullptr;
  check(uc_open(UC_ARCH_ARM64, UC_MODE_ARM, &uc), "uc_open(ARM64)");
  uc_ = uc;
  // Cortex-A72: an Armv8.0-A core (FP, AdvSIMD, CRC32, crypto; no v8.1+).
  check(uc_ctl_set_cpu_model(uc, UC_CPU_ARM64_A72), "uc_ctl_set_cpu_model(A72)");

  uint64_t cpacr = 3ull << 20;  // FPEN = 0b11: no FP/SIMD traps at EL0/EL1
  check(uc_reg_write(uc, UC_ARM64_REG_CPACR_EL1, &cpacr), "write CPACR_EL1");

  // Execution level: Unicorn's reset state, EL1h with the MMU off.  (We
  // tried dropping to EL0 by writing PSTATE: Unicorn 2.0.1 then reports
  // PSTATE=0 but keeps translating for EL1 - MRS SCTLR_EL1 still works and
  // CurrentEL reads 4 - while some runtime checks see EL0 (MSR DAIFSet
  // UNDEFs) and ERET asserts inside QEMU.  So EL1 it is.)

  pending_ = new detail::UnicornPending();
  uc_hook h = 0;
  check(uc_hook_add(uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&hook_intr), pending_, 1, 0),
        "uc_hook_add(INTR)");
  hooks_[0] = reinterpret_cast<void*>(h);
  check(uc_hook_add(uc, &h, UC_HOOK_MEM_UNMAPPED, reinterpret_cast<void*>(&hook_unmapped), pending_,
                    1, 0),
        "uc_hook_add(MEM_UNMAPPED)");
  hooks_[1] = reinterpret_cast<void*>(h);
}

UnicornA64::~UnicornA64() {
  if (uc_ != nullptr) uc_close(static_cast<uc_engine*>(uc_));
  delete pending_;
}

void UnicornA64::map(uint64_t addr, std::size_t size) {
  check(uc_mem_map(static_cast<uc_engine*>(uc_), addr, size, UC_PROT_ALL), "uc_mem_map");
}

void UnicornA64::write(uint64_t addr, const void* p, std::size_t n) {
  auto* uc = static_cast<uc_engine*>(uc_);
  check(uc_mem_write(uc, addr, p, n), "uc_mem_write");
  // Unicorn 2.0.1 does NOT invalidate translated code on uc_mem_write
  // (measured: rewriting an executed instruction kept running the old one).
  // Drop every translation block overlapping the written range.
  if (n != 0) check(uc_ctl_remove_cache(uc, addr, addr + n), "uc_ctl_remove_cache");
}

void UnicornA64::read(uint64_t addr, void* p, std::size_t n) {
  check(uc_mem_read(static_cast<uc_engine*>(uc_), addr, p, n), "uc_mem_read");
}

namespace {

// Register ids in A64State order: x0..x30, sp, pc, nzcv, fpcr, fpsr.
constexpr int kGprCount = 31 + 5;
void gpr_ids(int* ids) {
  for (int i = 0; i < 29; ++i) ids[i] = UC_ARM64_REG_X0 + i;
  ids[29] = UC_ARM64_REG_X29;
  ids[30] = UC_ARM64_REG_X30;
  ids[31] = UC_ARM64_REG_SP;
  ids[32] = UC_ARM64_REG_PC;
  ids[33] = UC_ARM64_REG_NZCV;
  ids[34] = UC_ARM64_REG_FPCR;
  ids[35] = UC_ARM64_REG_FPSR;
}

struct Q128 {
  uint64_t lo, hi;
};

}  // namespace

void UnicornA64::set_state(const A64State& s) {
  auto* uc = static_cast<uc_engine*>(uc_);
  int ids[kGprCount + 32];
  void* vals[kGprCount + 32];
  gpr_ids(ids);
  uint64_t g[33];
  std::memcpy(g, s.x, sizeof s.x);
  g[31] = s.sp;
  g[32] = s.pc;
  uint32_t nzcv = s.nzcv & 0xf0000000u, fpcr = s.fpcr, fpsr = s.fpsr;
  for (int i = 0; i < 33; ++i) vals[i] = &g[i];
  vals[33] = &nzcv;
  vals[34] = &fpcr;
  vals[35] = &fpsr;
  Q128 q[32];
  for (int i = 0; i < 32; ++i) {
    q[i].lo = static_cast<uint64_t>(s.v[i]);
    q[i].hi = static_cast<uint64_t>(s.v[i] >> 64);
    ids[kGprCount + i] = UC_ARM64_REG_Q0 + i;
    vals[kGprCount + i] = &q[i];
  }
  check(uc_reg_write_batch(uc, ids, vals, kGprCount + 32), "uc_reg_write_batch");
}

A64State UnicornA64::state() {
  auto* uc = static_cast<uc_engine*>(uc_);
  A64State s{};
  int ids[kGprCount + 32];
  void* vals[kGprCount + 32];
  gpr_ids(ids);
  uint64_t g[33];
  uint64_t nzcv = 0, fpcr = 0, fpsr = 0;  // Unicorn writes 32 bits; zero-extended here
  for (int i = 0; i < 33; ++i) vals[i] = &g[i];
  vals[33] = &nzcv;
  vals[34] = &fpcr;
  vals[35] = &fpsr;
  Q128 q[32];
  for (int i = 0; i < 32; ++i) {
    ids[kGprCount + i] = UC_ARM64_REG_Q0 + i;
    vals[kGprCount + i] = &q[i];
  }
  check(uc_reg_read_batch(uc, ids, vals, kGprCount + 32), "uc_reg_read_batch");
  std::memcpy(s.x, g, sizeof s.x);
  s.sp = g[31];
  s.pc = g[32];
  s.nzcv = static_cast<uint32_t>(nzcv) & 0xf0000000u;
  s.fpcr = static_cast<uint32_t>(fpcr);
  s.fpsr = static_cast<uint32_t>(fpsr);
  for (int i = 0; i < 32; ++i)
    s.v[i] = (static_cast<unsigned __int128>(q[i].hi) << 64) | q[i].lo;
  return s;
}

UnicornA64::RunResult UnicornA64::run(uint64_t until, std::size_t count) {
  auto* uc = static_cast<uc_engine*>(uc_);
  *pending_ = detail::UnicornPending{};
  uint64_t pc = get_pc(uc);
  uc_err err = uc_emu_start(uc, pc, until, /*timeout=*/0, count);

  RunResult r{};
  char buf[160];
  if (pending_->have) {
    r.ok = false;
    r.kind = pending_->kind;
    if (r.kind == RunResult::Kind::Unmapped) {
      const char* what = "access";
      switch (pending_->mem_type) {
        case UC_MEM_READ_UNMAPPED: what = "read"; break;
        case UC_MEM_WRITE_UNMAPPED: what = "write"; break;
        case UC_MEM_FETCH_UNMAPPED: what = "fetch"; break;
        default: break;
      }
      r.fault_addr = pending_->addr;
      std::snprintf(buf, sizeof buf, "unmapped %s at 0x%" PRIx64 " (pc=0x%" PRIx64 ")", what,
                    pending_->addr, pending_->pc);
    } else {
      r.exception = pending_->excp;
      if (r.kind == RunResult::Kind::Undefined)
        std::snprintf(buf, sizeof buf, "undefined instruction at pc=0x%" PRIx64, pending_->pc);
      else
        std::snprintf(buf, sizeof buf, "exception %s (EXCP %u) at pc=0x%" PRIx64,
                      excp_name(pending_->excp), pending_->excp, pending_->pc);
    }
    r.error = buf;
    return r;
  }
  if (err != UC_ERR_OK) {
    r.ok = false;
    r.kind = RunResult::Kind::Other;
    std::snprintf(buf, sizeof buf, "uc_err %d: %s (pc=0x%" PRIx64 ")", static_cast<int>(err),
                  uc_strerror(err), get_pc(uc));
    r.error = buf;
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace vplat::testref
