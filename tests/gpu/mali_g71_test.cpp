// MaliG71 device model driven the way Linux's panfrost driver drives it: probe, reset, power, MMU enable,
// job submission on a slot's _NEXT registers, interrupts. Expected values are the reference values of
// ../shared/reference/mali-g71.md (kbase tMIx dummy model, panfrost_regs.h) and the job layouts of v6.xml.
#include "gpu-bifrost/mali_g71.h"
#include "mali_fixture.h"
#include <memory>
#include <stdexcept>

using namespace vplat;
using namespace vplat::gpu;
using namespace gputest;

namespace {

TEST_F(MaliTest, ProbeValues) {
  EXPECT_EQ(rd(reg::GPU_ID), 0x60000000u);
  EXPECT_EQ(rd(reg::GPU_ID) >> 16, 0x6000u);
  EXPECT_EQ(rd(reg::L2_FEATURES), 0x06100206u);
  EXPECT_EQ(rd(reg::CORE_FEATURES), 0u);
  EXPECT_EQ(rd(reg::TILER_FEATURES), 0x809u);
  EXPECT_EQ(rd(reg::MEM_FEATURES), 0x1u);
  EXPECT_EQ(rd(reg::MMU_FEATURES), 0x2830u);
  EXPECT_EQ(rd(reg::MMU_FEATURES) & 0xff, 48u);       // VA bits
  EXPECT_EQ((rd(reg::MMU_FEATURES) >> 8) & 0xff, 40u); // PA bits
  EXPECT_EQ(rd(reg::AS_PRESENT), 0xffu);
  EXPECT_EQ(rd(reg::JS_PRESENT), 0x7u);
  EXPECT_EQ(rd(reg::THREAD_MAX_THREADS), 384u);
  EXPECT_EQ(rd(reg::THREAD_MAX_WORKGROUP_SIZE), 384u);
  EXPECT_EQ(rd(reg::THREAD_MAX_BARRIER_SIZE), 384u);
  EXPECT_EQ(rd(reg::THREAD_FEATURES) & 0xffff, 0x6000u); // Mesa: registers per core
  EXPECT_EQ(rd(reg::THREAD_FEATURES) >> 24, 10u);
  EXPECT_EQ(rd(reg::TEXTURE_FEATURES(0)), 0x000fffffu);
  EXPECT_EQ(rd(reg::TEXTURE_FEATURES(1)), 0x0000ffffu);
  EXPECT_EQ(rd(reg::TEXTURE_FEATURES(2)), 0x9f81ffffu);
  EXPECT_EQ(rd(reg::TEXTURE_FEATURES(3)), 0u);
  EXPECT_EQ(rd(reg::JS_FEATURES(0)), 0x20eu);
  EXPECT_EQ(rd(reg::JS_FEATURES(1)), 0x1feu);
  EXPECT_EQ(rd(reg::JS_FEATURES(2)), 0x7eu);
  EXPECT_EQ(rd(reg::JS_FEATURES(3)), 0u);
  EXPECT_EQ(rd(reg::SHADER_PRESENT_LO), 0xffu);
  EXPECT_EQ(rd(reg::SHADER_PRESENT_HI), 0u);
  EXPECT_EQ(rd(reg::TILER_PRESENT_LO), 1u);
  EXPECT_EQ(rd(reg::L2_PRESENT_LO), 1u);
  EXPECT_EQ(rd(reg::STACK_PRESENT_LO), 0u);
  EXPECT_EQ(rd(reg::THREAD_TLS_ALLOC), 0u);
  EXPECT_EQ(rd(reg::AFBC_FEATURES), 0u);
  EXPECT_NE(rd(reg::COHERENCY_FEATURES), 0x2u); // exactly ACE would trigger panfrost's G71 quirk
  EXPECT_EQ(rd(reg::COHERENCY_FEATURES), 0x1u);
  // A 64-bit read of a LO/HI pair.
  EXPECT_EQ(gpu->read(reg::SHADER_PRESENT_LO, 8), 0xffu);
  EXPECT_EQ(gpu->name(), "mali-g71");
}

TEST_F(MaliTest, ShaderCoreCount) {
  EXPECT_EQ(make(1)->read(reg::SHADER_PRESENT_LO, 4), 0x1u);
  EXPECT_EQ(make(4)->read(reg::SHADER_PRESENT_LO, 4), 0xfu);
  EXPECT_EQ(make(32)->read(reg::SHADER_PRESENT_LO, 4), 0xffffffffu);
  EXPECT_EQ(make(32)->shader_cores(), 32u);
  EXPECT_THROW(make(0), std::invalid_argument);
  EXPECT_THROW(make(33), std::invalid_argument);
}

TEST_F(MaliTest, RegisterTableIsConsistent) {
  // One entry per offset, all word aligned and inside the window; named lookups work.
  std::vector<bool> seen(MaliG71::kWindowSize / 4);
  for (const auto& d : gpu->registers()) {
    ASSERT_EQ(d.offset % 4, 0u) << d.name;
    ASSERT_LT(d.offset, MaliG71::kWindowSize) << d.name;
    EXPECT_FALSE(seen[d.offset / 4]) << "duplicate " << d.name;
    seen[d.offset / 4] = true;
  }
  ASSERT_NE(gpu->describe(reg::js(1, reg::JS_COMMAND_NEXT)), nullptr);
  EXPECT_EQ(gpu->describe(reg::js(1, reg::JS_COMMAND_NEXT))->name, "JS1_COMMAND_NEXT");
  EXPECT_EQ(gpu->describe(reg::as(7, reg::AS_TRANSCFG_HI))->name, "AS7_TRANSCFG_HI");
  EXPECT_EQ(gpu->describe(reg::GPU_ID)->name, "GPU_ID");
  EXPECT_EQ(gpu->describe(0x3000), nullptr);
}

// panfrost_perfcnt_init writes PERFCNT_CFG, JM_EN, SHADER_EN, MMU_L2_EN and TILER_EN (0x68, 0x6c, 0x70, 0x7c,
// 0x74 in panfrost_regs.h) at probe; they are plain storage on the hardware, reset to 0 (counters off).
TEST_F(MaliTest, PerfCounterSetupRegistersHoldValues) {
  const std::pair<uint32_t, const char*> regs[] = {{0x60, "PRFCNT_BASE_LO"}, {0x64, "PRFCNT_BASE_HI"},
                                                   {0x68, "PRFCNT_CONFIG"},  {0x6c, "PRFCNT_JM_EN"},
                                                   {0x70, "PRFCNT_SHADER_EN"}, {0x74, "PRFCNT_TILER_EN"},
                                                   {0x7c, "PRFCNT_MMU_L2_EN"}};
  for (auto [off, name] : regs) {
    ASSERT_NE(gpu->describe(off), nullptr) << std::hex << off;
    EXPECT_EQ(gpu->describe(off)->name, name);
    EXPECT_EQ(rd(off), 0u) << name;
    wr(off, 0xffffffff);
    EXPECT_EQ(rd(off), 0xffffffffu) << name;
  }
  EXPECT_EQ(gpu->describe(0x78), nullptr); // no L3 cache counters on Bifrost
}

TEST_F(MaliTest, UnknownOffsetsReadZeroAndIgnoreWrites) {
  for (uint32_t off : {0x3000u, 0xfffcu, 0x2c0u, 0x1020u, reg::js(3, 0), reg::as(8, 0), reg::js(1, 0x28), reg::as(0, 0x2c)}) {
    wr(off, 0xdeadbeef);
    EXPECT_EQ(rd(off), 0u) << std::hex << off;
  }
  // Read-only registers ignore writes.
  wr(reg::GPU_ID, 0x12345678);
  EXPECT_EQ(rd(reg::GPU_ID), 0x60000000u);
  wr(reg::SHADER_READY_LO, 0xff);
  EXPECT_EQ(rd(reg::SHADER_READY_LO), 0u);
  // Out-of-window and misaligned accesses are harmless.
  EXPECT_EQ(gpu->read(0x10000, 4), 0u);
  EXPECT_EQ(gpu->read(0xfffe, 4), 0u);
  gpu->write(0x10000, 4, 1);
  // Narrow reads see part of the register.
  EXPECT_EQ(gpu->read(reg::GPU_ID + 2, 2), 0x6000u);
  EXPECT_EQ(gpu->read(reg::GPU_ID + 3, 1), 0x60u);
}

TEST_F(MaliTest, SoftResetSequence) {
  wr(reg::JM_CONFIG, 0x1234);
  wr(reg::SHADER_PWRON_LO, 0xff);
  EXPECT_EQ(soft_reset(), 1); // RESET_COMPLETED is visible at the first poll
  EXPECT_EQ(rd(reg::GPU_INT_RAWSTAT), 0u);
  EXPECT_EQ(rd(reg::GPU_INT_MASK), GPU_IRQ_ALL);
  EXPECT_FALSE(gpu_line);
  // Reset restored reset values.
  EXPECT_EQ(rd(reg::JM_CONFIG), 0u);
  EXPECT_EQ(rd(reg::SHADER_READY_LO), 0u);
  EXPECT_EQ(rd(reg::COHERENCY_ENABLE), 31u);
  // Hard reset, with the interrupt unmasked (as kbase does): the line rises.
  wr(reg::GPU_INT_MASK, GPU_IRQ_RESET_COMPLETED);
  wr(reg::GPU_COMMAND, GPU_CMD_HARD_RESET);
  EXPECT_TRUE(gpu_line);
  EXPECT_EQ(rd(reg::GPU_INT_STATUS), GPU_IRQ_RESET_COMPLETED);
  wr(reg::GPU_INT_CLEAR, GPU_IRQ_RESET_COMPLETED);
  EXPECT_FALSE(gpu_line);
}

TEST_F(MaliTest, PowerOnOffWithInterrupts) {
  soft_reset();
  // panfrost_gpu_power_on: L2, then shader cores, then tiler; each polled on READY.
  wr(reg::L2_PWRON_LO, rd(reg::L2_PRESENT_LO));
  EXPECT_EQ(rd(reg::L2_READY_LO), 1u);
  EXPECT_EQ(rd(reg::L2_PWRTRANS_LO), 0u);
  EXPECT_EQ(rd(reg::GPU_INT_RAWSTAT), GPU_IRQ_POWER_CHANGED_SINGLE | GPU_IRQ_POWER_CHANGED_ALL);
  EXPECT_TRUE(gpu_line);
  wr(reg::GPU_INT_CLEAR, GPU_IRQ_POWER_CHANGED_SINGLE | GPU_IRQ_POWER_CHANGED_ALL);
  EXPECT_FALSE(gpu_line);
  // Cores that are not present do not power up.
  wr(reg::SHADER_PWRON_LO, 0xffff);
  EXPECT_EQ(rd(reg::SHADER_READY_LO), 0xffu);
  wr(reg::TILER_PWRON_LO, 1);
  EXPECT_EQ(rd(reg::TILER_READY_LO), 1u);
  EXPECT_TRUE(gpu_line);
  wr(reg::GPU_INT_CLEAR, GPU_IRQ_ALL);
  // Power off half the shader cores.
  wr(reg::SHADER_PWROFF_LO, 0x0f);
  EXPECT_EQ(rd(reg::SHADER_READY_LO), 0xf0u);
  EXPECT_EQ(rd(reg::SHADER_PWRTRANS_LO), 0u);
  EXPECT_EQ(rd(reg::GPU_INT_STATUS), GPU_IRQ_POWER_CHANGED_SINGLE | GPU_IRQ_POWER_CHANGED_ALL);
  wr(reg::GPU_INT_CLEAR, GPU_IRQ_ALL);
  // A write naming no present core changes nothing and raises nothing.
  wr(reg::SHADER_PWRON_LO + 4, 0xffffffff); // SHADER_PWRON_HI
  EXPECT_EQ(rd(reg::GPU_INT_RAWSTAT), 0u);
  // With the interrupt masked the line stays low though RAWSTAT records the event.
  wr(reg::GPU_INT_MASK, 0);
  wr(reg::L2_PWROFF_LO, 1);
  EXPECT_EQ(rd(reg::L2_READY_LO), 0u);
  EXPECT_NE(rd(reg::GPU_INT_RAWSTAT), 0u);
  EXPECT_EQ(rd(reg::GPU_INT_STATUS), 0u);
  EXPECT_FALSE(gpu_line);
}

TEST_F(MaliTest, CacheCleanAndCounters) {
  soft_reset();
  uint32_t flush = rd(reg::LATEST_FLUSH);
  wr(reg::GPU_COMMAND, GPU_CMD_CLEAN_INV_CACHES);
  EXPECT_EQ(rd(reg::GPU_INT_RAWSTAT), GPU_IRQ_CLEAN_CACHES_COMPLETED);
  EXPECT_TRUE(gpu_line);
  EXPECT_EQ(rd(reg::LATEST_FLUSH), flush + 1);
  wr(reg::GPU_INT_CLEAR, GPU_IRQ_CLEAN_CACHES_COMPLETED);
  wr(reg::GPU_COMMAND, GPU_CMD_CLEAN_CACHES);
  EXPECT_EQ(rd(reg::GPU_INT_RAWSTAT), GPU_IRQ_CLEAN_CACHES_COMPLETED);

  gpu->set_clock(&clock);
  clock.advance(1000);
  EXPECT_EQ(gpu->read(reg::TIMESTAMP_LO, 8), 1000u); // TIMESTAMP is the 50 MHz system counter
  EXPECT_EQ(gpu->read(reg::CYCLE_COUNT_LO, 8), 0u);
  wr(reg::GPU_COMMAND, GPU_CMD_CYCLE_COUNT_START);
  EXPECT_TRUE(rd(reg::GPU_STATUS) & GPU_STATUS_CYCLE_COUNT_ACTIVE);
  clock.advance(100);
  // 100 ticks of 50 MHz at an 800 MHz GPU clock = 1600 cycles.
  EXPECT_EQ(gpu->read(reg::CYCLE_COUNT_LO, 8), 1600u);
  wr(reg::GPU_COMMAND, GPU_CMD_CYCLE_COUNT_STOP);
  clock.advance(100);
  EXPECT_EQ(gpu->read(reg::CYCLE_COUNT_LO, 8), 1600u);
  EXPECT_FALSE(rd(reg::GPU_STATUS) & GPU_STATUS_CYCLE_COUNT_ACTIVE);
  clock.advance((1ull << 32) / 16);
  wr(reg::GPU_COMMAND, GPU_CMD_CYCLE_COUNT_START);
  clock.advance((1ull << 32) / 16);
  // Past 32 bits: HI counts too (1600 + 2^32).
  EXPECT_EQ(rd(reg::CYCLE_COUNT_HI), 1u);
  EXPECT_EQ(rd(reg::CYCLE_COUNT_LO), 1600u);
}

TEST_F(MaliTest, AsCommandsReportActiveThenDone) {
  soft_reset();
  EXPECT_EQ(rd(reg::as(0, reg::AS_STATUS)), 0u);
  wr(reg::as(0, reg::AS_COMMAND), AS_CMD_FLUSH_PT);
  EXPECT_EQ(rd(reg::as(0, reg::AS_STATUS)), AS_STATUS_ACTIVE);
  EXPECT_EQ(rd(reg::as(0, reg::AS_STATUS)), 0u);
  EXPECT_EQ(wait_ready(0), 1);
  // NOP does nothing; other address spaces are unaffected.
  wr(reg::as(2, reg::AS_COMMAND), AS_CMD_NOP);
  EXPECT_EQ(rd(reg::as(2, reg::AS_STATUS)), 0u);
  wr(reg::as(2, reg::AS_COMMAND), AS_CMD_LOCK);
  EXPECT_EQ(rd(reg::as(3, reg::AS_STATUS)), 0u);
  EXPECT_EQ(wait_ready(2), 2);
}

TEST_F(MaliTest, MmuEnableAndTranslateThroughJob) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  EXPECT_EQ(gpu->mmu().transtab(0), pt->pgd() | kTranstabFlags);
  EXPECT_EQ(rd(reg::as(0, reg::AS_MEMATTR_LO)), 0x00888d88u);
  // A Write-value job at kGpuVa writing 0xcafef00d to kGpuVa + 0x1000: only works through the page tables.
  put_header(bus, pa_of(kGpuVa), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(kGpuVa), kGpuVa + 0x1000, job::Immediate32, 0xcafef00d);
  submit(1, kGpuVa);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa + 0x1000)), 0xcafef00du);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u);
}

