/* Stage 1 EL1&0 translation with the 4 KiB granule and 48-bit VAs (T0SZ = 16, walks start at level 0):
 * an identity map of RAM and the device windows in 1 GiB blocks, plus a test window of 4 KiB pages. */
#pragma once
#include "lib.h"

/* Descriptor bits (Arm ARM D8.3). */
#define PTE_VALID (1UL << 0)
#define PTE_TABLE (1UL << 1) /* table at levels 0-2, page at level 3 */
#define PTE_BLOCK 0UL
#define PTE_ATTR(i) ((u64)(i) << 2)
#define PTE_AP_EL1_RW (0UL << 6)
#define PTE_AP_RW (1UL << 6)      /* EL1 and EL0 read/write */
#define PTE_AP_EL1_RO (2UL << 6)
#define PTE_AP_RO (3UL << 6)      /* EL1 and EL0 read-only */
#define PTE_SH_INNER (3UL << 8)
#define PTE_AF (1UL << 10)
#define PTE_PXN (1UL << 53)
#define PTE_UXN (1UL << 54)
#define ATTR_DEVICE 0 /* MAIR Attr0 = 0x00, Device-nGnRnE */
#define ATTR_NORMAL 1 /* MAIR Attr1 = 0xff, Normal write-back */

/* The page window: VA WINDOW_VA + n * 4 KiB is l3_window[n] (n < 512). Its level-1 entry is L1 index 64. */
#define WINDOW_VA 0x1000000000UL
#define PAGE 4096UL
extern u64 l0_table[512], l1_table[512], l2_window[512], l3_window[512];

/* Normal memory page, EL1 read/write, not executable. */
#define PTE_PAGE_RW_EL1 (PTE_VALID | PTE_TABLE | PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER | PTE_AF | PTE_AP_EL1_RW | \
                         PTE_PXN | PTE_UXN)

void mmu_build(void);  /* identity map + empty window */
void mmu_on(void);
void mmu_off(void);
void tlb_flush_all(void);
void tlb_flush_va(u64 va);
/* Sets window page n (entry value `pte`, or 0 for invalid) and invalidates its TLB entry. */
void window_set(unsigned n, u64 pte);
static inline u64 window_va(unsigned n) { return WINDOW_VA + n * PAGE; }
