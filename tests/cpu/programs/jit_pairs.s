// Pairs of accesses (LDP/STP) on one page and across a page boundary whose two pages map to physical
// pages that are not adjacent (tests/cpu/jit_test.cpp sets VA 0x4000_0000 -> PA 0x300000 and
// VA 0x4000_1000 -> PA 0x500000): translated code takes the second access's host address from the first's
// TLB hit only where both lie on one page. For i < 1000:
//   x20 += (3i + 1) + 2 (5i + 2)      an X pair stored and loaded back at 0x4000_0ff8 (crosses)
//   x21 += i + 3 (i + 7)              a W pair at 0x4000_0ffc (crosses)
//   x22 += (3i + 1) - (5i + 2)        an X pair at 0x4000_0800 (one page)
  .include "common.inc"
main:
  setup
  enable_mmu
  movz x1, #0x4000, lsl #16
  add x10, x1, #0x800
  add x1, x1, #0xff8
  mov x19, #0
  mov x20, #0
  mov x21, #0
  mov x22, #0
1:
  add x2, x19, x19, lsl #1
  add x2, x2, #1
  add x3, x19, x19, lsl #2
  add x3, x3, #2
  stp x2, x3, [x1]
  ldp x4, x5, [x1]
  add x20, x20, x4
  add x20, x20, x5, lsl #1
  add w7, w19, #7
  stp w19, w7, [x1, #4]
  ldp w8, w9, [x1, #4]
  add x21, x21, x8
  add x9, x9, x9, lsl #1
  add x21, x21, x9
  stp x2, x3, [x10]
  ldp x11, x12, [x10]
  add x22, x22, x11
  sub x22, x22, x12
  add x19, x19, #1
  cmp x19, #1000
  b.ne 1b
  done
