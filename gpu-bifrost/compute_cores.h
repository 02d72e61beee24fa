// The Bifrost shader cores behind the job manager (shader_core_iface.h): a Compute job's workgroups run on a
// pool of host threads ("virtual cores", --gpu-threads), each workgroup's threads packed into quads on the
// quad executor (shader_core.h).
//
// Per job, from its decoded descriptors (Mesa v6.xml; sizing facts from pan_desc.c / pan_props.c / pan_cs.c):
//  - workgroups: Invocation's local size and workgroup counts, numbered w = x + nx * (y + ny * z);
//  - preload registers: the Renderer State's Compute Preload bits (see ShaderCore::Workgroup);
//  - FAU: the Preload word's uniform count of 64-bit push-uniform words at Draw.Push uniforms; UBO accesses
//    use the job's uniform-buffer table (Draw.Uniform buffers, Properties' uniform buffer count); image
//    messages use the primary attribute table (Draw.Attributes and Attribute Buffers, the Renderer State's
//    attribute count; archdesc/bifrost/image.adl);
//  - TLS (Local Storage word 0 and TLS Base Pointer): each thread gets 16 << TLS Size bytes (Mesa's
//  per-thread
//    size: the stack rounded up to a power of two, at least 16). Mesa allocates per-thread size x
//    THREAD_MAX_THREADS (384; THREAD_TLS_ALLOC reads 0) x core-id range; thread t of a workgroup on modelled
//    core c uses slot c * 384 + t. A base pointer of 0 means no stack (every TLS access faults);
//  - WLS (word 1 and WLS Base Pointer): an instance is 2^(WLS Size Scale - 1) bytes (scale 0: none; WLS Size
//    Base, which Mesa always leaves 0, is ignored); there are 2^(WLS Instances) of them (31 = no workgroup
//    memory); workgroup w uses instance w mod that count. Mesa makes the count the product of the grid's
//    dimensions each rounded up to a power of two, so every workgroup of a dispatch has its own instance;
//  - the modelled core of workgroup w is w mod the shader-core count.
// Two workgroups that would share a TLS core slot or a WLS instance never run at the same time (the later one
// waits), so a dispatch's memory traffic is the same for any number of host threads.
//
// Faults and determinism. Workgroups are handed out in order. The job's result is that of the lowest-numbered
// workgroup that fails (a shader exception, a segment fault, an MMU fault the driver does not fix, or the
// clause budget), exactly what one host thread running them in order finds. Memory goes to guest RAM directly
// through pages translated once per host thread; an access to a page that is not mapped waits until every
// lower workgroup has finished and then goes through the job's GpuMemory, which stalls it on the MMU fault
// until the driver answers: so the guest sees the same faults in the same order for any thread count. Atomics
// operate on guest RAM with host atomics. What is NOT the same for different thread counts: the order in
// which atomics of different workgroups happen (so atomic return values, and anything a shader computes from
// them, such as spin-waits or "last one out" tests, may differ; final values of commutative atomics such as a
// histogram do not), races between workgroups through plain memory, and the memory side effects of workgroups
// above the failing one in a job that fails.
//
// Runaway shaders: a quad that executes more than max_clauses_per_quad clauses ends the job with TERMINATED
// (what the driver's job timeout would end in on hardware; it cannot happen here because virtual time waits
// for the job), at the same point for any thread count. The abort flag (hard stop, GPU reset, shutdown) is
// polled between rounds of clauses.
//
// Statistics (set_stats): each host thread counts clause executions in its own ClauseMemo (clause_stats.h)
// and the GPU pages it translates; when the job has run, the threads' counts are summed and handed to the
// Collector with the job's dimensions. Workgroup and warp counts are those of the workgroups that retired
// (the same for any thread count); in a job that fails, clause counts also include work done above the
// failing workgroup, which can depend on the thread count.
//
// Cycles (which decide when completion becomes visible): each modelled core issues one quad-tuple per clock
// on each of its 3 execution engines, and a clause costs one more issue slot: ceil((quad tuples + quad
// clauses) / (3 x cores)). A rough throughput model, deterministic because it only counts work.
//
// Timing models (Config::timing, instrumentation/models): each executed clause adds its static cost to its
// quad's clock (shader_core.h), each workgroup's quads are combined when it ends, and the workgroups feed the
// analytical kernel model in dispatch order as they retire, so the estimate is the same for any host thread
// count. The job's estimate is returned in ShaderResult; with Config::timing_drives_completion it also sets
// the job's completion time (estimate in microseconds x the virtual clock) instead of the count above.
#pragma once
#include "gpu-bifrost/shader_core.h"
#include "gpu-bifrost/shader_core_iface.h"
#include "gpu-bifrost/worker_pool.h"
#include "instrumentation/models/timing.h"
#include "instrumentation/stats.h"
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>

