// The Mali-G71 job manager driven the way Linux's panfrost (6.1 / 6.12) drives it: two chains queued on a
// slot through the _NEXT registers, the IRQ handler's JS_STATE reads, soft/hard stops and resuming from
// JS_TAIL, MMU-fault stalls resolved by the driver, compute-job decoding for the shader cores, and the
// virtual times at which results become visible. Expected values come from the v6.xml layouts, the
// reference file's invocation packing rule (computed by hand below) and the timing model documented in
// job_manager.h (each job, and the end of a chain, is one step of kStepTicks plus shader cycles / 16).
#include "mali_fixture.h"
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

using namespace gputest;

namespace {

constexpr uint64_t K = JobManager::kStepTicks;

class JobManagerTest : public MaliTest {
protected:
  void SetUp() override {
    MaliTest::SetUp();
    soft_reset();
    unmask_all();
    map_and_enable(0);
    clock.advance(1000);
  }
  uint64_t rd64(uint32_t off) { return gpu->read(off, 8); }
  void put_value(uint64_t job_va, uint16_t index, uint64_t next, uint64_t target, uint32_t value, uint16_t dep = 0) {
    put_header(bus, pa_of(job_va), job::WriteValue, index, next, dep);
    put_write_value(bus, pa_of(job_va), target, job::Immediate32, value);
  }
};

TEST_F(JobManagerTest, TwoChainsQueuedOnOneSlotCompleteInOrder) {
  const uint64_t a = kGpuVa, b = kGpuVa + 0x100, x = kGpuVa + 0x1000, y = kGpuVa + 0x1008;
  put_header(bus, pa_of(a), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(a), x, job::SystemTimestamp, 0);
  put_header(bus, pa_of(b), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(b), y, job::SystemTimestamp, 0);
  const uint64_t t = clock.ticks();
  queue(1, a);
  // The free slot takes chain A at once; B waits in the _NEXT registers.
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), 0u);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 1);
  queue(1, b);
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), JS_CMD_START);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), (1u << 1) | (1u << 17));
  EXPECT_EQ(gpu->next_event(), t + K);
  // A: its job is visible at t + K, its end at t + 2K.
  advance_to(t + K);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_TAIL_LO)), a);
  advance_to(t + 2 * K - 1);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 0u);
  EXPECT_FALSE(job_line);
  advance_to(t + 2 * K);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  EXPECT_TRUE(job_line);
  // The job manager went on with B without waiting for the acknowledgement.
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), 0u);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_HEAD_LO)), b);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  // panfrost_job_handle_irq: clear, then JS_STATE says the slot is still busy, so only A is done.
  wr(reg::JOB_INT_CLEAR, 1u << 1);
  EXPECT_FALSE(job_line);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE) & 0x20002u, 1u << 1);
  advance_to(t + 4 * K - 1);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 0u);
  advance_to(t + 4 * K);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_HEAD_LO)), 0u);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_TAIL_LO)), b);
  // In order: A's job began at t, B's when A ended.
  EXPECT_EQ(ram64(bus, pa_of(x)), t);
  EXPECT_EQ(ram64(bus, pa_of(y)), t + 2 * K);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX);
}

