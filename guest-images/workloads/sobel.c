// sobel: gradient magnitude sqrt(gx^2 + gy^2) of the 3x3 Sobel operator on a width x height image, edges
// clamped. The pixels are integers 0..255 stored as floats, so gx, gy and gx^2 + gy^2 (< 2^22) are exact in
// float and only the square root rounds: GLSL ES 3.10 (4.7.1) gives sqrt the precision of 1/inversesqrt, a
// few ULP, and we allow 8 ULP (8 * 2^-23 relative, at least 8 * 2^-23 absolute).
#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl =
        "layout(local_size_x = 16, local_size_y = 8) in;\n"
        "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
        "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
        "uniform int width, height;\n"
        "float px(int x, int y) { return src[clamp(y, 0, height - 1) * width + clamp(x, 0, width - 1)]; }\n"
        "void main() {\n"
        "  int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);\n"
        "  if (x >= width || y >= height) return;\n"
        "  float gx = (px(x + 1, y - 1) + 2.0 * px(x + 1, y) + px(x + 1, y + 1)) -\n"
        "             (px(x - 1, y - 1) + 2.0 * px(x - 1, y) + px(x - 1, y + 1));\n"
        "  float gy = (px(x - 1, y + 1) + 2.0 * px(x, y + 1) + px(x + 1, y + 1)) -\n"
        "             (px(x - 1, y - 1) + 2.0 * px(x, y - 1) + px(x + 1, y - 1));\n"
        "  dst[y * width + x] = sqrt(gx * gx + gy * gy);\n"
        "}\n",
    .cl = "#define PX(x, y) src[clamp(y, 0, height - 1) * width + clamp(x, 0, width - 1)]\n"
          "__kernel void sobel(__global const float* src, __global float* dst, int width, int height) {\n"
          "  int x = get_global_id(0), y = get_global_id(1);\n"
          "  if (x >= width || y >= height) return;\n"
          "  float gx = (PX(x + 1, y - 1) + 2.0f * PX(x + 1, y) + PX(x + 1, y + 1)) -\n"
          "             (PX(x - 1, y - 1) + 2.0f * PX(x - 1, y) + PX(x - 1, y + 1));\n"
          "  float gy = (PX(x - 1, y + 1) + 2.0f * PX(x, y + 1) + PX(x + 1, y + 1)) -\n"
          "             (PX(x - 1, y - 1) + 2.0f * PX(x, y - 1) + PX(x + 1, y - 1));\n"
          "  dst[y * width + x] = sqrt(gx * gx + gy * gy);\n"
          "}\n",
    .cl_entry = "sobel",
    .local = {16, 8, 1},
};

static int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "sobel", argc, argv, 0);
  const int width = w.quick ? 37 : 1024, height = w.quick ? 23 : 1024;
  wl_sizes(&w, "w=%d,h=%d", width, height);
  const size_t n = (size_t)width * height;
  float* img = wl_alloc(&w, n * 4);
  float* out = wl_alloc(&w, n * 4);
  double* want = wl_alloc(&w, n * sizeof(double));
  double* tol = wl_alloc(&w, n * sizeof(double));
  uint64_t seed = 6;
  // Smooth shapes plus noise, so there are both edges and flat areas.
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int v = ((x / 16 + y / 16) % 2) * 160 + (int)(wl_rand_u32(&seed) % 64) + ((x * y) % 32);
      img[(size_t)y * width + x] = (float)(v > 255 ? 255 : v);
    }
#define P(xx, yy) (double)img[(size_t)clampi(yy, 0, height - 1) * width + clampi(xx, 0, width - 1)]
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double gx = (P(x + 1, y - 1) + 2 * P(x + 1, y) + P(x + 1, y + 1)) -
                  (P(x - 1, y - 1) + 2 * P(x - 1, y) + P(x - 1, y + 1));
      double gy = (P(x - 1, y + 1) + 2 * P(x, y + 1) + P(x + 1, y + 1)) -
                  (P(x - 1, y - 1) + 2 * P(x, y - 1) + P(x + 1, y - 1));
      size_t i = (size_t)y * width + x;
      want[i] = sqrt(gx * gx + gy * gy);
      tol[i] = 8 * FLT_EPSILON * (want[i] > 1 ? want[i] : 1);
    }
#undef P
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* bout = wl_buffer(&w, n * 4, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, n * 4, img));
  wl_arg_buffer(&w, k, 1, bout);
  wl_arg_i32(&w, k, 2, "width", width);
  wl_arg_i32(&w, k, 3, "height", height);
  wl_gpu_begin(&w);
  wl_run(&w, k, (width + 15) / 16, (height + 7) / 8, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bout, 0, n * 4, out);
  double max_err = 0;
  size_t bad = wl_compare_f32("magnitude", out, want, tol, 0, n, &max_err);
  char check[64];
  snprintf(check, sizeof check, "rel<=8ulp,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
