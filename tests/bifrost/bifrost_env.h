// A GPU memory environment for shader tests: guest RAM on a Bus, Mali LPAE page tables built as panfrost's
// io-pgtable builds them (tests/gpu/gpu_test_util.h), a GpuMmu with address space 0 enabled, a ShaderCache and a
// ShaderCore. Code is mapped read-only and executable, data read-write.
#pragma once
#include "bifrost_asm.h"
#include "gpu-bifrost/shader_core.h"
#include "gpu_test_util.h"
#include <memory>
#include <vector>

namespace bifrost_test {

using namespace vplat::gpu::bifrost;

constexpr uint64_t kCodeVa = 0x10000000;
constexpr uint64_t kCodePa = gputest::kDataPa;
constexpr uint64_t kDataVa = 0x20000000;
constexpr uint64_t kDataPa = gputest::kDataPa + 0x100000;
constexpr unsigned kCodePages = 16, kDataPages = 64;

struct GpuEnv {
  vplat::dev::Bus bus;
  std::unique_ptr<gputest::PageTables> pt;
  std::unique_ptr<vplat::gpu::GpuMmu> mmu;
  ShaderCache cache;
  std::unique_ptr<ShaderCore> core;

  GpuEnv() {
    bus.add_ram(gputest::kRamBase, gputest::kRamSize);
    pt = std::make_unique<gputest::PageTables>(bus);
    for (unsigned i = 0; i < kCodePages; ++i) pt->map(kCodeVa + 4096ull * i, kCodePa + 4096ull * i, gputest::kRo);
    for (unsigned i = 0; i < kDataPages; ++i) pt->map(kDataVa + 4096ull * i, kDataPa + 4096ull * i, gputest::kRw);
    mmu = std::make_unique<vplat::gpu::GpuMmu>(bus);
    mmu->update(0, pt->pgd() | 0x7, 0x888d88, 0);
    core = std::make_unique<ShaderCore>(*mmu, cache);
  }
  // Writes quadwords (lo, hi pairs) at a code address; returns the address after them.
  uint64_t load_code(uint64_t va, const std::vector<uint64_t>& words) {
    EXPECT_TRUE(bus.copy_to(kCodePa + (va - kCodeVa), words.data(), words.size() * 8));
    cache.begin_job();
    return va + words.size() * 8;
  }
  void write32(uint64_t va, uint32_t v) { EXPECT_TRUE(bus.copy_to(kDataPa + (va - kDataVa), &v, 4)); }
  uint32_t read32(uint64_t va) {
    uint32_t v = 0;
    EXPECT_TRUE(bus.copy_from(kDataPa + (va - kDataVa), &v, 4));
    return v;
  }
};

} // namespace bifrost_test
