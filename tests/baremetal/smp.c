/* Test 4: secondary CPUs and SGIs. PSCI CPU_ON starts each secondary at secondary_entry with the context
 * id in x0; the secondary sets up its GIC CPU interface and sleeps in WFI. The boot CPU sends SGIs through
 * GICD_SGIR and both sides check the source CPU field GICC_IAR[12:10]; then AFFINITY_INFO and CPU_OFF.
 * Facts (PSCI spec DEN0022; GICv2 spec): CPU_ON returns SUCCESS 0, ALREADY_ON -4, INVALID_PARAMETERS -2
 * for an MPIDR that names no CPU; AFFINITY_INFO level 0 returns ON 0, OFF 1, ON_PENDING 2. SGIR target
 * lists and the IAR source field use GIC CPU interface numbers, which each CPU reads from its banked
 * GICD_ITARGETSR0. Everything runs with the MMU off, so shared data is Device memory: coherent, no locks. */
#include "lib.h"

#define MAX_CPUS NUM_CPU_MPIDRS
#define SGI_PING 1
#define SGI_PONG 2
#define SGI_WAKE 3
#define SGI_BCAST 4
#define SGI_SELF 5

struct cpu_ctx {
  u64 stack_top; /* read by secondary_entry */
  u64 mpidr;
  volatile u64 mpidr_seen, ctx_seen;
  volatile u32 alive, gic_mask, go_off;
  volatile u32 count[16];      /* SGIs received, by INTID */
  volatile u32 src_of[16];     /* source CPU field of the last one, by INTID */
  volatile u32 other;          /* non-SGI interrupts */
  volatile u64 cpu_off_ret;    /* only written if CPU_OFF returned */
};

static const u64 mpidrs[MAX_CPUS] = {CPU_MPIDRS};
static struct cpu_ctx ctxs[MAX_CPUS];
static u8 stacks[MAX_CPUS][8192] __attribute__((aligned(16)));
static int n_cpus;

static void on_irq(struct frame *f, int vec) {
  (void)f;
  (void)vec;
  struct cpu_ctx *c = (struct cpu_ctx *)read_sysreg(tpidr_el1);
  u32 iar = gicc_r(GICC_IAR);
  u32 id = iar & 0x3ff, src = (iar >> 10) & 7;
  if (id == GIC_SPURIOUS) return;
  if (id < 16) {
    c->src_of[id] = src;
    dmb(sy);
    c->count[id]++;
    /* Secondaries answer a ping with a pong to whoever sent it. */
    if (id == SGI_PING && c != &ctxs[0]) gicd_w(GICD_SGIR, (1u << (16 + src)) | SGI_PONG);
  } else {
    c->other++;
  }
  gicc_w(GICC_EOIR, iar);
}

static void cpu_gic_setup(struct cpu_ctx *c) {
  write_sysreg(tpidr_el1, c);
  gic_cpu_init();
  gicd_w(GICD_ISENABLER, 0xffff); /* SGIs 0-15 (banked) */
  c->gic_mask = gic_my_cpu_mask();
}

void secondary_main(void *arg) {
  struct cpu_ctx *c = arg;
  c->ctx_seen = (u64)arg;
  c->mpidr_seen = mpidr_aff();
  cpu_gic_setup(c);
  dmb(sy);
  c->alive = 1;
  while (!c->go_off) {
    wfi();
    irq_enable();
    isb();
    irq_disable();
  }
  gicc_w(GICC_CTLR, 0);
  c->alive = 0;
  dmb(sy);
  c->cpu_off_ret = psci_call(PSCI_CPU_OFF, 0, 0, 0);
  for (;;) wfi();
}

static int wait_for(volatile u32 *p, u32 want, u64 ms) {
  u64 end = cntvct() + ms * ticks_per_ms();
  while (*p != want && cntvct() < end) {
    irq_enable();
    isb();
    irq_disable();
  }
  return *p == want;
}

