// TLB entries a fill displaced (tests/cpu/jit_test.cpp, Jit.DisplacedTlbEntriesGoWithTlbiAndCodePages).
// Pages whose VAs are 32 MiB apart share a slot of the direct-mapped data TLB, and the entry a fill replaces
// is kept aside, where the next fill of its page finds it (Core::victims_). Kept aside, it must still go
// with a TLBI, and lose its write permission when its page starts to hold translated code.
// The test maps VA 0x4000_0000 (L3[0] at 0x104000, rewritten here) and VA 0x4200_0000, 32 MiB above it, and
// VA 32 MiB above this program's page `patched`.
  .include "common.inc"
main:
  setup
  enable_mmu
  movz x1, #0x4000, lsl #16
  movz x5, #0x4200, lsl #16
  ldr x10, =0x104000            // L3[0] of VA 0x4000_0000
  ldr x2, [x1]                  // PA 0x300000
  ldr x3, [x5]                  // PA 0x302000, in the same TLB slot: VA 0x4000_0000's entry is put aside
  ldr x11, =0x304403            // VA 0x4000_0000 -> PA 0x304000
  str x11, [x10]
  dsb ishst
  lsr x12, x1, #12
  tlbi vae1, x12
  dsb ish
  isb
  ldr x4, [x1]                  // PA 0x304000
  ldr x6, [x5]                  // puts VA 0x4000_0000's new entry aside
  ldr x11, =0x306403            // VA 0x4000_0000 -> PA 0x306000
  str x11, [x10]
  dsb ishst
  tlbi vmalle1
  dsb ish
  isb
  ldr x7, [x1]                  // PA 0x306000
  // A page written as data, its entry put aside, then run as code and rewritten through that entry.
  adr x13, patched
  movz x14, #0x200, lsl #16
  add x14, x14, x13             // 32 MiB above
  ldr w15, new_insn
  str wzr, [x13, #8]            // a writable entry for the page
  ldr x16, [x14]                // puts it aside
  bl patched
  mov x8, x0                    // 1
  str w15, [x13]                // "mov x0, #2", through the entry put aside
  bl patched
  mov x9, x0                    // 2: the store dropped the translation
  done
new_insn:
  mov x0, #2                    // data: the replacement instruction word
  .balign 4096
patched:
  mov x0, #1
  ret
  .word 0
