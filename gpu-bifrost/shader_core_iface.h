// The boundary between the job manager and the shader cores ([GPU-SC] implements ShaderCore). The job
// manager walks the chain, decodes a Compute job's descriptors (Mesa v6.xml: "Compute Job" = Job Header @0,
// Invocation @32, Compute Job Parameters @40, Draw @64; "Renderer State", "Local Storage", "Uniform
// Buffer") into a ComputeJob and hands it over with the job's view of GPU memory. The shader core returns
// the job's exception status and how many GPU cycles it took (which sets when the completion becomes
// visible to the guest, see job_manager.h).
#pragma once
#include "gpu-bifrost/gpu_mmu.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vplat::gpu {

// GPU virtual memory as one job sees it: its address space, through the GPU MMU. A translation or
// permission fault stalls the calling thread until the driver has handled the MMU interrupt (the access is
// then retried) or gives up (AS disabled, slot stopped, GPU reset); only then does a call return false.
// After a false return the job is over: the shader core should return promptly, and the job manager
// reports the fault status it recorded, whatever status the shader core returns.
class GpuMemory {
public:
  virtual ~GpuMemory() = default;
  virtual bool read(uint64_t va, void* dst, size_t len, Access access = Access::Read) = 0;
  virtual bool write(uint64_t va, const void* src, size_t len) = 0;
  // Why the last failed access failed (an exc:: code), 0 when none has.
  virtual uint32_t fault_status() const = 0;
  // The shader cores' fast path: the host address of the guest RAM page holding `va` when the job's address
  // space maps it for `access` (and it is RAM), else nullptr; never stalls, records no fault, and may be called
  // from several host threads at once (read/write may not: the caller serialises those). A page obtained here
  // stays valid host memory for the whole job; its translation is the one in force when it was obtained (the
  // driver changes tables during a job only to add pages after a fault, or to disable the address space).
  virtual uint8_t* page_pointer(uint64_t va, Access access) {
    (void)va;
    (void)access;
    return nullptr;
  }
};

struct UniformBuffer {
  uint64_t va = 0;      // Pointer (stored >> 4)
  uint32_t entries = 0; // 16-byte entries (stored minus 1)
};

// A decoded Bifrost (v6) compute job. Sizes are the real values (the descriptors store them minus 1).
struct ComputeJob {
  uint64_t job_va = 0;
  unsigned as = 0;
  // Invocation (the packed dynamic bitfield, see decode_invocation in job_chain.h).
  uint32_t invocation_raw[2] = {};
  uint32_t local_size[3] = {1, 1, 1}; // threads per workgroup, x/y/z
  uint32_t workgroups[3] = {1, 1, 1}; // workgroups in the dispatch, x/y/z
  uint32_t thread_group_split = 0;
  uint32_t job_task_split = 0; // Compute Job Parameters word 0 [29:26]
  // Draw (the pointers a compute job uses).
  uint64_t renderer_state_va = 0, thread_storage_va = 0, uniform_buffers_va = 0, push_uniforms_va = 0;
  uint64_t textures_va = 0, samplers_va = 0, attributes_va = 0, attribute_buffers_va = 0;
  // Renderer State.
  uint64_t shader_pc = 0; // Shader.Shader: the first clause of the program
  uint32_t sampler_count = 0, texture_count = 0, attribute_count = 0, varying_count = 0;
  uint32_t uniform_buffer_count = 0; // Properties [7:0]
  bool shader_contains_barrier = false; // Properties bit 11
  uint32_t preload = 0;                 // Preload word (Compute Preload bits [14:6])
  uint32_t push_uniform_words = 0;      // Preload.Uniform count [21:15]: 64-bit FAU words at push_uniforms_va
  std::vector<UniformBuffer> uniform_buffers; // the uniform_buffer_count descriptors at uniform_buffers_va
  // Local Storage (thread storage).
  uint32_t tls_size = 0;              // log2(per-thread stack / 16), 0 = none
  uint32_t tls_initial_sp_offset = 0;
  uint32_t wls_instances_log2 = 0;    // raw 5-bit field (log2); 0x1f encodes "no workgroup memory"
  uint32_t wls_size_base = 0, wls_size_scale = 0;
  uint64_t tls_base = 0, wls_base = 0;

  uint64_t invocations() const {
    return uint64_t{local_size[0]} * local_size[1] * local_size[2] * workgroups[0] * workgroups[1] * workgroups[2];
  }
};

struct ShaderResult {
  uint32_t status = 0x01; // exc::DONE, or the job fault the shader cores raised
  uint64_t gpu_cycles = 0;
  // The timing models' estimate of the job (instrumentation/models), when the shader cores ran them: GPU cycles
  // and microseconds at the modelled GPU clock.
  bool has_estimate = false;
  uint64_t estimate_cycles = 0;
  double estimate_us = 0;
  // Nonzero: the job's shader work takes this many virtual-clock ticks (the estimate, when the shader cores are
  // told to let it decide completion times) instead of gpu_cycles / JobManager::kCyclesPerTick.
  uint64_t completion_ticks = 0;
};

class ShaderCore {
public:
  virtual ~ShaderCore() = default;
  // Runs every invocation of `job`. Called on a job-manager host thread, one job at a time per slot (two
  // slots may call concurrently). `abort` becomes true when the job must end now (hard stop, GPU reset,
  // machine shutdown): return soon after. The job manager waits for this call to return before the job's
  // completion can become visible, so an implementation must bound its own work (a shader that never
  // terminates must end in a fault after a deterministic number of cycles).
  virtual ShaderResult run_compute(const ComputeJob& job, GpuMemory& memory, const std::atomic<bool>& abort) = 0;
};

} // namespace vplat::gpu