static s64 affinity(u64 mpidr) { return (s64)psci_call(PSCI_AFFINITY_INFO, mpidr, 0, 0); }

static int log2u(u32 m) {
  for (int i = 0; i < 8; i++)
    if (m == 1u << i) return i;
  return -1;
}

static int start_cpu(int i) {
  struct cpu_ctx *c = &ctxs[i];
  c->alive = 0;
  c->go_off = 0;
  c->stack_top = (u64)(stacks[i] + sizeof stacks[i]);
  c->mpidr = mpidrs[i];
  dmb(sy);
  s64 r = (s64)psci_call(PSCI_CPU_ON, mpidrs[i], (u64)secondary_entry, (u64)c);
  expect_eq("CPU_ON result", (u64)r, PSCI_SUCCESS);
  if (r != PSCI_SUCCESS) return 0;
  if (!wait_for(&c->alive, 1, 1000)) {
    fail("CPU 0x%lx did not come up", mpidrs[i]);
    return 0;
  }
  expect_eq("secondary's MPIDR affinity", c->mpidr_seen, mpidrs[i]);
  expect_eq("secondary's x0 = context id", c->ctx_seen, (u64)c);
  return 1;
}

static void stop_cpu(int i) {
  struct cpu_ctx *c = &ctxs[i];
  c->go_off = 1;
  dmb(sy);
  gicd_w(GICD_SGIR, (c->gic_mask << 16) | SGI_WAKE);
  u64 end = cntvct() + 1000 * ticks_per_ms();
  s64 a;
  while ((a = affinity(mpidrs[i])) != 1 && cntvct() < end) {
  }
  expect_eq("AFFINITY_INFO after CPU_OFF", (u64)a, 1);
  expect_eq("CPU_OFF returned (should not)", c->cpu_off_ret, 0);
}

static void test_psci(void) {
  test_begin("psci_version_and_cpu_on");
  u64 v = psci_call(PSCI_VERSION, 0, 0, 0);
  printf("# PSCI version %lu.%lu\n", (v >> 16) & 0xffff, v & 0xffff);
  expect_true("PSCI version >= 0.2", (v >> 16) > 0 || (v & 0xffff) >= 2);
  expect_eq("AFFINITY_INFO of the boot CPU", (u64)affinity(mpidrs[0]), 0);
  expect_eq("CPU_ON of the boot CPU", psci_call(PSCI_CPU_ON, mpidrs[0], (u64)secondary_entry, 0),
            (u64)PSCI_ALREADY_ON);
  expect_eq("CPU_ON of a nonexistent MPIDR", psci_call(PSCI_CPU_ON, 0xfe, (u64)secondary_entry, 0),
            (u64)PSCI_INVALID_PARAMETERS);
  /* The CPUs that exist are those AFFINITY_INFO knows. */
  n_cpus = 1;
  while (n_cpus < MAX_CPUS && affinity(mpidrs[n_cpus]) != PSCI_INVALID_PARAMETERS) n_cpus++;
  printf("# %d CPUs\n", n_cpus);
  if (n_cpus < 2) fail("no secondary CPU (run with -smp 2 or more)");
  for (int i = 1; i < n_cpus; i++) {
    expect_eq("AFFINITY_INFO before CPU_ON", (u64)affinity(mpidrs[i]), 1);
    if (!start_cpu(i)) { n_cpus = i; break; }
    expect_eq("AFFINITY_INFO after CPU_ON", (u64)affinity(mpidrs[i]), 0);
    expect_eq("CPU_ON of a running CPU", psci_call(PSCI_CPU_ON, mpidrs[i], (u64)secondary_entry, 0),
              (u64)PSCI_ALREADY_ON);
  }
  test_end();
}

