// Nested loops shaped like a compiler's unrolled code (tests/cpu/jit_test.cpp, Jit.*SecondTierEarly): the
// outer loop's first block also holds the inner loop's first pass, whose B.NE leaves it for the inner
// loop's own block (a side exit to another block on the page); the inner loop's block ends at a region
// boundary and falls into the next region's block, which ends with the outer loop's B.NE.
// Result: x2 = 1000, x5 = 1000 * (1 + ... + 16) = 136000, x6 = 1000 * 40, x7 = 1000 * 56.
  .include "common.inc"
main:
  setup
  mov x2, #0
  mov x5, #0
  mov x6, #0
  mov x7, #0
  b 1f
  .balign 4096
1:
  mov x1, #0
  mov x13, #16
2:
  add x1, x1, #1
  add x5, x5, x1
  cmp x1, x13
  b.ne 2b
  .rept 40
  add x6, x6, #1
  .endr
  .balign 256
  .rept 56
  add x7, x7, #1
  .endr
  add x2, x2, #1
  cmp x2, #1000
  b.ne 1b
  done
