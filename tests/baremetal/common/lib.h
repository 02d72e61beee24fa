/* Support library for the bare-metal tests: UART output, the PASS/FAIL harness, exception recording,
 * PSCI, GICv2 and generic-timer helpers. Everything runs with the MMU off unless a test turns it on, so
 * the code is built with -mstrict-align (Device memory faults on unaligned accesses). */
#pragma once

typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;
typedef long s64;

#define SVC_EXIT 0xffff

/* ---- system registers ---- */
#define read_sysreg(r) ({ u64 v_; __asm__ volatile("mrs %0, " #r : "=r"(v_)); v_; })
#define write_sysreg(r, v) __asm__ volatile("msr " #r ", %0" ::"r"((u64)(v)) : "memory")
#define isb() __asm__ volatile("isb" ::: "memory")
#define dsb(o) __asm__ volatile("dsb " #o ::: "memory")
#define dmb(o) __asm__ volatile("dmb " #o ::: "memory")
#define wfi() __asm__ volatile("wfi" ::: "memory")
#define irq_enable() __asm__ volatile("msr daifclr, #2" ::: "memory")
#define irq_disable() __asm__ volatile("msr daifset, #2" ::: "memory")

static inline u32 mmio_r32(u64 a) { return *(volatile u32 *)a; }
static inline void mmio_w32(u64 a, u32 v) { *(volatile u32 *)a = v; }

/* ---- boot ---- */
struct boot_regs { u64 x0, x1, x2, x3, current_el; };
extern struct boot_regs boot_regs;
extern char _text[], _end[], __user_start[], __user_end[];

/* Each test binary provides these. */
void test_main(void);
void secondary_main(void *ctx);

/* ---- output ---- */
void uart_putc(char c);
void puts_raw(const char *s);
void printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *memset(void *d, int c, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n);

/* ---- harness: PASS <name> / FAIL <name>: <detail> / DONE <n> passed <m> failed ---- */
void test_begin(const char *name);
int test_end(void); /* prints the line; returns 1 on pass */
void expect_eq(const char *what, u64 got, u64 want);
void expect_true(const char *what, int cond);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void done(void) __attribute__((noreturn));

/* ---- exceptions ---- */
struct frame { u64 x[31]; u64 elr, spsr, esr, far; u64 pad; };
/* Vector index: 0-3 current EL with SP_EL0, 4-7 current EL with SP_ELx, 8-11 lower EL AArch64;
 * within a group sync, IRQ, FIQ, SError. */
enum { VEC_CUR_SPX_SYNC = 4, VEC_CUR_SPX_IRQ = 5, VEC_LOWER_SYNC = 8, VEC_LOWER_IRQ = 9 };
struct trap {
  volatile int count; /* expected exceptions taken since trap_arm() */
  int vec;
  u64 esr, far, elr, spsr;
  u64 resume; /* if nonzero: resume here instead of after the faulting instruction */
};
extern struct trap trap;
/* The next synchronous exception is expected: it is recorded in `trap` and execution resumes after the
 * faulting instruction (SVC already returns past itself). */
void trap_arm(void);
extern void (*irq_handler)(struct frame *f, int vec);

u64 run_el0(void *pc, void *sp, u64 arg);
extern char el0_return[], vectors[];

#define ESR_EC(e) (((e) >> 26) & 0x3f)
#define ESR_IL (1UL << 25)
#define ESR_ISS(e) ((e) & 0x1ffffff)

/* ---- PSCI 0.2+ ---- */
#define PSCI_VERSION 0x84000000UL
#define PSCI_CPU_OFF 0x84000002UL
#define PSCI_CPU_ON 0xc4000003UL
#define PSCI_AFFINITY_INFO 0xc4000004UL
#define PSCI_SYSTEM_OFF 0x84000008UL
#define PSCI_SUCCESS 0
#define PSCI_INVALID_PARAMETERS (-2)
#define PSCI_ALREADY_ON (-4)
u64 psci_call(u64 fn, u64 a1, u64 a2, u64 a3);
extern char secondary_entry[];

/* ---- GICv2 ---- */
#define GICD_CTLR 0x000
#define GICD_TYPER 0x004
#define GICD_IIDR 0x008
#define GICD_ISENABLER 0x100
#define GICD_ICENABLER 0x180
#define GICD_ISPENDR 0x200
#define GICD_ICPENDR 0x280
#define GICD_ISACTIVER 0x300
#define GICD_IPRIORITYR 0x400
#define GICD_ITARGETSR 0x800
#define GICD_ICFGR 0xc00
#define GICD_SGIR 0xf00
#define GICC_CTLR 0x00
#define GICC_PMR 0x04
#define GICC_BPR 0x08
#define GICC_IAR 0x0c
#define GICC_EOIR 0x10
#define GICC_RPR 0x14
#define GICC_HPPIR 0x18
#define GICC_IIDR 0xfc
#define GIC_SPURIOUS 1023
static inline u32 gicd_r(u32 off) { return mmio_r32(GICD_BASE + off); }
static inline void gicd_w(u32 off, u32 v) { mmio_w32(GICD_BASE + off, v); }
static inline u32 gicc_r(u32 off) { return mmio_r32(GICC_BASE + off); }
static inline void gicc_w(u32 off, u32 v) { mmio_w32(GICC_BASE + off, v); }
void gic_dist_init(void);   /* once, on the boot CPU */
void gic_cpu_init(void);    /* on every CPU */
void gic_set_priority(u32 intid, u8 prio);
void gic_enable(u32 intid);
void gic_disable(u32 intid);
u32 gic_my_cpu_mask(void);  /* this CPU's bit in GICD_ITARGETSR / SGIR target lists */

/* ---- counter ---- */
static inline u64 cntvct(void) { isb(); return read_sysreg(cntvct_el0); }
static inline u64 cntpct(void) { isb(); return read_sysreg(cntpct_el0); }
u64 ticks_per_ms(void);
void delay_us(u64 us);

static inline u64 mpidr_aff(void) { return read_sysreg(mpidr_el1) & 0xff00ffffffUL; }