static void test_gic_masks(void) {
  test_begin("gic_cpu_interface_numbers");
  u32 all = 0;
  for (int i = 0; i < n_cpus; i++) {
    if (log2u(ctxs[i].gic_mask) < 0) fail("CPU %d: GICD_ITARGETSR0 byte 0x%x is not one bit", i, ctxs[i].gic_mask);
    if (all & ctxs[i].gic_mask) fail("CPU %d shares interface bit 0x%x", i, ctxs[i].gic_mask);
    all |= ctxs[i].gic_mask;
  }
  test_end();
}

static void test_ping_pong(void) {
  struct cpu_ctx *me = &ctxs[0];
  u32 my_id = log2u(me->gic_mask);
  for (int i = 1; i < n_cpus; i++) {
    struct cpu_ctx *c = &ctxs[i];
    static char name[40];
    memcpy(name, "sgi_ping_pong_cpu", 18);
    name[17] = (char)('0' + i);
    name[18] = 0;
    test_begin(name);
    u32 pings = c->count[SGI_PING], pongs = me->count[SGI_PONG];
    gicd_w(GICD_SGIR, (c->gic_mask << 16) | SGI_PING); /* TargetListFilter 0: the listed CPU */
    if (!wait_for(&c->count[SGI_PING], pings + 1, 500)) fail("secondary got no ping");
    else expect_eq("source CPU seen by the secondary", c->src_of[SGI_PING], my_id);
    if (!wait_for(&me->count[SGI_PONG], pongs + 1, 500)) fail("boot CPU got no pong");
    else expect_eq("source CPU seen by the boot CPU", me->src_of[SGI_PONG], (u32)log2u(c->gic_mask));
    for (int j = 1; j < n_cpus; j++)
      if (j != i && ctxs[j].count[SGI_PING] != 0) fail("CPU %d also got the ping", j);
    test_end();
    c->count[SGI_PING] = 0;
  }
}

static void test_filters(void) {
  struct cpu_ctx *me = &ctxs[0];
  u32 my_id = log2u(me->gic_mask);
  test_begin("sgi_all_but_self");
  u32 mine = me->count[SGI_BCAST];
  gicd_w(GICD_SGIR, (1u << 24) | SGI_BCAST);
  for (int i = 1; i < n_cpus; i++) {
    if (!wait_for(&ctxs[i].count[SGI_BCAST], 1, 500)) fail("CPU %d missed the broadcast", i);
    else expect_eq("source CPU", ctxs[i].src_of[SGI_BCAST], my_id);
  }
  delay_us(2000);
  irq_enable();
  isb();
  irq_disable();
  expect_eq("boot CPU got its own all-but-self SGI", me->count[SGI_BCAST], mine);
  test_end();

  test_begin("sgi_self_only");
  gicd_w(GICD_SGIR, (2u << 24) | SGI_SELF);
  if (!wait_for(&me->count[SGI_SELF], 1, 500)) fail("boot CPU got no self SGI");
  else expect_eq("source CPU", me->src_of[SGI_SELF], my_id);
  delay_us(2000);
  for (int i = 1; i < n_cpus; i++)
    if (ctxs[i].count[SGI_SELF]) fail("CPU %d got the boot CPU's self SGI", i);
  u32 other = 0;
  for (int i = 0; i < n_cpus; i++) other += ctxs[i].other;
  expect_eq("non-SGI interrupts", other, 0);
  test_end();
}

static void test_cpu_off(void) {
  test_begin("psci_cpu_off_and_restart");
  for (int i = 1; i < n_cpus; i++) stop_cpu(i);
  if (n_cpus > 1) {
    /* A CPU that was switched off can be switched on again. */
    if (start_cpu(1)) {
      expect_eq("AFFINITY_INFO after the second CPU_ON", (u64)affinity(mpidrs[1]), 0);
      stop_cpu(1);
    }
  }
  test_end();
}

void test_main(void) {
  irq_handler = on_irq;
  gic_dist_init();
  cpu_gic_setup(&ctxs[0]);
  ctxs[0].mpidr = mpidrs[0];
  test_psci();
  test_gic_masks();
  test_ping_pong();
  test_filters();
  test_cpu_off();
}
