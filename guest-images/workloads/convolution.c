// convolution: separable Gaussian blur (17 taps, radius 8, sigma 3) of a width x height float image, edges
// clamped: a row pass that stages each 128-pixel row segment plus its apron in shared memory, then a column
// pass reading global memory. Inputs are in [0, 1] and the weights are positive and sum to 1, so each output
// is a convex combination of rounded terms; two 17-term passes round at most ~40 times, each <= 2^-24 of a
// value <= 1: we allow 1e-5 absolute against a double reference using the same float weights.
#include "wl_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RADIUS 8
static const struct wl_kernel_src kRows = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
            "layout(std430, binding = 2) readonly buffer Weights { float weight[]; };\n"
            "uniform int width;\n"
            "shared float seg[128 + 2 * RADIUS];\n"
            "void main() {\n"
            "  int lid = int(gl_LocalInvocationID.x), y = int(gl_WorkGroupID.y);\n"
            "  int x0 = int(gl_WorkGroupID.x) * 128;\n"
            "  for (int i = lid; i < 128 + 2 * RADIUS; i += 128)\n"
            "    seg[i] = src[y * width + clamp(x0 + i - RADIUS, 0, width - 1)];\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  int x = x0 + lid;\n"
            "  if (x >= width) return;\n"
            "  float acc = 0.0;\n"
            "  for (int k = 0; k <= 2 * RADIUS; ++k) acc += weight[k] * seg[lid + k];\n"
            "  dst[y * width + x] = acc;\n"
            "}\n",
    .cl = "__kernel void conv_rows(__global const float* src, __global float* dst, __global const float* "
          "weight,\n"
          "                        int width) {\n"
          "  __local float seg[128 + 2 * RADIUS];\n"
          "  int lid = get_local_id(0), y = get_group_id(1);\n"
          "  int x0 = get_group_id(0) * 128;\n"
          "  for (int i = lid; i < 128 + 2 * RADIUS; i += 128)\n"
          "    seg[i] = src[y * width + clamp(x0 + i - RADIUS, 0, width - 1)];\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  int x = x0 + lid;\n"
          "  if (x >= width) return;\n"
          "  float acc = 0.0f;\n"
          "  for (int k = 0; k <= 2 * RADIUS; ++k) acc += weight[k] * seg[lid + k];\n"
          "  dst[y * width + x] = acc;\n"
          "}\n",
    .cl_entry = "conv_rows",
    .local = {128, 1, 1},
};
static const struct wl_kernel_src kCols = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
            "layout(std430, binding = 2) readonly buffer Weights { float weight[]; };\n"
            "uniform int width, height;\n"
            "void main() {\n"
            "  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n"
            "  if (x >= width || y >= height) return;\n"
            "  float acc = 0.0;\n"
            "  for (int k = 0; k <= 2 * RADIUS; ++k)\n"
            "    acc += weight[k] * src[clamp(y + k - RADIUS, 0, height - 1) * width + x];\n"
            "  dst[y * width + x] = acc;\n"
            "}\n",
    .cl = "__kernel void conv_cols(__global const float* src, __global float* dst, __global const float* "
          "weight,\n"
          "                        int width, int height) {\n"
          "  int x = get_global_id(0), y = get_global_id(1);\n"
          "  if (x >= width || y >= height) return;\n"
          "  float acc = 0.0f;\n"
          "  for (int k = 0; k <= 2 * RADIUS; ++k)\n"
          "    acc += weight[k] * src[clamp(y + k - RADIUS, 0, height - 1) * width + x];\n"
          "  dst[y * width + x] = acc;\n"
          "}\n",
    .cl_entry = "conv_cols",
    .local = {16, 8, 1},
};

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "convolution", argc, argv, 0);
  const int width = w.quick ? 45 : 512, height = w.quick ? 31 : 512;
  wl_sizes(&w, "w=%d,h=%d,taps=%d", width, height, 2 * RADIUS + 1);
  const size_t n = (size_t)width * height;
  float* img = wl_alloc(&w, n * 4);
  float* out = wl_alloc(&w, n * 4);
  double* tmp = wl_alloc(&w, n * sizeof(double));
  double* want = wl_alloc(&w, n * sizeof(double));
  float weight[2 * RADIUS + 1];
  double total = 0;
  for (int k = -RADIUS; k <= RADIUS; ++k) total += exp(-(double)(k * k) / (2.0 * 3.0 * 3.0));
  for (int k = -RADIUS; k <= RADIUS; ++k) weight[k + RADIUS] = (float)(exp(-(double)(k * k) / 18.0) / total);
  uint64_t seed = 7;
  for (size_t i = 0; i < n; ++i) img[i] = wl_rand_f32(&seed, 0.0f, 1.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double acc = 0;
      for (int k = 0; k <= 2 * RADIUS; ++k)
        acc += (double)weight[k] * img[(size_t)y * width + clampi(x + k - RADIUS, 0, width - 1)];
      tmp[(size_t)y * width + x] = acc;
    }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double acc = 0;
      for (int k = 0; k <= 2 * RADIUS; ++k)
        acc += (double)weight[k] * tmp[(size_t)clampi(y + k - RADIUS, 0, height - 1) * width + x];
      want[(size_t)y * width + x] = acc;
    }
  const char* defines = "#define RADIUS 8\n";
  struct wl_kernel *rows = wl_kernel(&w, defines, &kRows), *cols = wl_kernel(&w, defines, &kCols);
  struct wl_buffer *btmp = wl_buffer(&w, n * 4, NULL), *bout = wl_buffer(&w, n * 4, NULL);
  struct wl_buffer* bw = wl_buffer(&w, sizeof weight, weight);
  wl_arg_buffer(&w, rows, 0, wl_buffer(&w, n * 4, img));
  wl_arg_buffer(&w, rows, 1, btmp);
  wl_arg_buffer(&w, rows, 2, bw);
  wl_arg_i32(&w, rows, 3, "width", width);
  wl_arg_buffer(&w, cols, 0, btmp);
  wl_arg_buffer(&w, cols, 1, bout);
  wl_arg_buffer(&w, cols, 2, bw);
  wl_arg_i32(&w, cols, 3, "width", width);
  wl_arg_i32(&w, cols, 4, "height", height);
  wl_gpu_begin(&w);
  wl_run(&w, rows, (width + 127) / 128, height, 1);
  wl_run(&w, cols, (width + 15) / 16, (height + 7) / 8, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bout, 0, n * 4, out);
  double max_err = 0;
  size_t bad = wl_compare_f32("blurred", out, want, NULL, 1e-5, n, &max_err);
  char check[64];
  snprintf(check, sizeof check, "abs<=1e-5,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
