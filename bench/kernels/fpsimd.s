// Scalar FP multiply-add and vector integer adds.
  movz x1, #0x10, lsl #16     // 1,048,576 iterations
  fmov d0, #1.0
  fmov d1, #0.5
  movi v2.4s, #1
  movi v3.4s, #0
1:
  fmadd d0, d0, d1, d1
  add v3.4s, v3.4s, v2.4s
  subs x1, x1, #1
  b.ne 1b
  fmov x0, d0
  brk #0
