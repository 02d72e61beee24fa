  .include "common.inc"
main:
  setup
  mov x1, #0
loop1:
  add x1, x1, #1
  cmp x1, #100
  b.ne loop1
  msr daifclr, #2
after:
  mov x2, #1
  done
