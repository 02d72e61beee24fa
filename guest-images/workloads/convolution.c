// convolution: separable Gaussian blur (17 taps, radius 8, sigma 3) of a width x height float image, edges
// clamped: a row pass that stages each 128-pixel row segment plus its apron in shared memory, then a column
// pass reading global memory. Inputs are in [0, 1] and the weights are positive and sum to 1, so each output
// is a convex combination of rounded terms; two 17-term passes round at most ~40 times, each <= 2^-24 of a
// value <= 1: we allow 1e-5 absolute against a double reference using the same float weights.
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RADIUS 8
static const char kRows[] = "layout(local_size_x = 128) in;\n"
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
                            "}\n";
static const char kCols[] = "layout(local_size_x = 16, local_size_y = 8) in;\n"
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
                            "}\n";

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
  GLuint rows = wl_program(&w, defines, kRows), cols = wl_program(&w, defines, kCols);
  GLuint bin = wl_ssbo(&w, n * 4, img), btmp = wl_ssbo(&w, n * 4, NULL), bout = wl_ssbo(&w, n * 4, NULL);
  GLuint bw = wl_ssbo(&w, sizeof weight, weight);
  wl_bind(2, bw);
  wl_gpu_begin(&w);
  wl_bind(0, bin);
  wl_bind(1, btmp);
  glUseProgram(rows);
  wl_uniform_i(&w, rows, "width", width);
  wl_dispatch(&w, (width + 127) / 128, height, 1);
  wl_bind(0, btmp);
  wl_bind(1, bout);
  glUseProgram(cols);
  wl_uniform_i(&w, cols, "width", width);
  wl_uniform_i(&w, cols, "height", height);
  wl_dispatch(&w, (width + 15) / 16, (height + 7) / 8, 1);
  wl_gpu_end(&w);
  wl_read(&w, bout, 0, n * 4, out);
  double max_err = 0;
  size_t bad = wl_compare_f32("blurred", out, want, NULL, 1e-5, n, &max_err);
  char check[64];
  snprintf(check, sizeof check, "abs<=1e-5,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