TEST_F(JobManagerTest, FailedChainHoldsNextUntilAcknowledged) {
  const uint64_t a = kGpuVa, b = kGpuVa + 0x100, x = kGpuVa + 0x1000;
  put_header(bus, pa_of(a), job::Vertex, 1, 0);
  put_value(b, 1, 0, x, 0x1234);
  queue(1, a);
  queue(1, b);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(ram32(bus, pa_of(a)), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  // B is not started while the error is pending.
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), JS_CMD_START);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 17);
  EXPECT_EQ(ram32(bus, pa_of(x)), 0u);
  // panfrost: cancel the queued job, acknowledge, then requeue it.
  wr(reg::js(1, reg::JS_COMMAND_NEXT), JS_CMD_NOP);
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), 0u);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  wr(reg::JOB_INT_CLEAR, 1u << 17);
  run_jobs();
  EXPECT_EQ(ram32(bus, pa_of(x)), 0u);
  wr(reg::js(1, reg::JS_COMMAND_NEXT), JS_CMD_START);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(x)), 0x1234u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  // Without the cancel, acknowledging the error lets the queued job start.
  wr(reg::JOB_INT_CLEAR, ~0u);
  put_header(bus, pa_of(a), job::Fragment, 1, 0);
  put_value(b, 1, 0, x, 0x5678);
  queue(1, a);
  queue(1, b);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
  wr(reg::JOB_INT_CLEAR, 1u << 17);
  EXPECT_EQ(rd(reg::js(1, reg::JS_COMMAND_NEXT)), 0u);
  run_jobs();
  EXPECT_EQ(ram32(bus, pa_of(x)), 0x5678u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
}

TEST_F(JobManagerTest, SoftStopBetweenJobsResumesFromTail) {
  const uint64_t j1 = kGpuVa, j2 = kGpuVa + 0x40, j3 = kGpuVa + 0x80, x = kGpuVa + 0x1000;
  put_value(j1, 1, j2, x, 1);
  put_value(j2, 2, j3, x + 4, 2, 1);
  put_value(j3, 3, 0, x + 8, 3, 2); // depends on j2: only a resume that keeps the scoreboard can run it
  const uint64_t t = clock.ticks();
  queue(1, j1);
  advance_to(t + K); // j1 done; j2 is running
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_SOFT_STOP);
  // j2 completes (t + 2K), then the chain stops at the next boundary (t + 3K).
  advance_to(t + 3 * K - 1);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  advance_to(t + 3 * K);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::STOPPED);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_TAIL_LO)), j3);
  EXPECT_EQ(ram32(bus, pa_of(x)), 1u);
  EXPECT_EQ(ram32(bus, pa_of(x + 4)), 2u);
  EXPECT_EQ(ram32(bus, pa_of(x + 8)), 0u);
  EXPECT_EQ(ram32(bus, pa_of(j2)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(j3)), 0u); // not touched
  // panfrost_job_handle_err: jc = JS_TAIL, requeued.
  wr(reg::JOB_INT_CLEAR, ~0u);
  submit(1, rd64(reg::js(1, reg::JS_TAIL_LO)));
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(x + 8)), 3u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
}

TEST_F(JobManagerTest, HardStopTerminatesAndChainFlagSelectsTheChain) {
  const uint64_t j[4] = {kGpuVa, kGpuVa + 0x40, kGpuVa + 0x80, kGpuVa + 0xc0};
  const uint64_t x = kGpuVa + 0x1000;
  for (unsigned i = 0; i < 4; i++) put_value(j[i], static_cast<uint16_t>(i + 1), i < 3 ? j[i + 1] : 0, x + 4 * i, i + 1);
  const uint64_t t = clock.ticks();
  queue(1, j[0], 0, JS_CONFIG_JOB_CHAIN_FLAG);
  advance_to(t + K);
  // HARD_STOP_0 is for a chain whose flag is 0: this one runs on.
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP_0);
  advance_to(t + 2 * K);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP_1);
  run_jobs();
  // j3 was already running when the stop came (it completes); the chain ends before j4.
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::TERMINATED);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_HEAD_LO)), j[3]);
  EXPECT_EQ(ram32(bus, pa_of(x + 8)), 3u);
  EXPECT_EQ(ram32(bus, pa_of(x + 12)), 0u);
  // A stop on an idle slot does nothing.
  wr(reg::JOB_INT_CLEAR, ~0u);
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP);
  run_jobs();
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 0u);
}

