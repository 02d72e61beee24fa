// TLBI by VA (tests/cpu/system_test.cpp, System.TlbiByVaDropsItsPageAndWholeBlocks): a level-3 page and a
// 2 MiB block are used, remapped and invalidated by VA; the loads after each TLBI must see the new mapping.
// The block's two 4 KiB pieces sit in different TLB slots, and the TLBI names only the first: the second
// must go too, as the architecture's TLB held one entry for the whole block.
  .include "common.inc"
main:
  setup
  enable_mmu
  movz x1, #0x4000, lsl #16     // VA 0x4000_0000: level-3 page, PA 0x500000
  ldr x2, [x1]
  ldr x3, [x1, #0x1000]         // its neighbour, PA 0x501000
  ldr x10, =0x104000
  ldr x11, =0x503403            // L3[0] now maps PA 0x503000
  str x11, [x10]
  dsb ishst
  lsr x12, x1, #12
  movk x12, #5, lsl #48         // ASID 5 in the operand (entries of any ASID may go)
  tlbi vae1, x12
  dsb ish
  isb
  ldr x4, [x1]                  // the new page
  ldr x5, [x1, #0x1000]         // unchanged
  add x6, x1, #0x200000         // VA 0x4020_0000: 2 MiB block, PA 0x600000
  ldr x7, [x6]
  ldr x8, [x6, #0x1000]
  ldr x13, =0x103008
  ldr x14, =0x400401            // L2[1] now a block at PA 0x400000
  str x14, [x13]
  dsb ishst
  lsr x12, x6, #12              // the block's first page only
  tlbi vaale1is, x12
  dsb ish
  isb
  ldr x9, [x6, #0x1000]         // PA 0x401000
  ldr x15, [x6]                 // PA 0x400000
  done
