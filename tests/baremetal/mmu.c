/* Test 2: stage 1 translation (4 KiB granule, 48-bit VA, walks from level 0). Identity map of RAM and
 * devices in 1 GiB blocks, a window of 4 KiB pages for aliases, permissions, the access flag, EL0
 * access and translation faults at each level; TLBI after changing entries. Fault status codes from
 * the Arm ARM (ESR_EL1.DFSC/IFSC): translation 0b0001LL, access flag 0b0010LL, permission 0b0011LL,
 * LL = level. */
#include "mmu.h"
#include "stubs.h"

static volatile u64 page_a[512] __attribute__((aligned(4096)));
static volatile u64 page_b[512] __attribute__((aligned(4096)));
static volatile u64 page_code[512] __attribute__((aligned(4096)));
static volatile u64 page_stack[512] __attribute__((aligned(4096)));

#define SPSR_EL1H_MASKED 0x3c5UL

/* The pages are also reached through window VAs the compiler cannot relate to them, so every access is
 * volatile to keep program order. */
/* Window layout. */
enum { W_ALIAS1 = 0, W_ALIAS2 = 1, W_RO = 2, W_EL1ONLY = 3, W_NOAF = 4, W_INVALID = 5, W_TLBI = 6,
       W_EXEC = 7, W_USER_RO = 8, W_USER_TEXT = 16, W_USER_STACK = 40, W_USER_DATA = 41 };

static u64 pte_normal(volatile void *pa, u64 ap) {
  return (u64)pa | PTE_VALID | PTE_TABLE | PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER | PTE_AF | ap | PTE_PXN | PTE_UXN;
}

static u64 user_va(char *sym) { return window_va(W_USER_TEXT) + (u64)(sym - __user_start); }

static u64 el0(char *fn, u64 arg) {
  return run_el0((void *)user_va(fn), (void *)(window_va(W_USER_STACK) + PAGE), arg);
}

static void setup(void) {
  mmu_build();
  window_set(W_ALIAS1, pte_normal(page_a, PTE_AP_EL1_RW));
  window_set(W_ALIAS2, pte_normal(page_a, PTE_AP_EL1_RW));
  window_set(W_RO, pte_normal(page_a, PTE_AP_EL1_RO));
  window_set(W_EL1ONLY, pte_normal(page_a, PTE_AP_EL1_RW));
  window_set(W_NOAF, pte_normal(page_a, PTE_AP_EL1_RW) & ~PTE_AF);
  window_set(W_TLBI, pte_normal(page_a, PTE_AP_EL1_RW));
  window_set(W_USER_RO, pte_normal(page_a, PTE_AP_RO));
  /* EL0 code: read-only at both levels, executable at EL0 only. */
  unsigned n = 0;
  for (char *p = __user_start; p < __user_end; p += PAGE, n++)
    window_set(W_USER_TEXT + n, ((u64)p | PTE_VALID | PTE_TABLE | PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER | PTE_AF |
                                 PTE_AP_RO | PTE_PXN));
  window_set(W_USER_STACK, pte_normal(page_stack, PTE_AP_RW));
  window_set(W_USER_DATA, pte_normal(page_b, PTE_AP_RW));
  mmu_on();
}

static void test_identity(void) {
  test_begin("mmu_identity_map");
  expect_eq("SCTLR_EL1.M", read_sysreg(sctlr_el1) & 1, 1);
  /* Translate the image, a RAM page and the UART through AT S1E1R: PAR_EL1.F = 0 and PA = VA. */
  u64 vas[] = {(u64)_text, (u64)page_a, UART_BASE, GICD_BASE};
  for (unsigned i = 0; i < 4; i++) {
    __asm__ volatile("at s1e1r, %0" ::"r"(vas[i]));
    isb();
    u64 par = read_sysreg(par_el1);
    if (par & 1) fail("AT S1E1R 0x%lx faulted, PAR 0x%lx", vas[i], par);
    else expect_eq("PAR_EL1.PA", par & 0xfffffffff000UL, vas[i] & ~0xfffUL);
  }
  page_a[0] = 0x0123456789abcdefUL;
  expect_eq("RAM readback", page_a[0], 0x0123456789abcdefUL);
  test_end();
}

