// Shader and device statistics (gpu-bifrost/clause_stats.h, instrumentation/stats.h) for complete compute
// jobs on 1 and 2 host threads. Every expected figure is worked out by hand from the shader text in the test:
// its clauses, tuples, slots, register ports, FAU and temporary operands, messages, and (for the divergent
// loop) the trip count of every lane. The comments show the working.
#include "compute_fixture.h"
#include "gpu-bifrost/clause_stats.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace computejob;
namespace stats = vplat::stats;

namespace {

class ShaderStats : public ComputeJobs {
protected:
  stats::Collector sink;
  void SetUp() override {
    ComputeJobs::SetUp();
    collector = &sink;
  }
  // The kernels (the tests below explain their counts); each writes its inputs and returns its dispatch.
  Dispatch straight_line() {
    constexpr unsigned n = 7 * 16;
    for (unsigned i = 0; i < n; ++i) {
      put32(kIn + 4 * i, fbits(1.0f * i));
      put32(kIn2 + 4 * i, fbits(2.0f));
    }
    return vector_add_dispatch();
  }
  Dispatch divergent_loop() { return divergent_sum_dispatch(); }
  Dispatch segments() {
    Dispatch d;
    d.local[0] = 6;
    d.groups[0] = 2;
    d.preload = 1u << 12 | 1u << 7; // global id x (r60), local id (r55)
    d.push = {kOut};
    d.tls_bytes = 16;
    d.wls_bytes = 4 * 6;
    d.clauses = {"header flow=3 sr=60 msg=6\ntuple fau=c0 ; *NOP ; +STORE.i32 src0=4 src1=5 seg=7\nconst 0x8",
                 times4("r55"),
                 "header flow=3 sr=60 msg=6\ntuple p0=r2 ; *NOP ; +STORE.i32 src0=0 src1=3 seg=2",
                 "header flow=3 sr=20 msg=5\ntuple p0=r2 ; *NOP ; +LOAD.i32 src0=0 src1=3 seg=2",
                 times4("r60"),
                 store_at(0, 20)};
    return d;
  }
  Dispatch atomics() {
    constexpr unsigned n = 6 * 32;
    for (unsigned i = 0; i < n; ++i) put32(kIn + 4 * i, i % 16);
    for (unsigned b = 0; b < 16; ++b) put32(kOut + 4 * b, 0);
    return histogram_dispatch();
  }
  // The statistics gathered so far (the jobs run, in the order the guest saw them).
  stats::Run finish() {
    stats::Run run;
    std::vector<stats::TimelineEvent> events;
    sink.finish(run, events);
    run.device = gpu->device_counters();
    return run;
  }
  // The one compute job's record, checked for the basics every test shares.
  static const stats::JobRecord& only_job(const stats::Run& run) {
    EXPECT_EQ(run.jobs.size(), 1u);
    const stats::JobRecord& j = run.jobs.at(0);
    EXPECT_EQ(j.type, "Compute");
    EXPECT_EQ(j.slot, 1u);
    EXPECT_EQ(j.va, kJob);
    EXPECT_EQ(j.status, exc::DONE);
    EXPECT_TRUE(j.has_compute);
    EXPECT_LT(j.start, j.end);
    return j;
  }
  // Where each clause of a Dispatch lands (prepare() writes them one after another from kCode).
  static std::vector<uint64_t> clause_addresses(const Dispatch& d) {
    std::vector<uint64_t> out;
    uint64_t at = kCode;
    for (const auto& c : d.clauses) {
      out.push_back(at);
      at += bifrost_asm::assemble(c).size() * 8;
    }
    return out;
  }
  static uint64_t at(const std::map<std::string, uint64_t>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  }
};

// The vector-add kernel of compute_job_test.cpp: 7 workgroups x 16 threads = 112 threads in 28 full quads, no
// branches. Per thread (clause A 4 tuples, B 1, C 1, D 3):
//   slots 2 x 9 = 18; NOPs: A 4 (+NOP, then *NOP x3), B 1, C 1, D 4 (+NOP, *NOP +NOP, *NOP) = 10
//   port reads: A r60, r0, r0 = 3; B r1; C r2; D r10 r11, r3 = 3   -> 8
//   slot writes: A r0 r1 r2 r3 = 4; D r12 = 1                     -> 5
//   staging: B, C LOAD.i32 write 1 word each; D STORE.i32 reads 1
//   temporaries: A's +IADD src0=6 (t0)                            -> 1
//   FAU: A c0 (constant), u0 u1 u2; B u0; C u0; D u0               -> 6 uniform, 1 constant
//   memory: 2 global loads and 1 global store of 4 bytes
TEST_P(ShaderStats, StraightLineKernel) {
  Dispatch d = straight_line();
  run(d);
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned i = 0; i < 7 * 16; ++i) ASSERT_EQ(get32(kOut + 4 * i), fbits(1.0f * i + 2.0f)) << i;

