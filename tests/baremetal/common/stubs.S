/* Instructions whose exceptions the tests check. Each trapping instruction has a global label so the
 * expected ELR is known exactly, and NZCV is set just before it so the expected SPSR is known. */

#define SVC_EXIT 0xffff

.macro glabel name
	.globl	\name
\name:
.endm

	.text
/* void el1_svc_stub(u64 nzcv) */
glabel el1_svc_stub
	msr	nzcv, x0
glabel el1_svc_insn
	svc	#0x4321
	ret
/* void el1_brk_stub(u64 nzcv) */
glabel el1_brk_stub
	msr	nzcv, x0
glabel el1_brk_insn
	brk	#0x1234
	ret
/* void el1_udf_stub(u64 nzcv): UDF #0, permanently undefined */
glabel el1_udf_stub
	msr	nzcv, x0
glabel el1_udf_insn
	.inst	0x00000000
	ret
/* u64 el1_load_stub(u64 addr, u64 nzcv): 64-bit load into x0; x0 keeps addr if it faulted */
glabel el1_load_stub
	msr	nzcv, x1
glabel el1_load_insn
	ldr	x0, [x0]
	ret
/* void el1_store_stub(u64 addr, u64 value, u64 nzcv): 32-bit store of w1 */
glabel el1_store_stub
	msr	nzcv, x2
glabel el1_store_insn
	str	w1, [x0]
	ret

/* EL0 code: position independent, ends with SVC #SVC_EXIT, which returns to run_el0's caller. */
	.section .user, "ax"
/* x0 = nzcv; returns 0x5a5a after the SVC was handled and resumed at the next instruction */
glabel el0_svc
	msr	nzcv, x0
glabel el0_svc_insn
	svc	#0x1234
	mov	x0, #0x5a5a
	svc	#SVC_EXIT
glabel el0_brk
	msr	nzcv, x0
glabel el0_brk_insn
	brk	#0x77
	svc	#SVC_EXIT
glabel el0_udf
	msr	nzcv, x0
glabel el0_udf_insn
	.inst	0x00000000
	svc	#SVC_EXIT
/* x0 = address; returns the loaded value, or the address if the load faulted */
glabel el0_load
glabel el0_load_insn
	ldr	x0, [x0]
	svc	#SVC_EXIT
/* x0 = address; stores the address itself (64-bit) */
glabel el0_store
glabel el0_store_insn
	str	x0, [x0]
	svc	#SVC_EXIT
/* resume point for EL0 instruction aborts */
glabel el0_exit
	svc	#SVC_EXIT
/* EL0 reading an EL1 system register: UNDEFINED at EL0 (EC 0) */
glabel el0_mrs
glabel el0_mrs_insn
	mrs	x0, sctlr_el1
	svc	#SVC_EXIT

	.text
/* void el1t_brk_stub(u64 nzcv): BRK while EL1 runs on SP_EL0 (EL1t), which uses the "current EL with
 * SP_EL0" vectors */
glabel el1t_brk_stub
	mov	x1, sp
	msr	sp_el0, x1
	msr	spsel, #0
	msr	nzcv, x0
glabel el1t_brk_insn
	brk	#0x55
	msr	spsel, #1
	ret

/* u64 el1_call(void *fn): calls fn; an instruction abort on fn resumes at el1_call_ret (x0 unchanged) */
glabel el1_call
	stp	x29, x30, [sp, #-16]!
	blr	x0
glabel el1_call_ret
	ldp	x29, x30, [sp], #16
	ret