TEST_F(MaliTest, NullJobChainCompletesWithInterruptAndWriteback) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  // Three Null jobs, 64-byte aligned, each depending on the previous one.
  uint64_t a = kGpuVa, b = kGpuVa + 0x40, c = kGpuVa + 0x80;
  put_header(bus, pa_of(a), job::Null, 1, b);
  put_header(bus, pa_of(b), job::Null, 2, c, 1);
  put_header(bus, pa_of(c), job::Null, 3, 0, 2);
  EXPECT_FALSE(job_line);
  submit(1, a);
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), 0u); // taken by the job manager
  for (uint64_t j : {a, b, c}) EXPECT_EQ(ram32(bus, pa_of(j)), 0x01u) << std::hex << j;
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  EXPECT_EQ(rd(reg::JOB_INT_STATUS), 1u << 1);
  EXPECT_TRUE(job_line);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_HEAD_LO), 8), 0u);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_TAIL_LO), 8), c);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_AFFINITY_LO), 8), 0xffu);
  // The IRQ handler: clear, then JS_STATE sampled for the slot says it is idle.
  wr(reg::JOB_INT_CLEAR, rd(reg::JOB_INT_STATUS));
  EXPECT_FALSE(job_line);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  // A second submission on the same slot works.
  put_header(bus, pa_of(a), job::Null, 1, 0);
  submit(1, a);
  EXPECT_TRUE(job_line);
  // With the job interrupt masked, RAWSTAT records it but the line stays low.
  wr(reg::JOB_INT_CLEAR, ~0u);
  wr(reg::JOB_INT_MASK, 0);
  put_header(bus, pa_of(a), job::Null, 1, 0);
  submit(0, a);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u);
  EXPECT_FALSE(job_line);
}

