// A loop of several first-tier blocks on one page, linked to one another, that never returns to the run
// loop on its own: its chains start wherever a run begins, so only the blocks' run counts show where the
// time goes. It counts forever: x1 iterations, x2 the sum of the odd ones, x3 the even ones (x9: the
// loop's address).
  .include "common.inc"
main:
  setup
  mov x1, #0
  mov x2, #0
  mov x3, #0
  adr x9, loop
  .p2align 6
loop:
  add x1, x1, #1
  tst x1, #1
  b.eq even
  add x2, x2, x1
  b loop
even:
  add x3, x3, #1
  b loop
