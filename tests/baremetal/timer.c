/* Test 3: generic timer interrupts through the GICv2. Distributor and CPU interface set up as Linux does,
 * the virtual (CNTV_*, INTID 27) and EL1 physical (CNTP_*, INTID 30) timers fire N times each, the CPU
 * sleeps in WFI until each interrupt, and masked (IMASK) or GIC-disabled timers must not interrupt.
 * Facts used (Arm ARM D11 generic timer; GICv2 architecture spec):
 *  - TVAL is a signed 32-bit view of CVAL - counter; writing it sets CVAL = counter + sign-extended TVAL.
 *  - CTL.ISTATUS = condition met (counter >= CVAL) while ENABLE = 1, whatever IMASK says; the interrupt
 *    output is ISTATUS && !IMASK, level-sensitive.
 *  - GICC_IAR returns 1023 when nothing is pending; for PPIs the source CPU field [12:10] is 0.
 *  - A disabled interrupt still becomes pending in the distributor (GICD_ISPENDR) while asserted. */
#include "lib.h"

#define N_IRQS 5
#define CTL_ENABLE 1UL
#define CTL_IMASK 2UL
#define CTL_ISTATUS 4UL

struct timer_state {
  volatile int count, rearm, bad_status, bad_iar;
  volatile int watchdog; /* this timer only wakes WFI if the one under test never interrupts */
  volatile u64 period;
};
static struct timer_state vt, pt;
static volatile int other_irqs, spurious_irqs;
static volatile u32 last_other;

static void on_irq(struct frame *f, int vec) {
  (void)f;
  (void)vec;
  u32 iar = gicc_r(GICC_IAR);
  u32 id = iar & 0x3ff;
  if (id == GIC_SPURIOUS) { spurious_irqs++; return; }
  if (id == TIMER_VIRT_INTID || id == TIMER_PHYS_INTID) {
    int virt = id == TIMER_VIRT_INTID;
    struct timer_state *t = virt ? &vt : &pt;
    if (t->watchdog) {
      if (virt) write_sysreg(cntv_ctl_el0, 0);
      else write_sysreg(cntp_ctl_el0, 0);
      isb();
      t->watchdog = 2;
      gicc_w(GICC_EOIR, iar);
      return;
    }
    u64 ctl = virt ? read_sysreg(cntv_ctl_el0) : read_sysreg(cntp_ctl_el0);
    u64 cval = virt ? read_sysreg(cntv_cval_el0) : read_sysreg(cntp_cval_el0);
    u64 now = virt ? cntvct() : cntpct();
    if (!(ctl & CTL_ISTATUS) || (ctl & CTL_IMASK) || now < cval) t->bad_status++;
    if (iar & ~0x3ffu) t->bad_iar++;
    t->count++;
    /* Re-arm (which lowers the level-sensitive output) or switch the timer off before EOI. */
    if (t->rearm > 0) {
      t->rearm--;
      if (virt) write_sysreg(cntv_tval_el0, t->period);
      else write_sysreg(cntp_tval_el0, t->period);
    } else {
      if (virt) write_sysreg(cntv_ctl_el0, 0);
      else write_sysreg(cntp_ctl_el0, 0);
    }
    isb();
  } else {
    other_irqs++;
    last_other = iar;
  }
  gicc_w(GICC_EOIR, iar);
}

/* Sleeps in WFI (IRQs masked, so no wake-up is lost) and takes pending IRQs until *count reaches want
 * or the deadline passes. The other timer is armed for the deadline so that WFI ends even if the timer
 * under test never interrupts. */
