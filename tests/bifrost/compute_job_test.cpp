// Complete compute jobs through the Mali-G71's registers and job manager, run on the Bifrost shader cores
// (gpu-bifrost/compute_cores.h) with 1 and 2 host threads: each test builds what a driver builds
// (compute_fixture.h), submits it on job slot 1 the way panfrost does, and checks guest memory against a CPU
// reference computed here.
#include "compute_fixture.h"
#include <chrono>
#include <thread>

using namespace computejob;

namespace {

// out[i] = a[i] + b[i] (f32) over 7 workgroups of 16 threads; i = global invocation id x (r60).
TEST_P(ComputeJobs, VectorAdd) {
  constexpr unsigned n = 7 * 16;
  std::vector<float> a(n), b(n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = 0.25f * i - 7.0f;
    b[i] = 3.0f / (i + 1);
    put32(kIn + 4 * i, fbits(a[i]));
    put32(kIn2 + 4 * i, fbits(b[i]));
    put32(kOut + 4 * i, 0xdeadbeef);
  }
  put32(kOut + 4 * n, 0xdeadbeef);
  Dispatch d = vector_add_dispatch();
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(get32(kJob), exc::DONE);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 1);
  for (unsigned i = 0; i < n; ++i) EXPECT_EQ(get32(kOut + 4 * i), fbits(a[i] + b[i])) << i;
  EXPECT_EQ(get32(kOut + 4 * n), 0xdeadbeefu);
  auto s = cores->stats();
  EXPECT_EQ(s.workgroups, 7u);
  EXPECT_EQ(s.quad_clauses, 4u * n / 4);
}

// A 2D image kernel as Mesa's v6 compiler emits it (image.adl): out(x, y) = in(x, y) + 1.0 over an 8x6 grid of
// 4x2 workgroups, both images R32F in the job's attribute table (images 0 and 1, buffers 0-1 and 2-3 with their
// 3D continuations). The output rows are padded to 64 bytes; the padding must stay untouched.
TEST_P(ComputeJobs, ImageLoadStore) {
  constexpr uint32_t kW = 8, kH = 6, kInRow = 32, kOutRow = 64;
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) put32(kIn + y * kInRow + 4 * x, fbits(0.5f * x - 1.25f * y));
  for (uint32_t i = 0; i < kH * kOutRow / 4; ++i) put32(kOut + 4 * i, 0xdeadbeef);
  prepare(image_add_one_dispatch(2, 3));
  put_images({{kIn, kFormatR32F, kW, kH, 4, kInRow}, {kOut, kFormatR32F, kW, kH, 4, kOutRow}});
  queue(1, kJob);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t i = 0; i < kOutRow / 4; ++i) {
      uint32_t want = i < kW ? fbits(0.5f * i - 1.25f * y + 1.0f) : 0xdeadbeef;
      EXPECT_EQ(get32(kOut + y * kOutRow + 4 * i), want) << "x " << i << " y " << y;
    }
}

// Counts r0 down to 0, one clause per iteration.
const char* kSpinR0 = R"(
header flow=1
tuple p0=r0 fau=c1 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0
tuple fau=c0 ; *NOP ; +BRANCHZ.i32 src0=7 src2=5 eq=0
const pchi 0
const 0x1
)";

