// The --cpu-stats histogram (jit_test.cpp, CpuStats tests): 8192 rounds of an 8-iteration loop; after each round
// a load that faults in the middle of a translated block (nothing answers at its address: a synchronous external
// abort, after which the handler resumes at the next instruction) and a store that raises the IRQ (taken right
// after it, as in jit_irq.s). So blocks end early in all three ways: an exception, the attention flags, and
// (with the test's small budgets) the budget.
  .include "common.inc"
main:
  setup
  movz x2, #0x30, lsl #16    // data buffer at 0x300000
  movz x11, #0x1000, lsl #16 // the device page
  movz x3, #0x2000, lsl #16  // nothing answers at PA 0x20000000
  mov x1, #0
  mov x6, #0
  msr daifclr, #2
loop:
  ldr x4, [x2, x1, lsl #3]
  add x4, x4, x1
  str x4, [x2, x1, lsl #3]
  add x1, x1, #1
  tst x1, #7
  b.ne loop
  add x6, x6, #1
  ldr x5, [x3]               // external abort: never retires
  mov x12, #1
  str x12, [x11]             // raise the IRQ
  str xzr, [x11]             // lower it
  msr daifclr, #2
  cmp x6, #8192
  b.ne loop
  done
