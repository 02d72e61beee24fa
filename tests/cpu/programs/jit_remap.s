// Indirect branches while the code they reach is remapped (tests/cpu/jit_test.cpp, JitRemap*): the VA page
// 0x4000_0000 maps in turn to `page_a` and `page_b`, which hold the same caller code at offset 0 and
// functions that return different values at 0x100, 0x140, 0x180 and 0x1c0. Each iteration remaps the page
// (rewrites its level-3 entry, then a TLBI: of everything in iterations 2 and 3 of every 4, of the page by VA
// in 0 and 1), calls the caller, which calls one of the four functions through
// BLR (an indirect branch to its own page) and adds the result to x3. The functions are entered in turn, so
// that an indirect branch sees more targets than a block has exit slots.
// Result: x3 = sum over i < 4096 of (i odd ? 20 : 10) + (i / 2) % 4 = 2048 * 30 + 4096 * 3 / 2.
  .include "common.inc"
main:
  setup
  remap_setup 0x4000
1:
  remap_for_iteration
  lsr x8, x2, #1
  and x8, x8, #3
  lsl x8, x8, #6                // which function: (i / 2) % 4, 64 bytes apart
  blr x1
  add x2, x2, #1
  cmp x2, #4096
  b.ne 1b
  done

.macro remapped_page base
  mov x11, x30
  add x10, x1, #0x100
  add x10, x10, x8
  blr x10
  add x3, x3, x0
  br x11
  .balign 0x100
  .irp k, 0, 1, 2, 3
  .balign 0x40
  mov x0, #(\base + \k)
  ret
  .endr
.endm

  .balign 4096
page_a:
  remapped_page 10
  .balign 4096
page_b:
  remapped_page 20
