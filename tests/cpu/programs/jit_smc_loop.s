// A call site whose callee is rewritten between its calls (tests/cpu/jit_test.cpp): each of 64 iterations
// calls `counter`, whose first instruction is "movz x0, #k", adds x0 to x3, then rewrites that instruction to
// "movz x0, #k+1". The callee sits on a page of its own, so each store drops only its block, which the
// caller's block still names as the block that followed it last.
// Result: x3 = 0 + 1 + ... + 63 = 2016.
  .include "common.inc"
main:
  setup
  adr x6, counter
  ldr w7, [x6]              // movz x0, #0
  mov x2, #0
  mov x3, #0
1:
  bl counter
  add x3, x3, x0
  add w7, w7, #(1 << 5)     // the immediate, bits 20:5
  str w7, [x6]
  add x2, x2, #1
  cmp x2, #64
  b.ne 1b
  done

  .balign 4096
counter:
  movz x0, #0
  ret
