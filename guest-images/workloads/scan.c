// scan: exclusive prefix sum of n unsigned integers (modulo 2^32). Blelloch's work-efficient scan of
// 256-value blocks in shared memory (up-sweep, down-sweep), the block totals scanned the same way
// (recursively), and their scan added back to every block. Exact compare.
#include "workload.h"

#include <stdlib.h>

static const char kScanBlocks[] =
    "layout(local_size_x = 128) in;\n"
    "layout(std430, binding = 0) buffer Data { uint data[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };\n"
    "uniform uint n;\n"
    "shared uint t[256];\n"
    "void main() {\n"
    "  uint lid = gl_LocalInvocationID.x;\n"
    "  uint i0 = gl_WorkGroupID.x * 256u + lid, i1 = i0 + 128u;\n"
    "  t[lid] = i0 < n ? data[i0] : 0u;\n"
    "  t[lid + 128u] = i1 < n ? data[i1] : 0u;\n"
    "  uint offset = 1u;\n"
    "  for (uint d = 128u; d > 0u; d >>= 1) {\n"
    "    memoryBarrierShared();\n"
    "    barrier();\n"
    "    if (lid < d) t[offset * (2u * lid + 2u) - 1u] += t[offset * (2u * lid + 1u) - 1u];\n"
    "    offset <<= 1;\n"
    "  }\n"
    "  memoryBarrierShared();\n"
    "  barrier();\n"
    "  if (lid == 0u) {\n"
    "    sums[gl_WorkGroupID.x] = t[255];\n"
    "    t[255] = 0u;\n"
    "  }\n"
    "  for (uint d = 1u; d < 256u; d <<= 1) {\n"
    "    offset >>= 1;\n"
    "    memoryBarrierShared();\n"
    "    barrier();\n"
    "    if (lid < d) {\n"
    "      uint ai = offset * (2u * lid + 1u) - 1u, bi = offset * (2u * lid + 2u) - 1u;\n"
    "      uint x = t[ai];\n"
    "      t[ai] = t[bi];\n"
    "      t[bi] += x;\n"
    "    }\n"
    "  }\n"
    "  memoryBarrierShared();\n"
    "  barrier();\n"
    "  if (i0 < n) data[i0] = t[lid];\n"
    "  if (i1 < n) data[i1] = t[lid + 128u];\n"
    "}\n";

static const char kAddOffsets[] = "layout(local_size_x = 128) in;\n"
                                  "layout(std430, binding = 0) buffer Data { uint data[]; };\n"
                                  "layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };\n"
                                  "uniform uint n;\n"
                                  "void main() {\n"
                                  "  uint i = gl_GlobalInvocationID.x;\n"
                                  "  if (i < n) data[i] += offsets[i / 256u];\n"
                                  "}\n";

static GLuint scan_prog, add_prog;

static void scan(struct wl* w, GLuint data, uint32_t n) {
  uint32_t blocks = (n + 255) / 256;
  GLuint sums = wl_ssbo(w, blocks * 4, NULL);
  glUseProgram(scan_prog);
  wl_uniform_u(w, scan_prog, "n", n);
  wl_bind(0, data);
  wl_bind(1, sums);
  wl_dispatch(w, blocks, 1, 1);
  if (blocks > 1) {
    scan(w, sums, blocks);
    glUseProgram(add_prog);
    wl_uniform_u(w, add_prog, "n", n);
    wl_bind(0, data);
    wl_bind(1, sums);
    wl_dispatch(w, (n + 127) / 128, 1, 1);
  }
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "scan", argc, argv, 0);
  // --quick spans two levels of block sums with a partial last block; the default three levels.
  const uint32_t n = w.quick ? 70000 : 1u << 20;
  wl_sizes(&w, "n=%u", n);
  uint32_t* data = wl_alloc(&w, n * 4);
  uint32_t* want = wl_alloc(&w, n * 4);
  uint64_t seed = 3;
  uint32_t run = 0;
  for (uint32_t i = 0; i < n; ++i) {
    data[i] = wl_rand_u32(&seed) >> (i % 7 == 0 ? 0 : 12);
    want[i] = run;
    run += data[i];
  }
  scan_prog = wl_program(&w, NULL, kScanBlocks);
  add_prog = wl_program(&w, NULL, kAddOffsets);
  GLuint buf = wl_ssbo(&w, n * 4, data);
  wl_gpu_begin(&w);
  scan(&w, buf, n);
  wl_gpu_end(&w);
  wl_read(&w, buf, 0, n * 4, data);
  wl_finish(&w, wl_compare_u32("scan", data, want, n) == 0, "exact");
}
