// haar: full multi-level 1D Haar wavelet decomposition of n = 2^L samples (as in the AMD APP SDK's DwtHaar1D,
// with the averaging normalisation): level by level, approximation a' = (a[2i] + a[2i+1]) / 2 and detail
// d = (a[2i] - a[2i+1]) / 2; one dispatch per level. Output layout [a_L, d_L, d_L-1, ..., d_1].
// The CPU computes the same float operations in the same order: a sum or difference rounds once and halving
// is exact, so a GPU that rounds to nearest as GLSL ES requires for + and - matches bit for bit; we still
// allow 2^-22 of max(|value|, 1) in case the compiler reassociates.
#include "wl_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Src { float src[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Approx { float approx[]; };\n"
            "layout(std430, binding = 2) writeonly buffer Coeffs { float coeff[]; };\n"
            "uniform uint half_len;\n" // outputs of this level; the input has 2 * half_len samples
            "void main() {\n"
            "  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i >= half_len) return;\n"
            "  float a = src[2u * i], b = src[2u * i + 1u];\n"
            "  float avg = (a + b) * 0.5;\n"
            "  coeff[half_len + i] = (a - b) * 0.5;\n"
            "  approx[i] = avg;\n"
            "  if (half_len == 1u) coeff[0] = avg;\n"
            "}\n",
    .cl =
        "__kernel void haar_level(__global const float* src, __global float* approx, __global float* coeff,\n"
        "                         uint half_len) {\n"
        "  uint i = get_global_id(0);\n"
        "  if (i >= half_len) return;\n"
        "  float a = src[2u * i], b = src[2u * i + 1u];\n"
        "  float avg = (a + b) * 0.5f;\n"
        "  coeff[half_len + i] = (a - b) * 0.5f;\n"
        "  approx[i] = avg;\n"
        "  if (half_len == 1u) coeff[0] = avg;\n"
        "}\n",
    .cl_entry = "haar_level",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "haar", argc, argv, 0);
  const uint32_t levels = w.quick ? 10 : 20, n = 1u << levels;
  wl_sizes(&w, "n=%u,levels=%u", n, levels);
  float* signal = wl_alloc(&w, n * 4);
  float* approx = wl_alloc(&w, n * 4);
  float* ref = wl_alloc(&w, n * 4);
  float* out = wl_alloc(&w, n * 4);
  double* want = wl_alloc(&w, n * sizeof(double));
  double* tol = wl_alloc(&w, n * sizeof(double));
  uint64_t seed = 19;
  for (uint32_t i = 0; i < n; ++i)
    signal[i] = 128.0f * sinf((float)i * 0.01f) + wl_rand_f32(&seed, -16.0f, 16.0f);
  memcpy(approx, signal, n * 4);
  for (uint32_t half = n / 2; half >= 1; half /= 2) {
    for (uint32_t i = 0; i < half; ++i) {
      float a = approx[2 * i], b = approx[2 * i + 1];
      ref[half + i] = (a - b) * 0.5f;
      approx[i] = (a + b) * 0.5f;
    }
    if (half == 1) ref[0] = approx[0];
  }
  for (uint32_t i = 0; i < n; ++i) {
    want[i] = ref[i];
    tol[i] = ldexp(fabs(ref[i]) > 1 ? fabs(ref[i]) : 1, -22);
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* buf[2] = {wl_buffer(&w, n * 4, signal), wl_buffer(&w, n * 2, NULL)};
  struct wl_buffer* bc = wl_buffer(&w, n * 4, NULL);
  struct wl_buffer* b2 = wl_buffer(&w, n * 2, NULL);
  wl_arg_buffer(&w, k, 2, bc);
  wl_gpu_begin(&w);
  struct wl_buffer* src = buf[0];
  int flip = 0;
  for (uint32_t half = n / 2; half >= 1; half /= 2) {
    struct wl_buffer* dst = flip ? b2 : buf[1];
    wl_arg_buffer(&w, k, 0, src);
    wl_arg_buffer(&w, k, 1, dst);
    wl_arg_u32(&w, k, 3, "half_len", half);
    wl_run(&w, k, (half + 127) / 128, 1, 1);
    src = dst;
    flip = !flip;
  }
  wl_gpu_end(&w);
  wl_buffer_read(&w, bc, 0, n * 4, out);
  double max_err = 0;
  size_t bad = wl_compare_f32("coeff", out, want, tol, 0, n, &max_err);
  char check[64];
  snprintf(check, sizeof check, "abs<=2^-22*max(|v|,1),max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
