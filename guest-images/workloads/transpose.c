// transpose: out (width x height) = in (height x width)^T, floats, through 16x16 tiles in shared memory (one
// padding column against bank conflicts); 16x8 invocations, two rows each. Exact compare (data movement
// only).
#include "wl_common.h"

#include <string.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
            "uniform uint width, height;\n"
            "shared float tile[16][17];\n"
            "void main() {\n"
            "  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;\n"
            "  uint bx = gl_WorkGroupID.x * 16u, by = gl_WorkGroupID.y * 16u;\n"
            "  for (uint r = ty; r < 16u; r += 8u) {\n"
            "    uint x = bx + tx, y = by + r;\n"
            "    tile[r][tx] = (x < width && y < height) ? src[y * width + x] : 0.0;\n"
            "  }\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  for (uint r = ty; r < 16u; r += 8u) {\n"
            "    uint x = by + tx, y = bx + r;\n"
            "    if (x < height && y < width) dst[y * height + x] = tile[tx][r];\n"
            "  }\n"
            "}\n",
    .cl =
        "__kernel void transpose(__global const float* src, __global float* dst, uint width, uint height) {\n"
        "  __local float tile[16][17];\n"
        "  uint tx = get_local_id(0), ty = get_local_id(1);\n"
        "  uint bx = get_group_id(0) * 16u, by = get_group_id(1) * 16u;\n"
        "  for (uint r = ty; r < 16u; r += 8u) {\n"
        "    uint x = bx + tx, y = by + r;\n"
        "    tile[r][tx] = (x < width && y < height) ? src[y * width + x] : 0.0f;\n"
        "  }\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  for (uint r = ty; r < 16u; r += 8u) {\n"
        "    uint x = by + tx, y = bx + r;\n"
        "    if (x < height && y < width) dst[y * height + x] = tile[tx][r];\n"
        "  }\n"
        "}\n",
    .cl_entry = "transpose",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "transpose", argc, argv, 0);
  const uint32_t width = w.quick ? 40 : 1024, height = w.quick ? 23 : 768;
  wl_sizes(&w, "w=%u,h=%u", width, height);
  const size_t n = (size_t)width * height;
  float* in = wl_alloc(&w, n * 4);
  uint32_t* out = wl_alloc(&w, n * 4);
  uint32_t* want = wl_alloc(&w, n * 4);
  uint64_t seed = 4;
  for (size_t i = 0; i < n; ++i) in[i] = wl_rand_f32(&seed, -100.0f, 100.0f);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) memcpy(&want[(size_t)x * height + y], &in[(size_t)y * width + x], 4);
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* bout = wl_buffer(&w, n * 4, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, n * 4, in));
  wl_arg_buffer(&w, k, 1, bout);
  wl_arg_u32(&w, k, 2, "width", width);
  wl_arg_u32(&w, k, 3, "height", height);
  wl_gpu_begin(&w);
  wl_run(&w, k, (width + 15) / 16, (height + 15) / 16, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bout, 0, n * 4, out);
  wl_finish(&w, wl_compare_u32("out", out, want, n) == 0, "exact");
}