TEST_F(JobManagerTest, MmuFaultStallsThenResumesAfterMappingAndFlush) {
  // Growable heap: the write target's page is missing from an existing level-3 table.
  const uint64_t target = kGpuVa + 0x20000;
  put_header(bus, pa_of(kGpuVa), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(kGpuVa), target, job::Immediate64, 0x1122334455667788ull);
  queue(1, kGpuVa);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 1);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  EXPECT_TRUE(mmu_line);
  EXPECT_EQ(rd(reg::as(0, reg::AS_FAULTSTATUS)), 0xc3u | (3u << 8)); // level-3 translation fault, write
  EXPECT_EQ(rd64(reg::as(0, reg::AS_FAULTADDRESS_LO)), target);
  // The machine never waits for a stalled job: no event is pending.
  EXPECT_EQ(gpu->next_event(), UINT64_MAX);
  // panfrost_mmu_irq_handler_thread: clear, map 2 MiB worth (one page is enough here), LOCK + FLUSH_PT.
  clock.advance(5000);
  const uint64_t r = clock.ticks();
  wr(reg::MMU_INT_CLEAR, 1);
  EXPECT_FALSE(mmu_line);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX); // not retried yet: the tables have not changed
  pt->map(target, kDataPa + 0x20000, kRw);
  as_cmd(0, AS_CMD_LOCK);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX); // a lock alone changes nothing
  as_cmd(0, AS_CMD_FLUSH_PT);
  EXPECT_EQ(gpu->next_event(), r + K);
  advance_to(r + 2 * K - 1);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 0u);
  advance_to(r + 2 * K);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u);
  EXPECT_EQ(ram64(bus, kDataPa + 0x20000), 0x1122334455667788ull);
}

TEST_F(JobManagerTest, MmuFaultThenAsDisabledEndsTheJob) {
  const uint64_t target = kGpuVa + 0x20000;
  put_header(bus, pa_of(kGpuVa), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(kGpuVa), target, job::Immediate32, 7);
  submit(1, kGpuVa);
  ASSERT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  // panfrost_mmu_irq_handler_thread (6.1 and 6.12) for an unhandled fault: clear, then panfrost_mmu_disable:
  // lock the whole VA range + FLUSH_MEM (which restarts the stalled access: it faults again), TRANSTAB and
  // MEMATTR zeroed, UPDATE.
  wr(reg::MMU_INT_CLEAR, 1);
  mmu_disable(0);
  run_jobs();
  // The job ends with the fault that stalled it. Its header cannot record that: the AS that maps it is off.
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0xc3u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_HEAD_LO)), kGpuVa);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), 0u);
  EXPECT_EQ(ram32(bus, kDataPa + 0x20000), 0u);
}

TEST_F(JobManagerTest, GpuResetEndsAStalledJob) {
  put_header(bus, pa_of(kGpuVa), job::WriteValue, 1, 0);
  put_write_value(bus, pa_of(kGpuVa), kGpuVa + 0x30000, job::Immediate32, 1);
  submit(1, kGpuVa);
  ASSERT_EQ(rd(reg::JOB_INT_JS_STATE), 1u << 1);
  soft_reset();
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0u);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX);
  unmask_all();
  mmu_enable(0, pt->pgd());
  put_header(bus, pa_of(kGpuVa), job::Null, 1, 0);
  submit(1, kGpuVa);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
}

// ---------------------------------------------------------------------------------------- compute jobs

// Records what it is given; reads the push uniforms through the job's memory like a shader would.
class RecordingCore : public ShaderCore {
public:
  ComputeJob job;
  uint64_t push[3] = {};
  unsigned calls = 0;
  uint64_t extra_read_va = 0; // also read this (to fault, say)
  uint32_t extra_read_value = 0;
  bool extra_read_ok = false;
  std::chrono::milliseconds delay{0};
  uint64_t cycles = 1600;
  ShaderResult run_compute(const ComputeJob& j, GpuMemory& mem, const std::atomic<bool>&) override {
    calls++;
    job = j;
    if (delay.count()) std::this_thread::sleep_for(delay);
    if (!mem.read(j.push_uniforms_va, push, sizeof push)) return {exc::DONE, 0};
    if (extra_read_va) extra_read_ok = mem.read(extra_read_va, &extra_read_value, 4);
    return {exc::DONE, cycles};
  }
};

