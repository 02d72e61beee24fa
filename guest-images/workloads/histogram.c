// histogram: 256-bin histogram of n bytes (packed four to a uint). Each workgroup counts into a shared-memory
// histogram with atomicAdd, then adds it to the global one with atomicAdd; a fixed number of workgroups
// strides over the input. The byte distribution is skewed (products of two uniforms), so some bins are hot.
// Exact compare: the order of atomic additions does not change integer counts.
#include "workload.h"

#include <stdlib.h>

#define GROUPS 64u
static const char kShader[] =
    "layout(local_size_x = 128) in;\n"
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
    "}\n";

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
  GLuint prog = wl_program(&w, NULL, kShader);
  GLuint bsrc = wl_ssbo(&w, nwords * 4, words), bhist = wl_ssbo(&w, sizeof got, NULL);
  wl_bind(0, bsrc);
  wl_bind(1, bhist);
  glUseProgram(prog);
  wl_uniform_u(&w, prog, "nwords", nwords);
  wl_gpu_begin(&w);
  wl_dispatch(&w, GROUPS, 1, 1);
  wl_gpu_end(&w);
  wl_read(&w, bhist, 0, sizeof got, got);
  wl_finish(&w, wl_compare_u32("bin", got, want, 256) == 0, "exact");
}
