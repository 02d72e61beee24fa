// nn: nearest neighbour: for each of q query points the index of the closest of p reference points (squared
// Euclidean distance, ties to the lowest index). Integer coordinates in [0, 1024), so distances are exact
// integers; reference points are staged through shared memory 128 at a time. Exact compare (index and
// distance).
#include "wl_common.h"

#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Points { ivec2 point[]; };\n"
            "layout(std430, binding = 1) readonly buffer Queries { ivec2 query[]; };\n"
            "layout(std430, binding = 2) writeonly buffer Result { uvec2 result[]; };\n"
            "uniform uint p, q;\n"
            "shared ivec2 tile[128];\n"
            "void main() {\n"
            "  uint lid = gl_LocalInvocationID.x, i = gl_GlobalInvocationID.x;\n"
            "  ivec2 me = i < q ? query[i] : ivec2(0);\n"
            "  uint best = 0xffffffffu, best_index = 0u;\n"
            "  for (uint base = 0u; base < p; base += 128u) {\n"
            "    if (base + lid < p) tile[lid] = point[base + lid];\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "    uint count = min(128u, p - base);\n"
            "    for (uint j = 0u; j < count; ++j) {\n"
            "      ivec2 d = tile[j] - me;\n"
            "      uint dist = uint(d.x * d.x + d.y * d.y);\n"
            "      if (dist < best) { best = dist; best_index = base + j; }\n"
            "    }\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "  }\n"
            "  if (i < q) result[i] = uvec2(best_index, best);\n"
            "}\n",
    .cl = "__kernel void nearest(__global const int2* point, __global const int2* query, __global uint2* "
          "result, uint p,\n"
          "                      uint q) {\n"
          "  __local int2 tile[128];\n"
          "  uint lid = get_local_id(0), i = get_global_id(0);\n"
          "  int2 me = i < q ? query[i] : (int2)(0);\n"
          "  uint best = 0xffffffffu, best_index = 0u;\n"
          "  for (uint base = 0u; base < p; base += 128u) {\n"
          "    if (base + lid < p) tile[lid] = point[base + lid];\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    uint count = min(128u, p - base);\n"
          "    for (uint j = 0u; j < count; ++j) {\n"
          "      int2 d = tile[j] - me;\n"
          "      uint dist = (uint)(d.x * d.x + d.y * d.y);\n"
          "      if (dist < best) { best = dist; best_index = base + j; }\n"
          "    }\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  }\n"
          "  if (i < q) result[i] = (uint2)(best_index, best);\n"
          "}\n",
    .cl_entry = "nearest",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "nn", argc, argv, 0);
  const uint32_t p = w.quick ? 300 : 4096, q = w.quick ? 70 : 2048;
  wl_sizes(&w, "points=%u,queries=%u", p, q);
  int32_t* points = wl_alloc(&w, p * 8);
  int32_t* queries = wl_alloc(&w, q * 8);
  uint32_t* got = wl_alloc(&w, q * 8);
  uint32_t* want = wl_alloc(&w, q * 8);
  uint64_t seed = 14;
  for (uint32_t i = 0; i < 2 * p; ++i) points[i] = (int32_t)(wl_rand_u32(&seed) % 1024);
  for (uint32_t i = 0; i < 2 * q; ++i) queries[i] = (int32_t)(wl_rand_u32(&seed) % 1024);
  // A few queries sit exactly on a point, and one duplicated point makes a tie.
  points[2 * (p - 1)] = points[2 * 3];
  points[2 * (p - 1) + 1] = points[2 * 3 + 1];
  queries[0] = points[6];
  queries[1] = points[7];
  for (uint32_t i = 0; i < q; ++i) {
    uint32_t best = UINT32_MAX, index = 0;
    for (uint32_t j = 0; j < p; ++j) {
      int32_t dx = points[2 * j] - queries[2 * i], dy = points[2 * j + 1] - queries[2 * i + 1];
      uint32_t d = (uint32_t)(dx * dx + dy * dy);
      if (d < best) best = d, index = j;
    }
    want[2 * i] = index;
    want[2 * i + 1] = best;
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, p * 8, points));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, q * 8, queries));
  struct wl_buffer* br = wl_buffer(&w, q * 8, NULL);
  wl_arg_buffer(&w, k, 2, br);
  wl_arg_u32(&w, k, 3, "p", p);
  wl_arg_u32(&w, k, 4, "q", q);
  wl_gpu_begin(&w);
  wl_run(&w, k, (q + 127) / 128, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, br, 0, q * 8, got);
  wl_finish(&w, wl_compare_u32("index,dist", got, want, 2 * q) == 0, "exact");
}
