// Loads and stores of a second-tier loop that miss the soft TLB: every iteration touches a page it has not
// touched before (tests/cpu/jit_test.cpp maps VA 0x4000_0000 + 4 KiB * j to PA 0x300000 + 8 KiB * j for
// j < 12, and nothing after), so translated code finds no TLB entry for its accesses. For i < 16 (x19),
// with x1 = 0x4000_1000 + 4 KiB * i (page j = i + 1):
//   x10 += i                        written in the block before the accesses of the same iteration
//   [x1] = i                        a store
//   x4 = [x7 = x1], then x7 += 8    a post-indexed load: its base is written only if the load completes
//   x11 += x4, x13 += x7
//   x12 += the 8 bytes at x1 - 2    across the boundary of pages j - 1 and j (8 KiB apart in physical
//                                   memory): two zero bytes, then the low six of i
// From i = 11 on (page 12 and later are not mapped) the store, the load and the read across pages fault,
// and the handler returns past each: x4 keeps 10, x7 stays x1 and x5 keeps 10 << 16. So x10 = 120,
// x11 = 55 + 5 * 10, x12 = (55 + 5 * 10) << 16, x13 = the sum of the 16 values of x1 plus 8 * 11, and the
// log holds 15 records, in every engine.
  .include "common.inc"
main:
  setup
  miss_setup
1:
  add x10, x10, x19
  mov x7, x1
  str x19, [x1]
  ldr x4, [x7], #8
  add x11, x11, x4
  add x13, x13, x7
  add x1, x1, #1, lsl #12
  sub x6, x1, #1, lsl #12
  ldur x5, [x6, #-2]
  add x12, x12, x5
  add x19, x19, #1
  cmp x19, #16
  b.ne 1b
  done
