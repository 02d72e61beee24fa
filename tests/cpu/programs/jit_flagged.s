// Instructions that need the run loop's work around them, in a loop so that their blocks run pre-decoded
// and as baseline code (Jit.PreDecodedBlocksTakeTheSameStepsAsTheInterpreter): loads and stores off SP
// with SCTLR_EL1.SA set, SP misaligned on every other iteration (SP alignment faults); LDTR/STTR, which
// take EL0's permissions (a fault on an EL1-only page); and an exclusive pair, whose load records the
// monitor's physical address (seen only by other cores: with one, the pair succeeds either way); and a
// plain load and store that take translation faults (their ELR, ESR and FAR come from what the block's code
// stores before the memory helpers run: in baseline code, the thunks of their slow paths). The handler logs
// each fault and skips the instruction. The program builds its own tables: VA 0..2 MiB
// identity for EL1 only, 2..4 MiB identity for EL0 and EL1.
  .include "common.inc"
main:
  setup
  movz x0, #0x10, lsl #16       // level 1 at 0x100000
  add x1, x0, #0x1, lsl #12     // level 2 at 0x101000
  orr x2, x1, #3
  str x2, [x0]
  mov x2, #0x401                // block at 0, AF, AP 00: EL1 read/write
  str x2, [x1]
  movz x2, #0x20, lsl #16
  add x2, x2, #0x441            // block at 2 MiB, AF, AP 01: EL0 and EL1 read/write
  str x2, [x1, #8]
  enable_mmu
  mrs x0, sctlr_el1
  orr x0, x0, #8                // SA: SP alignment checking at EL1
  msr sctlr_el1, x0
  isb
  movz x1, #0x30, lsl #16       // data EL0 may use
  movz x4, #0x18, lsl #16       // data only EL1 may use
  movz x14, #0x80, lsl #16      // 8 MiB: nothing maps it
  mov x9, #0
  mov x10, #0
1:
  and x2, x9, #1
  add x5, x1, x2, lsl #3
  mov sp, x5                    // 8 bytes off 16-byte alignment on odd iterations
  str x9, [sp, #32]
  ldr x6, [sp, #32]
  add x10, x10, x6
  sttr x9, [x1, #64]
  ldtr x7, [x1, #64]
  add x10, x10, x7
  ldtr x8, [x4]                 // a permission fault: EL0 may not read there
  add x10, x10, x8
  ldr x8, [x14, x9, lsl #3]     // a translation fault
  add x10, x10, x8
  str x9, [x14, #8]             // and a store's
  add x11, x1, #0x100
  ldxr x12, [x11]
  add x12, x12, #1
  stxr w13, x12, [x11]
  add x10, x10, x13
  add x9, x9, #1
  cmp x9, #3000
  b.ne 1b
  done
