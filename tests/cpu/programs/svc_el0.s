  .include "common.inc"
main:
  setup
  enter_el0 el0_code
el0_code:
  mov x10, sp
  svc #0x42                     // 0
  mrs x11, tpidr_el0
  mrs x12, currentel            // 1: UNDEFINED at EL0
  mrs x13, ctr_el0              // 2: SCTLR.UCT = 0
  dc zva, x1                    // 3: SCTLR.DZE = 0
  msr daifset, #2               // 4: SCTLR.UMA = 0
  wfi                           // 5: SCTLR.nTWI = 0
  mrs x14, midr_el1             // 6: EL1 register
  b .
