// spmv: y = A x for a sparse matrix in CSR form (random row lengths 0 .. 2 * avg - 1, random columns), one
// invocation per row. Tolerance per row as for any dot product (sgemm_common.h): (nnz + 2) * 2^-23 * sum|a
// x|.
#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Rows { uint row_start[]; };\n"
            "layout(std430, binding = 1) readonly buffer Cols { uint col[]; };\n"
            "layout(std430, binding = 2) readonly buffer Vals { float val[]; };\n"
            "layout(std430, binding = 3) readonly buffer X { float x[]; };\n"
            "layout(std430, binding = 4) writeonly buffer Y { float y[]; };\n"
            "uniform uint rows;\n"
            "void main() {\n"
            "  uint r = gl_GlobalInvocationID.x;\n"
            "  if (r >= rows) return;\n"
            "  float acc = 0.0;\n"
            "  for (uint e = row_start[r]; e < row_start[r + 1u]; ++e) acc += val[e] * x[col[e]];\n"
            "  y[r] = acc;\n"
            "}\n",
    .cl = "__kernel void spmv(__global const uint* row_start, __global const uint* col, __global const "
          "float* val,\n"
          "                   __global const float* x, __global float* y, uint rows) {\n"
          "  uint r = get_global_id(0);\n"
          "  if (r >= rows) return;\n"
          "  float acc = 0.0f;\n"
          "  for (uint e = row_start[r]; e < row_start[r + 1u]; ++e) acc += val[e] * x[col[e]];\n"
          "  y[r] = acc;\n"
          "}\n",
    .cl_entry = "spmv",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "spmv", argc, argv, 0);
  const uint32_t rows = w.quick ? 100 : 1u << 17, avg = w.quick ? 5 : 16;
  uint64_t seed = 13;
  uint32_t* row_start = wl_alloc(&w, (rows + 1) * 4);
  for (uint32_t r = 0; r < rows; ++r) row_start[r + 1] = row_start[r] + wl_rand_u32(&seed) % (2 * avg);
  const uint32_t nnz = row_start[rows];
  wl_sizes(&w, "rows=%u,cols=%u,nnz=%u", rows, rows, nnz);
  uint32_t* col = wl_alloc(&w, (nnz ? nnz : 1) * 4);
  float* val = wl_alloc(&w, (nnz ? nnz : 1) * 4);
  float* x = wl_alloc(&w, rows * 4);
  float* y = wl_alloc(&w, rows * 4);
  double* want = wl_alloc(&w, rows * sizeof(double));
  double* tol = wl_alloc(&w, rows * sizeof(double));
  for (uint32_t e = 0; e < nnz; ++e) {
    col[e] = wl_rand_u32(&seed) % rows;
    val[e] = wl_rand_f32(&seed, -1.0f, 1.0f);
  }
  for (uint32_t i = 0; i < rows; ++i) x[i] = wl_rand_f32(&seed, -1.0f, 1.0f);
  for (uint32_t r = 0; r < rows; ++r) {
    double sum = 0, abs_sum = 0;
    for (uint32_t e = row_start[r]; e < row_start[r + 1]; ++e) {
      double p = (double)val[e] * x[col[e]];
      sum += p;
      abs_sum += fabs(p);
    }
    want[r] = sum;
    tol[r] = (row_start[r + 1] - row_start[r] + 2.0) * FLT_EPSILON * abs_sum;
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, (rows + 1) * 4, row_start));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, (nnz ? nnz : 1) * 4, col));
  wl_arg_buffer(&w, k, 2, wl_buffer(&w, (nnz ? nnz : 1) * 4, val));
  wl_arg_buffer(&w, k, 3, wl_buffer(&w, rows * 4, x));
  struct wl_buffer* by = wl_buffer(&w, rows * 4, NULL);
  wl_arg_buffer(&w, k, 4, by);
  wl_arg_u32(&w, k, 5, "rows", rows);
  wl_gpu_begin(&w);
  wl_run(&w, k, (rows + 127) / 128, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, by, 0, rows * 4, y);
  double max_err = 0;
  size_t bad = wl_compare_f32("y", y, want, tol, 0, rows, &max_err);
  char check[80];
  snprintf(check, sizeof check, "abs<=(nnz+2)*2^-23*sum|ax|,max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
