// Self-modifying code without cache maintenance: vplat keeps instruction fetch coherent with stores (the
// I-cache is modelled as PIPT and coherent), so in every engine the patched instruction is what runs.
  .include "common.inc"
main:
  setup
  ldr w7, new_insn
  bl patched                // x0 = 1
  mov x8, x0
  adr x6, patched
  str w7, [x6]              // patched now holds "mov x0, #2"
  bl patched
  mov x9, x0
  // A store that rewrites an instruction later in the same block.
  adr x6, next
  str w7, [x6]
next:
  mov x0, #1                // replaced by "mov x0, #2" before it runs
  mov x10, x0
  done
patched:
  mov x0, #1
  ret
new_insn:
  mov x0, #2                // data: the replacement instruction word
