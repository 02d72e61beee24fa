// backprop: one layer of a back-propagation network in the style of Rodinia's backprop: the forward pass of
// an n_in -> 16 layer (weighted sums reduced per 256-input chunk in shared memory, then a second kernel adds
// the chunks and applies the sigmoid), and the weight update w += dw, dw = eta * delta[j] * in[i] + momentum
// * old_dw[i][j] over all n_in x 16 weights. Tolerances: the hidden sums are dot products ((n_in + 2) * 2^-23
// * sum|w in|, see sgemm_common.h); the sigmoid's slope is at most 1/4 and exp() adds a few ULP (we allow
// 1e-6 more). A weight update is three roundings of terms <= |eta delta in| + |momentum old| + |w|: we allow
// 4 * 2^-23 of that sum.
#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define HIDDEN 16
static const struct wl_kernel_src kForward = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n" // x: hidden unit, y: one of 8 lanes over the
                                                                // inputs
            "layout(std430, binding = 0) readonly buffer In { float in_unit[]; };\n"
            "layout(std430, binding = 1) readonly buffer W { float weight[]; };\n" // [i * 16 + j]
            "layout(std430, binding = 2) writeonly buffer Partial { float partial[]; };\n"
            "uniform uint n_in;\n"
            "shared float lane_sum[8][16];\n"
            "void main() {\n"
            "  uint j = gl_LocalInvocationID.x, lane = gl_LocalInvocationID.y;\n"
            "  uint base = gl_WorkGroupID.x * 256u;\n"
            "  float acc = 0.0;\n"
            "  for (uint i = base + lane; i < min(base + 256u, n_in); i += 8u) acc += weight[i * 16u + j] * "
            "in_unit[i];\n"
            "  lane_sum[lane][j] = acc;\n"
            "  for (uint s = 4u; s > 0u; s >>= 1) {\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "    if (lane < s) lane_sum[lane][j] += lane_sum[lane + s][j];\n"
            "  }\n"
            "  if (lane == 0u) partial[gl_WorkGroupID.x * 16u + j] = lane_sum[0][j];\n"
            "}\n",
    .cl = "__kernel void layer_forward(__global const float* in_unit, __global const float* weight,\n"
          "                            __global float* partial, uint n_in) {\n"
          "  __local float lane_sum[8][16];\n"
          "  uint j = get_local_id(0), lane = get_local_id(1);\n"
          "  uint base = get_group_id(0) * 256u;\n"
          "  float acc = 0.0f;\n"
          "  for (uint i = base + lane; i < min(base + 256u, n_in); i += 8u) acc += weight[i * 16u + j] * "
          "in_unit[i];\n"
          "  lane_sum[lane][j] = acc;\n"
          "  for (uint s = 4u; s > 0u; s >>= 1) {\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    if (lane < s) lane_sum[lane][j] += lane_sum[lane + s][j];\n"
          "  }\n"
          "  if (lane == 0u) partial[get_group_id(0) * 16u + j] = lane_sum[0][j];\n"
          "}\n",
    .cl_entry = "layer_forward",
    .local = {16, 8, 1},
};
static const struct wl_kernel_src kActivate = {
    .glsl = "layout(local_size_x = 16) in;\n"
            "layout(std430, binding = 0) readonly buffer Partial { float partial[]; };\n"
            "layout(std430, binding = 1) writeonly buffer Hidden { float hidden[]; };\n"
            "uniform uint chunks;\n"
            "void main() {\n"
            "  uint j = gl_LocalInvocationID.x;\n"
            "  float s = 0.0;\n"
            "  for (uint c = 0u; c < chunks; ++c) s += partial[c * 16u + j];\n"
            "  hidden[j] = 1.0 / (1.0 + exp(-s));\n"
            "}\n",
    .cl = "__kernel void activate(__global const float* partial, __global float* hidden, uint chunks) {\n"
          "  uint j = get_local_id(0);\n"
          "  float s = 0.0f;\n"
          "  for (uint c = 0u; c < chunks; ++c) s += partial[c * 16u + j];\n"
          "  hidden[j] = 1.0f / (1.0f + exp(-s));\n"
          "}\n",
    .cl_entry = "activate",
    .local = {16, 1, 1},
};
static const struct wl_kernel_src kAdjust = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n"
            "layout(std430, binding = 0) readonly buffer In { float in_unit[]; };\n"
            "layout(std430, binding = 1) buffer W { float weight[]; };\n"
            "layout(std430, binding = 2) readonly buffer Delta { float delta[]; };\n"
            "layout(std430, binding = 3) buffer OldDw { float old_dw[]; };\n"
            "uniform uint n_in;\n"
            "uniform float eta, momentum;\n"
            "void main() {\n"
            "  uint j = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y;\n"
            "  if (i >= n_in) return;\n"
            "  uint k = i * 16u + j;\n"
            "  float dw = eta * delta[j] * in_unit[i] + momentum * old_dw[k];\n"
            "  weight[k] += dw;\n"
            "  old_dw[k] = dw;\n"
            "}\n",
    .cl = "__kernel void adjust_weights(__global const float* in_unit, __global float* weight,\n"
          "                             __global const float* delta, __global float* old_dw, uint n_in, "
          "float eta,\n"
          "                             float momentum) {\n"
          "  uint j = get_global_id(0), i = get_global_id(1);\n"
          "  if (i >= n_in) return;\n"
          "  uint k = i * 16u + j;\n"
          "  float dw = eta * delta[j] * in_unit[i] + momentum * old_dw[k];\n"
          "  weight[k] += dw;\n"
          "  old_dw[k] = dw;\n"
          "}\n",
    .cl_entry = "adjust_weights",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "backprop", argc, argv, 0);
  const uint32_t n_in = w.quick ? 500 : 1u << 16, chunks = (n_in + 255) / 256;
  const float eta = 0.3f, momentum = 0.3f;
  wl_sizes(&w, "inputs=%u,hidden=%u", n_in, HIDDEN);
  const size_t nw = (size_t)n_in * HIDDEN;
  float* in = wl_alloc(&w, n_in * 4);
  float* weight = wl_alloc(&w, nw * 4);
  float* old_dw = wl_alloc(&w, nw * 4);
  float delta[HIDDEN], hidden[HIDDEN];
  uint64_t seed = 16;
  for (uint32_t i = 0; i < n_in; ++i) in[i] = wl_rand_f32(&seed, 0.0f, 1.0f);
  for (size_t k = 0; k < nw; ++k) weight[k] = wl_rand_f32(&seed, -0.01f, 0.01f);
  for (size_t k = 0; k < nw; ++k) old_dw[k] = wl_rand_f32(&seed, -0.001f, 0.001f);
  for (int j = 0; j < HIDDEN; ++j) delta[j] = wl_rand_f32(&seed, -0.1f, 0.1f);

  double want_hidden[HIDDEN], tol_hidden[HIDDEN];
  for (int j = 0; j < HIDDEN; ++j) {
    double s = 0, abs_s = 0;
    for (uint32_t i = 0; i < n_in; ++i) {
      double p = (double)weight[(size_t)i * HIDDEN + j] * in[i];
      s += p;
      abs_s += fabs(p);
    }
    want_hidden[j] = 1.0 / (1.0 + exp(-s));
    tol_hidden[j] = 0.25 * (n_in + 2.0) * FLT_EPSILON * abs_s + 1e-6;
  }
  double* want_w = wl_alloc(&w, nw * sizeof(double));
  double* tol_w = wl_alloc(&w, nw * sizeof(double));
  double* want_dw = wl_alloc(&w, nw * sizeof(double));
  double* tol_dw = wl_alloc(&w, nw * sizeof(double));
  for (uint32_t i = 0; i < n_in; ++i)
    for (int j = 0; j < HIDDEN; ++j) {
      size_t k = (size_t)i * HIDDEN + j;
      double a = (double)eta * delta[j] * in[i], b = (double)momentum * old_dw[k];
      want_dw[k] = a + b;
      want_w[k] = weight[k] + want_dw[k];
      tol_dw[k] = 4 * FLT_EPSILON * (fabs(a) + fabs(b));
      tol_w[k] = 4 * FLT_EPSILON * (fabs(a) + fabs(b) + fabs((double)weight[k]));
    }

  struct wl_kernel *forward = wl_kernel(&w, NULL, &kForward), *activate = wl_kernel(&w, NULL, &kActivate);
  struct wl_kernel* adjust = wl_kernel(&w, NULL, &kAdjust);
  struct wl_buffer *bin = wl_buffer(&w, n_in * 4, in), *bw = wl_buffer(&w, nw * 4, weight),
                   *bdw = wl_buffer(&w, nw * 4, old_dw), *bh = wl_buffer(&w, sizeof hidden, NULL),
                   *bpartial = wl_buffer(&w, (size_t)chunks * HIDDEN * 4, NULL);
  wl_arg_buffer(&w, forward, 0, bin);
  wl_arg_buffer(&w, forward, 1, bw);
  wl_arg_buffer(&w, forward, 2, bpartial);
  wl_arg_u32(&w, forward, 3, "n_in", n_in);
  wl_arg_buffer(&w, activate, 0, bpartial);
  wl_arg_buffer(&w, activate, 1, bh);
  wl_arg_u32(&w, activate, 2, "chunks", chunks);
  wl_arg_buffer(&w, adjust, 0, bin);
  wl_arg_buffer(&w, adjust, 1, bw);
  wl_arg_buffer(&w, adjust, 2, wl_buffer(&w, sizeof delta, delta));
  wl_arg_buffer(&w, adjust, 3, bdw);
  wl_arg_u32(&w, adjust, 4, "n_in", n_in);
  wl_arg_f32(&w, adjust, 5, "eta", eta);
  wl_arg_f32(&w, adjust, 6, "momentum", momentum);
  wl_gpu_begin(&w);
  wl_run(&w, forward, chunks, 1, 1);
  wl_run(&w, activate, 1, 1, 1);
  wl_run(&w, adjust, 1, (n_in + 7) / 8, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bh, 0, sizeof hidden, hidden);
  wl_buffer_read(&w, bw, 0, nw * 4, weight);
  wl_buffer_read(&w, bdw, 0, nw * 4, old_dw);
  double e1 = 0, e2 = 0, e3 = 0;
  size_t bad = wl_compare_f32("hidden", hidden, want_hidden, tol_hidden, 0, HIDDEN, &e1);
  bad += wl_compare_f32("weight", weight, want_w, tol_w, 0, nw, &e2);
  bad += wl_compare_f32("dw", old_dw, want_dw, tol_dw, 0, nw, &e3);
  char check[96];
  snprintf(check, sizeof check, "dot-product+ulp-bounds,max_err=%.2g/%.2g/%.2g", e1, e2, e3);
  wl_finish(&w, bad == 0, check);
}
