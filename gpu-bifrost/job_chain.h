// Job-chain execution: walks a chain of Bifrost (v6) job descriptors through the GPU MMU, honours each
// header's index / dependency scoreboard and barrier, executes the job types the model runs, and writes each
// job's exception status back into its header. Facts: Mesa src/panfrost/lib/genxml/v6.xml ("Job Header",
// "Write Value Job Payload", "Job Type"), panfrost_regs.h (JS_CONFIG), ../shared/reference/mali-g71.md.
//
// Job header (32 bytes, 64-byte aligned), little-endian words:
//   word 0  Exception Status (32)          word 1  First Incomplete Task (32)
//   words 2-3  Fault Pointer (64)
//   word 4  [0] Is 64b  [7:1] Type  [8] Barrier  [9] Invalidate Cache  [11] Suppress Prefetch
//           [12] Enable Texture Mapper  [14]/[15] Relax Dependency 1/2  [31:16] Index
//   word 5  [15:0] Dependency 1  [31:16] Dependency 2
//   words 6-7  Next (64; 0 ends the chain)
// The payload follows at +32.
#pragma once
#include "gpu-bifrost/gpu_mmu.h"
#include <cstdint>
#include <optional>

namespace vplat::gpu {

namespace job {
constexpr uint32_t kHeaderSize = 32;
constexpr uint32_t kHeaderAlign = 64;
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

struct ChainEnv {
  unsigned as = 0;
  bool writeback = true; // false with JS_CONFIG.DISABLE_DESCRIPTOR_WR_BK
  uint64_t cycle_count = 0, timestamp = 0;
};

struct ChainResult {
  uint32_t status = 0;       // exc::DONE or the fault code (JS_STATUS)
  uint64_t head = 0;         // JS_HEAD afterwards: 0 when done, else the job that failed
  uint64_t tail = 0;         // JS_TAIL: the last job the slot worked on
  unsigned jobs_done = 0;
  std::optional<MmuFault> mmu_fault; // an MMU fault to report in the AS registers (kind Mmu)
};

// Runs the chain starting at `head` to completion or to its first fault. Never loops forever: the walk is
// bounded and cycles are detected. Synchronous for now; the job manager thread (issue 4) will call it.
ChainResult run_job_chain(GpuMmu& mmu, uint64_t head, const ChainEnv& env);

} // namespace vplat::gpu
