// Exits linked directly to the next block (tests/cpu/jit_test.cpp, Jit.DirectLinks*): a loop of 10000
// iterations calls a function on its own page, so the block ending in BL jumps straight to the function's
// block once linked, and the loop's B jumps back on the same page. One iteration is 7 instructions, in three
// blocks: BL; the function's ADD and RET; ADD, CMP, B.EQ (not taken until the end) and B.
// Result: x3 = 0 + 1 + ... + 9999 = 49995000, x2 = 10000.
  .include "common.inc"
main:
  setup
  mov x2, #0
  mov x3, #0
  mov x4, #10000
  adr x9, near_function     // for the test, which stops runs there
  b 1f
  .balign 4096              // the loop and the function on a page of their own
1:
  bl near_function
  add x2, x2, #1
  cmp x2, x4
  b.eq 2f
  b 1b
2:
  done

near_function:
  add x3, x3, x2
  ret
