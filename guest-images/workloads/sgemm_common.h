// Shared by the three SGEMM workloads: C (m x n) = A (m x k) * B (k x n), row-major floats, the same inputs,
// the same CPU reference and the same tolerance, so their results are comparable.
//
// Tolerance: for any summation order (and with or without fused multiply-add) a k-term float dot product is
// within gamma_k * sum|a_i b_i| of the exact value (Higham, "Accuracy and Stability of Numerical Algorithms",
// 3.1), gamma_k ~ k * 2^-24. We allow (k + 2) * 2^-23, twice that, against a double-precision reference.
#ifndef VPLAT_SGEMM_COMMON_H
#define VPLAT_SGEMM_COMMON_H

#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct sgemm {
  uint32_t m, n, k;
  float *a, *b, *c;
  double *want, *tol;
  struct wl_buffer *ba, *bb, *bc;
};

static inline void sgemm_setup(struct wl* w, struct sgemm* s) {
  s->m = w->quick ? 37 : 256;
  s->n = w->quick ? 29 : 256;
  s->k = w->quick ? 23 : 256;
  wl_sizes(w, "m=%u,n=%u,k=%u", s->m, s->n, s->k);
  const size_t m = s->m, n = s->n, k = s->k;
  s->a = wl_alloc(w, m * k * 4);
  s->b = wl_alloc(w, k * n * 4);
  s->c = wl_alloc(w, m * n * 4);
  s->want = wl_alloc(w, m * n * sizeof(double));
  s->tol = wl_alloc(w, m * n * sizeof(double));
  uint64_t seed = 5;
  for (size_t i = 0; i < m * k; ++i) s->a[i] = wl_rand_f32(&seed, -1.0f, 1.0f);
  for (size_t i = 0; i < k * n; ++i) s->b[i] = wl_rand_f32(&seed, -1.0f, 1.0f);
  for (size_t r = 0; r < m; ++r)
    for (size_t c = 0; c < n; ++c) {
      double sum = 0, abs_sum = 0;
      for (size_t i = 0; i < k; ++i) {
        double p = (double)s->a[r * k + i] * (double)s->b[i * n + c];
        sum += p;
        abs_sum += fabs(p);
      }
      s->want[r * n + c] = sum;
      s->tol[r * n + c] = (double)(k + 2) * FLT_EPSILON * abs_sum;
    }
  s->ba = wl_buffer(w, m * k * 4, s->a);
  s->bb = wl_buffer(w, k * n * 4, s->b);
  s->bc = wl_buffer(w, m * n * 4, NULL);
}

// Builds the kernel and gives it the three matrices and their sizes (SGEMM_BUFFERS / SGEMM_CL_ARGS order).
static inline struct wl_kernel* sgemm_kernel(struct wl* w, struct sgemm* s, const struct wl_kernel_src* src) {
  struct wl_kernel* k = wl_kernel(w, NULL, src);
  wl_arg_buffer(w, k, 0, s->ba);
  wl_arg_buffer(w, k, 1, s->bb);
  wl_arg_buffer(w, k, 2, s->bc);
  wl_arg_u32(w, k, 3, "M", s->m);
  wl_arg_u32(w, k, 4, "N", s->n);
  wl_arg_u32(w, k, 5, "K", s->k);
  return k;
}

__attribute__((noreturn)) static inline void sgemm_check(struct wl* w, struct sgemm* s) {
  wl_buffer_read(w, s->bc, 0, (size_t)s->m * s->n * 4, s->c);
  double max_err = 0;
  size_t bad = wl_compare_f32("c", s->c, s->want, s->tol, 0, (size_t)s->m * s->n, &max_err);
  char check[80];
  snprintf(check, sizeof check, "abs<=(k+2)*2^-23*sum|ab|,max_err=%.2g", max_err);
  wl_finish(w, bad == 0, check);
}

#define SGEMM_BUFFERS                                                                                        \
  "layout(std430, binding = 0) readonly buffer MatA { float A[]; };\n"                                       \
  "layout(std430, binding = 1) readonly buffer MatB { float B[]; };\n"                                       \
  "layout(std430, binding = 2) writeonly buffer MatC { float C[]; };\n"                                      \
  "uniform uint M, N, K;\n"
#define SGEMM_CL_ARGS                                                                                        \
  "(__global const float* A, __global const float* B, __global float* C, uint M, uint N, uint K)"

#endif
