#include "gpu-bifrost/compute_cores.h"
#include "gpu-bifrost/clause_timing.h"
#include "gpu-bifrost/mali_regs.h"
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

namespace vplat::gpu::bifrost {

namespace {

constexpr uint64_t kPageSize = 4096;
// How far past the oldest unfinished workgroup the host threads may run: bounds the bookkeeping of workgroups
// that finished out of order.
constexpr uint64_t kRunAhead = 256;
// Waits for other workgroups poll the abort flag this often (it is set without a notification).
constexpr auto kPoll = std::chrono::milliseconds(1);

struct Outcome {
  uint32_t status = exc::DONE;
  uint64_t clauses = 0, tuples = 0, instructions = 0, warps = 0;
  models::WorkgroupCost timing;
};

// The state one job's host threads share.
class Dispatch {
public:
  Dispatch(const ComputeJob& job, GpuMemory& memory, const std::atomic<bool>& abort, unsigned cores,
           models::KernelModel* model)
      : job(job), memory(memory), abort(abort), cores(cores), model(model) {
    total = uint64_t{job.workgroups[0]} * job.workgroups[1] * job.workgroups[2];
    limit = total;
    if (job.wls_instances_log2 < 31 && job.wls_size_scale > 0) {
      wls_instances = uint64_t{1} << job.wls_instances_log2;
      wls_size = uint64_t{1} << (job.wls_size_scale - 1);
    }
  }

  const ComputeJob& job;
  GpuMemory& memory;
  const std::atomic<bool>& abort;
  const unsigned cores;
  models::KernelModel* model; // fed in dispatch order as workgroups retire (timing on)
  uint64_t total = 0;
  uint64_t wls_instances = 0, wls_size = 0; // 0: no workgroup memory
  std::atomic<uint64_t> limit{0};           // no workgroup at or above it needs to run (a lower one failed)

  // The next workgroup for a host thread, or false when there is none.
  bool take(uint64_t& w) {
    std::unique_lock lock(m_);
    for (;;) {
      if (abort.load() || next_ >= limit.load()) return false;
      if (next_ < retired_ + kRunAhead && !conflicts(next_)) break;
      cv_.wait_for(lock, kPoll);
    }
    w = next_++;
    in_flight_.push_back(w);
    return true;
  }

  void finish(uint64_t w, const Outcome& o) {
    std::lock_guard lock(m_);
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), w));
    if (o.status != exc::DONE && w < limit.load()) {
      limit = w;
      failure_ = o.status;
    }
    done_[w] = o;
    while (!done_.empty() && done_.begin()->first == retired_) {
      const Outcome& d = done_.begin()->second;
      clauses += d.clauses;
      tuples += d.tuples;
      instructions += d.instructions;
      warps += d.warps;
      retired_workgroups += d.status == exc::DONE;
      if (model) model->add(d.timing);
      done_.erase(done_.begin());
      ++retired_;
    }
    cv_.notify_all();
  }

  // An access that the fast path cannot make, for workgroup w: runs `op` (a GpuMemory call, which may stall)
  // once every lower workgroup has finished. False when w no longer matters (a lower workgroup failed, or the
  // job is aborted) or when op fails.
  template <class Op> bool slow(uint64_t w, Op op) {
    {
      std::unique_lock lock(m_);
      while (retired_ != w && w < limit.load() && !abort.load()) cv_.wait_for(lock, kPoll);
      if (w >= limit.load() || abort.load()) return false;
    }
    // Only the oldest unfinished workgroup gets here, so GpuMemory (not thread-safe) has one caller at a
    // time.
    return op();
  }

  uint32_t failure() const { return failure_; }
  uint64_t clauses = 0, tuples = 0, instructions = 0; // of the retired workgroups
  uint64_t warps = 0, retired_workgroups = 0;

  // Statistics the host threads hand over when they leave the job (under the lock, once per thread).
  void add_counts(const ClauseTally& t, const std::unordered_set<uint64_t>& pages) {
    std::lock_guard lock(m_);
    tally.merge(t);
    pages_.insert(pages.begin(), pages.end());
  }
  ClauseTally tally;
  size_t pages() const { return pages_.size(); }

private:
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t next_ = 0, retired_ = 0;
  std::vector<uint64_t> in_flight_;
  std::map<uint64_t, Outcome> done_;
  uint32_t failure_ = exc::DONE;
  std::unordered_set<uint64_t> pages_;

  bool conflicts(uint64_t w) const {
    for (uint64_t o : in_flight_) {
      if (o % cores == w % cores) return true;
      if (wls_instances && o % wls_instances == w % wls_instances) return true;
    }
    return false;
  }
};

