// One Compute job run straight on the Bifrost shader cores, with no job manager or job descriptors around it:
// guest RAM on a bus, seen by the GPU through address space 0 mapped identically (TRANSTAB ADRMODE 2), and a
// shader of clauses assembled with the test assembler and laid out one after another. Shared by the
// timing-model tests (timing_test.cpp) and the interpreter benchmark (bench/gpu_interp.cpp).
#pragma once
#include "bifrost_asm.h"
#include "devices/bus.h"
#include "gpu-bifrost/compute_cores.h"
#include "gpu-bifrost/gpu_mmu.h"
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace direct_compute {

// The job's memory: straight to the MMU (address space 0), so nothing stalls; read/write serialised as the
// GpuMemory contract asks.
class Memory : public vplat::gpu::GpuMemory {
public:
  explicit Memory(vplat::gpu::GpuMmu& mmu) : mmu_(mmu) {}
  bool read(uint64_t va, void* dst, size_t len, vplat::gpu::Access access) override {
    std::lock_guard lock(m_);
    return mmu_.read(0, va, dst, len, fault_, access);
  }
  bool write(uint64_t va, const void* src, size_t len) override {
    std::lock_guard lock(m_);
    return mmu_.write(0, va, src, len, fault_);
  }
  uint32_t fault_status() const override { return fault_.exception; }
  uint8_t* page_pointer(uint64_t va, vplat::gpu::Access access) override {
    std::lock_guard lock(m_);
    vplat::gpu::MmuFault f;
    return mmu_.host_pointer(0, va & ~uint64_t{0xfff}, 0x1000, access, f);
  }

private:
  vplat::gpu::GpuMmu& mmu_;
  std::mutex m_;
  vplat::gpu::MmuFault fault_;
};

// RAM of `size` bytes at `base`, identity-mapped for the GPU.
struct Gpu {
  vplat::dev::Bus bus;
  vplat::gpu::GpuMmu mmu{bus};
  Memory mem{mmu};
  Gpu(uint64_t base, uint64_t size) {
    bus.add_ram(base, size);
    mmu.update(0, 2, 0, 0);
  }
  // Assembles `clauses` one after another from `at` (throws bifrost_asm::Error); returns the end address.
  uint64_t load_clauses(uint64_t at, const std::vector<std::string>& clauses) {
    for (const auto& c : clauses) {
      auto words = bifrost_asm::assemble(c);
      bus.copy_to(at, words.data(), words.size() * 8);
      at += words.size() * 8;
    }
    return at;
  }
  // Writes the push uniforms (64-bit words) to `va`.
  void push_uniforms(uint64_t va, const std::vector<uint64_t>& words) {
    bus.copy_to(va, words.data(), words.size() * 8);
  }
  vplat::gpu::ShaderResult run(vplat::gpu::bifrost::ComputeCores& cores, const vplat::gpu::ComputeJob& job) {
    std::atomic<bool> abort{false};
    return cores.run_compute(job, mem, abort);
  }
};

// A one-dimensional dispatch of `groups` workgroups of `local` threads, starting at `shader`, with
// `push_words` push uniforms at `push_va`, the preload bits given and no workgroup memory.
inline vplat::gpu::ComputeJob job_1d(uint64_t shader, uint32_t local, uint32_t groups, uint64_t push_va,
                                     uint32_t push_words, uint32_t preload) {
  vplat::gpu::ComputeJob job;
  job.local_size[0] = local;
  job.workgroups[0] = groups;
  job.shader_pc = shader;
  job.push_uniforms_va = push_va;
  job.push_uniform_words = push_words;
  job.preload = preload;
  job.wls_instances_log2 = 31;
  return job;
}

} // namespace direct_compute
