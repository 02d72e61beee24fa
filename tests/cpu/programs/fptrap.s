  .include "common.inc"
main:
  setup
  msr cpacr_el1, xzr
  fmov d0, x1                   // 0
  mov x2, #0x300000
  msr cpacr_el1, x2
  fmov d0, x1
  mrs x3, fpcr
  mov x2, #0x100000             // FPEN = 01: EL0 traps, EL1 does not
  msr cpacr_el1, x2
  fmov d1, x1
  msr cpacr_el1, xzr
  mrs x3, fpsr                  // 1
  add v2.4s, v3.4s, v4.4s       // 2
  done