class ComputeJobTest : public JobManagerTest {
protected:
  static constexpr uint64_t kRsd = kGpuVa + 0x400, kTls = kGpuVa + 0x500, kUbos = kGpuVa + 0x600,
                            kPush = kGpuVa + 0x700, kShader = kGpuVa + 0x8000;
  void put32(uint64_t va, uint32_t v) { ASSERT_TRUE(bus.copy_to(pa_of(va), &v, 4)); }
  void put64(uint64_t va, uint64_t v) { ASSERT_TRUE(bus.copy_to(pa_of(va), &v, 8)); }

  // A compute job for local size 8x4x2 and 5x3x7 workgroups, packed by hand per the reference file: each
  // value minus 1 in ceil(log2(value)) bits, LSB first: 7 in 3 bits, 3 in 2, 1 in 1, 4 in 3, 2 in 2, 6 in 3.
  // Field starts 0, 3, 5, 6, 9, 11; thread group split = workgroups-x shift = 6.
  static constexpr uint32_t kInvocations = 7u | 3u << 3 | 1u << 5 | 4u << 6 | 2u << 9 | 6u << 11;
  static constexpr uint32_t kShifts = 3u | 5u << 5 | 6u << 10 | 9u << 16 | 11u << 22 | 6u << 28;
  void put_compute(uint64_t va, uint32_t invocations = kInvocations, uint32_t shifts = kShifts) {
    put_header(bus, pa_of(va), job::Compute, 1, 0);
    put32(va + 32, invocations);
    put32(va + 36, shifts);
    put32(va + 40, 5u << 26); // Job Task Split
    // Draw @64: uniform buffers (word 6), textures (8), samplers (10), push uniforms (12), state (14),
    // thread storage (28).
    put64(va + 64 + 24, kUbos);
    put64(va + 64 + 32, kGpuVa + 0xb00);
    put64(va + 64 + 40, kGpuVa + 0xc00);
    put64(va + 64 + 48, kPush);
    put64(va + 64 + 56, kRsd);
    put64(va + 64 + 112, kTls);
    // Renderer State: shader address; 1 sampler, 2 textures; 3 attributes; 2 UBOs + barrier; preload PC,
    // local XY and workgroup X with 3 push-uniform words.
    put64(kRsd, kShader);
    put32(kRsd + 8, 1u | 2u << 16);
    put32(kRsd + 12, 3u);
    put32(kRsd + 16, 2u | 1u << 11);
    put32(kRsd + 48, 1u << 6 | 1u << 7 | 1u << 9 | 3u << 15);
    // Local Storage: TLS size 4, initial SP offset 0x1234; WLS instances log2 2, base 1, scale 6.
    put32(kTls, 4u | 0x1234u << 5);
    put32(kTls + 4, 2u | 1u << 5 | 6u << 8);
    put64(kTls + 8, kGpuVa + 0x9000);
    put64(kTls + 16, kGpuVa + 0xa000);
    // Uniform buffers: Entries - 1 in [11:0], Pointer >> 4 in [63:12].
    put64(kUbos, ((kGpuVa + 0x800) >> 4) << 12 | 3u);
    put64(kUbos + 8, ((kGpuVa + 0x900) >> 4) << 12 | 0u);
    put64(kPush, 0x1111);
    put64(kPush + 8, 0x2222);
    put64(kPush + 16, 0x3333);
  }
};

