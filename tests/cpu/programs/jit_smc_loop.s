// A call site whose callee is rewritten between its calls (tests/cpu/jit_test.cpp): each of 64 iterations
// calls `counter`, whose first instruction is "movz x0, #k", adds x0 to x3, then rewrites that instruction to
// "movz x0, #k+1". The callee sits on a page of its own, so each store drops only its block, which the
// caller's block still names as the block that followed it last.
// Result: x3 = 0 + 1 + ... + 63 = 2016.
  .include "common.inc"
main:
  setup
  callee_setup
1:
  bl counter
  add x3, x3, x0
  rewrite_callee
  add x2, x2, #1
  cmp x2, #64
  b.ne 1b
  done

  callee_page