TEST_F(MaliTest, WriteValueJobs) {
  soft_reset();
  unmask_all();
  gpu->set_clock(&clock);
  clock.advance(12345);
  map_and_enable(0);
  uint64_t buf = kGpuVa + 0x2000;
  uint64_t fill = ~0ull;
  for (int i = 0; i < 8; i++) ASSERT_TRUE(bus.copy_to(pa_of(buf) + 8 * i, &fill, 8));
  struct {
    uint32_t type;
    uint64_t imm;
  } jobs[] = {{job::Immediate8, 0x1122334455667788ull},  {job::Immediate16, 0x1122334455667788ull},
              {job::Immediate32, 0x1122334455667788ull}, {job::Immediate64, 0x1122334455667788ull},
              {job::Zero, 0x99},                          {job::SystemTimestamp, 0}};
  const unsigned n = sizeof jobs / sizeof jobs[0];
  for (unsigned i = 0; i < n; i++) {
    uint64_t at = kGpuVa + 0x40 * i;
    put_header(bus, pa_of(at), job::WriteValue, static_cast<uint16_t>(i + 1), i + 1 < n ? at + 0x40 : 0);
    put_write_value(bus, pa_of(at), buf + 8 * i, jobs[i].type, jobs[i].imm);
  }
  submit(1, kGpuVa);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram64(bus, pa_of(buf) + 0), 0xffffffffffffff88ull);  // 8 bits written, the rest untouched
  EXPECT_EQ(ram64(bus, pa_of(buf) + 8), 0xffffffffffff7788ull);
  EXPECT_EQ(ram64(bus, pa_of(buf) + 16), 0xffffffff55667788ull);
  EXPECT_EQ(ram64(bus, pa_of(buf) + 24), 0x1122334455667788ull);
  EXPECT_EQ(ram64(bus, pa_of(buf) + 32), 0u);
  // The timestamp is the virtual time the sixth job began: START at 12345, then one step per job before it.
  EXPECT_EQ(ram64(bus, pa_of(buf) + 40), 12345u + 5 * JobManager::kStepTicks);
  EXPECT_EQ(ram64(bus, pa_of(buf) + 48), ~0ull);
  for (unsigned i = 0; i < n; i++) EXPECT_EQ(ram32(bus, pa_of(kGpuVa + 0x40 * i)), 0x01u);
}