// One host thread's view of the job's memory: pages translated once (per kind of access) and accessed in
// guest RAM directly; anything else through Dispatch::slow.
class JobView final : public ShaderMemory {
public:
  explicit JobView(Dispatch& d) : d_(d) {}
  uint64_t workgroup = 0;
  bool count_pages = false;
  std::unordered_set<uint64_t> pages; // GPU virtual pages translated (count_pages)

  bool read(unsigned, uint64_t va, void* dst, size_t len, MmuFault& fault, Access access) override {
    auto* out = static_cast<uint8_t*>(dst);
    while (len) {
      size_t chunk = std::min<uint64_t>(len, kPageSize - (va & (kPageSize - 1)));
      uint8_t* p = page(va, access);
      if (!p) return slow(va, access, fault, [&] { return d_.memory.read(va, out, len, access); });
      std::memcpy(out, p + (va & (kPageSize - 1)), chunk);
      out += chunk;
      va += chunk;
      len -= chunk;
    }
    return true;
  }
  bool write(unsigned, uint64_t va, const void* src, size_t len, MmuFault& fault) override {
    auto* in = static_cast<const uint8_t*>(src);
    while (len) {
      size_t chunk = std::min<uint64_t>(len, kPageSize - (va & (kPageSize - 1)));
      uint8_t* p = page(va, Access::Write);
      if (!p) return slow(va, Access::Write, fault, [&] { return d_.memory.write(va, in, len); });
      std::memcpy(p + (va & (kPageSize - 1)), in, chunk);
      in += chunk;
      va += chunk;
      len -= chunk;
    }
    return true;
  }
  uint8_t* host_pointer(unsigned, uint64_t va, size_t len, Access access, MmuFault& fault) override {
    if ((va & (kPageSize - 1)) + len > kPageSize) {
      fault = MmuFault{MmuFault::Kind::Bus, exc::JOB_BUS_FAULT, va, access, false};
      return nullptr;
    }
    if (uint8_t* p = page(va, access)) return p + (va & (kPageSize - 1));
    // Let the job's memory stall on the fault (a read with the atomic's access type), then translate again.
    uint8_t probe[8];
    if (!slow(va, access, fault,
              [&] { return d_.memory.read(va, probe, std::min(len, sizeof probe), access); }))
      return nullptr;
    if (uint8_t* p = d_.memory.page_pointer(va, access)) return p + (va & (kPageSize - 1));
    fault = MmuFault{MmuFault::Kind::Bus, exc::JOB_BUS_FAULT, va, access, false};
    return nullptr;
  }

private:
  struct Entry {
    uint64_t tag = 0; // virtual page number + 1; 0 = empty
    uint8_t* host = nullptr;
  };
  static constexpr unsigned kEntries = 64;
  Dispatch& d_;
  Entry cache_[4][kEntries] = {}; // by Access

  uint8_t* page(uint64_t va, Access access) {
    uint64_t vpn = va / kPageSize;
    Entry& e = cache_[static_cast<unsigned>(access) & 3][vpn % kEntries];
    if (e.tag == vpn + 1) return e.host;
    uint8_t* p = d_.memory.page_pointer(va, access);
    if (p) e = {vpn + 1, p};
    if (count_pages) pages.insert(vpn);
    return p;
  }

  template <class Op> bool slow(uint64_t va, Access access, MmuFault& fault, Op op) {
    bool ok = d_.slow(workgroup, op);
    // The driver may have changed the tables while the access stalled.
    for (auto& kind : cache_)
      for (auto& e : kind) e = {};
    if (!ok) {
      uint32_t code = d_.memory.fault_status();
      fault = MmuFault{MmuFault::Kind::Mmu, code ? code : exc::TERMINATED, va, access, false};
    }
    return ok;
  }
};

} // namespace

ComputeCores::ComputeCores(const Config& config)
    : config_(config), pool_(std::max(1u, config.host_threads)), params_(models::g71()) {
  config_.shader_cores = std::max(1u, config_.shader_cores);
  config_.timing = config_.timing || config_.timing_drives_completion;
  if (config_.clock_mhz > 0) params_.clock_mhz = config_.clock_mhz;
}

unsigned ComputeCores::default_host_threads() {
  return std::thread::hardware_concurrency() >= 2 ? 2 : 1;
}

ComputeCores::Stats ComputeCores::stats() const {
  Stats s;
  s.jobs = jobs_.load();
  s.workgroups = workgroups_.load();
  s.quad_clauses = clauses_.load();
  s.quad_tuples = tuples_.load();
  s.thread_instructions = instructions_.load();
  s.estimated_cycles = estimated_.load();
  return s;
}

