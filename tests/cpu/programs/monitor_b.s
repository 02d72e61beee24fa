  movz x3, #0x30, lsl #16
  mov x5, #7
  str x5, [x3, #8]
  b .
