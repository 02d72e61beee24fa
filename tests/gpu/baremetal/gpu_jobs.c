/* Bare-metal test of the Mali-G71 job manager inside the whole machine (juno platform only: QEMU has no
 * Mali): the CPU programs the GPU as panfrost does, sleeps in WFI and is woken by the GPU's job and MMU
 * interrupts through the GIC, so the machine's idle skip, its GPU event polling and the interrupt path
 * are all exercised. run.sh runs it twice and requires identical console output and register traces.
 * Facts: panfrost_regs.h (offsets, bits), v6.xml (job header, Write Value payload), io-pgtable-arm.c
 * (ARM_MALI_LPAE descriptors), see ../../../shared/reference/mali-g71.md. */
#include "lib.h"

#define GPU 0x2d000000UL
#define GPU_INTID (32 + 32)
#define JOB_INTID (32 + 33)
#define MMU_INTID (32 + 34)

#define GPU_INT_RAWSTAT 0x20
#define GPU_INT_CLEAR 0x24
#define GPU_INT_MASK 0x28
#define GPU_COMMAND 0x30
#define JOB_INT_RAWSTAT 0x1000
#define JOB_INT_CLEAR 0x1004
#define JOB_INT_MASK 0x1008
#define JOB_INT_STAT 0x100c
#define JOB_INT_JS_STATE 0x1010
#define JS(n, r) (0x1800 + 0x80 * (n) + (r))
#define JS_HEAD_LO 0x00
#define JS_TAIL_LO 0x08
#define JS_STATUS 0x24
#define JS_HEAD_NEXT_LO 0x40
#define JS_HEAD_NEXT_HI 0x44
#define JS_CONFIG_NEXT 0x58
#define JS_COMMAND_NEXT 0x60
#define MMU_INT_RAWSTAT 0x2000
#define MMU_INT_CLEAR 0x2004
#define MMU_INT_MASK 0x2008
#define MMU_INT_STAT 0x200c
#define AS(n, r) (0x2400 + 0x40 * (n) + (r))
#define AS_TRANSTAB_LO 0x00
#define AS_TRANSTAB_HI 0x04
#define AS_MEMATTR_LO 0x08
#define AS_LOCKADDR_LO 0x10
#define AS_LOCKADDR_HI 0x14
#define AS_COMMAND 0x18
#define AS_FAULTSTATUS 0x1c
#define AS_FAULTADDRESS_LO 0x20
#define AS_STATUS 0x28

#define AS_CMD_UPDATE 1
#define AS_CMD_LOCK 2
#define AS_CMD_FLUSH_PT 4
#define AS_CMD_FLUSH_MEM 5
#define JOB_NULL 1
#define JOB_WRITE_VALUE 2
#define WRITE_IMM32 6
#define WRITE_TIMESTAMP 2

static u32 gr(u32 off) { return mmio_r32(GPU + off); }
static void gw(u32 off, u32 v) { mmio_w32(GPU + off, v); }

/* GPU memory: job descriptors, write targets, page tables. With the CPU's MMU off every access is
 * uncached, and the model has no GPU caches, so no maintenance is needed. */
static u8 jobs[4096] __attribute__((aligned(4096)));
static u8 data[4096] __attribute__((aligned(4096)));
static u8 heap[4096] __attribute__((aligned(4096)));
static u64 tables[4][512] __attribute__((aligned(4096)));

static volatile u32 job_irqs, job_events, mmu_irqs, fault_status;
static volatile u64 fault_addr, irq_time;
static volatile int grow_heap; /* the MMU handler maps the faulting page, as for a growable heap */
static u64 as1_transtab;

static void as_wait(unsigned as) {
  for (int i = 0; i < 1000 && (gr(AS(as, AS_STATUS)) & 1); i++) {
  }
}
static void as_cmd(unsigned as, u32 cmd) {
  as_wait(as);
  gw(AS(as, AS_COMMAND), cmd);
  as_wait(as);
}

/* AS1 maps the job page at JOBS_VA; the "heap" page 64 KiB above it (same level-3 table) is mapped only
 * by the MMU fault handler. */
