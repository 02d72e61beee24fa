/* Support library for the bare-metal tests (see lib.h). */
#include "lib.h"
#include <stdarg.h>

struct boot_regs boot_regs;
struct trap trap;
void (*irq_handler)(struct frame *f, int vec);

/* Boot CPU stack; secondaries get theirs from the SMP test. */
u8 cpu0_stack[16384] __attribute__((aligned(16)));

void *memset(void *d, int c, unsigned long n) {
  u8 *p = d;
  while (n--) *p++ = (u8)c;
  return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
  u8 *p = d;
  const u8 *q = s;
  while (n--) *p++ = *q++;
  return d;
}

/* ---- PL011 ---- */
#define UART_DR 0x00
#define UART_FR 0x18
#define UART_CR 0x30
#define UART_FR_TXFF (1u << 5)

static void uart_init(void) {
  /* No firmware ran before us: make sure the UART and its transmitter are enabled (UARTEN | TXE | RXE). */
  mmio_w32(UART_BASE + UART_CR, 0x301);
}

void uart_putc(char c) {
  /* Bounded wait: a UART model that never drains must not hang the test forever. */
  for (int i = 0; i < 1000000 && (mmio_r32(UART_BASE + UART_FR) & UART_FR_TXFF); i++) {
  }
  mmio_w32(UART_BASE + UART_DR, (u8)c);
}

void puts_raw(const char *s) {
  for (; *s; s++) {
    if (*s == '\n') uart_putc('\r');
    uart_putc(*s);
  }
}

/* ---- formatting: %s %c %d %u %x %p with l/ll, zero padding and width ---- */
struct sink { char *buf; unsigned len, cap; };

static void emit(struct sink *s, char c) {
  if (s->buf) {
    if (s->len + 1 < s->cap) s->buf[s->len++] = c;
  } else {
    if (c == '\n') uart_putc('\r');
    uart_putc(c);
  }
}

static void vformat(struct sink *s, const char *fmt, va_list ap) {
  for (; *fmt; fmt++) {
    if (*fmt != '%') { emit(s, *fmt); continue; }
    fmt++;
    char pad = ' ';
    int width = 0, lng = 0;
    if (*fmt == '0') { pad = '0'; fmt++; }
    while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
    while (*fmt == 'l') { lng = 1; fmt++; }
    u64 v = 0;
    int neg = 0, base = 10;
    switch (*fmt) {
    case 's': {
      const char *str = va_arg(ap, const char *);
      if (!str) str = "(null)";
      while (*str) emit(s, *str++);
      continue;
    }
    case 'c': emit(s, (char)va_arg(ap, int)); continue;
    case '%': emit(s, '%'); continue;
    case 'd': {
      s64 x = lng ? va_arg(ap, s64) : va_arg(ap, int);
      if (x < 0) { neg = 1; v = (u64)-x; } else v = (u64)x;
      break;
    }
    case 'u': v = lng ? va_arg(ap, u64) : va_arg(ap, u32); break;
    case 'x': v = lng ? va_arg(ap, u64) : va_arg(ap, u32); base = 16; break;
    case 'p': v = (u64)va_arg(ap, void *); base = 16; emit(s, '0'); emit(s, 'x'); break;
    default: emit(s, '%'); emit(s, *fmt); continue;
    }
    char tmp[24];
    int n = 0;
    do { tmp[n++] = "0123456789abcdef"[v % base]; v /= base; } while (v);
    if (neg) tmp[n++] = '-';
    while (width-- > n) emit(s, pad);
    while (n) emit(s, tmp[--n]);
  }
  if (s->buf) s->buf[s->len] = 0;
}

void printf(const char *fmt, ...) {
  struct sink s = {0, 0, 0};
  va_list ap;
  va_start(ap, fmt);
  vformat(&s, fmt, ap);
  va_end(ap);
}

/* ---- harness ---- */
static const char *cur_name;
static char cur_detail[200];
static int cur_failures;
static int n_passed, n_failed;

void test_begin(const char *name) {
  cur_name = name;
  cur_failures = 0;
  cur_detail[0] = 0;
}

static void vfail(const char *fmt, va_list ap) {
  if (cur_failures++ == 0) {
    struct sink s = {cur_detail, 0, sizeof cur_detail};
    vformat(&s, fmt, ap);
  }
}

void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(fmt, ap);
  va_end(ap);
}

void expect_eq(const char *what, u64 got, u64 want) {
  if (got != want) fail("%s = 0x%lx, expected 0x%lx", what, got, want);
}

void expect_true(const char *what, int cond) {
  if (!cond) fail("%s", what);
}

int test_end(void) {
  if (cur_failures == 0) {
    printf("PASS %s\n", cur_name);
    n_passed++;
    return 1;
  }
  if (cur_failures > 1)
    printf("FAIL %s: %s (and %d more)\n", cur_name, cur_detail, cur_failures - 1);
  else
    printf("FAIL %s: %s\n", cur_name, cur_detail);
  n_failed++;
  return 0;
}

