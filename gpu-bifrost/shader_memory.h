// What a shader thread's memory accesses (loads, stores, atomics, segment and UBO accesses, instruction fetch)
// go through. The runtime helpers call it with the thread's address space and get the GpuMmu's fault report on
// failure, whichever implementation sits behind it:
//  - MmuShaderMemory: straight to a GpuMmu (unit tests, one quad or workgroup at a time, no stalls);
//  - the compute dispatcher's per-host-thread view (compute_cores.cpp): pages translated once and accessed
//    directly in guest RAM, falling back to the job's GpuMemory (which stalls on MMU faults) when a page is not
//    mapped.
#pragma once
#include "gpu-bifrost/gpu_mmu.h"
#include <cstddef>
#include <cstdint>

namespace vplat::gpu::bifrost {

class ShaderMemory {
public:
  virtual ~ShaderMemory() = default;
  virtual bool read(unsigned as, uint64_t va, void* dst, size_t len, MmuFault& fault, Access access) = 0;
  virtual bool write(unsigned as, uint64_t va, const void* src, size_t len, MmuFault& fault) = 0;
  // Guest RAM behind [va, va + len) (not crossing a page) for a read-modify-write that must be atomic against
  // other host threads; nullptr with `fault` filled when it cannot be had.
  virtual uint8_t* host_pointer(unsigned as, uint64_t va, size_t len, Access access, MmuFault& fault) = 0;
};

class MmuShaderMemory final : public ShaderMemory {
public:
  explicit MmuShaderMemory(GpuMmu& mmu) : mmu_(mmu) {}
  bool read(unsigned as, uint64_t va, void* dst, size_t len, MmuFault& fault, Access access) override {
    return mmu_.read(as, va, dst, len, fault, access);
  }
  bool write(unsigned as, uint64_t va, const void* src, size_t len, MmuFault& fault) override {
    return mmu_.write(as, va, src, len, fault);
  }
  uint8_t* host_pointer(unsigned as, uint64_t va, size_t len, Access access, MmuFault& fault) override {
    return mmu_.host_pointer(as, va, len, access, fault);
  }

private:
  GpuMmu& mmu_;
};

} // namespace vplat::gpu::bifrost
