// Copies 64 KiB with post-indexed loads and stores, 40 times.
  mov x5, #40
2:
  mov x0, #0x100000     // source
  mov x1, #0x200000     // destination
  mov x2, #8192         // 8-byte words
1:
  ldr x3, [x0], #8
  str x3, [x1], #8
  subs x2, x2, #1
  b.ne 1b
  subs x5, x5, #1
  b.ne 2b
  brk #0
