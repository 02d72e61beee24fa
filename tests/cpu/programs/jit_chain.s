// Blocks that jump to one another without the run loop (tests/cpu/jit_test.cpp, Jit.BlocksFollowEachOther*):
// a loop of 10000 iterations calls a function on another page from three call sites. So the function's
// start is reached by a direct branch to another page (BL), its RET has three targets on another page (two
// fit in its exit slots, the third is found in the jump cache), and the loop's B.NE jumps back on its own
// page.
// Result: x3 = 3 * (0 + 1 + ... + 9999) = 149985000, x5 = 2 * 10000.
  .include "common.inc"
main:
  setup
  mov x2, #0
  mov x3, #0
  mov x5, #0
  mov x4, #10000
1:
  bl far_function
  add x5, x5, #1
  bl far_function
  add x5, x5, #1
  bl far_function
  add x2, x2, #1
  cmp x2, x4
  b.ne 1b
  done

  .balign 4096
far_function:
  add x3, x3, x2
  ret