TEST_F(MaliTest, DependenciesReorderJobs) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  uint64_t x = kGpuVa + 0x3000;
  // In chain order: job A (index 2, waits for index 1) writes 2; job B (index 1) writes 1. The scoreboard
  // runs B first, so X ends as 2; plain chain order would leave 1.
  uint64_t a = kGpuVa, b = kGpuVa + 0x40;
  put_header(bus, pa_of(a), job::WriteValue, 2, b, 1);
  put_write_value(bus, pa_of(a), x, job::Immediate32, 2);
  put_header(bus, pa_of(b), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(b), x, job::Immediate32, 1);
  submit(1, a);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(x)), 2u);
  EXPECT_EQ(ram32(bus, pa_of(a)), 1u);
  EXPECT_EQ(ram32(bus, pa_of(b)), 1u);
}

TEST_F(MaliTest, BarrierWaitsForEarlierJobs) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  uint64_t x = kGpuVa + 0x3000;
  // J1 (index 1) waits for index 3; J2 (index 2, barrier) must wait for J1; J3 (index 3) is free.
  // Order run: J3 (X=3), J1 (X=1), J2 (X=2): X ends as 2. Without the barrier J2 would run before J1.
  uint64_t j1 = kGpuVa, j2 = kGpuVa + 0x40, j3 = kGpuVa + 0x80;
  put_header(bus, pa_of(j1), job::WriteValue, 1, j2, 3);
  put_write_value(bus, pa_of(j1), x, job::Immediate32, 1);
  put_header(bus, pa_of(j2), job::WriteValue, 2, j3, 0, 0, /*barrier=*/true);
  put_write_value(bus, pa_of(j2), x, job::Immediate32, 2);
  put_header(bus, pa_of(j3), job::WriteValue, 3, 0);
  put_write_value(bus, pa_of(j3), x, job::Immediate32, 3);
  submit(1, j1);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(x)), 2u);
}

