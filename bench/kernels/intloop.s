// Integer ALU loop: add, logical with shift, flag-setting subtract, conditional branch.
  movz x1, #0x4c4b, lsl #16   // 5,000,000 iterations
  movk x1, #0x4000
  mov x0, #0
1:
  add x0, x0, x1
  eor x2, x0, x1, lsl #3
  orr x0, x0, x2, lsr #7
  subs x1, x1, #1
  b.ne 1b
  brk #0
