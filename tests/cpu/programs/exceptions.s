  .include "common.inc"
main:
  setup
  mov x1, #0xa0000000
  msr nzcv, x1
  udf #0                        // 0: unknown
  movz x3, #0x2000, lsl #16     // nothing answers at PA 0x20000000
  ldr x2, [x3, #8]              // 1: external abort, read
  str x2, [x3]                  // 2: external abort, write
  brk #0x123                    // 3
  hvc #1                        // 4: no EL2
  mov x0, #5
  smc #0                        // 5: the firmware declines
  hlt #0                        // 6
  mrs x0, s3_0_c15_c0_0         // 7: no such register
  movz x3, #0x30, lsl #16
  add x4, x3, #4
  ldxr x0, [x4]                 // 8: exclusives must be aligned
  stxr w5, x0, [x4]             // 9
  mrs x6, sctlr_el1
  orr x7, x6, #2
  msr sctlr_el1, x7
  ldr w0, [x3, #2]              // 10: SCTLR.A
  msr sctlr_el1, x6
  ldr w0, [x3, #2]
  orr x7, x6, #8
  msr sctlr_el1, x7
  add sp, x3, #8
  ldr x0, [sp]                  // 11: SCTLR.SA
  ldr x0, [x3, #8]
  msr sctlr_el1, x6
  ldr x0, [sp]
  msr s3_3_c0_c0_1, x0          // 12: CTR_EL0 is read-only
  done
