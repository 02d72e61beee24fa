// monitor_b with a load from the page first, so that the store finds the page in the TLB (the fast path of
// a translated store).
  movz x3, #0x30, lsl #16
  ldr x6, [x3, #16]
  mov x5, #7
  str x5, [x3, #8]
  b .