static void wait_irqs(volatile int *count, int want, u64 timeout_ms, int virt_under_test) {
  u64 end = cntvct() + timeout_ms * ticks_per_ms();
  struct timer_state *wd = virt_under_test ? &pt : &vt;
  u32 wd_intid = virt_under_test ? TIMER_PHYS_INTID : TIMER_VIRT_INTID;
  wd->watchdog = 1;
  gic_set_priority(wd_intid, 0x80);
  gic_enable(wd_intid);
  if (virt_under_test) {
    write_sysreg(cntp_tval_el0, timeout_ms * ticks_per_ms());
    write_sysreg(cntp_ctl_el0, CTL_ENABLE);
  } else {
    write_sysreg(cntv_tval_el0, timeout_ms * ticks_per_ms());
    write_sysreg(cntv_ctl_el0, CTL_ENABLE);
  }
  isb();
  while (*count < want && cntvct() < end) {
    wfi();
    irq_enable();
    isb();
    irq_disable();
  }
  if (virt_under_test) write_sysreg(cntp_ctl_el0, 0);
  else write_sysreg(cntv_ctl_el0, 0);
  isb();
  gic_disable(wd_intid);
  gicd_w(GICD_ICPENDR, 1u << wd_intid);
  wd->watchdog = 0;
}

/* Takes any IRQ that is pending for `ms` milliseconds without sleeping. */
static void spin_irqs_on(u64 ms) {
  irq_enable();
  delay_us(ms * 1000);
  irq_disable();
}

static void test_counter(void) {
  test_begin("timer_counter");
  u64 frq = read_sysreg(cntfrq_el0);
  printf("# CNTFRQ_EL0 = %lu Hz\n", frq);
  expect_true("CNTFRQ_EL0 is nonzero", frq != 0);
  u64 a = cntvct();
  for (volatile int i = 0; i < 100000; i++) {
  }
  u64 b = cntvct();
  expect_true("CNTVCT advances", b > a);
  /* CNTVCT = CNTPCT - CNTVOFF, a constant: bracket the offset between two orders of reads. */
  /* The best of a few tries, so that the host descheduling the emulator between two reads does not count. */
  int ok = 0;
  for (int i = 0; i < 5 && !ok; i++) {
    u64 p1 = cntpct(), v1 = cntvct();
    u64 v2 = cntvct(), p2 = cntpct();
    s64 lo = (s64)(p1 - v1), hi = (s64)(p2 - v2); /* lo <= CNTVOFF <= hi */
    ok = hi >= lo && (u64)(hi - lo) < ticks_per_ms();
  }
  expect_true("CNTPCT - CNTVCT constant", ok);
  /* TVAL/CVAL relationship, with the timer disabled. */
  write_sysreg(cntv_ctl_el0, 0);
  u64 before = cntvct();
  write_sysreg(cntv_tval_el0, 1000000);
  isb();
  u64 after = cntvct();
  u64 cval = read_sysreg(cntv_cval_el0);
  expect_true("CVAL = counter + TVAL", cval >= before + 1000000 && cval <= after + 1000000);
  write_sysreg(cntv_cval_el0, cntvct() - 5000);
  isb();
  s64 tval = (int)(u32)read_sysreg(cntv_tval_el0);
  expect_true("TVAL negative once CVAL has passed", tval <= -5000);
  test_end();
}

static void test_gic_basics(void) {
  test_begin("gic_cpu_interface");
  printf("# GICD_TYPER 0x%x GICD_IIDR 0x%x GICC_IIDR 0x%x\n", gicd_r(GICD_TYPER), gicd_r(GICD_IIDR),
         gicc_r(GICC_IIDR));
  expect_eq("GICC_PMR readback", gicc_r(GICC_PMR), 0xf0);
  expect_eq("GICD_CTLR enable", gicd_r(GICD_CTLR) & 1, 1);
  expect_eq("GICC_IAR with nothing pending", gicc_r(GICC_IAR) & 0x3ff, GIC_SPURIOUS);
  gic_set_priority(TIMER_VIRT_INTID, 0x80);
  expect_eq("priority byte readback",
            (gicd_r(GICD_IPRIORITYR + (TIMER_VIRT_INTID & ~3)) >> ((TIMER_VIRT_INTID & 3) * 8)) & 0xff, 0x80);
  test_end();
}