void done(void) {
  printf("DONE %d passed %d failed\n", n_passed, n_failed);
  psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
  /* SYSTEM_OFF does not return; if the platform ignores it, park here. */
  for (;;) wfi();
}

/* ---- exceptions ---- */
void trap_arm(void) {
  trap.count = 0;
  trap.vec = -1;
  trap.esr = trap.far = trap.elr = trap.spsr = trap.resume = 0;
}

static int unexpected;

void exception_dispatch(struct frame *f, int vec) {
  int kind = vec & 3;
  if (kind == 1 && irq_handler) { irq_handler(f, vec); return; }
  if (kind == 0) {
    u64 ec = ESR_EC(f->esr);
    if (vec == VEC_LOWER_SYNC && ec == 0x15 && (f->esr & 0xffff) == SVC_EXIT) {
      /* EL0 is finished: resume at el0_return at EL1h with interrupts masked. */
      f->elr = (u64)el0_return;
      f->spsr = 0x3c5;
      return;
    }
    if (trap.vec == -1) {
      trap.vec = vec;
      trap.esr = f->esr;
      trap.far = f->far;
      trap.elr = f->elr;
      trap.spsr = f->spsr;
      trap.count++;
      /* SVC's preferred return address is already the next instruction; the others point at the
       * faulting instruction, which is skipped. */
      if (trap.resume)
        f->elr = trap.resume;
      else if (ec != 0x15)
        f->elr += 4;
      return;
    }
    trap.count++;
  }
  printf("FAIL unexpected_exception: vector %d esr 0x%lx elr 0x%lx far 0x%lx spsr 0x%lx\n", vec, f->esr,
         f->elr, f->far, f->spsr);
  n_failed++;
  if (++unexpected > 8) {
    printf("FAIL fatal: too many unexpected exceptions\n");
    done();
  }
  if (kind == 0) f->elr += 4;
}

/* ---- GICv2 ---- */
void gic_dist_init(void) {
  /* As Linux does: the distributor is used as the non-secure side sees it (group 1 if security is
   * implemented, group 0 otherwise); bit 0 enables forwarding in both views. */
  gicd_w(GICD_CTLR, 0);
  u32 lines = ((gicd_r(GICD_TYPER) & 0x1f) + 1) * 32;
  for (u32 i = 32; i < lines; i += 32) {
    gicd_w(GICD_ICENABLER + i / 8, 0xffffffff);
    gicd_w(GICD_ICPENDR + i / 8, 0xffffffff);
  }
  for (u32 i = 32; i < lines; i += 4) gicd_w(GICD_IPRIORITYR + i, 0xa0a0a0a0);
  gicd_w(GICD_CTLR, 1);
}

void gic_cpu_init(void) {
  /* Banked SGI/PPI state of this CPU: all disabled, default priority. */
  gicd_w(GICD_ICENABLER, 0xffffffff);
  gicd_w(GICD_ICPENDR, 0xffffffff);
  for (u32 i = 0; i < 32; i += 4) gicd_w(GICD_IPRIORITYR + i, 0xa0a0a0a0);
  gicc_w(GICC_PMR, 0xf0);
  gicc_w(GICC_BPR, 0);
  gicc_w(GICC_CTLR, 1);
}

void gic_set_priority(u32 intid, u8 prio) {
  u32 off = GICD_IPRIORITYR + (intid & ~3u), sh = (intid & 3) * 8;
  gicd_w(off, (gicd_r(off) & ~(0xffu << sh)) | ((u32)prio << sh));
}

void gic_enable(u32 intid) { gicd_w(GICD_ISENABLER + (intid / 32) * 4, 1u << (intid % 32)); }
void gic_disable(u32 intid) { gicd_w(GICD_ICENABLER + (intid / 32) * 4, 1u << (intid % 32)); }

u32 gic_my_cpu_mask(void) {
  /* GICD_ITARGETSR0..7 are banked and read-only: each byte holds the reading CPU's interface bit. */
  u32 v = gicd_r(GICD_ITARGETSR);
  return v & 0xff;
}

/* ---- counter ---- */
u64 ticks_per_ms(void) {
  u64 f = read_sysreg(cntfrq_el0);
  return f ? f / 1000 : 1;
}

void delay_us(u64 us) {
  u64 f = read_sysreg(cntfrq_el0);
  u64 end = cntvct() + (f / 1000000 ? f / 1000000 : 1) * us;
  while (cntvct() < end) {
  }
}

/* ---- entry from start.S ---- */
void lib_main(void) {
  uart_init();
  trap.vec = 0; /* not armed until a test asks */
  printf("# vplat bare-metal test on %s, entered at EL%lu, dtb 0x%lx\n", PLAT_NAME,
         (boot_regs.current_el >> 2) & 3, boot_regs.x0);
  test_main();
  done();
}

/* Tests without secondaries still link secondary_entry's call target. */
__attribute__((weak)) void secondary_main(void *ctx) {
  (void)ctx;
  for (;;) wfi();
}
