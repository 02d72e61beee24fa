// Multiply-accumulate and division: a hash-like mixing loop.
  movz x1, #0x1e, lsl #16     // 1,966,080 iterations
  mov x0, #1
  mov x3, #7
1:
  madd x0, x0, x3, x1
  udiv x4, x0, x3
  eor x0, x0, x4
  subs x1, x1, #1
  b.ne 1b
  brk #0