static void test_alias(void) {
  test_begin("mmu_alias_two_vas_one_page");
  volatile u64 *w1 = (u64 *)window_va(W_ALIAS1), *w2 = (u64 *)window_va(W_ALIAS2);
  page_a[10] = 0xfeedface00000001UL;
  expect_eq("window 1 sees identity write", w1[10], 0xfeedface00000001UL);
  expect_eq("window 2 sees identity write", w2[10], 0xfeedface00000001UL);
  w1[11] = 0xfeedface00000002UL;
  expect_eq("window 2 sees window 1 write", w2[11], 0xfeedface00000002UL);
  expect_eq("identity sees window 1 write", page_a[11], 0xfeedface00000002UL);
  test_end();
}

static void test_readonly(void) {
  test_begin("mmu_readonly_page_write_fault");
  page_a[20] = 0x1111;
  trap_arm();
  expect_eq("read allowed", el1_load_stub(window_va(W_RO) + 160, 0), 0x1111);
  expect_eq("no fault on read", trap.count, 0);
  trap_arm();
  u64 va = window_va(W_RO) + 164;
  el1_store_stub(va, 0x2222, 0);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 1, DFSC_PERM(3), va, (u64)el1_store_insn, 2, 1, 0);
  expect_eq("memory unchanged", page_a[20], 0x1111);
  test_end();
}

static void test_el0(void) {
  test_begin("mmu_el0_access_to_user_pages");
  page_b[100] = 0x7777;
  trap_arm();
  expect_eq("EL0 load of EL0 RW page", el0(el0_load, window_va(W_USER_DATA) + 800), 0x7777);
  el0(el0_store, window_va(W_USER_DATA) + 808);
  expect_eq("EL0 store of EL0 RW page (value = its address)", page_b[101], window_va(W_USER_DATA) + 808);
  page_a[30] = 0x3030;
  expect_eq("EL0 load of EL0 RO page", el0(el0_load, window_va(W_USER_RO) + 240), 0x3030);
  expect_eq("no faults", trap.count, 0);
  test_end();

  test_begin("mmu_el0_load_el1_only_page");
  trap_arm();
  u64 va = window_va(W_EL1ONLY) + 0x40;
  expect_eq("destination register unchanged", el0(el0_load, va), va);
  expect_dabt(VEC_LOWER_SYNC, EC_DABT_LOWER, 0, DFSC_PERM(3), va, user_va(el0_load_insn), 3, 0, 1);
  expect_eq("SPSR", trap.spsr, 0);
  test_end();

  test_begin("mmu_el0_store_el0_readonly_page");
  trap_arm();
  page_a[31] = 0x3131;
  va = window_va(W_USER_RO) + 248;
  el0(el0_store, va);
  expect_dabt(VEC_LOWER_SYNC, EC_DABT_LOWER, 1, DFSC_PERM(3), va, user_va(el0_store_insn), 3, 0, 1);
  expect_eq("memory unchanged", page_a[31], 0x3131);
  test_end();

  test_begin("mmu_el0_exec_uxn_page");
  trap_arm();
  trap.resume = user_va(el0_exit);
  va = window_va(W_USER_DATA) + 0x100;
  run_el0((void *)va, (void *)(window_va(W_USER_STACK) + PAGE), 0);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_LOWER_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_IABT_LOWER, DFSC_PERM(3)));
  expect_eq("FAR", trap.far, va);
  expect_eq("ELR", trap.elr, va);
  test_end();
}

static void test_exec(void) {
  /* movz x0, #0x77; ret */
  page_code[0] = 0xd65f03c0d2800ee0UL;
  dsb(ish);
  __asm__ volatile("ic iallu" ::: "memory");
  dsb(ish);
  isb();
  u64 va = window_va(W_EXEC);
  window_set(W_EXEC, pte_normal(page_code, PTE_AP_EL1_RO)); /* PXN set */
  test_begin("mmu_el1_exec_pxn_page");
  trap_arm();
  trap.resume = (u64)el1_call_ret;
  expect_eq("x0 unchanged", el1_call((void *)va), va);
  expect_eq("exceptions taken", trap.count, 1);
  expect_eq("vector", trap.vec, VEC_CUR_SPX_SYNC);
  expect_eq("ESR", trap.esr, ESR(EC_IABT_CUR, DFSC_PERM(3)));
  expect_eq("FAR", trap.far, va);
  expect_eq("ELR", trap.elr, va);
  test_end();

  test_begin("mmu_el1_exec_after_clearing_pxn");
  window_set(W_EXEC, pte_normal(page_code, PTE_AP_EL1_RO) & ~PTE_PXN);
  __asm__ volatile("ic iallu" ::: "memory");
  dsb(ish);
  isb();
  trap_arm();
  expect_eq("code in the window returns 0x77", el1_call((void *)va), 0x77);
  expect_eq("no faults", trap.count, 0);
  test_end();
}

