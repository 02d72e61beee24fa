// Loads and stores of several instructions off one base register, around a page boundary whose two pages map
// to physical pages that are not adjacent (tests/cpu/jit_test.cpp sets VA 0x4000_0000 -> PA 0x300000 and
// VA 0x4000_1000 -> PA 0x500000): translated code takes an access's host address from an earlier access's TLB
// hit only where both lie on one page. For i < 1000, with a = i + 1, b = 3i, c = i + 100, w = 0x11223344 + i:
//   off x1 = 0x4000_1000:  a at +0x18, b at -0x18, c at +0x20, loaded back
//   off x10 = 0x4000_0f80: a at 0, b at +0x40, c at +0xa8, w at +0x7e (across the boundary), loaded back
//   off x12 = 0x4000_1040: a at -0x60 (pre-indexed: x12 = 0x4000_0fe0), b at x12 + 0x70, loaded back
//   off x13 = 0x4000_0f00: STP of Q registers (a in both lanes, then c in both) at 0, 0x20 (c first) and
//   0x200, the last loaded back, then at 0xf0 (across the boundary: its first Q register on one page, its
//   second on the other, over w)
//   off x15 = 0x4000_0800: a at +8, then x15 += 0x1000 and b at x15 + 0x10 (0x4000_1810: not the first's page)
// x20 = the sum of every value loaded back (each lane's once).
  .include "common.inc"
main:
  setup
  enable_mmu
  mov x0, #0x300000             // CPACR_EL1.FPEN = 11: SIMD&FP at EL1
  msr cpacr_el1, x0
  isb
  movz x1, #0x4000, lsl #16
  add x1, x1, #0x1000
  sub x10, x1, #0x80
  sub x13, x1, #0x100
  sub x16, x1, #0x800
  movz x14, #0x1122, lsl #16
  movk x14, #0x3344
  mov x19, #0
  mov x20, #0
1:
  add x2, x19, #1
  add x3, x19, x19, lsl #1
  add x4, x19, #100
  add x5, x14, x19
  str x2, [x1, #0x18]
  str x3, [x1, #-0x18]
  str x4, [x1, #0x20]
  ldr x6, [x1, #0x18]
  ldr x7, [x1, #-0x18]
  ldr x8, [x1, #0x20]
  add x20, x20, x6
  add x20, x20, x7
  add x20, x20, x8
  str x2, [x10]
  str x3, [x10, #0x40]
  str x4, [x10, #0xa8]
  str w5, [x10, #0x7e]
  ldr x6, [x10]
  ldr x7, [x10, #0x40]
  ldr x8, [x10, #0xa8]
  ldr w9, [x10, #0x7e]
  add x20, x20, x6
  add x20, x20, x7
  add x20, x20, x8
  add x20, x20, x9
  add x12, x1, #0x40
  str x2, [x12, #-0x60]!
  str x3, [x12, #0x70]
  ldr x6, [x12]
  ldr x7, [x12, #0x70]
  add x20, x20, x6
  add x20, x20, x7
  dup v0.2d, x2
  dup v1.2d, x4
  stp q0, q1, [x13]
  stp q1, q0, [x13, #0x20]
  stp q0, q1, [x13, #0x200]
  ldp q2, q3, [x13, #0x200]
  mov x6, v2.d[0]
  mov x7, v2.d[1]
  mov x8, v3.d[0]
  mov x9, v3.d[1]
  add x20, x20, x6
  add x20, x20, x7
  add x20, x20, x8
  add x20, x20, x9
  stp q0, q1, [x13, #0xf0]
  mov x15, x16
  str x2, [x15, #8]
  add x15, x15, #0x1000
  str x3, [x15, #0x10]
  add x19, x19, #1
  cmp x19, #1000
  b.ne 1b
  done
