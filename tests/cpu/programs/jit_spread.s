// A program whose time is spread evenly over 1025 blocks on four pages, none of them hot on its own: a
// line of 1024 blocks of two instructions (each ends with a branch to the next), then a block that counts
// the pass and branches back to the first, forever. Each block runs ~1/1025 of the instructions.
// x3 counts the line's blocks run, x5 the passes; x9 holds the address of the first block.
  .include "common.inc"
main:
  setup
  mov x3, #0
  mov x5, #0
  adr x9, pass
  .p2align 6
pass:
  .rept 1024
  add x3, x3, #1
  b 1f
1:
  .endr
  add x5, x5, #1
  b pass
