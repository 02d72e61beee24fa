// rng: uniform random numbers from the counter-based generator Philox4x32-10 (Salmon et al., "Parallel Random
// Numbers: As Easy as 1, 2, 3", SC 2011): each invocation encrypts `blocks` consecutive 128-bit counters
// under one key, 10 rounds of 32x32->64-bit multiplies (umulExtended) and xors, giving 4 numbers per counter.
// The CPU reference implementation is first checked against Random123's published known-answer vectors. Exact
// compare of the 32-bit outputs; the uniform floats (x >> 8) * 2^-24 in [0, 1) are also summarised (mean, a
// 16-bin chi^2).
#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 4u
static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) writeonly buffer Out { uvec4 result[]; };\n"
            "uniform uint count, key0, key1;\n" // count: counters (4 numbers each)
            "uvec4 philox(uvec4 c, uvec2 k) {\n"
            "  for (int r = 0; r < 10; ++r) {\n"
            "    uint hi0, lo0, hi1, lo1;\n"
            "    umulExtended(0xD2511F53u, c.x, hi0, lo0);\n"
            "    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);\n"
            "    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);\n"
            "    k += uvec2(0x9E3779B9u, 0xBB67AE85u);\n"
            "  }\n"
            "  return c;\n"
            "}\n"
            "void main() {\n"
            "  uint first = gl_GlobalInvocationID.x * BLOCKS;\n"
            "  for (uint b = 0u; b < BLOCKS; ++b)\n"
            "    if (first + b < count) result[first + b] = philox(uvec4(first + b, 0u, "
            "0u, 0u), uvec2(key0, key1));\n"
            "}\n",
    .cl = "uint4 philox(uint4 c, uint2 k) {\n"
          "  for (int r = 0; r < 10; ++r) {\n"
          "    uint hi0 = mul_hi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;\n"
          "    uint hi1 = mul_hi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;\n"
          "    c = (uint4)(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);\n"
          "    k += (uint2)(0x9E3779B9u, 0xBB67AE85u);\n"
          "  }\n"
          "  return c;\n"
          "}\n"
          "__kernel void philox4x32(__global uint4* result, uint count, uint key0, uint key1) {\n"
          "  uint first = get_global_id(0) * BLOCKS;\n"
          "  for (uint b = 0u; b < BLOCKS; ++b)\n"
          "    if (first + b < count) result[first + b] = philox((uint4)(first + b, 0u, 0u, 0u), "
          "(uint2)(key0, key1));\n"
          "}\n",
    .cl_entry = "philox4x32",
    .local = {128, 1, 1},
};

static void philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1, n3 = (uint32_t)p0;
    c[0] = n0, c[1] = n1, c[2] = n2, c[3] = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int i = 0; i < 4; ++i) out[i] = c[i];
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "rng", argc, argv, 0);
  const uint32_t count = w.quick ? 1000 : 1u << 19; // counters; 4 numbers each
  const uint32_t key[2] = {0x243F6A88u, 0x85A308D3u};
  wl_sizes(&w, "numbers=%u", 4 * count);
  // Random123 kat_vectors: (counter, key) -> output.
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
       0x5001e420, 0x24126ea1}};
  for (int t = 0; t < 3; ++t) {
    uint32_t out[4];
    philox(kat[t], kat[t] + 4, out);
    if (wl_compare_u32("philox-kat", out, kat[t] + 6, 4))
      wl_fail(&w, "CPU Philox4x32-10 fails known-answer vector %d", t);
  }
  uint32_t* want = wl_alloc(&w, (size_t)count * 16);
  uint32_t* got = wl_alloc(&w, (size_t)count * 16);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t ctr[4] = {i, 0, 0, 0};
    philox(ctr, key, &want[4 * i]);
  }
  char defines[32];
  snprintf(defines, sizeof defines, "#define BLOCKS %uu\n", BLOCKS);
  struct wl_kernel* k = wl_kernel(&w, defines, &kKernel);
  struct wl_buffer* buf = wl_buffer(&w, (size_t)count * 16, NULL);
  wl_arg_buffer(&w, k, 0, buf);
  wl_arg_u32(&w, k, 1, "count", count);
  wl_arg_u32(&w, k, 2, "key0", key[0]);
  wl_arg_u32(&w, k, 3, "key1", key[1]);
  wl_gpu_begin(&w);
  wl_run(&w, k, (count + 128 * BLOCKS - 1) / (128 * BLOCKS), 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, buf, 0, (size_t)count * 16, got);
  double sum = 0, chi2 = 0;
  uint32_t bins[16] = {0};
  for (uint32_t i = 0; i < 4 * count; ++i) {
    sum += (got[i] >> 8) * (1.0 / 16777216.0);
    bins[got[i] >> 28]++;
  }
  for (int b = 0; b < 16; ++b) {
    double e = 4.0 * count / 16;
    chi2 += (bins[b] - e) * (bins[b] - e) / e;
  }
  fprintf(stderr, "rng: mean %.5f (0.5 expected), chi^2 over 16 bins %.1f (15 degrees of freedom)\n",
          sum / (4.0 * count), chi2);
  wl_finish(&w, wl_compare_u32("number", got, want, 4 * count) == 0, "exact");
}
