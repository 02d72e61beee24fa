// sgemm_regblock: register blocking on top of shared-memory tiling. A workgroup of 8x8 invocations computes a
// 32x32 block of C; each invocation keeps a 4x4 block of accumulators in registers (rows ty + 8i, columns
// tx + 8j), so every shared-memory value it loads feeds four multiply-adds. K advances 16 at a time.
#include "sgemm_common.h"

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 8, local_size_y = 8) in;\n" SGEMM_BUFFERS
            "shared float As[16][32];\n" // [k][row]
            "shared float Bs[16][32];\n" // [k][col]
            "void main() {\n"
            "  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y, lid = ty * 8u + tx;\n"
            "  uint row0 = gl_WorkGroupID.y * 32u, col0 = gl_WorkGroupID.x * 32u;\n"
            "  vec4 acc[4];\n"
            "  for (int i = 0; i < 4; ++i) acc[i] = vec4(0.0);\n"
            "  for (uint t = 0u; t < K; t += 16u) {\n"
            "    for (uint e = lid; e < 512u; e += 64u) {\n"
            "      uint ar = row0 + e / 16u, ac = t + e % 16u;\n"
            "      As[e % 16u][e / 16u] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0;\n"
            "      uint br = t + e / 32u, bc = col0 + e % 32u;\n"
            "      Bs[e / 32u][e % 32u] = (br < K && bc < N) ? B[br * N + bc] : 0.0;\n"
            "    }\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "    for (uint k = 0u; k < 16u; ++k) {\n"
            "      vec4 b = vec4(Bs[k][tx], Bs[k][tx + 8u], Bs[k][tx + 16u], Bs[k][tx + 24u]);\n"
            "      acc[0] += As[k][ty] * b;\n"
            "      acc[1] += As[k][ty + 8u] * b;\n"
            "      acc[2] += As[k][ty + 16u] * b;\n"
            "      acc[3] += As[k][ty + 24u] * b;\n"
            "    }\n"
            "    memoryBarrierShared();\n"
            "    barrier();\n"
            "  }\n"
            "  for (uint i = 0u; i < 4u; ++i) {\n"
            "    uint r = row0 + ty + 8u * i;\n"
            "    if (r >= M) continue;\n"
            "    for (uint j = 0u; j < 4u; ++j) {\n"
            "      uint c = col0 + tx + 8u * j;\n"
            "      if (c < N) C[r * N + c] = acc[i][j];\n"
            "    }\n"
            "  }\n"
            "}\n",
    .cl = "__kernel void sgemm_regblock" SGEMM_CL_ARGS " {\n"
          "  __local float As[16][32];\n" // [k][row]
          "  __local float Bs[16][32];\n" // [k][col]
          "  uint tx = get_local_id(0), ty = get_local_id(1), lid = ty * 8u + tx;\n"
          "  uint row0 = get_group_id(1) * 32u, col0 = get_group_id(0) * 32u;\n"
          "  float4 acc[4];\n"
          "  for (int i = 0; i < 4; ++i) acc[i] = (float4)(0.0f);\n"
          "  for (uint t = 0u; t < K; t += 16u) {\n"
          "    for (uint e = lid; e < 512u; e += 64u) {\n"
          "      uint ar = row0 + e / 16u, ac = t + e % 16u;\n"
          "      As[e % 16u][e / 16u] = (ar < M && ac < K) ? A[ar * K + ac] : 0.0f;\n"
          "      uint br = t + e / 32u, bc = col0 + e % 32u;\n"
          "      Bs[e / 32u][e % 32u] = (br < K && bc < N) ? B[br * N + bc] : 0.0f;\n"
          "    }\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "    for (uint k = 0u; k < 16u; ++k) {\n"
          "      float4 b = (float4)(Bs[k][tx], Bs[k][tx + 8u], Bs[k][tx + 16u], Bs[k][tx + 24u]);\n"
          "      acc[0] += As[k][ty] * b;\n"
          "      acc[1] += As[k][ty + 8u] * b;\n"
          "      acc[2] += As[k][ty + 16u] * b;\n"
          "      acc[3] += As[k][ty + 24u] * b;\n"
          "    }\n"
          "    barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  }\n"
          "  for (uint i = 0u; i < 4u; ++i) {\n"
          "    uint r = row0 + ty + 8u * i;\n"
          "    if (r >= M) continue;\n"
          "    float v[4] = {acc[i].x, acc[i].y, acc[i].z, acc[i].w};\n"
          "    for (uint j = 0u; j < 4u; ++j) {\n"
          "      uint c = col0 + tx + 8u * j;\n"
          "      if (c < N) C[r * N + c] = v[j];\n"
          "    }\n"
          "  }\n"
          "}\n",
    .cl_entry = "sgemm_regblock",
    .local = {8, 8, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "sgemm_regblock", argc, argv, 0);
  struct sgemm s;
  sgemm_setup(&w, &s);
  struct wl_kernel* k = sgemm_kernel(&w, &s, &kKernel);
  wl_gpu_begin(&w);
  wl_run(&w, k, (s.n + 31) / 32, (s.m + 31) / 32, 1);
  wl_gpu_end(&w);
  sgemm_check(&w, &s);
}
