// A block that jumps back to its own start with a device load in it: the load's helper runs (and stores
// the load's PC for a possible exception) in every iteration, and where the budget runs out at the jump
// back the block declines at its start, which the run must report as its PC.
  .include "common.inc"
main:
  setup
  movz x11, #0x1000, lsl #16 // the device page (reads as 0)
  mov x1, #0
  .p2align 6                 // the loop in one block, whatever comes before it
loop:
  add x1, x1, #1
  ldr x3, [x11]
  add x2, x1, x3
  cmp x1, #4000
  b.ne loop
  done
