// Job-chain execution, one job per step: walks a chain of Bifrost (v6) job descriptors through the GPU
// MMU, honours each header's index / dependency scoreboard and barrier, executes the job types the model
// runs, decodes Compute jobs for the shader cores, and writes each job's exception status back into its
// header. Facts: Mesa src/panfrost/lib/genxml/v6.xml ("Job Header", "Write Value Job Payload", "Compute
// Job", "Invocation", "Draw", "Renderer State", "Local Storage", "Job Type"), panfrost_regs.h (JS_CONFIG),
// ../shared/reference/mali-g71.md.
//
// Job header (32 bytes, 64-byte aligned), little-endian words:
//   word 0  Exception Status (32)          word 1  First Incomplete Task (32)
//   words 2-3  Fault Pointer (64)
//   word 4  [0] Is 64b  [7:1] Type  [8] Barrier  [9] Invalidate Cache  [11] Suppress Prefetch
//           [12] Enable Texture Mapper  [14]/[15] Relax Dependency 1/2  [31:16] Index
//   word 5  [15:0] Dependency 1  [31:16] Dependency 2
//   words 6-7  Next (64; 0 ends the chain)
// The payload follows at +32.
//
// The runner is stepped by the job manager (job_manager.h): each step() executes exactly one job (or ends
// the chain), so the job manager can make every job's completion visible at its own deterministic virtual
// time and can stop a chain between two jobs.
#pragma once
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/shader_core_iface.h"
#include <atomic>
#include <bitset>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace vplat::gpu {

namespace job {
constexpr uint32_t kHeaderSize = 32;
constexpr uint32_t kHeaderAlign = 64;
constexpr uint32_t kComputeJobSize = 192; // header, invocation @32, parameters @40, draw @64 (128 bytes)
constexpr uint32_t kRendererStateSize = 64;
constexpr uint32_t kLocalStorageSize = 32;
enum Type : uint32_t {
  NotStarted = 0, Null = 1, WriteValue = 2, CacheFlush = 3, Compute = 4, Vertex = 5, Geometry = 6,
  Tiler = 7, Fused = 8, Fragment = 9, IndexedVertex = 10,
};
enum WriteValueType : uint32_t {
  CycleCounter = 1, SystemTimestamp = 2, Zero = 3, Immediate8 = 4, Immediate16 = 5, Immediate32 = 6,
  Immediate64 = 7,
};
// A chain longer than the 16-bit job index space cannot be well-formed; walking stops there.
constexpr unsigned kMaxChainJobs = 65536;
const char* type_name(uint32_t type);
} // namespace job

struct JobHeader {
  uint32_t exception_status = 0, first_incomplete_task = 0;
  uint64_t fault_pointer = 0;
  bool is_64b = false, barrier = false;
  uint32_t type = 0;
  uint16_t index = 0, dep1 = 0, dep2 = 0;
  uint64_t next = 0;
  static JobHeader decode(const uint8_t (&raw)[job::kHeaderSize]);
};

// Unpacks the Invocation section (v6.xml "Invocation": the values size_x..z, num_x..z, each minus 1, packed
// LSB-first into word 0 at the bit positions the shift fields of word 1 give; the last one runs to bit 31).
// False when the shifts do not describe a layout (decreasing, or past bit 32).
bool decode_invocation(uint32_t word0, uint32_t word1, uint32_t (&local_size)[3], uint32_t (&workgroups)[3],
                       uint32_t& thread_group_split);

// GPU memory for a chain: a GpuMemory that can also write without stalling (the best-effort write-back of a
// fault status into a header that may itself be what faulted) and that reports a fault the device must
// still raise on the MMU interrupt (one that ended the job without a stall).
class ChainMemory : public GpuMemory {
public:
  virtual bool write_no_stall(uint64_t va, const void* src, size_t len) = 0;
  // The address of the last failed access.
  virtual uint64_t fault_address() const = 0;
  virtual std::optional<MmuFault> take_unreported_fault() = 0;
};

struct StepEnv {
  uint64_t cycle_count = 0, timestamp = 0; // what a Write-value job of this step writes
};

struct StepOutcome {
  enum class Kind { JobDone, ChainEnd } kind = Kind::ChainEnd;
  uint64_t job_va = 0;      // JobDone: the job executed
  uint64_t gpu_cycles = 0;  // what the shader cores reported for it
  uint64_t completion_ticks = 0; // nonzero: the shader work's virtual time instead (ShaderResult)
  // ChainEnd:
  uint32_t status = 0;      // exc::DONE or the fault / STOPPED / TERMINATED code (JS_STATUS)
  uint64_t head = 0;        // JS_HEAD afterwards: 0 when done, else the job to look at / resume from
  uint64_t tail = 0;        // JS_TAIL
  std::optional<MmuFault> mmu_fault; // to report in the AS registers
  std::string trace;        // the decoded job, for --trace gpu-regs (empty when tracing is off)
  // The job this step executed (JobDone, or the job a ChainEnd failed in), for statistics; type 0: none.
  uint32_t job_type = 0;
  uint64_t job_at = 0;
};

// What a soft-stopped chain needs to resume from its stop point without re-running work: the scoreboard
// and the jobs already executed (the job manager keeps it per slot).
struct ResumeState {
  uint64_t at = 0;
  std::shared_ptr<std::bitset<65536>> done;
  std::unordered_set<uint64_t> executed;
};

class ChainRunner {
public:
  ChainRunner(ChainMemory& memory, unsigned as, bool writeback, ShaderCore* shader_core,
              const std::atomic<bool>& abort, bool trace);
  // Starts at `head`; with `resume` (a soft-stopped chain resumed at resume->at == head) its scoreboard.
  void begin(uint64_t head, const ResumeState* resume = nullptr);
  // Executes the next runnable job, or ends the chain (done, or the first fault).
  StepOutcome step(const StepEnv& env);
  // Ends the chain here with STOPPED or TERMINATED (a chain with nothing left ends DONE instead).
  StepOutcome stop(uint32_t code);
  ResumeState resume_state() const;

private:
  struct Pending {
    uint64_t addr;
    JobHeader h;
  };
  ChainMemory& mem_;
  unsigned as_;
  bool writeback_;
  ShaderCore* shader_core_;
  const std::atomic<bool>& abort_;
  bool trace_;
  uint64_t walk_ = 0, tail_ = 0;
  unsigned walked_ = 0;
  std::shared_ptr<std::bitset<65536>> done_;
  std::unordered_set<uint64_t> visited_, executed_;
  std::vector<Pending> pending_;
  bool in_job_ = false;      // the step is inside execute() (a job was taken)
  size_t current_from_ = 0;  // where in pending_ the job being executed came from
  JobHeader current_h_;

  bool dep_ok(uint16_t d) const { return d == 0 || (*done_)[d]; }
  bool ready(const JobHeader& h, bool first) const {
    return dep_ok(h.dep1) && dep_ok(h.dep2) && (!h.barrier || first);
  }
  uint64_t stop_point() const { return pending_.empty() ? walk_ : pending_.front().addr; }
  StepOutcome execute(uint64_t addr, const JobHeader& h, const StepEnv& env);
  StepOutcome run_compute(uint64_t addr, const JobHeader& h, std::string& trace);
  StepOutcome end(uint32_t code, uint64_t addr, bool writeback, uint64_t fault_va = 0);
  StepOutcome end_access(uint64_t addr, bool writeback);
  void requeue_stopped(uint64_t addr, StepOutcome& o);
};

} // namespace vplat::gpu
