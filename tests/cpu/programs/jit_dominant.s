// Many blocks that become hot at once, then one loop that runs every instruction after them. First, 4200
// passes over 4096 blocks of two instructions each, linked in a line (each ends with a branch to the next):
// every block reaches the first tier's threshold (32 runs to be pre-decoded, then 4096) within the last ~70
// passes, which queues 4096 first-tier compiles. Then, forever, a loop of two blocks that counts in x1
// (iterations) and x2 (the same, from the other block); x9 holds the loop's address. x3 counts the
// instructions of the first part.
  .include "common.inc"
main:
  setup
  mov x1, #0
  mov x2, #0
  mov x3, #0
  mov x5, #4200
  adr x9, loop
pass:
  .rept 4096
  add x3, x3, #2
  b 1f
1:
  .endr
  subs x5, x5, #1
  b.ne pass
  .p2align 6
loop:
  add x1, x1, #1
  b second
second:
  add x2, x2, #1
  b loop
