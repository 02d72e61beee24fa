  movz x3, #0x30, lsl #16
  ldxr x1, [x3]
  stxr w2, x1, [x3]
  ldxr x1, [x3]
  stxr w4, x1, [x3]
  b .
