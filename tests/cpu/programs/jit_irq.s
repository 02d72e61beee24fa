// A loop of loads, stores and arithmetic that raises its own interrupt every 64 iterations by a store to the
// test's device page (the IRQ line follows the stored value). The IRQ must be taken right after that store,
// before `add x13`, in every engine; the handler returns with PSTATE.I set and the loop lowers the line and
// unmasks again.
  .include "common.inc"
main:
  setup
  movz x2, #0x30, lsl #16   // data buffer at 0x300000
  movz x11, #0x1000, lsl #16 // the device page
  mov x1, #0
  mov x3, #0
  mov x13, #0
  msr daifclr, #2
loop:
  ldr x4, [x2, x3, lsl #3]
  add x4, x4, x1
  eor x5, x4, x1, lsl #7
  str x5, [x2, x3, lsl #3]
  add x3, x3, #1
  and x3, x3, #63
  add x1, x1, #1
  tst x1, #63
  b.ne loop
  mov x12, #1
  str x12, [x11]            // raise the IRQ
irq_return:
  add x13, x13, #1
  str xzr, [x11]            // lower it
  msr daifclr, #2
  cmp x1, #4096
  b.ne loop
  done
