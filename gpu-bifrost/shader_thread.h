// One shader thread as the runtime helpers see it: the generated State plus what memory helpers need. The
// helpers receive only State&; State is the first member of this standard-layout struct, so they recover the
// thread from it (thread_of) without any global state, and several host threads can run quads at once.
#pragma once
#include "bifrost_isa.h"
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/shader_memory.h"
#include <type_traits>

namespace vplat::gpu::bifrost {

// A window of GPU virtual memory a segment (WLS, TLS) maps its offsets into; size 0 = the segment is absent.
struct SegmentWindow {
  uint64_t base = 0, size = 0;
};

struct ShaderThread {
  vplat::gen::bifrost::State s{};
  ShaderMemory* mmu = nullptr; // GPU memory as this thread sees it (through the MMU; see shader_memory.h)
  unsigned as = 0;
  MmuFault mmu_fault; // the last failed access
  SegmentWindow wls;  // this thread's workgroup's shared memory
  SegmentWindow tls;  // this thread's own stack
  uint64_t ubo_table = 0; // GPU address of the job's uniform-buffer descriptors (8 bytes each)
  uint32_t ubo_count = 0;
  // The job's primary attribute table (images; archdesc/bifrost/image.adl): attr_count 8-byte Attribute records
  // at attr_table, their 16-byte Attribute Buffer records at attr_buffers.
  uint64_t attr_table = 0, attr_buffers = 0;
  uint32_t attr_count = 0;
  // Shader statistics on: bytes of image texels this host thread loaded [0] and stored [1]. They depend on
  // the image's format, so unlike every other counter they are counted where the access happens.
  uint64_t* image_bytes = nullptr;
  ShaderThread* quad = nullptr; // lane 0 of this thread's quad (cross-lane ops read the other lanes)
};
static_assert(std::is_standard_layout_v<ShaderThread>, "thread_of relies on State being the first member");

inline ShaderThread& thread_of(vplat::gen::bifrost::State& s) { return *reinterpret_cast<ShaderThread*>(&s); }

} // namespace vplat::gpu::bifrost
