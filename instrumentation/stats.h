// Run statistics: the counters the GPU shader cores, the GPU device and the CPUs produce, collected into one
// Run and written as JSON (schema: README.md), CSV, a text summary, Graphviz control-flow graphs and a Chrome
// trace-event timeline. Nothing here is on an execution hot path: producers count in their own storage and
// hand over totals at job completion (the shader cores) or at exit (devices, CPUs); the Collector's lock is
// taken once per job and once per timeline event.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace vplat::stats {

// Bumped whenever a field changes meaning or disappears (adding fields keeps the version).
constexpr int kSchemaVersion = 1;

struct MemTraffic {
  uint64_t accesses = 0, bytes = 0;
};

// Shader statistics of one job, or summed over jobs. "thread" counts count every active lane (a quad clause
// executed with 3 active lanes counts 3 thread clauses); "warp" counts count quad executions.
struct ShaderCounters {
  uint64_t workgroups = 0, warps = 0, threads = 0;
  uint64_t warp_clauses = 0, thread_clauses = 0;
  uint64_t warp_tuples = 0, thread_tuples = 0;
  uint64_t warp_instructions = 0, thread_instructions = 0; // FMA and ADD slots, NOPs included
  uint64_t warp_nops = 0, thread_nops = 0;                 // empty slots (the NOP encodings)
  std::array<uint64_t, 9> clause_size_dynamic{};           // [n]: warp clause executions of n-tuple clauses
  std::array<uint64_t, 9> clause_size_static{};            // [n]: distinct n-tuple clauses executed
  std::array<uint64_t, 5> active_lanes{};                  // [n]: warp clause executions with n active lanes
  std::map<std::string, uint64_t> by_opcode;               // thread instructions per opcode
  std::map<std::string, uint64_t> by_class;                // per "<unit>.<class>" (archdesc class)
  std::map<std::string, uint64_t> by_category;             // per arithmetic/conversion/control/message group
  // Data movement, thread level: register-block port reads and slot writes, staging registers messages read
  // and write (words), operands taken from the temporaries (t, t0, t1: passthrough, no register access), and
  // FAU operand reads by kind.
  uint64_t reg_reads = 0, reg_writes = 0, staging_reads = 0, staging_writes = 0, temp_reads = 0;
  uint64_t fau_uniform = 0, fau_constant = 0, fau_special = 0;
  std::map<std::string, MemTraffic> memory; // "<segment>.<load|store|atomic>", thread accesses and bytes
  uint64_t divergent_branches = 0;          // warp clause executions whose active lanes went different ways
  void add(const ShaderCounters& o);
};

// A shader's control-flow graph at clause granularity. Successor kEnd is "the shader ends".
struct CfgEdge {
  uint64_t warps = 0, lanes = 0;
};
struct CfgNode {
  unsigned tuples = 0;
  uint64_t warp_executions = 0, thread_executions = 0;
  std::map<uint64_t, CfgEdge> successors;
  uint64_t divergent = 0;                 // executions where the active lanes split
  std::array<uint64_t, 16> taken_masks{}; // of those: how often each mask of lanes took the branch
  std::string text;                       // the clause's instructions (empty slots left out), one per line
};
struct ShaderCfg {
  static constexpr uint64_t kEnd = UINT64_MAX;
  unsigned as = 0;
  uint64_t entry = 0;
  std::map<uint64_t, CfgNode> nodes; // by clause address
  void add(const ShaderCfg& o);
};

// The timing models' estimate of one compute job (instrumentation/models: KernelEstimate).
struct JobEstimate {
  uint64_t cycles = 0;     // GPU cycles
  double microseconds = 0; // at the modelled GPU clock
  std::string bound;       // the busiest resource when it sets the time, else "schedule"
  unsigned n_par = 0;      // workgroups resident per core
  uint64_t schedule = 0, resource_bound = 0;
};

// What the shader cores report for one compute job when it has run.
struct ComputeJobStats {
  unsigned as = 0;
  uint64_t job_va = 0, shader = 0;
  std::array<uint32_t, 3> local{}, groups{};
  uint64_t pages = 0; // distinct GPU pages the shaders touched
  ShaderCounters counters;
  ShaderCfg cfg;
  bool has_estimate = false; // the timing models ran and the job completed
  JobEstimate estimate;
  double host_seconds = -1; // wall-clock seconds the shader cores spent on the job (-1: not measured)
};

