// Where Core::run ends when asked to end at a block boundary (jit_test.cpp, RunEnd tests). Loaded at 0x10000,
// a region start (JitEngine::kRegionBytes = 256 bytes: blocks never cross 0x10100).
  .text
_start:
  .rept 70
  add x0, x0, #1            // instructions 0-69: one straight run over the region start at 0x10100 (64)
  .endr
  mov x9, #1                // 70
  cbz x9, _start            // 71: not taken (a block goes on past it)
  add x1, x1, #1            // 72
  b 1f                      // 73
1:
  add x1, x1, #1            // 74
  movz x0, #0x0008          // 75: PSCI SYSTEM_OFF
  movk x0, #0x8400, lsl #16
  smc #0
