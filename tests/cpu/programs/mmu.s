  .include "common.inc"
main:
  setup
  enable_mmu
  movz x1, #0x4000, lsl #16
  ldr x2, [x1]
  str x2, [x1, #8]
  ldr x3, [x1, #0x1000]
  str x3, [x1, #0x1000]         // 0: permission (read-only)
  ldr x4, [x1, #0x2000]         // 1: access flag
  ldr x5, [x1, #0x3000]         // 2: translation, level 3
  movz x6, #0x8000, lsl #16
  ldr x7, [x6]                  // 3: translation, level 1
  ldr x8, [x1, #0x4000]         // device page
  str x8, [x1, #0x4008]
  add x10, x1, #0xffc
  ldr x9, [x10]                 // crosses into the read-only page
  str x2, [x10]                 // 4: permission on the second page
  ldtr x19, [x1]                // 5: EL0 permissions
  at s1e1r, x1
  mrs x11, par_el1
  add x12, x1, #0x3000
  at s1e1r, x12
  mrs x12, par_el1
  add x13, x1, #0x1000
  at s1e1w, x13
  mrs x13, par_el1
  at s1e0r, x1
  mrs x14, par_el1
  ldr x15, [x1]
  ldr x16, =0x104000
  ldr x17, =0x503403            // L3[0] now maps PA 0x503000
  str x17, [x16]
  dsb ishst
  tlbi vmalle1
  dsb ish
  isb
  ldr x18, [x1]
  done