// One job as the guest saw it: virtual times in ticks of the 50 MHz system counter.
struct JobRecord {
  uint64_t index = 0, va = 0;
  unsigned slot = 0, as = 0;
  std::string type;
  uint32_t status = 0;
  uint64_t start = 0, end = 0;
  bool has_compute = false;
  ComputeJobStats compute;
};

struct TimelineEvent {
  enum class Kind { Job, Irq, CpuIdle } kind;
  uint64_t start = 0, end = 0; // ticks; Irq: the interval the line was asserted
  unsigned track = 0;          // slot, line index or CPU
  std::string name;
};

// Totals a component hands over at the end of a run.
struct GpuDeviceCounters {
  std::map<std::string, uint64_t> reg_reads, reg_writes; // by register name (mali_regs' table)
  std::map<std::string, uint64_t> irqs;                  // assertions (rising edges) per line
  std::map<std::string, uint64_t> mmu_faults;            // by exception name
  uint64_t pages_translated = 0; // distinct (address space, page) the GPU MMU translated (jobs and shaders)
};

struct Run {
  std::string tool = "vplat";
  uint64_t virtual_ticks = 0, tick_hz = 50'000'000;
  unsigned gpu_threads = 0, gpu_cores = 0;
  std::vector<uint64_t> cpu_instructions; // per CPU
  // --cpu-stats (empty when off): executed instructions by the description's instruction name and class.
  std::map<std::string, uint64_t> cpu_by_instruction, cpu_by_class;
  std::vector<JobRecord> jobs;
  GpuDeviceCounters device;
  bool host_times = false; // jobs carry host_seconds (--stats-host-time)
  ShaderCounters shader_totals() const;
  // Control-flow graphs merged over the jobs that ran the same shader (same address space, entry and entry
  // clause), in the order the shaders first ran.
  std::vector<ShaderCfg> shaders() const;
  std::map<std::string, uint64_t> jobs_by_type() const;
  std::map<std::string, uint64_t> jobs_by_slot() const;
  uint64_t gpu_pages() const;
};

// The meeting point of producers on several threads. Compute results arrive from job-manager threads when a
// job has run; the job record is made when its completion becomes visible to the guest (machine thread), so
// records are in guest-visible order, the same for every run.
class Collector {
public:
  explicit Collector(bool timeline = false) : timeline_(timeline) {}
  void compute_done(ComputeJobStats s);
  void job_visible(unsigned slot, unsigned as, uint64_t va, const std::string& type, uint32_t status,
                   uint64_t start, uint64_t end);
  bool timeline() const { return timeline_; }
  void event(TimelineEvent e); // ignored unless timeline(); bounded (kMaxEvents)
  static constexpr size_t kMaxEvents = 1u << 20;

  // Moves what was collected into `run` (jobs, timeline).
  void finish(Run& run, std::vector<TimelineEvent>& events);

private:
  std::mutex m_;
  bool timeline_;
  std::map<std::pair<unsigned, uint64_t>, ComputeJobStats> pending_; // run, not yet visible
  std::vector<JobRecord> jobs_;
  std::vector<TimelineEvent> events_;
  uint64_t dropped_events_ = 0;
};

// The compute jobs' estimates and host seconds summed over a run.
struct RunEstimate {
  uint64_t jobs = 0, cycles = 0; // jobs with an estimate and their cycles
  double microseconds = 0;
  std::map<std::string, uint64_t> bound; // jobs per bound resource ("schedule" when no resource bounds them)
  double host_seconds = 0;               // of every compute job that measured it
};
RunEstimate run_estimate(const Run& run);

// Writers. Each returns false with `error` set when the file cannot be written.
std::string to_json(const Run& run);
std::string summary(const Run& run);
bool write_file(const std::string& path, const std::string& text, std::string& error);
bool write_csv(const Run& run, const std::string& dir, std::string& error);
// Graphviz: nodes are clauses (address, tuples, executions, lanes), edges carry lane counts, divergent
// clauses are drawn red with their taken-lane masks.
std::string cfg_dot(const ShaderCfg& cfg);
// Chrome trace-event JSON ("traceEvents", complete events, microseconds of virtual time).
std::string timeline_json(const Run& run, const std::vector<TimelineEvent>& events);

} // namespace vplat::stats
