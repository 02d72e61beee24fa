// histogram: 256-bin histogram of n bytes (packed four to a uint). Each workgroup counts into a shared-memory
// histogram with atomicAdd, then adds it to the global one with atomicAdd; a fixed number of workgroups
// strides over the input. The byte distribution is skewed (products of two uniforms), so some bins are hot.
// Exact compare: the order of atomic additions does not change integer counts.
#include "wl_common.h"

#include <stdlib.h>

#define GROUPS 64u
static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { uint word[]; };\n"
            "layout(std430, binding = 1) buffer Hist { uint hist[]; };\n"
            "uniform uint nwords;\n"
            "shared uint local_hist[256];\n"
            "void main() {\n"
            "  uint lid = gl_LocalInvocationID.x;\n"
            "  local_hist[lid] = 0u;\n"
            "  local_hist[lid + 128u] = 0u;\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  for (uint i = gl_GlobalInvocationID.x; i < nwords; i += gl_NumWorkGroups.x * 128u) {\n"
            "    uint v = word[i];\n"
            "    for (uint b = 0u; b < 32u; b += 8u) atomicAdd(local_hist[(v >> b) & 255u], 1u);\n"
            "  }\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  atomicAdd(hist[lid], local_hist[lid]);\n"
            "  atomicAdd(hist[lid + 128u], local_hist[lid + 128u]);\n"
            "}\n",
    .cl = "__kernel void histogram(__global const uint* word, __global uint* hist, uint nwords) {\n"
          "  __local uint local_hist[256];\n"
          "  uint lid = get_local_id(0);\n"
          "  local_hist[lid] = 0u;\n"
          "  local_hist[lid + 128u] = 0u;\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  for (uint i = get_global_id(0); i < nwords; i += get_num_groups(0) * 128u) {\n"
          "    uint v = word[i];\n"
          "    for (uint b = 0u; b < 32u; b += 8u) atomic_inc(&local_hist[(v >> b) & 255u]);\n"
          "  }\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  atomic_add(&hist[lid], local_hist[lid]);\n"
          "  atomic_add(&hist[lid + 128u], local_hist[lid + 128u]);\n"
          "}\n",
    .cl_entry = "histogram",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "histogram", argc, argv, 0);
  const uint32_t nbytes = w.quick ? 5000 : 1u << 22, nwords = nbytes / 4;
  wl_sizes(&w, "bytes=%u,bins=256", nbytes);
  uint32_t* words = wl_alloc(&w, nwords * 4);
  uint32_t want[256] = {0}, got[256];
  uint64_t seed = 10;
  for (uint32_t i = 0; i < nwords; ++i) {
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) {
      uint32_t byte = ((wl_rand_u32(&seed) >> 24) * (wl_rand_u32(&seed) >> 24)) >> 8;
      want[byte]++;
      v |= byte << (8 * b);
    }
    words[i] = v;
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* bhist = wl_buffer(&w, sizeof got, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, nwords * 4, words));
  wl_arg_buffer(&w, k, 1, bhist);
  wl_arg_u32(&w, k, 2, "nwords", nwords);
  wl_gpu_begin(&w);
  wl_run(&w, k, GROUPS, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bhist, 0, sizeof got, got);
  wl_finish(&w, wl_compare_u32("bin", got, want, 256) == 0, "exact");
}