TEST_F(MaliTest, UnmappedJobPointerGivesMmuFault) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  uint64_t bad = 0x40000000; // nothing mapped there
  put_header(bus, pa_of(kGpuVa), job::Null, 1, bad);
  submit(1, kGpuVa);
  // The first job completed; the walk faulted on the next pointer and the slot stalls on it.
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), 0x01u);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 0u);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 1);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  EXPECT_TRUE(mmu_line);
  // The level-1 table for 0x40000000 (L1 index 1) is absent: level 1, read access.
  EXPECT_EQ(rd(reg::as(0, reg::AS_FAULTSTATUS)), 0xc1u | (2u << 8));
  EXPECT_EQ(gpu->read(reg::as(0, reg::AS_FAULTADDRESS_LO), 8), bad);
  // panfrost for an unhandled fault: clear the interrupt, then disable the AS (TRANSTAB unmapped +
  // UPDATE). The retried access finds no translation and the job ends with the fault that stalled it.
  wr(reg::MMU_INT_CLEAR, 1);
  EXPECT_FALSE(mmu_line);
  wr(reg::as(0, reg::AS_TRANSTAB_LO), 0);
  wr(reg::as(0, reg::AS_TRANSTAB_HI), 0);
  as_cmd(0, AS_CMD_UPDATE);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0xc1u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_TRUE(job_line);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_HEAD_LO), 8), bad);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u); // no second report for the retry
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);

  // A write-value job writing to a read-only page: a permission fault on a write. A driver that
  // only clears the interrupt (panfrost before 2021) leaves the job stalled until its timeout soft-stops it.
  mmu_enable(0, pt->pgd());
  pt->map(kGpuVa + 0x10000, kDataPa + 0x10000, kRo);
  put_header(bus, pa_of(kGpuVa), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(kGpuVa), kGpuVa + 0x10008, job::Immediate32, 5);
  wr(reg::JOB_INT_CLEAR, ~0u);
  submit(1, kGpuVa);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  EXPECT_EQ(rd(reg::as(0, reg::AS_FAULTSTATUS)), 0xcbu | (3u << 8));
  EXPECT_EQ(gpu->read(reg::as(0, reg::AS_FAULTADDRESS_LO), 8), kGpuVa + 0x10008);
  wr(reg::MMU_INT_CLEAR, 1);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE); // clearing alone retries nothing
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 1);
  wr(reg::js(1, reg::JS_COMMAND_NEXT), JS_CMD_NOP);
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_SOFT_STOP);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::STOPPED);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  // Resumable from JS_TAIL: the job itself, untouched.
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_TAIL_LO), 8), kGpuVa);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), 0u);
  EXPECT_EQ(ram32(bus, kDataPa + 0x10008), 0u);
}

