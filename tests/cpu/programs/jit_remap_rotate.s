// A direct call into a page remapped before each call to the next of 16 physical pages (tests/cpu/jit_test.cpp):
// page k (k = 0..15) returns k + 1. The VA page 0x60_0000 maps to page i % 16 in iteration i (its level-3
// entry, then a TLBI of the page by VA), is called through BLR, which fills the fetch TLB with the mapping,
// then through BL, whose block last went on to the code of another page. Each page's block runs 512 times,
// the caller's 4096: with a threshold between, the caller is translated while the callee stays pre-decoded.
// Result: x3 = sum over i < 4096 of 2 * (i % 16 + 1) = 2 * 256 * (1 + ... + 16) = 69632.
  .include "common.inc"
  .set remapped, _start + (0x600000 - 0x10000) // the program is loaded at 0x10000
main:
  setup
  remap_setup 0x60
  adr x5, pages
  orr x5, x5, x9            // page descriptor of page 0 (x9: remap_setup's attributes)
1:
  and x7, x2, #15
  add x7, x5, x7, lsl #12
  str x7, [x4]
  dsb ishst
  lsr x12, x1, #12
  tlbi vale1is, x12
  dsb ish
  isb
  call_remapped_twice
  cmp x2, #4096
  b.ne 1b
  done

  .balign 4096
pages:
page_a:                     // (remap_setup's names)
page_b:
  .irp k, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
  .balign 4096
  mov x0, #\k
  ret
  .endr