// Per-workgroup sums: each of the 8 threads puts in[global id] into WLS word (local id), all meet at a barrier,
// then every thread adds the 8 words and writes the sum to out[global id]. The second quad arrives late (a
// spin loop), so without the barrier the first would read words the second has not written yet (checked by
// replacing +BARRIER with +NOP: the test then fails).
TEST_P(ComputeJobs, ReductionThroughWlsWithBarrier) {
  constexpr unsigned groups = 12, local = 8;
  std::vector<uint32_t> in(groups * local);
  for (unsigned i = 0; i < in.size(); ++i) {
    in[i] = (i * 2654435761u) >> 8;
    put32(kIn + 4 * i, in[i]);
  }
  // Stale data in the WLS area must not matter: every word is written before it is read.
  for (unsigned i = 0; i < 0x1000; i += 4) put32(kWls + i, 0x55555555);
  Dispatch d;
  d.local[0] = local;
  d.groups[0] = groups;
  d.preload = kPreloadGlobalX | kPreloadLocalXY;
  d.push = {kIn, kOut};
  d.wls_bytes = 4 * local;
  d.clauses = {times4("r60"),
               "header flow=3 sr=10 msg=5\ntuple p0=r2 fau=u0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3\n"
               "tuple ; *NOP ; +LOAD.i32 src0=7 src1=3 seg=1",
               // Thread x first spins 8x + 3 times, so the second quad reaches the WLS store well after the first.
               "header flow=3\ntuple p0=r55 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; "
               "+IADD.s32 src0=3 src1=4 ; add->r0\nconst 0x3",
               kSpinR0,
               times4("r55"), "header flow=3 sr=10 msg=6\ntuple p0=r2 ; *NOP ; +STORE.i32 src0=0 src1=3 seg=2",
               "header flow=3 msg=8\ntuple ; *NOP ; +BARRIER"};
  for (unsigned i = 0; i < local; ++i)
    d.clauses.push_back("header flow=3 sr=" + std::to_string(20 + i) +
                        " msg=5\ntuple fau=c0 ; *NOP ; +LOAD.i32 src0=4 src1=3 seg=2\nconst " + std::to_string(4 * i));
  std::string sum = "header flow=3\ntuple p0=r20 p1=r21 ; *NOP ; +IADD.s32 src0=0 src1=1\n";
  for (unsigned i = 2; i < local; ++i)
    sum += "tuple p0=r" + std::to_string(20 + i) + " ; *NOP ; +IADD.s32 src0=7 src1=0" +
           (i + 1 == local ? " ; add->r30\n" : "\n");
  d.clauses.push_back(sum);
  d.clauses.push_back(times4("r60"));
  d.clauses.push_back(store_at(1, 30));
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned g = 0; g < groups; ++g) {
    uint32_t want = 0;
    for (unsigned i = 0; i < local; ++i) want += in[g * local + i];
    for (unsigned i = 0; i < local; ++i) EXPECT_EQ(get32(kOut + 4 * (g * local + i)), want) << "workgroup " << g << " thread " << i;
  }
  // Each workgroup had its own WLS instance (Mesa's sizing: instances = next_pow2(12) = 16, 128 bytes each).
  for (unsigned g = 0; g < groups; ++g)
    for (unsigned i = 0; i < local; ++i) EXPECT_EQ(get32(kWls + 128 * g + 4 * i), in[g * local + i]);
}

// Per-thread stacks from the thread-storage descriptor: each thread stores its global id at TLS offset 8, loads
// it back and stores it to out. 24 bytes of stack round up to 32 per thread (Mesa's sizing); thread t of
// workgroup w uses slot (w mod 8 cores) * 384 + t of the allocation Mesa makes (per-thread size x 384 threads x 8
// cores). An offset past the 32-byte window faults with INSTR_TLS_FAULT.
TEST_P(ComputeJobs, ThreadStorageIsPerThread) {
  constexpr unsigned local = 16, groups = 10, n = local * groups;
  Dispatch d;
  d.local[0] = local;
  d.groups[0] = groups;
  d.preload = kPreloadGlobalX;
  d.push = {kOut};
  d.tls_bytes = 24;
  d.clauses = {"header flow=3 sr=60 msg=6\ntuple fau=c0 ; *NOP ; +STORE.i32 src0=4 src1=5 seg=7\nconst 0x8",
               "header flow=3 sr=20 msg=5\ntuple fau=c0 ; *NOP ; +LOAD.i32 src0=4 src1=5 seg=7\nconst 0x8",
               times4("r60"), store_at(0, 20)};
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned g = 0; g < n; ++g) EXPECT_EQ(get32(kOut + 4 * g), g) << g;
  // Workgroups 8 and 9 reuse the slots of cores 0 and 1 after workgroups 0 and 1.
  for (unsigned w = 2; w < groups; ++w)
    for (unsigned t = 0; t < local; ++t) EXPECT_EQ(get32(kStack + ((w % 8) * 384 + t) * 32 + 8), w * local + t);

  wr(reg::JOB_INT_CLEAR, ~0u);
  d.clauses[0] = "header flow=3 sr=60 msg=6\ntuple fau=c0 ; *NOP ; +STORE.i32 src0=4 src1=5 seg=7\nconst 0x20";
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0x54u);
  EXPECT_EQ(get32(kJob), 0x54u);
}

// Atomic histogram: every thread increments bucket in[i] (0..15) with ATOM_C1.ainc; 6 workgroups of 32 threads,
// so workgroups on different host threads hit the same words at once.
TEST_P(ComputeJobs, AtomicHistogram) {
  constexpr unsigned n = 6 * 32, buckets = 16;
  std::vector<uint32_t> want(buckets);
  for (unsigned i = 0; i < n; ++i) {
    uint32_t v = (i * 7 + i / 5) % buckets;
    put32(kIn + 4 * i, v);
    ++want[v];
  }
  for (unsigned b = 0; b < buckets; ++b) put32(kOut + 4 * b, 0);
  run(histogram_dispatch());
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned b = 0; b < buckets; ++b) EXPECT_EQ(get32(kOut + 4 * b), want[b]) << "bucket " << b;
}