TEST_F(MaliTest, MalformedChainsFaultWithoutHanging) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  auto run = [&](uint64_t head, unsigned slot = 1) {
    wr(reg::JOB_INT_CLEAR, ~0u);
    submit(slot, head);
    return rd(reg::js(slot, reg::JS_STATUS));
  };
  uint64_t a = kGpuVa, b = kGpuVa + 0x40;
  // A cycle A -> B -> A.
  put_header(bus, pa_of(a), job::Null, 1, b);
  put_header(bus, pa_of(b), job::Null, 2, a);
  EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_HEAD_LO), 8), a);
  // A job pointing at itself.
  put_header(bus, pa_of(a), job::Null, 1, a);
  EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT);
  // A misaligned head.
  EXPECT_EQ(run(a + 8), exc::JOB_CONFIG_FAULT);
  // Types the model does not run, and types that do not exist.
  for (uint32_t type : {0u, uint32_t{job::Vertex}, uint32_t{job::Tiler}, uint32_t{job::Fragment}, 11u, 0x7fu}) {
    put_header(bus, pa_of(a), type, 1, 0);
    EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT) << type;
    EXPECT_EQ(ram32(bus, pa_of(a)), exc::JOB_CONFIG_FAULT);
  }
  // A 32-bit descriptor (Is 64b clear).
  put_header(bus, pa_of(a), job::Null, 1, 0, 0, 0, false, /*is64=*/false);
  EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT);
  // A dependency no job in the chain satisfies.
  put_header(bus, pa_of(a), job::Null, 1, 0, 7);
  EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT);
  // An unknown write-value type.
  put_header(bus, pa_of(a), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(a), kGpuVa + 0x3000, 9, 0);
  EXPECT_EQ(run(a), exc::JOB_CONFIG_FAULT);
  // A page mapped to a physical address outside RAM: a bus fault, no MMU interrupt, no host access.
  pt->map(kGpuVa + 0x20000, 0x10000000, kRw);
  wr(reg::as(0, reg::AS_COMMAND), AS_CMD_FLUSH_PT);
  wr(reg::MMU_INT_CLEAR, ~0u);
  put_header(bus, pa_of(a), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(a), kGpuVa + 0x20000, job::Immediate64, 1);
  EXPECT_EQ(run(a), exc::JOB_BUS_FAULT);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u);
  // An address space that does not exist in JS_CONFIG.
  put_header(bus, pa_of(a), job::Null, 1, 0);
  wr(reg::JOB_INT_CLEAR, ~0u);
  submit(1, a, 9);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
  // Head 0 and a chain on an address space that was never enabled.
  EXPECT_EQ(run(0), exc::DONE);
  wr(reg::JOB_INT_CLEAR, ~0u);
  submit(2, a, 5);
  EXPECT_EQ(rd(reg::js(2, reg::JS_STATUS)), 0xc0u);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u << 5);
  // After all that, a good chain still runs.
  put_header(bus, pa_of(a), job::Null, 1, 0);
  EXPECT_EQ(run(a), exc::DONE);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
}

