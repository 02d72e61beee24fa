// Blocks go on through B and BL whose target is on their own page (jit_test.cpp,
// Jit.BlocksGoOnThroughDirectBranchesOnTheirPage). Loaded at 0x10000. x1 counts the iterations (100) and x2
// sums 2 * x1 over them (10100).
  .text
_start:
  mov x1, #0
  mov x2, #0
  mov x3, #100
loop:
  add x1, x1, #1
  b 1f                      // forward on the page: followed
  .rept 4
  udf #0                    // never reached: a block that ran on here would fault
  .endr
1:
  bl twice                  // into a function on the page: followed
  add x2, x2, x0            // the return's target: a block start
  subs x3, x3, #1
  b.ne loop                 // a side exit to `loop`, a block start
  b off_page                // the next page: the block ends here
twice:
  lsl x0, x1, #1
  ret

  .balign 4096
off_page:
  movz x0, #0x0008          // PSCI SYSTEM_OFF
  movk x0, #0x8400, lsl #16
  smc #0