static void test_access_flag(void) {
  test_begin("mmu_access_flag_fault");
  page_a[60] = 0x6060;
  trap_arm();
  u64 va = window_va(W_NOAF) + 480;
  expect_eq("destination register unchanged", el1_load_stub(va, 0), va);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 0, DFSC_ACCESS(3), va, (u64)el1_load_insn, 3, 0, 1);
  /* Software-managed access flag: set it, invalidate, retry. */
  window_set(W_NOAF, l3_window[W_NOAF] | PTE_AF);
  trap_arm();
  expect_eq("load after setting AF", el1_load_stub(va, 0), 0x6060);
  expect_eq("no fault after setting AF", trap.count, 0);
  test_end();
}

static void translation_fault(const char *name, u64 va, unsigned level) {
  test_begin(name);
  trap_arm();
  expect_eq("destination register unchanged", el1_load_stub(va, 0), va);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 0, DFSC_TRANS(level), va, (u64)el1_load_insn, 3, 0, 1);
  test_end();
}

static void test_translation_faults(void) {
  translation_fault("mmu_translation_fault_level3", window_va(W_INVALID) + 8, 3);
  translation_fault("mmu_translation_fault_level2", WINDOW_VA + (2UL << 20) + 16, 2);  /* l2_window[1] */
  translation_fault("mmu_translation_fault_level1", WINDOW_VA + (1UL << 30) + 24, 1);  /* l1_table[65] */
  translation_fault("mmu_translation_fault_level0", (1UL << 39) + 32, 0);              /* l0_table[1] */
  /* TTBR1 half with TCR_EL1.EPD1 = 1, and a VA in neither half: translation faults at level 0. */
  translation_fault("mmu_translation_fault_ttbr1_epd1", 0xffff800000000040UL, 0);
  translation_fault("mmu_translation_fault_va_out_of_range", 0x0001000000000048UL, 0);
}

static void test_tlbi(void) {
  test_begin("mmu_tlbi_after_remap");
  volatile u64 *w = (u64 *)window_va(W_TLBI);
  page_a[70] = 0xaaaa;
  page_b[70] = 0xbbbb;
  expect_eq("before remap (page A)", w[70], 0xaaaa);
  window_set(W_TLBI, pte_normal(page_b, PTE_AP_EL1_RW)); /* TLBI VAE1IS */
  expect_eq("after remap + TLBI VAE1IS (page B)", w[70], 0xbbbb);
  l3_window[W_TLBI] = pte_normal(page_a, PTE_AP_EL1_RW);
  tlb_flush_all(); /* TLBI VMALLE1IS */
  expect_eq("after remap + TLBI VMALLE1IS (page A)", w[70], 0xaaaa);
  /* Invalidate the entry (break), then map page B again (make). */
  window_set(W_TLBI, 0);
  trap_arm();
  u64 va = (u64)&w[71];
  el1_load_stub(va, 0);
  expect_dabt(VEC_CUR_SPX_SYNC, EC_DABT_CUR, 0, DFSC_TRANS(3), va, (u64)el1_load_insn, 3, 0, 1);
  window_set(W_TLBI, pte_normal(page_b, PTE_AP_EL1_RW));
  expect_eq("after break-before-make (page B)", w[70], 0xbbbb);
  test_end();
}

void test_main(void) {
  setup();
  test_identity();
  test_alias();
  test_readonly();
  test_el0();
  test_exec();
  test_access_flag();
  test_translation_faults();
  test_tlbi();
  mmu_off();
}
