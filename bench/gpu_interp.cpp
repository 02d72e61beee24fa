// gpu-interp: the Bifrost shader cores' interpreter speed on a compute-heavy job (bench/gpu-interp.sh).
// One Compute job, decoded as the job manager would hand it over, runs on ComputeCores with N host threads: every
// thread runs an FMA-chain loop (x = x * m + a, 4 fused multiply-adds per iteration, a counter and a branch) for
// the given number of iterations and stores x. GPU memory is identity-mapped guest RAM. A fourth argument
// "timing" runs the timing models too (instrumentation/models; bench/timing-overhead.sh). Prints one line:
//   threads N workgroups W thread_instructions I seconds S per_thread_rate R cpus C
// where R is thread instructions (FMA and ADD slots of active lanes) per host second per host thread and C the
// host CPUs the run got on average (process CPU time / wall time: below N on a loaded host). Outputs are
// checked against std::fma on the host; a mismatch is an error (exit 1). The fourth argument is a comma-separated
// list of options: `stats` turns the shader statistics on (clause counting, tallied into a stats::Collector;
// bench/stats-overhead.sh; the line then ends with the job's warp clause count from them); `short` replaces the
// loop by a 2-tuple counting loop (no FMA chain; the stored value is 0): the most clause executions, and so the
// most counter updates, per instruction.
#include "direct_compute.h"
#include "gpu-bifrost/compute_cores.h"
#include "gpu-bifrost/mali_regs.h"
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

using namespace vplat;

constexpr uint64_t kRam = 0x80000000, kRamSize = 64ull << 20;
constexpr uint64_t kCode = kRam + 0x1000, kPush = kRam + 0x800, kOut = kRam + 0x100000;

uint32_t fbits(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

int usage() {
  std::fprintf(stderr, "usage: gpu-interp THREADS [WORKGROUPS [ITERATIONS [OPTIONS]]]\n"
                       "  OPTIONS: comma-separated stats (shader statistics), short (2-tuple loop clause),\n"
                       "           timing (timing models; prints the estimates)\n");
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  unsigned threads = static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10));
  uint32_t groups = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 64;
  uint32_t iterations = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 2000;
  constexpr uint32_t kLocal = 64;
  if (threads < 1 || threads > 64 || groups < 1 || groups > 4096 || iterations < 1) return usage();
  // The fourth argument is a comma-separated set of {stats, short, timing}.
  bool with_stats = false, short_loop = false, timing = false;
  for (std::string rest = argc > 4 ? argv[4] : ""; !rest.empty();) {
    const size_t comma = rest.find(',');
    const std::string opt = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    if (opt == "stats") with_stats = true;
    else if (opt == "short") short_loop = true;
    else if (opt == "timing") timing = true;
    else return usage();
  }

  direct_compute::Gpu direct(kRam, kRamSize);

  const float m = 0.999f, a = 0.5f;
  const std::string fma = "tuple fau=c2 ; *FMA.f32 src0=6 src1=4 src2=5 ; +NOP\n";
  std::vector<std::string> clauses = {
      "header flow=3\ntuple fau=u1 ; *NOP ; +MOV.i32 src0=4 ; add->r0",
      "header flow=1\ntuple p0=r0 fau=c1 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0\n"
      "tuple p0=r1 fau=c2 ; *FMA.f32 src0=0 src1=4 src2=5 ; +NOP\n" +
          fma + fma + "tuple fau=c2 ; *FMA.f32 src0=6 src1=4 src2=5 ; +NOP ; fma->r1\n" +
          "tuple p0=r0 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=0\n" + "const pchi 0\nconst 0x1\nconst 0x" +
          [&] {
            char b[32];
            std::snprintf(b, sizeof b, "%08x%08x", fbits(a), fbits(m));
            return std::string(b);
          }(),
      "header flow=3\ntuple p0=r60 fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP ; fma->r2\nconst 0x2",
      "header sr=1 msg=6\ntuple p0=r2 fau=u0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3\n"
      "tuple ; *NOP ; +STORE.i32 src0=7 src1=3 seg=1"};
  if (short_loop)
    clauses[1] = "header flow=1\ntuple p0=r0 fau=c1 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0\n"
                 "tuple fau=c0 ; *NOP ; +BRANCHZ.i32 src0=7 src2=5 eq=0\nconst pchi 0\nconst 0x1";
  try {
    direct.load_clauses(kCode, clauses);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu-interp: %s\n", e.what());
    return 1;
  }
  direct.push_uniforms(kPush, {kOut, iterations});
  // global invocation x
  const gpu::ComputeJob job = direct_compute::job_1d(kCode, kLocal, groups, kPush, 2, 1u << 12);

  gpu::bifrost::ComputeCores::Config cc;
  cc.host_threads = threads;
  cc.timing = timing;
  cc.report = timing; // the shader's static estimate and the job's estimate on stderr, as --gpu-timing on prints them
  gpu::bifrost::ComputeCores cores(cc);
  stats::Collector collector;
  if (with_stats) cores.set_stats(&collector);
  auto cpu_seconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  double cpu0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  gpu::ShaderResult r = direct.run(cores, job);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpus = (cpu_seconds() - cpu0) / seconds;
  if (r.status != gpu::exc::DONE) {
    std::fprintf(stderr, "gpu-interp: job ended with status 0x%x\n", r.status);
    return 1;
  }
  float x = 0.0f;
  for (uint32_t i = 0; i < iterations; ++i)
    for (int k = 0; k < 4 && !short_loop; ++k) x = std::fma(x, m, a);
  for (uint32_t i = 0; i < groups * kLocal; ++i) {
    uint32_t v = 0;
    direct.bus.copy_from(kOut + 4 * i, &v, 4);
    if (v != fbits(x)) {
      std::fprintf(stderr, "gpu-interp: thread %u stored 0x%08x, expected 0x%08x\n", i, v, fbits(x));
      return 1;
    }
  }
  auto s = cores.stats();
  std::printf("threads %u workgroups %u thread_instructions %llu seconds %.3f per_thread_rate %.0f cpus %.2f",
              threads, groups, static_cast<unsigned long long>(s.thread_instructions), seconds,
              static_cast<double>(s.thread_instructions) / seconds / threads, cpus);
  if (with_stats) {
    // The job never becomes visible through a job manager here: report it as if it had.
    collector.job_visible(0, 0, 0, "Compute", gpu::exc::DONE, 0, 1);
    stats::Run run;
    std::vector<stats::TimelineEvent> events;
    collector.finish(run, events);
    std::printf(" stats_warp_clauses %llu",
                static_cast<unsigned long long>(run.jobs.empty() ? 0 : run.jobs[0].compute.counters.warp_clauses));
  }
  if (timing) std::printf(" estimate_cycles %llu", static_cast<unsigned long long>(r.estimate_cycles));
  std::printf("\n");
  return 0;
}
