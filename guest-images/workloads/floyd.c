// floyd: all-pairs shortest paths (Floyd-Warshall) on a random directed graph of n vertices with integer
// weights 1..100 (about 1 in 8 pairs an edge; no edge = 0x3fffffff, so a sum of two never overflows). One
// dispatch per intermediate vertex k, in place: row k and column k do not change during step k. Exact
// compare.
#include "wl_common.h"

#include <stdlib.h>
#include <string.h>

#define NO_EDGE 0x3fffffffu
static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) buffer Dist { uint dist[]; };\n"
            "uniform uint n, k;\n"
            "void main() {\n"
            "  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y;\n"
            "  if (i >= n || j >= n) return;\n"
            "  uint through_k = dist[i * n + k] + dist[k * n + j];\n"
            "  if (through_k < dist[i * n + j]) dist[i * n + j] = through_k;\n"
            "}\n",
    .cl = "__kernel void floyd_step(__global uint* dist, uint n, uint k) {\n"
          "  uint j = get_global_id(0), i = get_global_id(1);\n"
          "  if (i >= n || j >= n) return;\n"
          "  uint through_k = dist[i * n + k] + dist[k * n + j];\n"
          "  if (through_k < dist[i * n + j]) dist[i * n + j] = through_k;\n"
          "}\n",
    .cl_entry = "floyd_step",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "floyd", argc, argv, 0);
  const uint32_t n = w.quick ? 21 : 192;
  wl_sizes(&w, "vertices=%u", n);
  uint32_t* d = wl_alloc(&w, n * n * 4);
  uint32_t* want = wl_alloc(&w, n * n * 4);
  uint64_t seed = 15;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j)
      d[i * n + j] = i == j ? 0 : wl_rand_u32(&seed) % 8 == 0 ? 1 + wl_rand_u32(&seed) % 100 : NO_EDGE;
  memcpy(want, d, n * n * 4);
  for (uint32_t k = 0; k < n; ++k)
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = 0; j < n; ++j)
        if (want[i * n + k] + want[k * n + j] < want[i * n + j])
          want[i * n + j] = want[i * n + k] + want[k * n + j];
  struct wl_kernel* kernel = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* buf = wl_buffer(&w, n * n * 4, d);
  wl_arg_buffer(&w, kernel, 0, buf);
  wl_arg_u32(&w, kernel, 1, "n", n);
  wl_gpu_begin(&w);
  for (uint32_t k = 0; k < n; ++k) {
    wl_arg_u32(&w, kernel, 2, "k", k);
    wl_run(&w, kernel, (n + 15) / 16, (n + 7) / 8, 1);
  }
  wl_gpu_end(&w);
  wl_buffer_read(&w, buf, 0, n * n * 4, d);
  wl_finish(&w, wl_compare_u32("dist", d, want, n * n) == 0, "exact");
}