  stats::Run run = finish();
  const stats::JobRecord& j = only_job(run);
  EXPECT_EQ(j.compute.shader, kCode);
  EXPECT_EQ(j.compute.local, (std::array<uint32_t, 3>{16, 1, 1}));
  EXPECT_EQ(j.compute.groups, (std::array<uint32_t, 3>{7, 1, 1}));
  const stats::ShaderCounters& c = j.compute.counters;
  EXPECT_EQ(c.workgroups, 7u);
  EXPECT_EQ(c.warps, 28u);
  EXPECT_EQ(c.threads, 112u);
  EXPECT_EQ(c.warp_clauses, 28u * 4);
  EXPECT_EQ(c.thread_clauses, 112u * 4);
  EXPECT_EQ(c.warp_tuples, 28u * 9);
  EXPECT_EQ(c.thread_tuples, 112u * 9);
  EXPECT_EQ(c.warp_instructions, 28u * 18);
  EXPECT_EQ(c.thread_instructions, 112u * 18);
  EXPECT_EQ(c.warp_nops, 28u * 10);
  EXPECT_EQ(c.thread_nops, 112u * 10);
  EXPECT_EQ(c.clause_size_dynamic, (std::array<uint64_t, 9>{0, 56, 0, 28, 28, 0, 0, 0, 0}));
  EXPECT_EQ(c.clause_size_static, (std::array<uint64_t, 9>{0, 2, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(c.active_lanes, (std::array<uint64_t, 5>{0, 0, 0, 0, 112}));
  EXPECT_EQ(c.reg_reads, 112u * 8);
  EXPECT_EQ(c.reg_writes, 112u * 5);
  EXPECT_EQ(c.staging_reads, 112u * 1);
  EXPECT_EQ(c.staging_writes, 112u * 2);
  EXPECT_EQ(c.temp_reads, 112u * 1);
  EXPECT_EQ(c.fau_uniform, 112u * 6);
  EXPECT_EQ(c.fau_constant, 112u * 1);
  EXPECT_EQ(c.fau_special, 0u);
  ASSERT_EQ(c.memory.size(), 2u);
  EXPECT_EQ(c.memory.at("global.load").accesses, 224u);
  EXPECT_EQ(c.memory.at("global.load").bytes, 896u);
  EXPECT_EQ(c.memory.at("global.store").accesses, 112u);
  EXPECT_EQ(c.memory.at("global.store").bytes, 448u);
  EXPECT_EQ(c.divergent_branches, 0u);
  // Per thread: 10 NOPs, *LSHIFT_OR and *FADD, 3 +IADD, 2 +LOAD.i32, 1 +STORE.i32.
  EXPECT_EQ(c.by_category, (std::map<std::string, uint64_t>{{"nop", 1120},
                                                            {"fma.arith", 224},
                                                            {"add.arith", 336},
                                                            {"message.load", 224},
                                                            {"message.store", 112}}));
  // *NOP: A 3, B 1, C 1, D 2 = 7; +NOP: A 1, D 2 = 3.
  EXPECT_EQ(at(c.by_opcode, "FMA_NOP"), 112u * 7);
  EXPECT_EQ(at(c.by_opcode, "ADD_NOP"), 112u * 3);
  EXPECT_EQ(at(c.by_opcode, "ADD_IADD_s32"), 112u * 3);
  EXPECT_EQ(at(c.by_opcode, "FMA_LSHIFT_OR_i32"), 112u);
  EXPECT_EQ(at(c.by_opcode, "FMA_FADD_f32"), 112u);
  EXPECT_EQ(at(c.by_opcode, "ADD_LOAD_i32"), 224u);
  EXPECT_EQ(at(c.by_opcode, "ADD_STORE_i32"), 112u);
  EXPECT_EQ(at(c.by_class, "fma.int_bit"), 112u);
  EXPECT_EQ(at(c.by_class, "add.mem_load"), 224u);
  // The control-flow graph: A -> B -> C -> D -> end, every edge taken by 28 warps and 112 lanes.
  const stats::ShaderCfg& g = j.compute.cfg;
  ASSERT_EQ(g.nodes.size(), 4u);
  const std::vector<uint64_t> pc = clause_addresses(d);
  const uint64_t a = pc[0], b = pc[1], cc = pc[2], dd = pc[3];
  ASSERT_TRUE(g.nodes.count(dd));
  EXPECT_EQ(g.nodes.at(a).successors.at(b).lanes, 112u);
  EXPECT_EQ(g.nodes.at(b).successors.at(cc).warps, 28u);
  EXPECT_EQ(g.nodes.at(cc).successors.at(dd).lanes, 112u);
  EXPECT_EQ(g.nodes.at(dd).successors.at(stats::ShaderCfg::kEnd).warps, 28u);
  EXPECT_EQ(g.nodes.at(dd).tuples, 3u);
  // The shader touched its code page, the two input pages and the output page (the push uniforms are read by
  // the job manager, not the shaders).
  EXPECT_EQ(j.compute.pages, 4u);
  // The GPU MMU also translated the descriptors' page (job, renderer state, thread storage and push uniforms
  // all sit in the first page).
  EXPECT_EQ(run.device.pages_translated, 5u);
}

// The divergent loop of compute_job_test.cpp: thread g (0..47) runs the 3-tuple loop clause g + 1 times. In
// quad q (lanes g = 4q..4q+3) the loop clause runs 4q + 4 times: 4q + 1 times with 4 lanes, then once each
// with 3, 2 and 1 lanes as lanes 0, 1, 2 leave (a lane that leaves waits at the next clause). The three
// executions where a lane leaves while others branch back are divergent, with taken masks 0xe, 0xc and 0x8.
TEST_P(ShaderStats, DivergentLoop) {
  Dispatch d = divergent_loop();
  run(d);
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned g = 0; g < 48; ++g) ASSERT_EQ(get32(kOut + 4 * g), g * (g + 1) / 2) << g;

  // Sums over q = 0..11: sum(4q + 4) = 312 loop executions, sum(4q + 1) = 276 of them with 4 lanes; the
  // loop's thread executions are sum(g + 1) = 1176. The other three clauses run once per quad with 4 lanes.
  stats::Run run = finish();
  const stats::JobRecord& j = only_job(run);
  const stats::ShaderCounters& c = j.compute.counters;
  EXPECT_EQ(c.warps, 12u);
  EXPECT_EQ(c.threads, 48u);
  EXPECT_EQ(c.warp_clauses, 312u + 3 * 12);
  EXPECT_EQ(c.thread_clauses, 1176u + 3 * 48);
  EXPECT_EQ(c.active_lanes, (std::array<uint64_t, 5>{0, 12, 12, 12, 276 + 3 * 12}));
  // Tuples: entry 1, loop 3, times4 1, store 2.
  EXPECT_EQ(c.thread_tuples, 48u * 1 + 1176 * 3 + 48 * 1 + 48 * 2);
  EXPECT_EQ(c.thread_instructions, 2 * c.thread_tuples);
  EXPECT_EQ(c.clause_size_dynamic, (std::array<uint64_t, 9>{0, 24, 12, 312, 0, 0, 0, 0, 0}));
  EXPECT_EQ(c.divergent_branches, 36u);
  EXPECT_EQ(at(c.by_category, "control"), 1176u); // +BRANCHZ once per loop iteration
  EXPECT_EQ(at(c.by_opcode, "ADD_ISUB_s32"), 1176u);
  const stats::ShaderCfg& g = j.compute.cfg;
  const std::vector<uint64_t> pc = clause_addresses(d);
  const uint64_t loop = pc[1], after = pc[2];
  ASSERT_TRUE(g.nodes.count(loop));
  const stats::CfgNode& l = g.nodes.at(loop);
  EXPECT_EQ(l.warp_executions, 312u);
  EXPECT_EQ(l.thread_executions, 1176u);
  EXPECT_EQ(l.divergent, 36u);
  EXPECT_EQ(l.taken_masks[0xe], 12u);
  EXPECT_EQ(l.taken_masks[0xc], 12u);
  EXPECT_EQ(l.taken_masks[0x8], 12u);
  ASSERT_EQ(l.successors.size(), 2u);
  // Back edge: every iteration but each lane's last (1176 - 48 lanes), in 4q + 3 executions per quad (sum
  // 300).
  EXPECT_EQ(l.successors.at(loop).lanes, 1128u);
  EXPECT_EQ(l.successors.at(loop).warps, 300u);
  // Exit: each lane once; in 4 executions per quad.
  ASSERT_TRUE(l.successors.count(after));
  EXPECT_EQ(l.successors.at(after).lanes, 48u);
  EXPECT_EQ(l.successors.at(after).warps, 48u);
  std::string dot = stats::cfg_dot(g);
  EXPECT_NE(dot.find("color=red"), std::string::npos);
  EXPECT_NE(dot.find("0xe:12"), std::string::npos);
}

// Segments and a partial quad: 2 workgroups of 6 threads (quads of 4 and 2 lanes). Each thread stores its
// global id to its stack (TLS offset 8), stores it to WLS word (local id), loads that word back and stores it
// to out. Per thread (6 clauses: 1,1,1,1,1,2 tuples = 7 tuples, 14 slots):
//   NOPs 1+1+1+1+1+2 = 7; ports: times4 r55, WLS store r2, WLS load r2, times4 r60, store_at r2 = 5
//   slot writes: 2 x times4 r2, store_at r3 = 3; staging: 3 stores read 1 word, 1 load writes 1
//   temporaries: WLS store/load src1=3 (t) = 2, store_at's +STORE src0=7 (t1) src1=3 (t) = 2 -> 4
//   FAU: TLS store c0 twice (lo, hi), 2 x times4 c0 -> 4 constant; store_at u0 -> 1 uniform
TEST_P(ShaderStats, SegmentsAndPartialQuads) {
  Dispatch d = segments();
  run(d);
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned g = 0; g < 12; ++g) ASSERT_EQ(get32(kOut + 4 * g), g) << g;

  stats::Run run = finish();
  const stats::JobRecord& j = only_job(run);
  const stats::ShaderCounters& c = j.compute.counters;
  EXPECT_EQ(c.workgroups, 2u);
  EXPECT_EQ(c.warps, 4u);
  EXPECT_EQ(c.threads, 12u);
  EXPECT_EQ(c.warp_clauses, 4u * 6);
  EXPECT_EQ(c.thread_clauses, 12u * 6);
  EXPECT_EQ(c.active_lanes, (std::array<uint64_t, 5>{0, 0, 12, 0, 12}));
  EXPECT_EQ(c.thread_instructions, 12u * 14);
  EXPECT_EQ(c.warp_instructions, 4u * 14);
  EXPECT_EQ(c.thread_nops, 12u * 7);
  EXPECT_EQ(c.reg_reads, 12u * 5);
  EXPECT_EQ(c.reg_writes, 12u * 3);
  EXPECT_EQ(c.staging_reads, 12u * 3);
  EXPECT_EQ(c.staging_writes, 12u * 1);
  EXPECT_EQ(c.temp_reads, 12u * 4);
  EXPECT_EQ(c.fau_constant, 12u * 4);
  EXPECT_EQ(c.fau_uniform, 12u * 1);
  EXPECT_EQ(c.clause_size_static, (std::array<uint64_t, 9>{0, 5, 1, 0, 0, 0, 0, 0, 0}));
  ASSERT_EQ(c.memory.size(), 4u);
  for (const char* k : {"tls.store", "wls.store", "wls.load", "global.store"}) {
    EXPECT_EQ(c.memory.at(k).accesses, 12u) << k;
    EXPECT_EQ(c.memory.at(k).bytes, 48u) << k;
  }
  EXPECT_EQ(
      c.by_category,
      (std::map<std::string, uint64_t>{
          {"nop", 84}, {"fma.arith", 24}, {"add.arith", 12}, {"message.store", 36}, {"message.load", 12}}));
}

// Atomics: the histogram kernel's ATOM_C1 + ATOM_CX pair is one 4-byte global atomic per thread (192
// threads); both halves count as atomic-message instructions.
TEST_P(ShaderStats, Atomics) {
  Dispatch d = atomics();
  run(d);
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (unsigned b = 0; b < 16; ++b) ASSERT_EQ(get32(kOut + 4 * b), 6u * 32 / 16) << b;
  stats::Run run = finish();
  const stats::ShaderCounters& c = only_job(run).compute.counters;
  EXPECT_EQ(c.memory.at("global.atomic").accesses, 192u);
  EXPECT_EQ(c.memory.at("global.atomic").bytes, 768u);
  EXPECT_EQ(c.memory.at("global.load").accesses, 192u);
  EXPECT_EQ(at(c.by_category, "message.atomic"), 2u * 192);
  EXPECT_EQ(at(c.by_opcode, "FMA_ATOM_C1_i32"), 192u);
  EXPECT_EQ(at(c.by_opcode, "ADD_ATOM_CX"), 192u);
  // ATOM_CX writes its 2 staging registers; LOAD.i32 writes 1.
  EXPECT_EQ(c.staging_writes, 192u * 3);
}

// Image messages: the image kernel of compute_job_test.cpp (image_add_one_dispatch) over 2x3 workgroups of
// 4x2 threads = 48 threads, every one running each clause once. Per thread: +LD_ATTR_TEX reads one texel of
// the R32F input (1 channel x 4 bytes), +ST_CVT writes one texel of the RG32F output (2 channels x 4 bytes:
// the red channel from the register, green 0); +LEA_ATTR_TEX only computes the address (no image access).
//   image.load: 48 accesses, 48 x 4 = 192 bytes; image.store: 48 accesses, 48 x 8 = 384 bytes; nothing else.
TEST_P(ShaderStats, ImageMessages) {
  constexpr uint32_t kW = 8, kH = 6, kInRow = 32, kOutRow = 64;
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) put32(kIn + y * kInRow + 4 * x, fbits(0.25f * x + 2.0f * y));
  for (uint32_t i = 0; i < kH * kOutRow / 4; ++i) put32(kOut + 4 * i, 0xdeadbeef);
  prepare(image_add_one_dispatch(2, 3));
  put_images({{kIn, kFormatR32F, kW, kH, 4, kInRow}, {kOut, kFormatRG32F, kW, kH, 8, kOutRow}});
  queue(1, kJob);
  run_jobs();
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      ASSERT_EQ(get32(kOut + y * kOutRow + 8 * x), fbits(0.25f * x + 2.0f * y + 1.0f)) << x << " " << y;
      ASSERT_EQ(get32(kOut + y * kOutRow + 8 * x + 4), 0u) << x << " " << y;
    }
  stats::Run run = finish();
  const stats::ShaderCounters& c = only_job(run).compute.counters;
  EXPECT_EQ(c.threads, 48u);
  ASSERT_EQ(c.memory.size(), 2u);
  EXPECT_EQ(c.memory.at("image.load").accesses, 48u);
  EXPECT_EQ(c.memory.at("image.load").bytes, 192u);
  EXPECT_EQ(c.memory.at("image.store").accesses, 48u);
  EXPECT_EQ(c.memory.at("image.store").bytes, 384u);
  // The JSON carries them like the other segments.
  const std::string json = stats::to_json(run);
  const size_t store = json.find("\"image.store\": {");
  ASSERT_NE(store, std::string::npos) << json;
  const std::string entry = json.substr(store, json.find('}', store) - store);
  EXPECT_NE(entry.find("\"accesses\": 48"), std::string::npos) << entry;
  EXPECT_NE(entry.find("\"bytes\": 384"), std::string::npos) << entry;
}

