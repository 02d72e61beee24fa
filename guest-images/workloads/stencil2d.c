// stencil2d: Jacobi iterations of the 5-point stencil out = 0.2 * (centre + 4 neighbours) on a width x height
// grid whose boundary cells stay fixed; one dispatch per iteration, ping-pong buffers. Values are in [0, 1]
// and each step is a convex combination (non-expansive in the max norm), so the float error after T steps is
// at most T times one step's rounding (< 6 * 2^-24): we allow T * 8 * 2^-24 absolute against a double
// reference.
#include "wl_common.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
            "uniform uint width, height;\n"
            "void main() {\n"
            "  uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;\n"
            "  if (x >= width || y >= height) return;\n"
            "  uint i = y * width + x;\n"
            "  if (x == 0u || y == 0u || x == width - 1u || y == height - 1u) {\n"
            "    dst[i] = src[i];\n"
            "    return;\n"
            "  }\n"
            "  dst[i] = 0.2 * (src[i] + src[i - 1u] + src[i + 1u] + src[i - width] + src[i + width]);\n"
            "}\n",
    .cl = "__kernel void jacobi5(__global const float* src, __global float* dst, uint width, uint height) {\n"
          "  uint x = get_global_id(0), y = get_global_id(1);\n"
          "  if (x >= width || y >= height) return;\n"
          "  uint i = y * width + x;\n"
          "  if (x == 0u || y == 0u || x == width - 1u || y == height - 1u) {\n"
          "    dst[i] = src[i];\n"
          "    return;\n"
          "  }\n"
          "  dst[i] = 0.2f * (src[i] + src[i - 1u] + src[i + 1u] + src[i - width] + src[i + width]);\n"
          "}\n",
    .cl_entry = "jacobi5",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "stencil2d", argc, argv, 0);
  const uint32_t width = w.quick ? 33 : 512, height = w.quick ? 20 : 512, steps = w.quick ? 4 : 16;
  wl_sizes(&w, "w=%u,h=%u,steps=%u", width, height, steps);
  const size_t n = (size_t)width * height;
  float* grid = wl_alloc(&w, n * 4);
  double* ref[2] = {wl_alloc(&w, n * sizeof(double)), wl_alloc(&w, n * sizeof(double))};
  uint64_t seed = 12;
  for (size_t i = 0; i < n; ++i) ref[0][i] = grid[i] = wl_rand_f32(&seed, 0.0f, 1.0f);
  for (uint32_t t = 0; t < steps; ++t) {
    const double* s = ref[t % 2];
    double* d = ref[(t + 1) % 2];
    for (uint32_t y = 0; y < height; ++y)
      for (uint32_t x = 0; x < width; ++x) {
        size_t i = (size_t)y * width + x;
        d[i] = (x == 0 || y == 0 || x == width - 1 || y == height - 1)
                   ? s[i]
                   : 0.2 * (s[i] + s[i - 1] + s[i + 1] + s[i - width] + s[i + width]);
      }
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* buf[2] = {wl_buffer(&w, n * 4, grid), wl_buffer(&w, n * 4, NULL)};
  wl_arg_u32(&w, k, 2, "width", width);
  wl_arg_u32(&w, k, 3, "height", height);
  wl_gpu_begin(&w);
  for (uint32_t t = 0; t < steps; ++t) {
    wl_arg_buffer(&w, k, 0, buf[t % 2]);
    wl_arg_buffer(&w, k, 1, buf[(t + 1) % 2]);
    wl_run(&w, k, (width + 15) / 16, (height + 7) / 8, 1);
  }
  wl_gpu_end(&w);
  wl_buffer_read(&w, buf[steps % 2], 0, n * 4, grid);
  double max_err = 0;
  size_t bad = wl_compare_f32("grid", grid, ref[steps % 2], NULL, steps * 8.0 * FLT_EPSILON / 2, n, &max_err);
  char check[64];
  snprintf(check, sizeof check, "abs<=steps*8*2^-24,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