namespace vplat::gpu::bifrost {

class ComputeCores final : public gpu::ShaderCore {
public:
  // Mesa's THREAD_MAX_THREADS / THREAD_MAX_WORKGROUP_SIZE for v6 (mali_regs.cpp reports the same).
  static constexpr uint32_t kThreadsPerCore = 384;
  static constexpr uint32_t kMaxWorkgroupThreads = 384;

  struct Config {
    unsigned host_threads = 1; // --gpu-threads
    unsigned shader_cores = 8; // the modelled cores (SHADER_PRESENT)
    uint64_t max_clauses_per_quad = uint64_t{1} << 24;
    bool timing = false;                    // run the timing models (--gpu-timing on|complete)
    bool timing_drives_completion = false;  // the estimate decides completion times (--gpu-timing complete)
    double clock_mhz = 0;                   // --gpu-clock; 0: the parameter file's
    uint64_t virtual_clock_hz = 50'000'000; // ticks per second of the machine's virtual clock
    bool report = false; // print each job's estimate and each new shader's static estimate (stderr)
    // --dump-shaders: our disassembly of each distinct shader a job runs goes to
    // DIR/as<N>_<entry address>_<content hash>.txt (the directory must exist).
    std::string dump_shaders_dir;
  };
  explicit ComputeCores(const Config& config);

  ShaderResult run_compute(const ComputeJob& job, GpuMemory& memory, const std::atomic<bool>& abort) override;
  // Per-job shader statistics go to `collector` (nullptr: off, and nothing is counted). Set before jobs run.
  void set_stats(stats::Collector* collector) { stats_ = collector; }

  struct Stats {
    uint64_t jobs = 0, workgroups = 0, quad_clauses = 0, quad_tuples = 0, thread_instructions = 0;
    uint64_t estimated_cycles = 0; // sum of the jobs' estimates (timing on)
  };
  // The last job's estimate (timing on; for tests and reports).
  models::KernelEstimate last_estimate() const;
  // Totals over the jobs so far (thread instructions: FMA and ADD slots executed by active lanes).
  Stats stats() const;
  unsigned host_threads() const { return pool_.size(); }
  // The --gpu-threads default: 2 when the host has at least 2 hardware threads, else 1.
  static unsigned default_host_threads();

private:
  void report_shader(const ComputeJob& job, GpuMemory& memory);
  void dump_shader(const ComputeJob& job, GpuMemory& memory);
  Config config_;
  ShaderCache cache_;
  WorkerPool pool_;
  stats::Collector* stats_ = nullptr;
  std::atomic<uint64_t> jobs_{0}, workgroups_{0}, clauses_{0}, tuples_{0}, instructions_{0}, estimated_{0};
  models::Params params_;
  mutable std::mutex estimate_mu_;
  models::KernelEstimate last_estimate_;
  std::set<std::pair<unsigned, uint64_t>> reported_shaders_;
  std::mutex dump_mu_;
  std::set<std::string> dumped_shaders_; // file names written
  bool dump_failed_ = false;
};

} // namespace vplat::gpu::bifrost
