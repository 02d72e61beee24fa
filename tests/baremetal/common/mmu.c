#include "mmu.h"

u64 l0_table[512] __attribute__((aligned(4096)));
u64 l1_table[512] __attribute__((aligned(4096)));
u64 l2_window[512] __attribute__((aligned(4096)));
u64 l3_window[512] __attribute__((aligned(4096)));

static void map_gib(u64 pa, u64 attrs) {
  u64 i = pa >> 30;
  l1_table[i] = (i << 30) | PTE_VALID | PTE_BLOCK | PTE_AF | attrs;
}

void mmu_build(void) {
  memset(l0_table, 0, sizeof l0_table);
  memset(l1_table, 0, sizeof l1_table);
  memset(l2_window, 0, sizeof l2_window);
  memset(l3_window, 0, sizeof l3_window);
  l0_table[0] = (u64)l1_table | PTE_VALID | PTE_TABLE;
  /* Device blocks first so that RAM wins if a platform ever put both in one GiB. EL0 gets no access to
   * either: everything it may touch lives in the window. */
  u64 dev = PTE_ATTR(ATTR_DEVICE) | PTE_AP_EL1_RW | PTE_PXN | PTE_UXN;
  map_gib(UART_BASE, dev);
  map_gib(GICD_BASE, dev);
  map_gib(GICC_BASE, dev);
  map_gib(RAM_BASE, PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER | PTE_AP_EL1_RW | PTE_UXN);
  l1_table[WINDOW_VA >> 30] = (u64)l2_window | PTE_VALID | PTE_TABLE;
  l2_window[0] = (u64)l3_window | PTE_VALID | PTE_TABLE;
  dsb(ish);
}

void tlb_flush_all(void) {
  dsb(ishst);
  __asm__ volatile("tlbi vmalle1is" ::: "memory");
  dsb(ish);
  isb();
}

void tlb_flush_va(u64 va) {
  dsb(ishst);
  __asm__ volatile("tlbi vae1is, %0" ::"r"(va >> 12) : "memory");
  dsb(ish);
  isb();
}

void mmu_on(void) {
  /* The tables were written with the MMU (and so the data cache) off; emulators keep no caches, and on
   * hardware the boot state guarantees clean, invalid caches for this region. */
  write_sysreg(mair_el1, 0xff00UL); /* Attr0 Device-nGnRnE, Attr1 Normal WB RA/WA */
  u64 parange = read_sysreg(id_aa64mmfr0_el1) & 0xf;
  if (parange > 5) parange = 5;
  u64 tcr = 16               /* T0SZ: 48-bit VA */
            | (1UL << 8)     /* IRGN0 write-back */
            | (1UL << 10)    /* ORGN0 write-back */
            | (3UL << 12)    /* SH0 inner shareable */
            | (0UL << 14)    /* TG0 4 KiB */
            | (1UL << 23)    /* EPD1: no TTBR1 walks */
            | (parange << 32); /* IPS */
  write_sysreg(tcr_el1, tcr);
  write_sysreg(ttbr0_el1, (u64)l0_table);
  isb();
  __asm__ volatile("tlbi vmalle1" ::: "memory");
  dsb(nsh);
  u64 sctlr = read_sysreg(sctlr_el1);
  sctlr |= (1UL << 0) | (1UL << 2) | (1UL << 12); /* M, C, I */
  sctlr &= ~((1UL << 1) | (1UL << 19));           /* no alignment checks, no WXN */
  write_sysreg(sctlr_el1, sctlr);
  isb();
}

void mmu_off(void) {
  u64 sctlr = read_sysreg(sctlr_el1);
  sctlr &= ~((1UL << 0) | (1UL << 2));
  write_sysreg(sctlr_el1, sctlr);
  isb();
  tlb_flush_all();
}

void window_set(unsigned n, u64 pte) {
  if (n >= 512) return;
  l3_window[n] = pte;
  tlb_flush_va(window_va(n));
}
