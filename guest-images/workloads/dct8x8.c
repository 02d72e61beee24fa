// dct8x8: the forward 2D DCT-II (orthonormal, as in JPEG) of every 8x8 block of a width x height image of
// integers 0..255, one 8x8 workgroup per block: a row pass into shared memory, then a column pass. The cosine
// table (alpha(u) cos((2x+1) u pi / 16)) is computed on the host in double, rounded to float and used by both
// sides. Tolerance: two 8-term dot products round at most ~18 times: 20 * 2^-24 * sum |c_ux c_vy in_yx| per
// coefficient, against a double reference.
#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 8, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };\n"
            "layout(std430, binding = 2) readonly buffer Cos { float c[]; };\n" // c[u * 8 + x]
            "uniform uint width;\n"
            "shared float block[8][8];\n"
            "shared float rows[8][8];\n"
            "void main() {\n"
            "  uint u = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;\n"
            "  uint x0 = gl_WorkGroupID.x * 8u, y0 = gl_WorkGroupID.y * 8u;\n"
            "  block[y][u] = src[(y0 + y) * width + x0 + u];\n"
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  float acc = 0.0;\n"
            "  for (uint x = 0u; x < 8u; ++x) acc += c[u * 8u + x] * block[y][x];\n"
            "  rows[y][u] = acc;\n" // row y, horizontal frequency u
            "  memoryBarrierShared();\n"
            "  barrier();\n"
            "  uint v = y;\n"
            "  acc = 0.0;\n"
            "  for (uint yy = 0u; yy < 8u; ++yy) acc += c[v * 8u + yy] * rows[yy][u];\n"
            "  dst[(y0 + v) * width + x0 + u] = acc;\n"
            "}\n",
    .cl = "__kernel void dct8x8(__global const float* src, __global float* dst, __global const float* c, "
          "uint width) {\n"
          "  __local float block[8][8];\n"
          "  __local float rows[8][8];\n"
          "  uint u = get_local_id(0), y = get_local_id(1);\n"
          "  uint x0 = get_group_id(0) * 8u, y0 = get_group_id(1) * 8u;\n"
          "  block[y][u] = src[(y0 + y) * width + x0 + u];\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  float acc = 0.0f;\n"
          "  for (uint x = 0u; x < 8u; ++x) acc += c[u * 8u + x] * block[y][x];\n"
          "  rows[y][u] = acc;\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  uint v = y;\n"
          "  acc = 0.0f;\n"
          "  for (uint yy = 0u; yy < 8u; ++yy) acc += c[v * 8u + yy] * rows[yy][u];\n"
          "  dst[(y0 + v) * width + x0 + u] = acc;\n"
          "}\n",
    .cl_entry = "dct8x8",
    .local = {8, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "dct8x8", argc, argv, 0);
  const uint32_t width = w.quick ? 24 : 1024, height = w.quick ? 16 : 1024;
  wl_sizes(&w, "w=%u,h=%u", width, height);
  const size_t n = (size_t)width * height;
  float* img = wl_alloc(&w, n * 4);
  float* out = wl_alloc(&w, n * 4);
  double* want = wl_alloc(&w, n * sizeof(double));
  double* tol = wl_alloc(&w, n * sizeof(double));
  float c[64];
  for (int u = 0; u < 8; ++u)
    for (int x = 0; x < 8; ++x)
      c[u * 8 + x] = (float)((u == 0 ? sqrt(1.0 / 8) : sqrt(2.0 / 8)) * cos((2 * x + 1) * u * M_PI / 16));
  uint64_t seed = 18;
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x)
      img[(size_t)y * width + x] = (float)((x * 3 + y * 5) % 200 + wl_rand_u32(&seed) % 56);
  for (uint32_t by = 0; by < height; by += 8)
    for (uint32_t bx = 0; bx < width; bx += 8)
      for (int v = 0; v < 8; ++v)
        for (int u = 0; u < 8; ++u) {
          double s = 0, a = 0;
          for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x) {
              double t = (double)c[v * 8 + y] * c[u * 8 + x] * img[(size_t)(by + y) * width + bx + x];
              s += t;
              a += fabs(t);
            }
          size_t i = (size_t)(by + v) * width + bx + u;
          want[i] = s;
          tol[i] = 20 * (FLT_EPSILON / 2) * a;
        }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, n * 4, img));
  struct wl_buffer* bout = wl_buffer(&w, n * 4, NULL);
  wl_arg_buffer(&w, k, 1, bout);
  wl_arg_buffer(&w, k, 2, wl_buffer(&w, sizeof c, c));
  wl_arg_u32(&w, k, 3, "width", width);
  wl_gpu_begin(&w);
  wl_run(&w, k, width / 8, height / 8, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bout, 0, n * 4, out);
  double max_err = 0;
  size_t bad = wl_compare_f32("coefficient", out, want, tol, 0, n, &max_err);
  char check[80];
  snprintf(check, sizeof check, "abs<=20*2^-24*sum|c*c*in|,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