TEST_F(ComputeJobTest, DecodedJobReachesTheShaderCore) {
  RecordingCore core;
  gpu->set_shader_core(&core);
  put_compute(kGpuVa);
  const uint64_t t = clock.ticks();
  queue(1, kGpuVa);
  // 1600 cycles = 100 ticks on top of the step: the job is visible at t + K + 100, the end at t + 2K + 100.
  advance_to(t + 2 * K + 99);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  advance_to(t + 2 * K + 100);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), exc::DONE);
  ASSERT_EQ(core.calls, 1u);
  const ComputeJob& j = core.job;
  EXPECT_EQ(j.job_va, kGpuVa);
  EXPECT_EQ(j.as, 0u);
  EXPECT_EQ(j.local_size[0], 8u);
  EXPECT_EQ(j.local_size[1], 4u);
  EXPECT_EQ(j.local_size[2], 2u);
  EXPECT_EQ(j.workgroups[0], 5u);
  EXPECT_EQ(j.workgroups[1], 3u);
  EXPECT_EQ(j.workgroups[2], 7u);
  EXPECT_EQ(j.invocations(), 64u * 105u);
  EXPECT_EQ(j.thread_group_split, 6u);
  EXPECT_EQ(j.job_task_split, 5u);
  EXPECT_EQ(j.renderer_state_va, kRsd);
  EXPECT_EQ(j.thread_storage_va, kTls);
  EXPECT_EQ(j.uniform_buffers_va, kUbos);
  EXPECT_EQ(j.push_uniforms_va, kPush);
  EXPECT_EQ(j.textures_va, kGpuVa + 0xb00);
  EXPECT_EQ(j.samplers_va, kGpuVa + 0xc00);
  EXPECT_EQ(j.shader_pc, kShader);
  EXPECT_EQ(j.sampler_count, 1u);
  EXPECT_EQ(j.texture_count, 2u);
  EXPECT_EQ(j.attribute_count, 3u);
  EXPECT_EQ(j.varying_count, 0u);
  EXPECT_EQ(j.uniform_buffer_count, 2u);
  EXPECT_TRUE(j.shader_contains_barrier);
  EXPECT_EQ(j.push_uniform_words, 3u);
  EXPECT_EQ(j.preload & 0x7fc0u, (1u << 6) | (1u << 7) | (1u << 9));
  EXPECT_EQ(j.tls_size, 4u);
  EXPECT_EQ(j.tls_initial_sp_offset, 0x1234u);
  EXPECT_EQ(j.wls_instances_log2, 2u);
  EXPECT_EQ(j.wls_size_base, 1u);
  EXPECT_EQ(j.wls_size_scale, 6u);
  EXPECT_EQ(j.tls_base, kGpuVa + 0x9000);
  EXPECT_EQ(j.wls_base, kGpuVa + 0xa000);
  ASSERT_EQ(j.uniform_buffers.size(), 2u);
  EXPECT_EQ(j.uniform_buffers[0].va, kGpuVa + 0x800);
  EXPECT_EQ(j.uniform_buffers[0].entries, 4u);
  EXPECT_EQ(j.uniform_buffers[1].va, kGpuVa + 0x900);
  EXPECT_EQ(j.uniform_buffers[1].entries, 1u);
  EXPECT_EQ(core.push[0], 0x1111u);
  EXPECT_EQ(core.push[1], 0x2222u);
  EXPECT_EQ(core.push[2], 0x3333u);
}

TEST_F(ComputeJobTest, WithoutShaderCoreOrWithBadInvocationTheJobFaults) {
  put_compute(kGpuVa);
  submit(1, kGpuVa);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  // Shifts that decrease (size Z before size Y) describe no layout: the core is never called.
  RecordingCore core;
  gpu->set_shader_core(&core);
  wr(reg::JOB_INT_CLEAR, ~0u);
  put_compute(kGpuVa, kInvocations, 5u | 3u << 5 | 6u << 10 | 9u << 16 | 11u << 22);
  submit(1, kGpuVa);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT);
  EXPECT_EQ(core.calls, 0u);
}

