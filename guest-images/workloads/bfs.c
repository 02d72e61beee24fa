// bfs: breadth-first search levels from vertex 0 on a generated directed graph in CSR form (random
// out-degrees averaging `degree`, random targets, so part of the graph may be unreachable).
// Level-synchronous: one dispatch per level visits the vertices of the current level and labels unvisited
// neighbours level + 1 (several writers store the same value, so the race is benign); the host reads a
// "changed" flag after each level. Exact compare with a CPU queue-based BFS.
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

#define UNVISITED 0xffffffffu
static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Rows { uint row_start[]; };\n"
            "layout(std430, binding = 1) readonly buffer Cols { uint col[]; };\n"
            "layout(std430, binding = 2) buffer Levels { uint level[]; };\n"
            "layout(std430, binding = 3) buffer Flag { uint changed; };\n"
            "uniform uint n, current;\n"
            "void main() {\n"
            "  uint v = gl_GlobalInvocationID.x;\n"
            "  if (v >= n || level[v] != current) return;\n"
            "  for (uint e = row_start[v]; e < row_start[v + 1u]; ++e) {\n"
            "    uint u = col[e];\n"
            "    if (level[u] == 0xffffffffu) {\n"
            "      level[u] = current + 1u;\n"
            "      changed = 1u;\n"
            "    }\n"
            "  }\n"
            "}\n",
    .cl =
        "__kernel void bfs(__global const uint* row_start, __global const uint* col, __global uint* level,\n"
        "                  __global uint* changed, uint n, uint current) {\n"
        "  uint v = get_global_id(0);\n"
        "  if (v >= n || level[v] != current) return;\n"
        "  for (uint e = row_start[v]; e < row_start[v + 1u]; ++e) {\n"
        "    uint u = col[e];\n"
        "    if (level[u] == 0xffffffffu) {\n"
        "      level[u] = current + 1u;\n"
        "      *changed = 1u;\n"
        "    }\n"
        "  }\n"
        "}\n",
    .cl_entry = "bfs",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "bfs", argc, argv, 0);
  const uint32_t n = w.quick ? 300 : 1u << 17, degree = w.quick ? 2 : 6;
  uint64_t seed = 11;
  uint32_t* row_start = wl_alloc(&w, (n + 1) * 4);
  for (uint32_t v = 0; v < n; ++v) row_start[v + 1] = row_start[v] + wl_rand_u32(&seed) % (2 * degree);
  const uint32_t edges = row_start[n];
  wl_sizes(&w, "vertices=%u,edges=%u", n, edges);
  uint32_t* col = wl_alloc(&w, (edges ? edges : 1) * 4);
  for (uint32_t e = 0; e < edges; ++e) col[e] = wl_rand_u32(&seed) % n;
  uint32_t* want = wl_alloc(&w, n * 4);
  uint32_t* got = wl_alloc(&w, n * 4);
  uint32_t* queue = wl_alloc(&w, n * 4);
  for (uint32_t v = 0; v < n; ++v) want[v] = got[v] = UNVISITED;
  want[0] = got[0] = 0;
  uint32_t head = 0, tail = 0;
  queue[tail++] = 0;
  while (head < tail) {
    uint32_t v = queue[head++];
    for (uint32_t e = row_start[v]; e < row_start[v + 1]; ++e)
      if (want[col[e]] == UNVISITED) {
        want[col[e]] = want[v] + 1;
        queue[tail++] = col[e];
      }
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer *blevel = wl_buffer(&w, n * 4, got), *bflag = wl_buffer(&w, 4, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, (n + 1) * 4, row_start));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, (edges ? edges : 1) * 4, col));
  wl_arg_buffer(&w, k, 2, blevel);
  wl_arg_buffer(&w, k, 3, bflag);
  wl_arg_u32(&w, k, 4, "n", n);
  wl_gpu_begin(&w);
  // The number of levels is at most n; a GPU that keeps reporting changes beyond that is wrong.
  uint32_t current = 0, changed = 1;
  for (; changed && current < n; ++current) {
    const uint32_t zero = 0;
    wl_buffer_write(&w, bflag, 0, 4, &zero);
    wl_arg_u32(&w, k, 5, "current", current);
    wl_run(&w, k, (n + 127) / 128, 1, 1);
    wl_buffer_read(&w, bflag, 0, 4, &changed);
  }
  wl_gpu_end(&w);
  wl_buffer_read(&w, blevel, 0, n * 4, got);
  uint32_t reached = 0;
  for (uint32_t v = 0; v < n; ++v) reached += want[v] != UNVISITED;
  fprintf(stderr, "bfs: %u of %u vertices reachable, %u levels\n", reached, n, current);
  wl_finish(&w, wl_compare_u32("level", got, want, n) == 0, "exact");
}