TEST_F(MaliTest, DescriptorWritebackCanBeDisabled) {
  soft_reset();
  unmask_all();
  map_and_enable(0);
  put_header(bus, pa_of(kGpuVa), job::Null, 1, 0);
  submit(1, kGpuVa, 0, JS_CONFIG_DISABLE_DESCRIPTOR_WR_BK);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), 0u);
}

TEST_F(MaliTest, LongChainIsBounded) {
  soft_reset();
  unmask_all();
  // Identity-mapped AS: a chain of 70000 Null jobs, longer than the index space, in RAM.
  wr(reg::as(1, reg::AS_TRANSTAB_LO), 0x2);
  wr(reg::as(1, reg::AS_COMMAND), AS_CMD_UPDATE);
  const uint64_t base = kRamBase + 0x800000;
  const unsigned n = 70000;
  for (unsigned i = 0; i < n; i++)
    put_header(bus, base + 64ull * i, job::Null, static_cast<uint16_t>(i + 1), i + 1 < n ? base + 64ull * (i + 1) : 0);
  submit(1, base, 1);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
}

} // namespace

// --trace gpu-regs: one line per access, with the register's name, offset, value and command names.
TEST_F(MaliTest, TraceNamesRegistersAndCommands) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  gpu->set_trace(f);
  rd(reg::GPU_ID);
  wr(reg::GPU_COMMAND, GPU_CMD_SOFT_RESET);
  wr(reg::as(1, reg::AS_COMMAND), AS_CMD_UPDATE);
  wr(reg::js(1, reg::JS_COMMAND_NEXT), JS_CMD_NOP);
  rd(0xfff0); // nothing there
  gpu->set_trace(nullptr);
  std::rewind(f);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  EXPECT_NE(text.find("gpu R GPU_ID                   0x0000 -> 0x60000000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu W GPU_COMMAND              0x0030 <- 0x00000001  SOFT_RESET\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu W AS1_COMMAND              0x2458 <- 0x00000001  UPDATE\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu W JS1_COMMAND_NEXT         0x18e0 <- 0x00000000  NOP\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu R (no register)            0xfff0 -> 0x00000000\n"), std::string::npos) << text;
}
