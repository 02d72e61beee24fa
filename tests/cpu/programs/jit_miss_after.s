// Loads that miss the soft TLB after their second-tier block wrote registers, after it stored, and in a
// later iteration of a loop whose earlier ones stored: each block leaves before the access with the state
// as it was there (registers the block wrote before it included, memory as stored), and the interpreter
// runs the access: no instruction runs twice or not at all.
// tests/cpu/jit_test.cpp maps VA 0x4000_0000 + 4 KiB * j to PA 0x300000 + 8 KiB * j for j < 12, and nothing
// after. For i < 16 (x19), with x1 = 0x4000_1000 + 4 KiB * i (page j = i + 1):
//   [x1] = i                              a store, in the loop's block
//   then a call of a block that does not loop:
//     x10 += i                            written before its first access
//     x4 = [x7 = x1], then x7 += 8        a post-indexed load, its first access
//     x11 += x4, x13 += x7
//   then a call of a loop over x9 = 0..2 (one block that jumps back to its start):
//     x6 = [0x4000_0800], x14 += x6       a count that the previous iteration stored (page 0)
//     x5 = [x1 + 4 KiB * x9], x12 += x5   page j + x9: not mapped from page 12 on, so for i = 9 and 10 a
//                                         later iteration of the same run of the block misses
//     [0x4000_0800] = x6 + 1              a store after the access, in every iteration
//   then a call of a block that stores before its access:
//     [0x4000_0808] += 1                  a second count
//     x8 = [x1 + 16]                      misses from page 12 on
// The faults' handler returns past the faulting instruction. So x10 = 120, x11 = 105 (x4 keeps 10 from
// i = 11 on), x13 = the sum of the 16 values of x1 plus 8 * 11 (x7 stays x1), x12 = 225 (x5 keeps its last
// value when a load faults), x14 = 0 + 1 + ... + 47, the first count is 48 and the second 16; and the log
// holds 33 records, in every engine. Had a block been run again from its start after it had stored, or
// where its loop's earlier iterations had, a count would be higher.
  .include "common.inc"
main:
  setup
  miss_setup
  mov x14, #0
  mov x5, #0
  movz x2, #0x4000, lsl #16
  add x2, x2, #0x800
1:
  str x19, [x1]
  bl 2f
  bl 3f
  bl 5f
  add x1, x1, #1, lsl #12
  add x19, x19, #1
  cmp x19, #16
  b.ne 1b
  done
2:
  add x10, x10, x19
  mov x7, x1
  ldr x4, [x7], #8
  add x11, x11, x4
  add x13, x13, x7
  ret
3:
  mov x9, #0
4:
  ldr x6, [x2]
  add x14, x14, x6
  add x3, x1, x9, lsl #12
  ldr x5, [x3]
  add x12, x12, x5
  add x6, x6, #1
  str x6, [x2]
  add x9, x9, #1
  cmp x9, #3
  b.ne 4b
  ret
5:
  ldr x8, [x2, #8]
  add x8, x8, #1
  str x8, [x2, #8]
  ldr x8, [x1, #16]
  ret
