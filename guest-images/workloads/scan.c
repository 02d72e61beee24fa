// scan: exclusive prefix sum of n unsigned integers (modulo 2^32). Blelloch's work-efficient scan of
// 256-value blocks in shared memory (up-sweep, down-sweep), the block totals scanned the same way
// (recursively), and their scan added back to every block. Exact compare.
//
// The down-sweep loads t[bi] before t[ai] and stores only values already in registers. Written the textbook
// way (x = t[ai]; t[ai] = t[bi]; t[bi] += x), Mesa 22.3's Bifrost pre-RA scheduler (bi_pressure_schedule.c)
// moves the load of t[ai] after the store to t[ai]: it orders a store only after the most recent load, not
// after every earlier one, so every output became 0 in the bookworm guest. Later Mesa chains all loads. In
// this order each store depends on the last load, so that schedule cannot happen.
#include "wl_common.h"

static const struct wl_kernel_src kScanBlocks = {
    .glsl = "layout(local_size_x = 128) in;\n"
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
            "      uint y = t[bi];\n"
            "      uint x = t[ai];\n"
            "      t[ai] = y;\n"
            "      t[bi] = x + y;\n"
            "    }\n"
            "  }\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  if (i0 < n) data[i0] = t[lid];\n"
            "  if (i1 < n) data[i1] = t[lid + 128u];\n"
            "}\n",
    .cl = "__kernel void scan_blocks(__global uint* data, __global uint* sums, uint n) {\n"
          "  __local uint t[256];\n"
          "  uint lid = get_local_id(0);\n"
          "  uint i0 = get_group_id(0) * 256u + lid, i1 = i0 + 128u;\n"
          "  t[lid] = i0 < n ? data[i0] : 0u;\n"
          "  t[lid + 128u] = i1 < n ? data[i1] : 0u;\n"
          "  uint offset = 1u;\n"
          "  for (uint d = 128u; d > 0u; d >>= 1) {\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    if (lid < d) t[offset * (2u * lid + 2u) - 1u] += t[offset * (2u * lid + 1u) - 1u];\n"
          "    offset <<= 1;\n"
          "  }\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  if (lid == 0u) {\n"
          "    sums[get_group_id(0)] = t[255];\n"
          "    t[255] = 0u;\n"
          "  }\n"
          "  for (uint d = 1u; d < 256u; d <<= 1) {\n"
          "    offset >>= 1;\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    if (lid < d) {\n"
          "      uint ai = offset * (2u * lid + 1u) - 1u, bi = offset * (2u * lid + 2u) - 1u;\n"
          "      uint y = t[bi];\n"
          "      uint x = t[ai];\n"
          "      t[ai] = y;\n"
          "      t[bi] = x + y;\n"
          "    }\n"
          "  }\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  if (i0 < n) data[i0] = t[lid];\n"
          "  if (i1 < n) data[i1] = t[lid + 128u];\n"
          "}\n",
    .cl_entry = "scan_blocks",
    .local = {128, 1, 1},
};

static const struct wl_kernel_src kAddOffsets = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) buffer Data { uint data[]; };\n"
            "layout(std430, binding = 1) readonly buffer Offsets { uint offsets[]; };\n"
            "uniform uint n;\n"
            "void main() {\n"
            "  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i < n) data[i] += offsets[i / 256u];\n"
            "}\n",
    .cl = "__kernel void add_offsets(__global uint* data, __global const uint* offsets, uint n) {\n"
          "  uint i = get_global_id(0);\n"
          "  if (i < n) data[i] += offsets[i / 256u];\n"
          "}\n",
    .cl_entry = "add_offsets",
    .local = {128, 1, 1},
};

static struct wl_kernel *scan_kernel, *add_kernel;

static void scan(struct wl* w, struct wl_buffer* data, uint32_t n) {
  uint32_t blocks = (n + 255) / 256;
  struct wl_buffer* sums = wl_buffer(w, blocks * 4, NULL);
  wl_arg_buffer(w, scan_kernel, 0, data);
  wl_arg_buffer(w, scan_kernel, 1, sums);
  wl_arg_u32(w, scan_kernel, 2, "n", n);
  wl_run(w, scan_kernel, blocks, 1, 1);
  if (blocks > 1) {
    scan(w, sums, blocks);
    wl_arg_buffer(w, add_kernel, 0, data);
    wl_arg_buffer(w, add_kernel, 1, sums);
    wl_arg_u32(w, add_kernel, 2, "n", n);
    wl_run(w, add_kernel, (n + 127) / 128, 1, 1);
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
  scan_kernel = wl_kernel(&w, NULL, &kScanBlocks);
  add_kernel = wl_kernel(&w, NULL, &kAddOffsets);
  struct wl_buffer* buf = wl_buffer(&w, n * 4, data);
  wl_gpu_begin(&w);
  scan(&w, buf, n);
  wl_gpu_end(&w);
  wl_buffer_read(&w, buf, 0, n * 4, data);
  wl_finish(&w, wl_compare_u32("scan", data, want, n) == 0, "exact");
}