#define JOBS_VA 0x2000000UL
#define HEAP_VA (JOBS_VA + 0x10000)
/* Level-3 page descriptor as io-pgtable (ARM_MALI_LPAE) writes it: page | ATTRINDX 1 | read | write | SH. */
#define PAGE_RW (1UL | (1UL << 2) | (1UL << 6) | (1UL << 7) | (2UL << 8))

static void map_page(u64 va, u64 pa) { tables[3][(va >> 12) & 0x1ff] = pa | PAGE_RW; }

static void on_irq(struct frame *f, int vec) {
  (void)f;
  (void)vec;
  u32 iar = gicc_r(GICC_IAR);
  u32 id = iar & 0x3ff;
  if (id == JOB_INTID) {
    u32 st = gr(JOB_INT_STAT);
    job_events |= st;
    gw(JOB_INT_CLEAR, st);
    job_irqs++;
    irq_time = cntpct();
  } else if (id == MMU_INTID) {
    u32 st = gr(MMU_INT_STAT);
    fault_status = gr(AS(1, AS_FAULTSTATUS));
    fault_addr = gr(AS(1, AS_FAULTADDRESS_LO));
    gw(MMU_INT_CLEAR, st);
    mmu_irqs++;
    if (grow_heap) {
      /* panfrost_mmu_map_fault_addr: map, then lock + FLUSH_PT. */
      map_page(fault_addr & ~0xfffUL, (u64)heap);
      dsb(sy);
      gw(AS(1, AS_LOCKADDR_LO), (u32)(fault_addr & ~0xfffUL) | 14); /* 32 KiB region */
      gw(AS(1, AS_LOCKADDR_HI), 0);
      as_cmd(1, AS_CMD_LOCK);
      as_cmd(1, AS_CMD_FLUSH_PT);
    } else {
      /* An unhandled fault: panfrost_mmu_disable (lock everything + FLUSH_MEM, tables off, UPDATE). */
      gw(AS(1, AS_LOCKADDR_LO), 47);
      gw(AS(1, AS_LOCKADDR_HI), 0);
      as_cmd(1, AS_CMD_LOCK);
      as_cmd(1, AS_CMD_FLUSH_MEM);
      gw(AS(1, AS_TRANSTAB_LO), 0);
      gw(AS(1, AS_TRANSTAB_HI), 0);
      gw(AS(1, AS_MEMATTR_LO), 0);
      as_cmd(1, AS_CMD_UPDATE);
    }
  }
  gicc_w(GICC_EOIR, iar);
}

/* Sleeps until `counter` reaches `target` (an interrupt handler increments it); 0 if it never does. */
static int wait_for(volatile u32 *counter, u32 target) {
  irq_disable();
  for (int i = 0; i < 1000 && *counter < target; i++) {
    wfi(); /* wakes on a pending interrupt even while masked */
    irq_enable();
    isb();
    irq_disable();
  }
  irq_enable();
  return *counter >= target;
}

static void put_header(u8 *at, u32 type, u32 index, u64 next, u32 dep) {
  u32 *w = (u32 *)at;
  for (int i = 0; i < 8; i++) w[i] = 0;
  w[4] = 1u | type << 1 | index << 16;
  w[5] = dep;
  w[6] = (u32)next;
  w[7] = (u32)(next >> 32);
}
static void put_write(u8 *at, u32 index, u64 next, u32 dep, u64 target, u32 type, u64 value) {
  put_header(at, JOB_WRITE_VALUE, index, next, dep);
  u32 *w = (u32 *)(at + 32);
  w[0] = (u32)target;
  w[1] = (u32)(target >> 32);
  w[2] = type;
  w[3] = 0;
  w[4] = (u32)value;
  w[5] = (u32)(value >> 32);
}
static u32 rd32(const void *p) { return *(volatile const u32 *)p; }
static u64 rd64(const void *p) { return rd32(p) | (u64)rd32((const u8 *)p + 4) << 32; }

static void submit(unsigned slot, u64 jc, unsigned as) {
  expect_eq("COMMAND_NEXT free", gr(JS(slot, JS_COMMAND_NEXT)), 0);
  gw(JS(slot, JS_HEAD_NEXT_LO), (u32)jc);
  gw(JS(slot, JS_HEAD_NEXT_HI), (u32)(jc >> 32));
  gw(JS(slot, JS_CONFIG_NEXT), as | 8u << 16 | 3u << 8 | 3u << 12);
  gw(JS(slot, JS_COMMAND_NEXT), 1);
}

