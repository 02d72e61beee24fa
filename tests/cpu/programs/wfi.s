  .include "common.inc"
main:
  setup
  wfi
  mov x1, #1
  wfi
  mov x2, #2
  sevl
  wfe
  mov x3, #3
  wfe
  mov x4, #4
  done