TEST_F(ComputeJobTest, FixedFunctionJobTypesFault) {
  for (uint32_t type : {uint32_t{job::Vertex}, uint32_t{job::Geometry}, uint32_t{job::Tiler}, uint32_t{job::Fused},
                        uint32_t{job::Fragment}, uint32_t{job::IndexedVertex}}) {
    wr(reg::JOB_INT_CLEAR, ~0u);
    put_header(bus, pa_of(kGpuVa), type, 1, 0);
    submit(1, kGpuVa);
    EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::JOB_CONFIG_FAULT) << type;
    EXPECT_EQ(ram32(bus, pa_of(kGpuVa)), exc::JOB_CONFIG_FAULT) << type;
    EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17) << type;
    EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u) << type;
  }
}

TEST_F(ComputeJobTest, ShaderAccessStallsOnFaultAndRetriesAfterMapping) {
  RecordingCore core;
  core.extra_read_va = kGpuVa + 0x40000; // not mapped yet (its level-3 table exists)
  gpu->set_shader_core(&core);
  put_compute(kGpuVa);
  submit(1, kGpuVa);
  // The shader core's thread is blocked in the access; the machine is not.
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  EXPECT_EQ(rd64(reg::as(0, reg::AS_FAULTADDRESS_LO)), kGpuVa + 0x40000);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX);
  uint32_t v = 0xfeedbeef;
  ASSERT_TRUE(bus.copy_to(kDataPa + 0x40000, &v, 4));
  wr(reg::MMU_INT_CLEAR, 1);
  pt->map(kGpuVa + 0x40000, kDataPa + 0x40000, kRw);
  as_cmd(0, AS_CMD_FLUSH_PT);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_TRUE(core.extra_read_ok);
  EXPECT_EQ(core.extra_read_value, 0xfeedbeefu);
}

TEST_F(ComputeJobTest, CompletionTimeIsTheSameWhateverTheHostSpeed) {
  // A core that takes 30 ms of host time and one that takes none report the same 800 cycles: both jobs
  // become visible at exactly t + 2K + 50, because the machine waits for the slow one instead of letting
  // virtual time run ahead.
  for (int slow = 0; slow < 2; slow++) {
    RecordingCore core;
    core.cycles = 800;
    core.delay = std::chrono::milliseconds(slow ? 30 : 0);
    gpu->set_shader_core(&core);
    wr(reg::JOB_INT_CLEAR, ~0u);
    put_compute(kGpuVa);
    const uint64_t t = clock.ticks();
    queue(1, kGpuVa);
    advance_to(t + 2 * K + 49);
    EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE) << slow;
    EXPECT_EQ(gpu->next_event(), t + 2 * K + 50) << slow;
    advance_to(t + 2 * K + 50);
    EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE) << slow;
    EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1) << slow;
    gpu->set_shader_core(nullptr);
    clock.advance(1000);
  }
}

// A shader core that runs until told to abort (or 10 s of host time, so a broken abort fails the test
// instead of hanging it).
class SpinningCore : public ShaderCore {
public:
  std::atomic<bool> entered{false};
  ShaderResult run_compute(const ComputeJob&, GpuMemory&, const std::atomic<bool>& abort) override {
    entered = true;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!abort.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    return {exc::DONE, 1};
  }
};

TEST_F(ComputeJobTest, HardStopAbortsARunningShaderJob) {
  SpinningCore core;
  gpu->set_shader_core(&core);
  put_compute(kGpuVa);
  queue(1, kGpuVa);
  while (!core.entered) std::this_thread::yield();
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP);
  auto start = std::chrono::steady_clock::now();
  run_jobs();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::TERMINATED);
  EXPECT_EQ(rd64(reg::js(1, reg::JS_HEAD_LO)), kGpuVa);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  gpu->set_shader_core(nullptr);
}