models::KernelEstimate ComputeCores::last_estimate() const {
  std::lock_guard lock(estimate_mu_);
  return last_estimate_;
}

ShaderResult ComputeCores::run_compute(const ComputeJob& job, GpuMemory& memory,
                                       const std::atomic<bool>& abort) {
  ++jobs_;
  uint64_t threads = uint64_t{job.local_size[0]} * job.local_size[1] * job.local_size[2];
  // A workgroup larger than THREAD_MAX_WORKGROUP_SIZE cannot be scheduled; the model calls the job
  // misconfigured.
  if (threads > kMaxWorkgroupThreads) return {exc::JOB_CONFIG_FAULT, 0};
  std::vector<uint64_t> push(job.push_uniform_words);
  if (!push.empty() && !memory.read(job.push_uniforms_va, push.data(), push.size() * 8))
    return {memory.fault_status(), 0};

  const auto host_start = std::chrono::steady_clock::now();
  cache_.begin_job();
  if (config_.report) report_shader(job, memory);
  if (!config_.dump_shaders_dir.empty()) dump_shader(job, memory);
  const uint64_t wls_bytes =
      job.wls_instances_log2 < 31 && job.wls_size_scale > 0 ? uint64_t{1} << (job.wls_size_scale - 1) : 0;
  std::optional<models::KernelModel> model;
  if (config_.timing) model.emplace(params_, config_.shader_cores, threads, wls_bytes);
  Dispatch d(job, memory, abort, config_.shader_cores, model ? &*model : nullptr);
  const uint64_t tls_size = job.tls_base ? uint64_t{16} << job.tls_size : 0;
  const uint64_t nx = job.workgroups[0], ny = job.workgroups[1];

  pool_.run([&](unsigned) {
    JobView view(d);
    view.count_pages = stats_ != nullptr;
    bifrost::ShaderCore core(view, cache_);
    core.set_counting(stats_ != nullptr);
    uint64_t w;
    while (d.take(w)) {
      view.workgroup = w;
      bifrost::ShaderCore::Workgroup wg;
      wg.entry = job.shader_pc;
      wg.as = job.as;
      wg.uniforms = push.data();
      wg.uniform_count = static_cast<unsigned>(push.size());
      wg.size = {job.local_size[0], job.local_size[1], job.local_size[2]};
      wg.id = {static_cast<uint32_t>(w % nx), static_cast<uint32_t>(w / nx % ny),
               static_cast<uint32_t>(w / (nx * ny))};
      wg.preload = job.preload;
      wg.max_clauses = config_.max_clauses_per_quad;
      wg.timing = config_.timing;
      if (d.wls_instances) wg.mem.wls_base = job.wls_base + (w % d.wls_instances) * d.wls_size;
      wg.mem.wls_size = d.wls_size;
      wg.mem.tls_base = job.tls_base + (w % d.cores) * uint64_t{kThreadsPerCore} * tls_size;
      wg.mem.tls_size = tls_size;
      wg.mem.ubo_table = job.uniform_buffers_va;
      wg.mem.ubo_count = job.uniform_buffer_count;
      wg.mem.attr_table = job.attributes_va;
      wg.mem.attr_buffers = job.attribute_buffers_va;
      wg.mem.attr_count = job.attribute_count;
      wg.stop = [&] { return abort.load() || w >= d.limit.load(); };
      QuadResult r = core.run_workgroup(wg);
      Outcome o;
      o.clauses = r.clauses;
      o.tuples = r.tuples;
      o.instructions = r.lane_instructions;
      o.warps = r.warps;
      o.timing = r.timing;
      if (r.status == QuadResult::Status::Timeout)
        o.status = exc::TERMINATED;
      else if (r.status == QuadResult::Status::Fault)
        o.status = r.exception ? r.exception : exc::JOB_BUS_FAULT;
      d.finish(w, o);
    }
    if (stats_) {
      ClauseTally mine;
      core.take_counts(mine);
      d.add_counts(mine, view.pages);
    }
  });
  // The estimate exists only for a job that completed (as in ShaderResult); the statistics carry it too.
  std::optional<models::KernelEstimate> estimate;
  if (model && !abort.load() && d.failure() == exc::DONE) estimate = model->finish();
  if (stats_) {
    stats::ComputeJobStats js;
    if (estimate) {
      js.has_estimate = true;
      js.estimate.cycles = estimate->cycles;
      js.estimate.microseconds = estimate->microseconds;
      js.estimate.bound = models::resource_name(estimate->bound); // "schedule" when no resource bounds it
      js.estimate.n_par = estimate->n_par;
      js.estimate.schedule = estimate->schedule;
      js.estimate.resource_bound = estimate->resource_bound;
    }
    js.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    js.as = job.as;
    js.job_va = job.job_va;
    js.shader = job.shader_pc;
    for (unsigned i = 0; i < 3; ++i) {
      js.local[i] = job.local_size[i];
      js.groups[i] = job.workgroups[i];
    }
    js.pages = d.pages();
    js.counters = derive_counters(d.tally);
    js.counters.workgroups = d.retired_workgroups;
    js.counters.warps = d.warps;
    js.counters.threads = d.retired_workgroups * threads;
    js.cfg = derive_cfg(d.tally, job.as, job.shader_pc);
    stats_->compute_done(std::move(js));
  }

  workgroups_ += d.total;
  clauses_ += d.clauses;
  tuples_ += d.tuples;
  instructions_ += d.instructions;
  if (abort.load()) return {exc::TERMINATED, 0};
  if (d.failure() != exc::DONE) return {d.failure(), 0};
  uint64_t issue = uint64_t{3} * config_.shader_cores;
  ShaderResult result;
  result.gpu_cycles = (d.tuples + d.clauses + issue - 1) / issue;
  if (estimate) {
    const models::KernelEstimate& e = *estimate;
    result.has_estimate = true;
    result.estimate_cycles = e.cycles;
    result.estimate_us = e.microseconds;
    if (config_.timing_drives_completion) {
      // ticks = cycles / clock x virtual clock, rounded up, in integers so every host computes the same.
      uint64_t hz = static_cast<uint64_t>(params_.clock_mhz * 1e6);
      result.completion_ticks =
          std::max<uint64_t>(1, (e.cycles * config_.virtual_clock_hz + hz - 1) / std::max<uint64_t>(hz, 1));
    }
    estimated_ += e.cycles;
    if (config_.report)
      std::fprintf(stderr, "vplat: gpu-timing: job 0x%llx: %s\n", static_cast<unsigned long long>(job.job_va),
                   e.summary().c_str());
    std::lock_guard lock(estimate_mu_);
    last_estimate_ = e;
  }
  return result;
}

