/* Test 1: EL1 exception vectors. SVC/BRK/UDF at EL1 and from EL0 (entered with ERET), EL1 on SP_EL0,
 * and EL1 data aborts once the MMU is on; each returns with ERET and execution continues.
 * Expected ESR/ELR/SPSR/FAR values follow the Arm ARM (D1.10 exception entry, D17.2.37 ESR_EL1):
 *  - SVC: preferred return address is the next instruction; BRK, UDF and aborts: the instruction itself.
 *  - SPSR = PSTATE at the time: NZCV set by the stub, DAIF, M = EL0t 0b0000 / EL1t 0b0100 / EL1h 0b0101. */
#include "mmu.h"
#include "stubs.h"

static u8 el0_stack[4096] __attribute__((aligned(16)));
static volatile u64 data_page[512] __attribute__((aligned(4096)));

#define SPSR_EL1H_MASKED 0x3c5UL /* what the tests run with: DAIF set, EL1h */

static void test_boot(void) {
  test_begin("boot_state");
  expect_eq("CurrentEL", (read_sysreg(CurrentEL) >> 2) & 3, 1);
  expect_eq("x1 at entry", boot_regs.x1, 0);
  expect_eq("x2 at entry", boot_regs.x2, 0);
  expect_eq("x3 at entry", boot_regs.x3, 0);
  expect_eq("SCTLR_EL1.M", read_sysreg(sctlr_el1) & 1, 0);
  expect_eq("DTB 8-byte aligned", boot_regs.x0 & 7, 0);
  u64 dtb = boot_regs.x0;
  if (dtb >= RAM_BASE && !(dtb & 3)) {
    /* FDT magic 0xd00dfeed, stored big-endian. */
    expect_eq("DTB magic (LE read)", mmio_r32(dtb), 0xedfe0dd0);
  } else {
    fail("x0 = 0x%lx is not a DTB address in RAM", dtb);
  }
  static const u64 mpidrs[] = {CPU_MPIDRS};
  expect_eq("boot CPU MPIDR affinity", mpidr_aff(), mpidrs[0]);
  expect_eq("VBAR_EL1", read_sysreg(vbar_el1), (u64)vectors);
  test_end();
}

static void test_el1_svc(void) {
  test_begin("el1_svc");
  trap_arm();
  el1_svc_stub(0x90000000); /* N, V */
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_CUR_SPX_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_SVC64, 0x4321));
  expect_eq("ELR", trap.elr, (u64)el1_svc_insn + 4);
  expect_eq("SPSR", trap.spsr, 0x90000000 | SPSR_EL1H_MASKED);
  test_end();
}

static void test_el1_brk(void) {
  test_begin("el1_brk");
  trap_arm();
  el1_brk_stub(0x60000000); /* Z, C */
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_CUR_SPX_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_BRK64, 0x1234));
  expect_eq("ELR", trap.elr, (u64)el1_brk_insn);
  expect_eq("SPSR", trap.spsr, 0x60000000 | SPSR_EL1H_MASKED);
  test_end();
}

static void test_el1_udf(void) {
  test_begin("el1_undefined");
  trap_arm();
  el1_udf_stub(0xf0000000);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_CUR_SPX_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_UNKNOWN, 0));
  expect_eq("ELR", trap.elr, (u64)el1_udf_insn);
  expect_eq("SPSR", trap.spsr, 0xf0000000 | SPSR_EL1H_MASKED);
  test_end();
}

static void test_el1t_brk(void) {
  test_begin("el1t_brk_sp_el0_vector");
  trap_arm();
  el1t_brk_stub(0x80000000);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, 0); /* current EL with SP_EL0, synchronous */
  expect_eq("ESR", trap.esr, ESR(EC_BRK64, 0x55));
  expect_eq("ELR", trap.elr, (u64)el1t_brk_insn);
  expect_eq("SPSR", trap.spsr, 0x80000000 | 0x3c4);
  expect_eq("SPSel after return", read_sysreg(spsel), 1);
  test_end();
}

static u64 el0(char *fn, u64 arg) { return run_el0(fn, el0_stack + sizeof el0_stack, arg); }

static void test_el0_svc(void) {
  test_begin("el0_svc");
  trap_arm();
  u64 r = el0(el0_svc, 0x30000000); /* Z, C */
  expect_eq("EL0 resumed after SVC", r, 0x5a5a);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_LOWER_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_SVC64, 0x1234));
  expect_eq("ELR", trap.elr, (u64)el0_svc_insn + 4);
  expect_eq("SPSR", trap.spsr, 0x30000000); /* EL0t, DAIF clear */
  expect_eq("back at EL1", (read_sysreg(CurrentEL) >> 2) & 3, 1);
  expect_eq("SP_EL0 unchanged", read_sysreg(sp_el0), (u64)(el0_stack + sizeof el0_stack));
  test_end();
}