static void run_timer(const char *name, int virt) {
  struct timer_state *t = virt ? &vt : &pt;
  u32 intid = virt ? TIMER_VIRT_INTID : TIMER_PHYS_INTID;
  test_begin(name);
  t->count = t->bad_status = t->bad_iar = 0;
  t->period = ticks_per_ms();
  t->rearm = N_IRQS - 1;
  other_irqs = 0;
  gic_set_priority(intid, 0x80);
  gic_enable(intid);
  u64 start = virt ? cntvct() : cntpct();
  if (virt) {
    write_sysreg(cntv_tval_el0, t->period);
    write_sysreg(cntv_ctl_el0, CTL_ENABLE);
  } else {
    write_sysreg(cntp_tval_el0, t->period);
    write_sysreg(cntp_ctl_el0, CTL_ENABLE);
  }
  isb();
  wait_irqs(&t->count, N_IRQS, 1000, virt);
  u64 elapsed = (virt ? cntvct() : cntpct()) - start;
  spin_irqs_on(3); /* a timer that failed to stop would fire again here */
  expect_eq("interrupts", t->count, N_IRQS);
  expect_eq("interrupts with ISTATUS clear, IMASK set or counter < CVAL", t->bad_status, 0);
  expect_eq("PPI IAR with nonzero source CPU field", t->bad_iar, 0);
  expect_eq("other interrupts", other_irqs, 0);
  expect_true("elapsed counter ticks >= N periods", elapsed >= N_IRQS * t->period);
  gic_disable(intid);
  test_end();
}

static void test_masked(void) {
  test_begin("timer_imask_blocks_interrupt");
  vt.count = vt.bad_status = 0;
  vt.rearm = 0;
  gic_enable(TIMER_VIRT_INTID);
  write_sysreg(cntv_cval_el0, cntvct()); /* condition met at once */
  write_sysreg(cntv_ctl_el0, CTL_ENABLE | CTL_IMASK);
  isb();
  spin_irqs_on(3);
  expect_eq("interrupts while masked", vt.count, 0);
  expect_eq("CTL.ISTATUS while masked", read_sysreg(cntv_ctl_el0) & CTL_ISTATUS, CTL_ISTATUS);
  expect_eq("GICD_ISPENDR0 bit while masked", (gicd_r(GICD_ISPENDR) >> TIMER_VIRT_INTID) & 1, 0);
  write_sysreg(cntv_ctl_el0, CTL_ENABLE); /* unmask: the interrupt must follow */
  isb();
  wait_irqs(&vt.count, 1, 100, 1);
  expect_eq("interrupts after clearing IMASK", vt.count, 1);
  expect_eq("bad timer state in handler", vt.bad_status, 0);
  gic_disable(TIMER_VIRT_INTID);
  test_end();

  test_begin("timer_gic_disabled_stays_pending");
  pt.count = pt.bad_status = 0;
  pt.rearm = 0;
  gic_disable(TIMER_PHYS_INTID);
  write_sysreg(cntp_cval_el0, cntpct());
  write_sysreg(cntp_ctl_el0, CTL_ENABLE);
  isb();
  spin_irqs_on(3);
  expect_eq("interrupts while disabled in the GIC", pt.count, 0);
  expect_eq("GICD_ISPENDR0 bit while disabled", (gicd_r(GICD_ISPENDR) >> TIMER_PHYS_INTID) & 1, 1);
  gic_enable(TIMER_PHYS_INTID);
  wait_irqs(&pt.count, 1, 100, 0);
  expect_eq("interrupts after enabling", pt.count, 1);
  expect_eq("bad timer state in handler", pt.bad_status, 0);
  gic_disable(TIMER_PHYS_INTID);
  expect_eq("spurious IAR reads in the handler", spurious_irqs, 0);
  test_end();
}

void test_main(void) {
  irq_handler = on_irq;
  write_sysreg(cntv_ctl_el0, 0);
  write_sysreg(cntp_ctl_el0, 0);
  gic_dist_init();
  gic_cpu_init();
  test_counter();
  test_gic_basics();
  run_timer("timer_virtual_irqs", 1);
  run_timer("timer_physical_irqs", 0);
  test_masked();
}
