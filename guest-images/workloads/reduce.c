// reduce: the sum of n unsigned integers (modulo 2^32), tree reduction in shared memory. Each pass turns
// every chunk of 1024 values into one partial sum (8 per invocation, then a 128-wide tree); passes repeat
// until one value is left. Exact compare: integer arithmetic.
#include "wl_common.h"

#define ITEMS 8u
static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { uint src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { uint dst[]; };\n"
            "uniform uint n;\n"
            "shared uint partial[128];\n"
            "void main() {\n"
            "  uint lid = gl_LocalInvocationID.x;\n"
            "  uint base = gl_WorkGroupID.x * 128u * ITEMS;\n"
            "  uint s = 0u;\n"
            "  for (uint k = 0u; k < ITEMS; ++k) {\n"
            "    uint i = base + k * 128u + lid;\n"
            "    if (i < n) s += src[i];\n"
            "  }\n"
            "  partial[lid] = s;\n"
            "  for (uint stride = 64u; stride > 0u; stride >>= 1) {\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "    if (lid < stride) partial[lid] += partial[lid + stride];\n"
            "  }\n"
            "  if (lid == 0u) dst[gl_WorkGroupID.x] = partial[0];\n"
            "}\n",
    .cl = "__kernel void reduce(__global const uint* src, __global uint* dst, uint n) {\n"
          "  __local uint partial[128];\n"
          "  uint lid = get_local_id(0);\n"
          "  uint base = get_group_id(0) * 128u * ITEMS;\n"
          "  uint s = 0u;\n"
          "  for (uint k = 0u; k < ITEMS; ++k) {\n"
          "    uint i = base + k * 128u + lid;\n"
          "    if (i < n) s += src[i];\n"
          "  }\n"
          "  partial[lid] = s;\n"
          "  for (uint stride = 64u; stride > 0u; stride >>= 1) {\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    if (lid < stride) partial[lid] += partial[lid + stride];\n"
          "  }\n"
          "  if (lid == 0u) dst[get_group_id(0)] = partial[0];\n"
          "}\n",
    .cl_entry = "reduce",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "reduce", argc, argv, 0);
  const uint32_t n = w.quick ? 5000 : 1u << 21;
  wl_sizes(&w, "n=%u", n);
  uint32_t* data = wl_alloc(&w, n * sizeof *data);
  uint64_t seed = 2;
  uint32_t want = 0;
  for (uint32_t i = 0; i < n; ++i) {
    data[i] = wl_rand_u32(&seed);
    want += data[i];
  }
  struct wl_kernel* k = wl_kernel(&w, "#define ITEMS 8u\n", &kKernel);
  const uint32_t chunk = 128 * ITEMS;
  struct wl_buffer* buf[3] = {wl_buffer(&w, n * 4, data), wl_buffer(&w, ((n + chunk - 1) / chunk) * 4, NULL),
                              wl_buffer(&w, ((n + chunk - 1) / chunk) * 4, NULL)};
  wl_gpu_begin(&w);
  uint32_t count = n;
  int src = 0;
  do {
    uint32_t groups = (count + chunk - 1) / chunk;
    int dst = src == 1 ? 2 : 1;
    wl_arg_buffer(&w, k, 0, buf[src]);
    wl_arg_buffer(&w, k, 1, buf[dst]);
    wl_arg_u32(&w, k, 2, "n", count);
    wl_run(&w, k, groups, 1, 1);
    count = groups;
    src = dst;
  } while (count > 1);
  wl_gpu_end(&w);
  uint32_t got = 0;
  wl_buffer_read(&w, buf[src], 0, 4, &got);
  wl_finish(&w, wl_compare_u32("sum", &got, &want, 1) == 0, "exact");
}
