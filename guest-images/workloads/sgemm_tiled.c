// sgemm_tiled: 16x16 tiles of A and B staged in shared memory, so each global value is read once per tile
// instead of once per output; 16x8 invocations per workgroup (GLES 3.1 guarantees only 128), two output rows
// each.
#include "sgemm_common.h"

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 16, local_size_y = 8) in;\n" SGEMM_BUFFERS "shared float As[16][16];\n"
            "shared float Bs[16][16];\n"
            "void main() {\n"
            "  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;\n"
            "  uint row0 = gl_WorkGroupID.y * 16u, col = gl_WorkGroupID.x * 16u + tx;\n"
            "  float acc0 = 0.0, acc1 = 0.0;\n"
            "  for (uint t = 0u; t < K; t += 16u) {\n"
            "    for (uint r = ty; r < 16u; r += 8u) {\n"
            "      uint ar = row0 + r, ac = t + tx, br = t + r;\n"
            "      As[r][tx] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0;\n"
            "      Bs[r][tx] = (br < K && col < N) ? B[br * N + col] : 0.0;\n"
            "    }\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "    for (uint i = 0u; i < 16u; ++i) {\n"
            "      float b = Bs[i][tx];\n"
            "      acc0 += As[ty][i] * b;\n"
            "      acc1 += As[ty + 8u][i] * b;\n"
            "    }\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "  }\n"
            "  if (col < N) {\n"
            "    if (row0 + ty < M) C[(row0 + ty) * N + col] = acc0;\n"
            "    if (row0 + ty + 8u < M) C[(row0 + ty + 8u) * N + col] = acc1;\n"
            "  }\n"
            "}\n",
    .cl = "__kernel void sgemm_tiled" SGEMM_CL_ARGS " {\n"
          "  __local float As[16][16];\n"
          "  __local float Bs[16][16];\n"
          "  uint tx = get_local_id(0), ty = get_local_id(1);\n"
          "  uint row0 = get_group_id(1) * 16u, col = get_group_id(0) * 16u + tx;\n"
          "  float acc0 = 0.0f, acc1 = 0.0f;\n"
          "  for (uint t = 0u; t < K; t += 16u) {\n"
          "    for (uint r = ty; r < 16u; r += 8u) {\n"
          "      uint ar = row0 + r, ac = t + tx, br = t + r;\n"
          "      As[r][tx] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0f;\n"
          "      Bs[r][tx] = (br < K && col < N) ? B[br * N + col] : 0.0f;\n"
          "    }\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    for (uint i = 0u; i < 16u; ++i) {\n"
          "      float b = Bs[i][tx];\n"
          "      acc0 += As[ty][i] * b;\n"
          "      acc1 += As[ty + 8u][i] * b;\n"
          "    }\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  }\n"
          "  if (col < N) {\n"
          "    if (row0 + ty < M) C[(row0 + ty) * N + col] = acc0;\n"
          "    if (row0 + ty + 8u < M) C[(row0 + ty + 8u) * N + col] = acc1;\n"
          "  }\n"
          "}\n",
    .cl_entry = "sgemm_tiled",
    .local = {16, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "sgemm_tiled", argc, argv, 0);
  struct sgemm s;
  sgemm_setup(&w, &s);
  struct wl_kernel* k = sgemm_kernel(&w, &s, &kKernel);
  wl_gpu_begin(&w);
  wl_run(&w, k, (s.n + 15) / 16, (s.m + 15) / 16, 1);
  wl_gpu_end(&w);
  sgemm_check(&w, &s);
}
