/* Entry code shared by every test: the arm64 Image header, primary and secondary CPU entry, the EL1
 * exception vector table, the PSCI conduit and the EL0 trampoline. The platform header is -include'd. */

#define FRAME_SIZE 288 /* x0..x30, elr, spsr, esr, far (35 * 8) rounded up to 16 */

/* Leaves EL2 for EL1 if a loader entered us at EL2 (the boot protocol allows either): AArch64 EL1,
 * EL1 access to the physical counter and timer, no virtual offset. \tmp is clobbered. */
.macro drop_to_el1 tmp
	mrs	\tmp, CurrentEL
	cmp	\tmp, #(2 << 2)
	b.ne	9f
	mov	\tmp, #(1 << 31)		/* HCR_EL2.RW: EL1 is AArch64 */
	msr	hcr_el2, \tmp
	mrs	\tmp, cnthctl_el2
	orr	\tmp, \tmp, #3			/* EL1PCTEN | EL1PCEN */
	msr	cnthctl_el2, \tmp
	msr	cntvoff_el2, xzr
	ldr	\tmp, =0x30d00800		/* SCTLR_EL1 RES1 bits, MMU and caches off */
	msr	sctlr_el1, \tmp
	mov	\tmp, #0x3c5			/* EL1h, DAIF masked */
	msr	spsr_el2, \tmp
	adr	\tmp, 9f
	msr	elr_el2, \tmp
	eret
9:
.endm

	.section .head, "ax"
	.globl	_text_head
_text_head:
	/* arm64 Image header (Linux Documentation/arch/arm64/booting.rst). */
	b	primary_entry			/* code0 */
	.long	0				/* code1 */
	.quad	TEXT_OFFSET			/* text_offset */
	.quad	__image_size			/* image_size, including BSS */
	.quad	0xa				/* flags: LE, 4K pages, placement anywhere */
	.quad	0, 0, 0				/* res2..res4 */
	.ascii	"ARM\x64"			/* magic at 0x38 */
	.long	0				/* res5: no PE header */

primary_entry:
	mov	x19, x0				/* DTB address */
	mov	x20, x1				/* x1..x3 must be zero per the boot protocol */
	mov	x21, x2
	mov	x22, x3
	mrs	x23, CurrentEL
	msr	daifset, #0xf
	drop_to_el1 x0
	/* The test is linked at one address; if a loader put it elsewhere, absolute pointers would be
	 * wrong, so say so on the UART (position-independent code only) and stop. */
	adr	x0, _text
	ldr	x1, =_text
	cmp	x0, x1
	b.ne	load_mismatch
	ldr	x0, =cpu0_stack + 16384
	mov	sp, x0
	ldr	x0, =__bss_start
	ldr	x1, =__bss_end
1:	cmp	x0, x1
	b.hs	2f
	str	xzr, [x0], #8
	b	1b
2:	bl	cpu_common_init
	ldr	x0, =boot_regs
	stp	x19, x20, [x0]
	stp	x21, x22, [x0, #16]
	str	x23, [x0, #32]
	bl	lib_main
3:	wfi
	b	3b

load_mismatch:
	adr	x0, mismatch_msg
	ldr	x1, =UART_BASE
4:	ldrb	w2, [x0], #1
	cbz	w2, 5f
	str	w2, [x1]
	b	4b
5:	ldr	x0, =0x84000008			/* PSCI SYSTEM_OFF */
#if PSCI_CONDUIT_SMC
	smc	#0
#else
	hvc	#0
#endif
	b	5b
mismatch_msg:
	.asciz	"FAIL load: image not at RAM_BASE + TEXT_OFFSET\r\nDONE 0 passed 1 failed\r\n"
	.balign 4

/* PSCI_CPU_ON entry: x0 = context id = struct cpu_ctx * (stack top in its first word). */
	.text
	.globl	secondary_entry
secondary_entry:
	msr	daifset, #0xf
	mov	x19, x0
	drop_to_el1 x1
	ldr	x1, [x19]
	mov	sp, x1
	bl	cpu_common_init
	mov	x0, x19
	bl	secondary_main
6:	wfi
	b	6b

/* Per-CPU EL1 state that does not depend on the test: vectors, FP/SIMD not trapped. */
cpu_common_init:
	ldr	x0, =vectors
	msr	vbar_el1, x0
	mov	x0, #(3 << 20)			/* CPACR_EL1.FPEN = 0b11 */
	msr	cpacr_el1, x0
	isb
	ret

/* u64 psci_call(u64 fn, u64 a1, u64 a2, u64 a3) - SMC Calling Convention, result in x0. */
	.globl	psci_call
psci_call:
#if PSCI_CONDUIT_SMC
	smc	#0
#else
	hvc	#0
#endif
	ret

/* u64 run_el0(void *pc, void *sp, u64 arg): runs pc at EL0t with x0 = arg until it issues
 * SVC #SVC_EXIT; returns its x0. The handler sends that SVC to el0_return at EL1h, where SP_EL1
 * is again what it was at the ERET below, so the saved registers are found on it. */
	.globl	run_el0
run_el0:
	stp	x29, x30, [sp, #-96]!
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	msr	sp_el0, x1
	msr	elr_el1, x0
	msr	spsr_el1, xzr			/* EL0t, NZCV and DAIF clear */
	mov	x0, x2
	eret
	.globl	el0_return
el0_return:
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	x29, x30, [sp], #96
	ret

/* Vector table: 4 groups (current EL SP0, current EL SPx, lower EL AArch64, lower EL AArch32) of
 * sync, IRQ, FIQ, SError. Each entry saves x0/x1 and passes its index to the common path. */
.macro ventry idx
	.balign	0x80
	sub	sp, sp, #FRAME_SIZE
	stp	x0, x1, [sp]
	mov	x0, #\idx
	b	vector_common
.endm

	.balign	0x800
	.globl	vectors
vectors:
	ventry 0
	ventry 1
	ventry 2
	ventry 3
	ventry 4
	ventry 5
	ventry 6
	ventry 7
	ventry 8
	ventry 9
	ventry 10
	ventry 11
	ventry 12
	ventry 13
	ventry 14
	ventry 15

vector_common:
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x19, [sp, #144]
	stp	x20, x21, [sp, #160]
	stp	x22, x23, [sp, #176]
	stp	x24, x25, [sp, #192]
	stp	x26, x27, [sp, #208]
	stp	x28, x29, [sp, #224]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x30, x2, [sp, #240]
	mrs	x2, esr_el1
	stp	x3, x2, [sp, #256]
	mrs	x2, far_el1
	str	x2, [sp, #272]
	mov	x1, x0
	mov	x0, sp
	bl	exception_dispatch		/* may change the saved ELR/SPSR/registers */
	ldp	x2, x3, [sp, #248]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldp	x0, x1, [sp]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x19, [sp, #144]
	ldp	x20, x21, [sp, #160]
	ldp	x22, x23, [sp, #176]
	ldp	x24, x25, [sp, #192]
	ldp	x26, x27, [sp, #208]
	ldp	x28, x29, [sp, #224]
	ldr	x30, [sp, #240]
	add	sp, sp, #FRAME_SIZE
	eret
