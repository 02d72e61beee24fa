// sgemm_naive: one invocation per output element, every operand read from global memory.
#include "sgemm_common.h"

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n" SGEMM_BUFFERS "void main() {\n"
            "  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;\n"
            "  if (row >= M || col >= N) return;\n"
            "  float acc = 0.0;\n"
            "  for (uint i = 0u; i < K; ++i) acc += A[row * K + i] * B[i * N + col];\n"
            "  C[row * N + col] = acc;\n"
            "}\n",
    .cl = "__kernel void sgemm_naive" SGEMM_CL_ARGS " {\n"
          "  uint col = get_global_id(0), row = get_global_id(1);\n"
          "  if (row >= M || col >= N) return;\n"
          "  float acc = 0.0f;\n"
          "  for (uint i = 0u; i < K; ++i) acc += A[row * K + i] * B[i * N + col];\n"
          "  C[row * N + col] = acc;\n"
          "}\n",
    .cl_entry = "sgemm_naive",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "sgemm_naive", argc, argv, 0);
  struct sgemm s;
  sgemm_setup(&w, &s);
  struct wl_kernel* k = sgemm_kernel(&w, &s, &kKernel);
  wl_gpu_begin(&w);
  wl_run(&w, k, (s.n + 15) / 16, (s.m + 7) / 8, 1);
  wl_gpu_end(&w);
  sgemm_check(&w, &s);
}