TEST_F(ComputeJobTest, GpuResetAbortsARunningShaderJob) {
  SpinningCore core;
  gpu->set_shader_core(&core);
  put_compute(kGpuVa);
  queue(1, kGpuVa);
  while (!core.entered) std::this_thread::yield();
  auto start = std::chrono::steady_clock::now();
  soft_reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(gpu->next_event(), UINT64_MAX);
  gpu->set_shader_core(nullptr);
}

TEST_F(ComputeJobTest, TraceLogsEveryJobWithItsDecodedHeader) {
  RecordingCore core;
  gpu->set_shader_core(&core);
  put_compute(kGpuVa);
  put_header(bus, pa_of(kGpuVa), job::Compute, 1, kGpuVa + 0x200);
  put_value(kGpuVa + 0x200, 2, 0, kGpuVa + 0x1000, 0x77, 1);
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  gpu->set_trace(f);
  submit(1, kGpuVa);
  gpu->set_trace(nullptr);
  std::rewind(f);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) text += buf;
  std::fclose(f);
  EXPECT_NE(text.find("gpu job JS1 start chain 0x2000000 as 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu job JS1 job 0x2000000 Compute index 1 deps 0,0 next 0x2000200 local 8x4x2 workgroups "
                      "5x3x7 split 6 task-split 5 rsd 0x2000400 tls 0x2000500 shader 0x2008000 ubos 2 push-words 3 -> DONE\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu job JS1 job 0x2000200 WriteValue index 2 deps 1,0 next 0x0 write 4 bytes 0x77 to 0x2001000 -> DONE\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gpu job JS1 end status 0x1 head 0x0 tail 0x2000200\n"), std::string::npos) << text;
}

// Garbage descriptors: random words (with plausible job types and pointers into the mapped range mixed in)
// never crash or hang the model. Every chain ends by itself or, when it stalls on a fault, with the stop
// the driver's timeout would issue.
TEST_F(ComputeJobTest, RandomDescriptorsAlwaysEnd) {
  RecordingCore core;
  gpu->set_shader_core(&core);
  uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(seed >> 33);
  };
  unsigned stalled = 0, ended = 0;
  for (int iter = 0; iter < 300; iter++) {
    for (uint64_t off = 0; off < 0x2000; off += 4) {
      uint32_t w = next();
      switch (next() % 4) {
      case 0: w = static_cast<uint32_t>(kGpuVa + (next() % 0x2000)); break;       // a pointer into the chain
      case 1: w = 1u | (next() % 12) << 1 | (next() % 4) << 16; break;            // a header word 4
      default: break;
      }
      put32(kGpuVa + off, w);
    }
    // The head is a well-formed header more often than chance would make it, so the decoders behind it
    // see garbage too: mostly compute jobs whose draw points back into the garbage.
    uint64_t head = kGpuVa + 64 * (next() % 0x80);
    uint32_t pick = next() % 10;
    uint32_t type = pick < 6 ? job::Compute : pick < 8 ? job::WriteValue : next() % 12;
    put32(head + 16, 1u | type << 1 | (1 + next() % 3) << 16);
    put32(head + 20, 0);
    if (next() % 2) put64(head + 24, 0);
    if (type == job::Compute && next() % 5) {
      put64(head + 64 + 56, kGpuVa + 64 * (next() % 0x80)); // renderer state
      put64(head + 64 + 112, kGpuVa + 64 * (next() % 0x80)); // thread storage
      put64(head + 64 + 24, kGpuVa + 64 * (next() % 0x80));  // uniform buffers
      put32(head + 36, 3u | 5u << 5 | 6u << 10 | 9u << 16 | 11u << 22); // a valid invocation layout
    }
    wr(reg::JOB_INT_CLEAR, ~0u);
    wr(reg::MMU_INT_CLEAR, ~0u);
    queue(1, head);
    run_jobs();
    if (rd(reg::JOB_INT_JS_STATE) & 2u) {
      stalled++;
      wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP);
      run_jobs();
    }
    ASSERT_EQ(rd(reg::JOB_INT_JS_STATE), 0u) << iter;
    ASSERT_NE(rd(reg::JOB_INT_RAWSTAT) & 0x20002u, 0u) << iter;
    ended++;
  }
  EXPECT_EQ(ended, 300u);
  EXPECT_GT(stalled, 0u);     // the stall path was exercised
  EXPECT_GT(core.calls, 0u);  // and the shader core got decoded garbage
  gpu->set_shader_core(nullptr);
}

