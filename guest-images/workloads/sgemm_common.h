// Shared by the three SGEMM workloads: C (m x n) = A (m x k) * B (k x n), row-major floats, the same inputs,
// the same CPU reference and the same tolerance, so their results are comparable.
//
// Tolerance: for any summation order (and with or without fused multiply-add) a k-term float dot product is
// within gamma_k * sum|a_i b_i| of the exact value (Higham, "Accuracy and Stability of Numerical Algorithms",
// 3.1), gamma_k ~ k * 2^-24. We allow (k + 2) * 2^-23, twice that, against a double-precision reference.
#ifndef VPLAT_SGEMM_COMMON_H
#define VPLAT_SGEMM_COMMON_H

#include "workload.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct sgemm {
  uint32_t m, n, k;
  float *a, *b, *c;
  double *want, *tol;
  GLuint ba, bb, bc;
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
  s->ba = wl_ssbo(w, m * k * 4, s->a);
  s->bb = wl_ssbo(w, k * n * 4, s->b);
  s->bc = wl_ssbo(w, m * n * 4, NULL);
  wl_bind(0, s->ba);
  wl_bind(1, s->bb);
  wl_bind(2, s->bc);
}

static inline void sgemm_uniforms(struct wl* w, struct sgemm* s, GLuint prog) {
  glUseProgram(prog);
  wl_uniform_u(w, prog, "M", s->m);
  wl_uniform_u(w, prog, "N", s->n);
  wl_uniform_u(w, prog, "K", s->k);
}

__attribute__((noreturn)) static inline void sgemm_check(struct wl* w, struct sgemm* s) {
  wl_read(w, s->bc, 0, (size_t)s->m * s->n * 4, s->c);
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

#endif
