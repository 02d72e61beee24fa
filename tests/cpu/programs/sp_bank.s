  .include "common.inc"
main:
  setup
  movz x1, #0x10, lsl #16
  mov sp, x1
  movz x2, #0x11, lsl #16
  msr sp_el0, x2
  msr spsel, #0
  mov x3, sp
  mrs x4, spsel
  movz x5, #0x12, lsl #16
  mov sp, x5
  msr spsel, #1
  mov x6, sp
  mrs x7, sp_el0
  mrs x8, currentel
  msr spsel, #0
  udf #1                        // 0: from EL1t
  mov x9, sp
  msr spsel, #1
  adr x0, ill_target
  msr elr_el1, x0
  mov x0, #0x9                  // EL2h: not implemented, an illegal return
  msr spsr_el1, x0
  eret
ill_target:
  nop                           // 1: illegal execution state
  mrs x10, currentel
  done
