/* Labels and entry points of stubs.S. */
#pragma once
#include "lib.h"
void el1_svc_stub(u64 nzcv);
void el1_brk_stub(u64 nzcv);
void el1_udf_stub(u64 nzcv);
void el1t_brk_stub(u64 nzcv);
u64 el1_load_stub(u64 addr, u64 nzcv);
void el1_store_stub(u64 addr, u64 value, u64 nzcv);
extern char el1_svc_insn[], el1_brk_insn[], el1_udf_insn[], el1t_brk_insn[], el1_load_insn[], el1_store_insn[];
extern char el0_svc[], el0_svc_insn[], el0_brk[], el0_brk_insn[], el0_udf[], el0_udf_insn[];
extern char el0_exit[], el1_call_ret[];
u64 el1_call(void *fn);
extern char el0_load[], el0_load_insn[], el0_store[], el0_store_insn[], el0_mrs[], el0_mrs_insn[];

/* ESR_ELx constants from the Arm ARM (D17.2.37): EC in [31:26], IL = bit 25. */
#define EC_UNKNOWN 0x00
#define EC_SVC64 0x15
#define EC_IABT_LOWER 0x20
#define EC_IABT_CUR 0x21
#define EC_DABT_LOWER 0x24
#define EC_DABT_CUR 0x25
#define EC_BRK64 0x3c
#define ESR(ec, iss) (((u64)(ec) << 26) | ESR_IL | (iss))
/* Data abort ISS: ISV (bit 24) and the syndrome in [23:14] are IMPLEMENTATION DEFINED for aborts taken to
 * EL1, so comparisons mask them and check them separately when ISV is 1. */
#define ESR_ISV (1UL << 24)
#define ESR_DABT_MASK (~(ESR_ISV | (0x3ffUL << 14)))
#define ISS_WNR (1UL << 6)
#define DFSC_TRANS(l) (0x04 | (l))
#define DFSC_ACCESS(l) (0x08 | (l))
#define DFSC_PERM(l) (0x0c | (l))

/* Checks a recorded data abort: vector, ESR (masked as above), FAR, ELR; and the ISV syndrome if present
 * (access size log2 `sas`, register `srt`, 64-bit register `sf`). */
void expect_dabt(int vec, u64 ec, u64 wnr, u64 dfsc, u64 far, u64 elr, u64 sas, u64 srt, u64 sf);