namespace {

// Reads a shader's 128-bit clause words through page_pointer, which never stalls or records a fault, so that
// dumping or estimating a shader cannot change the job that runs it.
auto shader_words(GpuMemory& memory) {
  return [&memory](uint64_t a, uint64_t& lo, uint64_t& hi) {
    if (a & 15) return false;
    const uint8_t* page = memory.page_pointer(a, Access::Execute);
    if (!page) return false;
    std::memcpy(&lo, page + (a & (kPageSize - 1)), 8);
    std::memcpy(&hi, page + (a & (kPageSize - 1)) + 8, 8);
    return true;
  };
}

} // namespace

void ComputeCores::dump_shader(const ComputeJob& job, GpuMemory& memory) {
  // Read through page_pointer, which never stalls or records a fault: dumping must not change the job. The
  // disassembly runs from the entry to the last end-of-shader clause that the shader's branches reach, as
  // Mesa's disassembler prints a shader.
  std::string text = disassemble_program(job.shader_pc, shader_words(memory));
  // The content hash (64-bit FNV-1a of the text) tells apart shaders a driver placed at the same address.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : text) hash = (hash ^ ch) * 0x100000001b3ull;
  char name[96];
  std::snprintf(name, sizeof name, "as%u_%016llx_%016llx.txt", job.as,
                static_cast<unsigned long long>(job.shader_pc), static_cast<unsigned long long>(hash));
  std::lock_guard lock(dump_mu_);
  if (dump_failed_ || dumped_shaders_.size() >= 65536 || !dumped_shaders_.insert(name).second) return;
  std::string path = config_.dump_shaders_dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "w");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    dump_failed_ = true; // once: a full disk should not flood stderr
    std::fprintf(stderr, "vplat: cannot write '%s'; no more shaders are dumped\n", path.c_str());
  }
}

void ComputeCores::report_shader(const ComputeJob& job, GpuMemory& memory) {
  {
    std::lock_guard lock(estimate_mu_);
    if (!reported_shaders_.insert({job.as, job.shader_pc}).second || reported_shaders_.size() > 4096) return;
  }
  // Through page_pointer, which never stalls or records a fault: the report must not change the job.
  std::string text = shader_estimate_text(job.shader_pc, shader_words(memory));
  std::fprintf(stderr, "vplat: gpu-estimate: shader 0x%llx: %s\n",
               static_cast<unsigned long long>(job.shader_pc), text.empty() ? "(unreadable)" : text.c_str());
}

} // namespace vplat::gpu::bifrost
