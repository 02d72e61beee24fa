// vecadd: c[i] = a[i] + b[i] over n floats, one invocation per element.
// Exact compare: GLSL ES 3.10 (4.7.1) makes highp a + b correctly rounded, as does OpenCL C (7.4, add is
// correctly rounded): the same IEEE single add the CPU does. The inputs are normal numbers whose sums stay
// normal (no flush-to-zero question).
#include "wl_common.h"

#include <string.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer A { float a[]; };\n"
            "layout(std430, binding = 1) readonly buffer B { float b[]; };\n"
            "layout(std430, binding = 2) writeonly buffer C { float c[]; };\n"
            "uniform uint n;\n"
            "void main() {\n"
            "  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i < n) c[i] = a[i] + b[i];\n"
            "}\n",
    .cl = "__kernel void vecadd(__global const float* a, __global const float* b, __global float* c, uint n) "
          "{\n"
          "  uint i = get_global_id(0);\n"
          "  if (i < n) c[i] = a[i] + b[i];\n"
          "}\n",
    .cl_entry = "vecadd",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "vecadd", argc, argv, 0);
  // Not a multiple of 128 in --quick, so the tail guard is exercised.
  const uint32_t n = w.quick ? 4000 : 1u << 20;
  wl_sizes(&w, "n=%u", n);

  float* a = wl_alloc(&w, n * sizeof *a);
  float* b = wl_alloc(&w, n * sizeof *b);
  float* c = wl_alloc(&w, n * sizeof *c);
  uint64_t seed = 1;
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = wl_rand_f32(&seed, 1.0f, 2.0f);
    b[i] = wl_rand_f32(&seed, -0.5f, 0.5f);
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* bc = wl_buffer(&w, n * sizeof *c, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, n * sizeof *a, a));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, n * sizeof *b, b));
  wl_arg_buffer(&w, k, 2, bc);
  wl_arg_u32(&w, k, 3, "n", n);
  wl_gpu_begin(&w);
  wl_run(&w, k, (n + 127) / 128, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, bc, 0, n * sizeof *c, c);

  uint32_t* got = (uint32_t*)c;
  uint32_t* want = wl_alloc(&w, n * sizeof *want);
  for (uint32_t i = 0; i < n; ++i) {
    float s = a[i] + b[i];
    memcpy(&want[i], &s, 4);
  }
  wl_finish(&w, wl_compare_u32("c", got, want, n) == 0, "exact");
}
