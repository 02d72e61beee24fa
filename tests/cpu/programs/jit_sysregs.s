// MRS/MSR of the registers that translated code reads and writes inline (plain_sysreg_access in
// cpu-dbt/a64_system_helpers.cpp), in loops so that their blocks run translated, at EL1 and at EL0, and next
// to them the accesses that must still raise: SP_EL0 while SPSel is 0, CTR_EL0 at EL0 with SCTLR_EL1.UCT
// clear, TPIDR_EL1 and a write of TPIDRRO_EL0 at EL0. Ends in `b .` at EL0.
  .include "common.inc"
main:
  setup
  mov x19, #40
  mov x9, #0
el1_loop:
  add x1, x19, #0x100
  msr tpidr_el0, x1
  add x2, x19, #0x200
  msr tpidr_el1, x2
  add x3, x19, #0x300
  msr tpidrro_el0, x3
  add x4, x19, #0x400
  msr sp_el0, x4
  mrs x5, tpidr_el0
  mrs x6, tpidr_el1
  mrs x7, tpidrro_el0
  mrs x8, sp_el0
  add x9, x9, x5
  add x9, x9, x6
  add x9, x9, x7
  add x9, x9, x8
  mrs x10, ctr_el0
  mrs x11, dczid_el0
  add x9, x9, x10
  add x9, x9, x11
  subs x19, x19, #1
  b.ne el1_loop
  msr spsel, #0
  mov x12, #7
  mrs x12, sp_el0               // 0: UNDEFINED while SP_EL0 is the stack pointer (x12 stays 7)
  msr sp_el0, x1                // 1: the same for a write
  msr spsel, #1
  mrs x18, sp_el0               // SP_EL0 as the loop left it: 0x401
  enter_el0 el0_code
el0_code:
  mov x19, #40
  mov x13, #0
el0_loop:
  mrs x14, tpidr_el0
  msr tpidr_el0, x19
  mrs x15, tpidrro_el0
  mrs x16, dczid_el0            // SCTLR_EL1.DZE = 0: DZP set
  add x13, x13, x14
  add x13, x13, x15
  add x13, x13, x16
  subs x19, x19, #1
  b.ne el0_loop
  mov x17, #9
  mrs x17, ctr_el0              // 2: UCT = 0: trapped (x17 stays 9)
  mrs x17, tpidr_el1            // 3: UNDEFINED at EL0
  msr tpidrro_el0, x19          // 4: read-only at EL0
  mrs x15, tpidrro_el0          // still 0x301
  b .
