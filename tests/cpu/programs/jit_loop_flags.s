// A block that loops to its own start, whose last flag-setting instruction (CMP) leaves other flags in
// every few iterations and never those the loop was entered with, and whose branch (CBNZ) does not read
// them: where a run ends inside the loop, NZCV must be those of the iteration that ended last. The second
// tier computes them only on its way out of the loop (cpu-dbt/jit_loop_exits.h).
// x1 steps by 2^61 + 3, so it is negative (N) in iterations 4-7 of every 8; it never equals 5 (Z clear),
// while the CMP before the loop sets Z.
  .include "common.inc"
main:
  setup
  mov x1, #0
  movz x14, #0x2000, lsl #48
  add x14, x14, #3
  mov x13, #5
  movz x10, #0x4, lsl #16 // 262144 iterations: ~1000 runs of the test
  cmp x13, x13
  .p2align 6 // the loop in one block, whatever comes before it
loop:
  add x1, x1, x14
  sub x10, x10, #1
  add x2, x2, #1
  add x3, x3, #1
  cmp x1, x13
  cbnz x10, loop
  done
