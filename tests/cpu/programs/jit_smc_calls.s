// A call site whose callee is rewritten after every second call (tests/cpu/jit_test.cpp), 20000 calls: the
// caller's blocks are translated while the callee, dropped by each rewrite, stays pre-decoded. The translated
// block that calls it names, in its exit, the block that followed last: after a rewrite that block is gone.
// The callee returns k = i / 2 (rounded down) at call i, so
// result: x3 = 2 * (0 + 1 + ... + 9999) = 99990000.
  .include "common.inc"
main:
  setup
  adr x6, counter
  ldr w7, [x6]              // movz x0, #0
  mov x2, #0
  mov x3, #0
  mov x4, #20000
1:
  bl counter
  add x3, x3, x0
  tbz x2, #0, 2f            // rewritten after odd calls only
  add w7, w7, #(1 << 5)     // the immediate, bits 20:5 (below 2^16 throughout)
  str w7, [x6]
2:
  add x2, x2, #1
  cmp x2, x4
  b.ne 1b
  done

  .balign 4096
counter:
  movz x0, #0
  ret