// A loop whose trip count differs per lane: thread g adds g, g-1, ..., 1 (g + 1 iterations, the last adding 0)
// and stores the sum, so lanes of one quad leave the loop at different times and meet again at the store.
TEST_P(ComputeJobs, DivergentLoop) {
  constexpr unsigned n = 3 * 16;
  for (unsigned i = 0; i < n; ++i) put32(kOut + 4 * i, 0xdeadbeef);
  run(divergent_sum_dispatch());
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned g = 0; g < n; ++g) EXPECT_EQ(get32(kOut + 4 * g), g * (g + 1) / 2) << g;
}

// Every thread stores to an unmapped page (a different address per thread). The MMU fault is reported in AS 0's
// registers for workgroup 0's first lane whatever the host thread count; the driver (panfrost's unhandled-fault
// path) disables the AS, and the job ends with the translation fault. Nothing outside guest RAM is touched.
TEST_P(ComputeJobs, BadAddressFaultsTheJob) {
  run(unmapped_store_dispatch());
  // The job is stalled on the fault; the guest sees the MMU interrupt.
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::ACTIVE);
  ASSERT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  EXPECT_EQ(rd(reg::as(0, reg::AS_FAULTSTATUS)), 0xc3u | (3u << 8)); // level-3 translation fault on a write
  EXPECT_EQ(gpu->read(reg::as(0, reg::AS_FAULTADDRESS_LO), 8), kUnmapped);
  wr(reg::MMU_INT_CLEAR, 1);
  mmu_disable(0);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0xc3u);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
  EXPECT_EQ(rd(reg::JOB_INT_JS_STATE), 0u);
  EXPECT_EQ(gpu->read(reg::js(1, reg::JS_HEAD_LO), 8), kJob);
}

// The same fault fixed by the driver (a growable-heap style fix: map the page, FLUSH_PT): the job resumes and
// completes, with every thread's store in place.
TEST_P(ComputeJobs, FaultFixedByTheDriverResumes) {
  run(unmapped_store_dispatch());
  ASSERT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  EXPECT_EQ(gpu->read(reg::as(0, reg::AS_FAULTADDRESS_LO), 8), kUnmapped);
  wr(reg::MMU_INT_CLEAR, 1);
  pt->map(kUnmapped, kDataPa + 0x200000, kRw);
  as_cmd(0, AS_CMD_FLUSH_PT);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  EXPECT_EQ(rd(reg::MMU_INT_RAWSTAT), 0u);
  for (unsigned g = 0; g < 32; ++g) EXPECT_EQ(ram32(bus, kDataPa + 0x200000 + 4 * g), g) << g;
}

// A shader that never ends: the clause budget ends the job with TERMINATED at the same point for any thread
// count, instead of hanging the machine.
TEST_P(ComputeJobs, RunawayShaderIsTerminated) {
  max_clauses = 5000;
  Dispatch d;
  d.local[0] = 4;
  d.groups[0] = 3;
  d.clauses = {R"(
header flow=1
tuple fau=c0 ; *NOP ; +BRANCHZ.i32 src0=3 src2=5 eq=1
const pchi 0
)"};
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::TERMINATED);
  EXPECT_EQ(rd(reg::JOB_INT_RAWSTAT), 1u << 17);
}

// A hard stop while the shader loops: the cores see the abort flag and the chain ends TERMINATED long before the
// clause budget (2^24 clauses per quad: many seconds of host time for these 48 quads) would end it.
TEST_P(ComputeJobs, HardStopEndsALoopingShader) {
  Dispatch d;
  d.local[0] = 16;
  d.groups[0] = 12;
  d.clauses = {R"(
header flow=1
tuple fau=c0 ; *NOP ; +BRANCHZ.i32 src0=3 src2=5 eq=1
const pchi 0
)"};
  auto start = std::chrono::steady_clock::now();
  prepare(d);
  queue(1, kJob);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  wr(reg::js(1, reg::JS_COMMAND), JS_CMD_HARD_STOP);
  run_jobs();
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::TERMINATED);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

// Two jobs with the same inputs report the same cycles, so completion shows at the same virtual time for any
// host thread count (the figure itself follows compute_cores.h: ceil((quad tuples + quad clauses) / 24)).
TEST_P(ComputeJobs, CompletionTimeFollowsTheWorkDone) {
  Dispatch d;
  d.local[0] = 16;
  d.groups[0] = 3;
  d.preload = kPreloadGlobalX;
  d.push = {kOut};
  d.clauses = {times4("r60"), store_at(0, 60)};
  attach();
  const uint64_t t = clock.ticks();
  run(d);
  EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  // 12 quads x (2 clauses, 1 + 2 tuples) = 12 x 5 = 60 issue slots on 24 engines: 3 cycles -> 1 tick.
  EXPECT_EQ(clock.ticks(), t + 2 * JobManager::kStepTicks + 1);
}

INSTANTIATE_TEST_SUITE_P(HostThreads, ComputeJobs, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<unsigned>& i) { return std::to_string(i.param) + "threads"; });

} // namespace