// The device side: one job per type and slot, the job interrupt asserted once, register accesses counted by
// the register table's names, an MMU fault by kind.
TEST_P(ShaderStats, DeviceCounters) {
  auto before = gpu->device_counters();
  run(unmapped_store_dispatch());
  ASSERT_EQ(rd(reg::MMU_INT_RAWSTAT), 1u);
  wr(reg::MMU_INT_CLEAR, 1);
  mmu_disable(0);
  run_jobs();
  ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), 0xc3u);
  auto mid = gpu->device_counters();
  rd(reg::js(1, reg::JS_STATUS));
  rd(reg::js(1, reg::JS_STATUS));
  wr(reg::JOB_INT_CLEAR, ~0u);
  stats::Run run = finish();
  ASSERT_EQ(run.jobs.size(), 1u);
  EXPECT_EQ(run.jobs[0].type, "Compute");
  EXPECT_EQ(run.jobs[0].status, 0xc3u);
  EXPECT_EQ(run.jobs_by_slot(), (std::map<std::string, uint64_t>{{"js1", 1}}));
  EXPECT_EQ(at(run.device.reg_reads, "JS1_STATUS"), at(mid.reg_reads, "JS1_STATUS") + 2);
  EXPECT_EQ(at(run.device.reg_writes, "JOB_INT_CLEAR"), at(mid.reg_writes, "JOB_INT_CLEAR") + 1);
  // queue() writes COMMAND_NEXT = START once.
  EXPECT_EQ(at(run.device.reg_writes, "JS1_COMMAND_NEXT"), at(before.reg_writes, "JS1_COMMAND_NEXT") + 1);
  EXPECT_EQ(at(run.device.mmu_faults, "TRANSLATION_FAULT_3"),
            at(before.mmu_faults, "TRANSLATION_FAULT_3") + 1);
  EXPECT_EQ(at(run.device.irqs, "mmu"), at(before.irqs, "mmu") + 1);
  EXPECT_EQ(at(run.device.irqs, "job"), at(before.irqs, "job") + 1);
}

