// SCTLR_EL1.A set after a page's data TLB entry was filled: misaligned accesses to that page must fault from
// then on, whatever the TLB holds (system_test.cpp, AlignmentCheckingAppliesToPagesAlreadyInTheTlb).
  .include "common.inc"
main:
  setup
  movz x3, #0x30, lsl #16
  ldr w0, [x3, #2]              // misaligned with SCTLR.A clear: no fault; fills the TLB entry (read)
  str w0, [x3, #6]              // the same for writes
  mrs x6, sctlr_el1
  orr x7, x6, #2
  msr sctlr_el1, x7
  ldr w0, [x3, #2]              // 0: alignment fault, read
  str wzr, [x3, #6]             // 1: alignment fault, write
  ldr w1, [x3, #4]              // aligned: no fault
  msr sctlr_el1, x6
  ldr w2, [x3, #2]              // SCTLR.A clear again: no fault
  done