static void test_el0_brk(void) {
  test_begin("el0_brk");
  trap_arm();
  el0(el0_brk, 0x40000000);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_LOWER_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_BRK64, 0x77));
  expect_eq("ELR", trap.elr, (u64)el0_brk_insn);
  expect_eq("SPSR", trap.spsr, 0x40000000);
  test_end();
}

static void test_el0_udf(void) {
  test_begin("el0_undefined");
  trap_arm();
  el0(el0_udf, 0x80000000);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_LOWER_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_UNKNOWN, 0));
  expect_eq("ELR", trap.elr, (u64)el0_udf_insn);
  expect_eq("SPSR", trap.spsr, 0x80000000);
  test_end();
}

static void test_el0_mrs(void) {
  /* MRS of an EL1 register at EL0 is UNDEFINED: EC 0 (not a trapped MSR/MRS, EC 0x18). */
  test_begin("el0_mrs_el1_register");
  trap_arm();
  el0(el0_mrs, 0);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_LOWER_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_UNKNOWN, 0));
  expect_eq("ELR", trap.elr, (u64)el0_mrs_insn);
  test_end();
}

static void test_el1_dabt(void) {
  mmu_build();
  window_set(0, (u64)data_page | PTE_PAGE_RW_EL1);
  window_set(1, ((u64)data_page | PTE_PAGE_RW_EL1 | PTE_AP_EL1_RO));
  /* window page 2 stays invalid */
  mmu_on();
  data_page[3] = 0x1122334455667788UL;

  test_begin("el1_mmu_on_load");
  trap_arm();
  expect_eq("load through the window", el1_load_stub(window_va(0) + 24, 0), 0x1122334455667788UL);
  expect_eq("exceptions taken", trap.count, 0);
  test_end();

  test_begin("el1_dabt_translation_fault");
  trap_arm();
  u64 va = window_va(2) + 0x18;
  u64 r = el1_load_stub(va, 0x20000000);
  expect_eq("destination register unchanged", r, va);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 0, DFSC_TRANS(3), va, (u64)el1_load_insn, 3, 0, 1);
  expect_eq("SPSR", trap.spsr, 0x20000000 | SPSR_EL1H_MASKED);
  test_end();

  test_begin("el1_dabt_permission_fault_write");
  trap_arm();
  data_page[4] = 0xabcdabcdabcdabcdUL;
  va = window_va(1) + 0x24;
  el1_store_stub(va, 0x55aa55aa, 0x10000000);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 1, DFSC_PERM(3), va, (u64)el1_store_insn, 2, 1, 0);
  expect_eq("SPSR", trap.spsr, 0x10000000 | SPSR_EL1H_MASKED);
  expect_eq("memory unchanged", data_page[4], 0xabcdabcdabcdabcdUL);
  trap_arm();
  expect_eq("read of the read-only page", el1_load_stub(window_va(1) + 0x20, 0), 0xabcdabcdabcdabcdUL);
  expect_eq("read faults", trap.count, 0);
  test_end();

  mmu_off();
  test_begin("el1_mmu_off_again");
  expect_eq("SCTLR_EL1.M", read_sysreg(sctlr_el1) & 1, 0);
  expect_eq("identity read", el1_load_stub((u64)&data_page[3], 0), 0x1122334455667788UL);
  test_end();
}

/* A load from physical memory where nothing is mapped (MMU off): a synchronous external abort on the load
 * itself (DFSC 0b010000), after which execution continues. The emulator reports the access once on the host. */
static void test_el1_external_abort(void) {
  test_begin("el1_external_abort_unmapped_pa");
  for (int i = 0; i < 2; ++i) {
    trap_arm();
    u64 r = el1_load_stub(UNMAPPED_PA + 8 * i, 0x40000000);
    expect_eq("destination register unchanged", r, UNMAPPED_PA + 8 * i);
    expect_eq("exceptions taken", trap.count, 1);
    expect_eq("vector", trap.vec, VEC_CUR_SPX_SYNC);
    expect_eq("ESR.EC", trap.esr >> 26, EC_DABT_CUR);
    expect_eq("ESR.DFSC", trap.esr & 0x3f, 0x10);
    expect_eq("ESR.WnR", (trap.esr >> 6) & 1, 0);
    if (!((trap.esr >> 10) & 1)) expect_eq("FAR (FnV clear)", trap.far, UNMAPPED_PA + 8 * i);
    expect_eq("ELR", trap.elr, (u64)el1_load_insn);
  }
  test_end();
}

void test_main(void) {
  test_boot();
  test_el1_svc();
  test_el1_brk();
  test_el1_udf();
  test_el1t_brk();
  test_el0_svc();
  test_el0_brk();
  test_el0_udf();
  test_el0_mrs();
  test_el1_dabt();
  test_el1_external_abort();
}