// The same job twice, on this test's host-thread count and on the other one, gives the same statistics.
TEST_P(ShaderStats, IdenticalRunsGiveIdenticalStatistics) {
  auto run_once = [&](unsigned threads) {
    stats::Collector mine;
    collector = &mine;
    attach(threads);
    wr(reg::JOB_INT_CLEAR, ~0u);
    Dispatch d = divergent_loop();
    d.groups[0] = 5;
    run(d);
    EXPECT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
    stats::Run r;
    std::vector<stats::TimelineEvent> ev;
    mine.finish(r, ev);
    gpu->set_shader_core(nullptr);
    gpu->set_stats(nullptr);
    cores.reset();
    collector = nullptr;
    EXPECT_EQ(r.jobs.size(), 1u);
    // Only the times differ between the runs (the clock moves on).
    for (auto& j : r.jobs) j.start = j.end = 0;
    return stats::to_json(r);
  };
  const unsigned other = GetParam() == 1 ? 2 : 1;
  std::string first = run_once(GetParam()), second = run_once(GetParam()), third = run_once(other);
  // 20 quads whose 4 lanes all have different trip counts: 3 divergent loop exits each.
  EXPECT_NE(first.find("\"divergent_branches\": 60"), std::string::npos) << first;
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, third);
}

// The four kernels above as one run (a suite): the run's totals are the sums of the per-job figures worked
// out in the tests above, and the timeline has the four jobs. With VPLAT_STATS_EXAMPLES=DIR set, the run's
// outputs are written there (stats.json, summary.txt, csv/ with the CFGs, timeline.json) as the
// documentation's examples.
TEST_P(ShaderStats, SuiteTotals) {
  stats::Collector timeline_sink(true);
  collector = &timeline_sink;
  attach();
  const Dispatch kernels[] = {straight_line(), divergent_loop(), segments(), atomics()};
  for (const Dispatch& d : kernels) {
    wr(reg::JOB_INT_CLEAR, ~0u);
    run(d);
    ASSERT_EQ(rd(reg::js(1, reg::JS_STATUS)), exc::DONE);
  }
  wr(reg::JOB_INT_CLEAR, ~0u);
  stats::Run run;
  std::vector<stats::TimelineEvent> events;
  timeline_sink.finish(run, events);
  run.device = gpu->device_counters();
  run.virtual_ticks = clock.ticks();
  ASSERT_EQ(run.jobs.size(), 4u);
  stats::ShaderCounters t = run.shader_totals();
  // Threads 112 + 48 + 12 + 192; thread instructions 2016 + 7440 + 168 + atomics' 192 x 2 x 7 tuples (1 + 2 +
  // 1 + 2 + 1) = 2688.
  EXPECT_EQ(t.threads, 112u + 48 + 12 + 192);
  EXPECT_EQ(t.thread_instructions, 2016u + 7440 + 168 + 2688);
  EXPECT_EQ(t.divergent_branches, 36u);
  EXPECT_EQ(run.jobs_by_type(), (std::map<std::string, uint64_t>{{"Compute", 4}}));
  EXPECT_EQ(at(run.device.irqs, "job"), 4u); // one completion interrupt per job, each cleared before the next
  unsigned jobs = 0, irqs = 0;
  for (const auto& e : events) {
    jobs += e.kind == stats::TimelineEvent::Kind::Job;
    irqs += e.kind == stats::TimelineEvent::Kind::Irq;
  }
  EXPECT_EQ(jobs, 4u);
  EXPECT_EQ(irqs, 4u);
  std::string json = stats::to_json(run);
  EXPECT_NE(json.find("\"schema_version\": 1"), std::string::npos);
  // CSV: a header and one row per job; one graph per shader (the four kernels share an address, not a
  // shader).
  std::string error, csv_dir = ::testing::TempDir() + "stats_csv_" + std::to_string(GetParam());
  ASSERT_TRUE(stats::write_csv(run, csv_dir, error)) << error;
  std::ifstream jobs_csv(csv_dir + "/jobs.csv");
  unsigned lines = 0;
  for (std::string line; std::getline(jobs_csv, line);) ++lines;
  EXPECT_EQ(lines, 1u + 4);
  unsigned graphs = 0;
  for (const auto& e : std::filesystem::directory_iterator(csv_dir)) graphs += e.path().extension() == ".dot";
  EXPECT_EQ(graphs, 4u);
  if (const char* out = std::getenv("VPLAT_STATS_EXAMPLES"); out && GetParam() == 2) {
    const std::string dir(out);
    ASSERT_TRUE(stats::write_file(std::string(dir) + "/stats.json", json, error)) << error;
    ASSERT_TRUE(stats::write_file(std::string(dir) + "/summary.txt", stats::summary(run), error)) << error;
    ASSERT_TRUE(stats::write_csv(run, std::string(dir) + "/csv", error)) << error;
    ASSERT_TRUE(
        stats::write_file(std::string(dir) + "/timeline.json", stats::timeline_json(run, events), error))
        << error;
  }
}

INSTANTIATE_TEST_SUITE_P(HostThreads, ShaderStats, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<unsigned>& i) {
                           return std::to_string(i.param) + "threads";
                         });

} // namespace
