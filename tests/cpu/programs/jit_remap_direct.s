// A direct call into a page that is remapped between its calls (tests/cpu/jit_test.cpp): the VA page
// 0x60_0000 maps in turn to `page_a` (returns 10) and `page_b` (returns 20). Each iteration remaps it (its
// level-3 entry, then a TLBI: of everything in iterations 2 and 3 of every 4, of the page by VA in 0 and 1),
// calls it through BLR first, which fills the fetch TLB with the new mapping, then through BL, whose block
// last went on to the code of the other mapping.
// Result: x3 = sum over i < 4096 of 2 * (i odd ? 20 : 10) = 2 * 2048 * 30 = 122880.
  .include "common.inc"
  .set remapped, _start + (0x600000 - 0x10000) // the program is loaded at 0x10000
main:
  setup
  remap_setup 0x60
1:
  remap_for_iteration
  call_remapped_twice
  cmp x2, #4096
  b.ne 1b
  done

  .balign 4096
page_a:
  mov x0, #10
  ret
  .balign 4096
page_b:
  mov x0, #20
  ret
