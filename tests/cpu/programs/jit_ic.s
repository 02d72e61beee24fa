// Code changed behind the CPU's back (as a device's DMA would change it) runs after IC IALLU, and an IC of
// code that did not change keeps its translations. The test rewrites `patched` while the core waits in the
// first WFI, and checks the pages dropped after the second.
  .include "common.inc"
main:
  setup
  bl patched                // fills the TLB: blocks start where the fetch TLB maps PC
  bl patched                // x0 = 1 (translated by the JIT engine)
  mov x8, x0
  wfi                       // the test writes "mov x0, #2" over the first instruction of `patched`
  ic iallu
  dsb nsh
  isb
  bl patched                // x0 = 2: IC IALLU made the new instruction visible
  mov x9, x0
  wfi                       // nothing changes now
  ic iallu
  dsb nsh
  isb
  bl patched
  mov x10, x0
  done

  .balign 4096              // its own page, so that only this page has changed
patched:
  mov x0, #1
  ret