void secondary_main(void *ctx) { (void)ctx; }

void test_main(void) {
  irq_handler = on_irq;
  gic_dist_init();
  gic_cpu_init();
  u32 ids[] = {JOB_INTID, MMU_INTID};
  for (int i = 0; i < 2; i++) {
    u32 id = ids[i];
    u32 off = GICD_ITARGETSR + (id & ~3u), sh = (id & 3) * 8;
    gicd_w(off, (gicd_r(off) & ~(0xffu << sh)) | (gic_my_cpu_mask() << sh));
    gic_set_priority(id, 0x80);
    gic_enable(id);
  }
  irq_enable();

  test_begin("gpu_reset");
  gw(GPU_INT_MASK, 0);
  gw(GPU_INT_CLEAR, 1u << 8);
  gw(GPU_COMMAND, 1);
  int polls = 0;
  while (!(gr(GPU_INT_RAWSTAT) & (1u << 8)) && polls < 1000) polls++;
  expect_true("RESET_COMPLETED", gr(GPU_INT_RAWSTAT) & (1u << 8));
  gw(GPU_INT_CLEAR, ~0u);
  gw(JOB_INT_MASK, 0x70007);
  gw(MMU_INT_MASK, ~0u);
  /* AS0 identity (GPU VA = PA); AS1 through page tables. */
  gw(AS(0, AS_TRANSTAB_LO), 2);
  as_cmd(0, AS_CMD_UPDATE);
  tables[0][(JOBS_VA >> 39) & 0x1ff] = (u64)tables[1] | 3;
  tables[1][(JOBS_VA >> 30) & 0x1ff] = (u64)tables[2] | 3;
  tables[2][(JOBS_VA >> 21) & 0x1ff] = (u64)tables[3] | 3;
  test_end();

  test_begin("write_value_chain_identity_as");
  /* Three write-value jobs and a Null job; job 1 waits for job 3 (the scoreboard reorders them). */
  u64 j = (u64)jobs, d = (u64)data;
  put_write(jobs + 0x000, 1, j + 0x40, 3, d + 0, WRITE_IMM32, 0x11111111);
  put_write(jobs + 0x040, 2, j + 0x80, 0, d + 4, WRITE_IMM32, 0x22222222);
  put_write(jobs + 0x080, 3, j + 0xc0, 0, d + 8, WRITE_TIMESTAMP, 0);
  put_header(jobs + 0x0c0, JOB_NULL, 4, 0, 1);
  u64 t0 = cntpct();
  submit(1, j, 0);
  expect_true("job irq", wait_for(&job_irqs, 1));
  expect_eq("JOB_INT events", job_events, 1u << 1);
  expect_eq("JS1_STATUS", gr(JS(1, JS_STATUS)), 1);
  expect_eq("JS_STATE", gr(JOB_INT_JS_STATE), 0);
  expect_eq("value 1", rd32(data + 0), 0x11111111);
  expect_eq("value 2", rd32(data + 4), 0x22222222);
  expect_true("timestamp after submit", rd64(data + 8) >= t0);
  for (int i = 0; i < 4; i++) expect_eq("header DONE", rd32(jobs + 0x40 * i), 1);
  printf("# chain of 4: submitted at %lu, timestamp job at %lu, interrupt at %lu\n", t0, rd64(data + 8), irq_time);
  test_end();

  test_begin("two_chains_on_next");
  job_events = 0;
  put_write(jobs + 0x100, 1, 0, 0, d + 16, WRITE_TIMESTAMP, 0);
  put_write(jobs + 0x140, 1, 0, 0, d + 24, WRITE_TIMESTAMP, 0);
  u32 irqs = job_irqs;
  irq_disable(); /* queue both before any completion can interrupt */
  submit(1, j + 0x100, 0);
  submit(1, j + 0x140, 0);
  expect_eq("JS_STATE both", gr(JOB_INT_JS_STATE), (1u << 1) | (1u << 17));
  irq_enable();
  int ok = 0;
  for (int i = 0; i < 100 && !ok; i++) {
    wait_for(&job_irqs, job_irqs + 1);
    ok = gr(JOB_INT_JS_STATE) == 0 && rd64(data + 24) != 0;
  }
  expect_true("both done", ok);
  expect_true("interrupts", job_irqs > irqs);
  expect_true("in order", rd64(data + 24) > rd64(data + 16));
  printf("# chain A job at %lu, chain B job at %lu\n", rd64(data + 16), rd64(data + 24));
  test_end();

  test_begin("mmu_fault_stall_then_grow");
  /* AS1: the job page is mapped; the write target on the heap page is not, until the fault handler maps
   * it (panfrost's growable heap). */
  job_events = 0;
  u64 jobs_va = JOBS_VA, heap_va = HEAP_VA;
  map_page(jobs_va, (u64)jobs);
  u64 transtab = (u64)tables[0] | 3 | 1u << 2;
  as1_transtab = transtab;
  gw(AS(1, AS_TRANSTAB_LO), (u32)transtab);
  gw(AS(1, AS_TRANSTAB_HI), (u32)(transtab >> 32));
  gw(AS(1, AS_MEMATTR_LO), 0x00888d88);
  as_cmd(1, AS_CMD_UPDATE);
  put_write(jobs + 0x200, 1, 0, 0, heap_va + 0x10, WRITE_IMM32, 0xabcd1234);
  grow_heap = 1;
  irqs = job_irqs;
  submit(1, jobs_va + 0x200, 1);
  expect_true("mmu irq", wait_for(&mmu_irqs, 1));
  expect_eq("fault status (level-3 translation, write)", fault_status, 0xc3u | 3u << 8);
  expect_eq("fault address", fault_addr, (u32)(heap_va + 0x10));
  expect_true("job irq after the fix", wait_for(&job_irqs, irqs + 1));
  expect_eq("JS1_STATUS", gr(JS(1, JS_STATUS)), 1);
  expect_eq("JOB_INT events", job_events, 1u << 1);
  expect_eq("written through the new page", rd32(heap + 0x10), 0xabcd1234);
  expect_eq("MMU_INT_RAWSTAT", gr(MMU_INT_RAWSTAT), 0);
  printf("# fault handled, job done at %lu\n", irq_time);
  test_end();

  test_begin("unhandled_fault_disables_as");
  /* A write to a page nobody maps: the handler disables the AS and the job ends with the fault. */
  job_events = 0;
  grow_heap = 0;
  irqs = job_irqs;
  u32 mmu_before = mmu_irqs;
  put_write(jobs + 0x240, 1, 0, 0, HEAP_VA + 0x3000, WRITE_IMM32, 0x5555);
  submit(1, jobs_va + 0x240, 1);
  expect_true("mmu irq", wait_for(&mmu_irqs, mmu_before + 1));
  expect_true("job irq", wait_for(&job_irqs, irqs + 1));
  expect_eq("JOB_INT events (error)", job_events, 1u << 17);
  expect_eq("JS1_STATUS (level-3 translation fault)", gr(JS(1, JS_STATUS)), 0xc3);
  expect_eq("JS1_HEAD", gr(JS(1, JS_HEAD_LO)), (u32)(jobs_va + 0x240));
  expect_eq("one MMU interrupt", mmu_irqs, mmu_before + 1);
  /* panfrost_mmu_as_get on the next submission: clear, re-enable; then a good job runs. */
  gw(MMU_INT_CLEAR, 0x20002);
  gw(AS(1, AS_TRANSTAB_LO), (u32)as1_transtab);
  gw(AS(1, AS_TRANSTAB_HI), (u32)(as1_transtab >> 32));
  gw(AS(1, AS_MEMATTR_LO), 0x00888d88);
  as_cmd(1, AS_CMD_UPDATE);
  job_events = 0;
  put_write(jobs + 0x280, 1, 0, 0, HEAP_VA + 0x20, WRITE_IMM32, 0x6666);
  submit(1, jobs_va + 0x280, 1);
  expect_true("job irq", wait_for(&job_irqs, irqs + 2));
  expect_eq("JOB_INT events (done)", job_events, 1u << 1);
  expect_eq("written", rd32(heap + 0x20), 0x6666);
  test_end();

  done();
}