// Same inputs, same outputs: a scenario with chains on two slots, a compute job whose shader core takes a
// varying amount of host time, an MMU-fault stall the "driver" resolves and a soft stop, run twice from
// scratch. The full register + job trace (with virtual timestamps) must be identical byte for byte.
class ScenarioRig : public ComputeJobTest {
public:
  void TestBody() override {}
  std::string run(std::chrono::milliseconds core_delay, std::chrono::milliseconds stall_delay) {
    SetUp();
    RecordingCore core;
    core.delay = core_delay;
    gpu->set_shader_core(&core);
    std::FILE* f = std::tmpfile();
    gpu->set_trace(f);
    // Slot 1: compute job then a write-value job. Slot 2: a write-value job to a missing page.
    put_compute(kGpuVa);
    put_header(bus, pa_of(kGpuVa), job::Compute, 1, kGpuVa + 0x200);
    put_value(kGpuVa + 0x200, 2, 0, kGpuVa + 0x1000, 0x77, 1);
    put_header(bus, pa_of(kGpuVa + 0x300), job::WriteValue, 1, kGpuVa + 0x340);
    put_write_value(bus, pa_of(kGpuVa + 0x300), kGpuVa + 0x50000, job::Immediate32, 0x99);
    put_value(kGpuVa + 0x340, 2, 0, kGpuVa + 0x1004, 0x88);
    const uint64_t t = clock.ticks();
    queue(1, kGpuVa);
    queue(2, kGpuVa + 0x300);
    for (uint64_t now = t; now < t + 40 * K; now += 7) {
      advance_to(now);
      if (rd(reg::MMU_INT_RAWSTAT) & 1) {
        std::this_thread::sleep_for(stall_delay); // the host is slow; virtual time is not
        wr(reg::MMU_INT_CLEAR, 1);
        pt->map(kGpuVa + 0x50000, kDataPa + 0x50000, kRw);
        as_cmd(0, AS_CMD_FLUSH_PT);
      }
      if (now == t + 7 * 10) wr(reg::js(2, reg::JS_COMMAND), JS_CMD_SOFT_STOP); // ignored or effective: the same both runs
      rd(reg::JOB_INT_RAWSTAT);
      rd(reg::JOB_INT_JS_STATE);
    }
    gpu->set_trace(nullptr);
    gpu->set_shader_core(nullptr);
    std::rewind(f);
    std::string text;
    char buf[512];
    while (std::fgets(buf, sizeof buf, f)) text += buf;
    std::fclose(f);
    return text;
  }
};

TEST(JobManagerDeterminism, SameInputsGiveTheSameTrace) {
  std::string a, b;
  {
    ScenarioRig rig;
    a = rig.run(std::chrono::milliseconds(0), std::chrono::milliseconds(0));
  }
  {
    ScenarioRig rig;
    b = rig.run(std::chrono::milliseconds(25), std::chrono::milliseconds(10));
  }
  EXPECT_NE(a.find("gpu job JS1 end status 0x1"), std::string::npos) << a;
  EXPECT_NE(a.find("gpu job JS2 stalled on MMU fault"), std::string::npos) << a;
  EXPECT_NE(a.find("gpu job JS2 end status"), std::string::npos) << a;
  EXPECT_EQ(a, b);
}

} // namespace
