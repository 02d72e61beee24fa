// A call site whose callee is rewritten after every second call (tests/cpu/jit_test.cpp), 20000 calls: the
// caller's blocks are translated while the callee, dropped by each rewrite, stays pre-decoded. The translated
// block that calls it names, in its exit, the block that followed last: after a rewrite that block is gone.
// The callee returns k = i / 2 (rounded down) at call i, so
// result: x3 = 2 * (0 + 1 + ... + 9999) = 99990000.
  .include "common.inc"
main:
  setup
  callee_setup
  mov x4, #20000
1:
  bl counter
  add x3, x3, x0
  tbz x2, #0, 2f            // rewritten after odd calls only
  rewrite_callee
2:
  add x2, x2, #1
  cmp x2, x4
  b.ne 1b
  done

  callee_page
