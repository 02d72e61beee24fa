  .include "common.inc"
main:
  setup
  mov x10, #-1
  mov x12, #-1
  mrs x1, midr_el1
  mrs x2, mpidr_el1
  mrs x3, id_aa64pfr0_el1
  mrs x4, id_aa64isar0_el1
  mrs x5, id_aa64mmfr0_el1
  mrs x6, id_aa64mmfr1_el1
  mrs x7, id_aa64dfr0_el1
  mrs x8, ctr_el0
  mrs x9, dczid_el0
  mrs x10, s3_0_c0_c7_7
  mrs x11, currentel
  mrs x12, s3_0_c0_c4_4
  mrs x13, cntfrq_el0
  mrs x14, revidr_el1
  mrs x15, id_aa64isar1_el1
  mrs x16, clidr_el1
  mrs x17, cntvct_el0
  done
