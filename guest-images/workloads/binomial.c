// binomial: European call options priced on a Cox-Ross-Rubinstein binomial tree of `steps` steps, one
// workgroup per option (128 invocations, two tree nodes each, so steps <= 255), the tree's values in shared
// memory and a barrier per step. The per-option constants (up-move exponent, discounted up/down
// probabilities) are computed on the host in double and rounded to float once; the CPU reference runs the
// same tree in double from those float constants. Tolerance: leaves are S e^x - K with GLSL's exp (3 + 2|x|
// ULP), and every backward step is a discounted convex combination, so the root's error is bounded by the
// rounding per step (<= 3 ULP) times the steps, relative to the value scale S + K: (3 steps + 2 max|x| + 16)
// * 2^-24 * (S + K).
#include "wl_common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl =
        "layout(local_size_x = 128) in;\n"
        "layout(std430, binding = 0) readonly buffer Params { vec4 param[]; };\n" // S, K, sigma*sqrt(dt),
                                                                                  // unused
        "layout(std430, binding = 1) readonly buffer Probs { vec2 prob[]; };\n"   // pu * disc, pd * disc
        "layout(std430, binding = 2) writeonly buffer Price { float price[]; };\n"
        "uniform int steps;\n"
        "shared float v[256];\n"
        "void main() {\n"
        "  int lid = int(gl_LocalInvocationID.x), opt = int(gl_WorkGroupID.x);\n"
        "  vec4 p = param[opt];\n"
        "  vec2 pr = prob[opt];\n"
        "  for (int i = lid; i <= steps; i += 128) v[i] = max(p.x * exp(p.z * float(2 * i - steps)) - p.y, "
        "0.0);\n"
        "  for (int s = steps; s > 0; --s) {\n"
        "    memoryBarrierShared();\n"
        "    barrier();\n"
        "    float a = 0.0, b = 0.0;\n"
        "    if (lid < s) a = pr.x * v[lid + 1] + pr.y * v[lid];\n"
        "    if (lid + 128 < s) b = pr.x * v[lid + 129] + pr.y * v[lid + 128];\n"
        "    memoryBarrierShared();\n"
        "    barrier();\n"
        "    if (lid < s) v[lid] = a;\n"
        "    if (lid + 128 < s) v[lid + 128] = b;\n"
        "  }\n"
        "  memoryBarrierShared();\n"
        "  barrier();\n"
        "  if (lid == 0) price[opt] = v[0];\n"
        "}\n",
    .cl =
        "__kernel void binomial(__global const float4* param, __global const float2* prob, __global float* "
        "price,\n"
        "                       int steps) {\n"
        "  __local float v[256];\n"
        "  int lid = get_local_id(0), opt = get_group_id(0);\n"
        "  float4 p = param[opt];\n"
        "  float2 pr = prob[opt];\n"
        "  for (int i = lid; i <= steps; i += 128) v[i] = max(p.x * exp(p.z * (float)(2 * i - steps)) - p.y, "
        "0.0f);\n"
        "  for (int s = steps; s > 0; --s) {\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    float a = 0.0f, b = 0.0f;\n"
        "    if (lid < s) a = pr.x * v[lid + 1] + pr.y * v[lid];\n"
        "    if (lid + 128 < s) b = pr.x * v[lid + 129] + pr.y * v[lid + 128];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    if (lid < s) v[lid] = a;\n"
        "    if (lid + 128 < s) v[lid + 128] = b;\n"
        "  }\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  if (lid == 0) price[opt] = v[0];\n"
        "}\n",
    .cl_entry = "binomial",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "binomial", argc, argv, 0);
  const int options = w.quick ? 6 : 384, steps = w.quick ? 20 : 192;
  wl_sizes(&w, "options=%d,steps=%d", options, steps);
  float* param = wl_alloc(&w, options * 16);
  float* prob = wl_alloc(&w, options * 8);
  float* price = wl_alloc(&w, options * 4);
  double* want = wl_alloc(&w, options * sizeof(double));
  double* tol = wl_alloc(&w, options * sizeof(double));
  double* v = wl_alloc(&w, (steps + 1) * sizeof(double));
  uint64_t seed = 17;
  for (int o = 0; o < options; ++o) {
    double S = wl_rand_f32(&seed, 5, 30), K = wl_rand_f32(&seed, 1, 100), T = wl_rand_f32(&seed, 0.25f, 10);
    double r = 0.02, sigma = 0.3;
    double dt = T / steps, u = exp(sigma * sqrt(dt)), d = 1 / u, disc = exp(-r * dt);
    double pu = (exp(r * dt) - d) / (u - d);
    float* p = &param[4 * o];
    p[0] = (float)S, p[1] = (float)K, p[2] = (float)(sigma * sqrt(dt)), p[3] = 0;
    prob[2 * o] = (float)(pu * disc), prob[2 * o + 1] = (float)((1 - pu) * disc);
    for (int i = 0; i <= steps; ++i) {
      double leaf = (double)p[0] * exp((double)p[2] * (2 * i - steps)) - p[1];
      v[i] = leaf > 0 ? leaf : 0;
    }
    for (int s = steps; s > 0; --s)
      for (int i = 0; i < s; ++i) v[i] = (double)prob[2 * o] * v[i + 1] + (double)prob[2 * o + 1] * v[i];
    want[o] = v[0];
    tol[o] = (3.0 * steps + 2.0 * p[2] * steps + 16) * (FLT_EPSILON / 2) * (S + K);
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, options * 16, param));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, options * 8, prob));
  struct wl_buffer* bp = wl_buffer(&w, options * 4, NULL);
  wl_arg_buffer(&w, k, 2, bp);
  wl_arg_i32(&w, k, 3, "steps", steps);
  wl_gpu_begin(&w);
  wl_run(&w, k, options, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bp, 0, options * 4, price);
  double max_err = 0;
  size_t bad = wl_compare_f32("price", price, want, tol, 0, options, &max_err);
  char check[96];
  snprintf(check, sizeof check, "abs<=(3steps+2max|x|+16)*2^-24*(S+K),max_err=%.2g", max_err);
  wl_finish(&w, bad == 0, check);
}
