// bitonic: sorts n unsigned keys ascending with Batcher's bitonic network, one dispatch per (stage, pass):
// log2(n) * (log2(n) + 1) / 2 dispatches, n/2 compare-exchanges each. A key count that is not a power of two
// is padded with 0xffffffff. Exact compare with the CPU's qsort.
#include "wl_common.h"

#include <stdlib.h>
#include <string.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) buffer Keys { uint key[]; };\n"
            "uniform uint k, j, half_n;\n"
            "void main() {\n"
            "  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i >= half_n) return;\n"
            "  uint lo = ((i & ~(j - 1u)) << 1) | (i & (j - 1u));\n" // i with a zero inserted at bit log2(j)
            "  uint hi = lo | j;\n"
            "  bool ascending = (lo & k) == 0u;\n"
            "  uint a = key[lo], b = key[hi];\n"
            "  if ((a > b) == ascending) {\n"
            "    key[lo] = b;\n"
            "    key[hi] = a;\n"
            "  }\n"
            "}\n",
    .cl = "__kernel void bitonic(__global uint* key, uint k, uint j, uint half_n) {\n"
          "  uint i = get_global_id(0);\n"
          "  if (i >= half_n) return;\n"
          "  uint lo = ((i & ~(j - 1u)) << 1) | (i & (j - 1u));\n"
          "  uint hi = lo | j;\n"
          "  bool ascending = (lo & k) == 0u;\n"
          "  uint a = key[lo], b = key[hi];\n"
          "  if ((a > b) == ascending) {\n"
          "    key[lo] = b;\n"
          "    key[hi] = a;\n"
          "  }\n"
          "}\n",
    .cl_entry = "bitonic",
    .local = {128, 1, 1},
};

static int cmp_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "bitonic", argc, argv, 0);
  const uint32_t count = w.quick ? 1000 : 1u << 16;
  uint32_t n = 1;
  while (n < count) n <<= 1;
  wl_sizes(&w, "n=%u,padded=%u", count, n);
  uint32_t* keys = wl_alloc(&w, n * 4);
  uint32_t* want = wl_alloc(&w, count * 4);
  uint64_t seed = 8;
  // Many duplicates (only 2^14 distinct values) as well as the full range.
  for (uint32_t i = 0; i < n; ++i)
    keys[i] = i < count ? (i % 3 ? wl_rand_u32(&seed) : wl_rand_u32(&seed) >> 18) : 0xffffffffu;
  memcpy(want, keys, count * 4);
  qsort(want, count, 4, cmp_u32);
  struct wl_kernel* kernel = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* buf = wl_buffer(&w, n * 4, keys);
  wl_arg_buffer(&w, kernel, 0, buf);
  wl_arg_u32(&w, kernel, 3, "half_n", n / 2);
  wl_gpu_begin(&w);
  for (uint32_t k = 2; k <= n; k <<= 1)
    for (uint32_t j = k >> 1; j > 0; j >>= 1) {
      wl_arg_u32(&w, kernel, 1, "k", k);
      wl_arg_u32(&w, kernel, 2, "j", j);
      wl_run(&w, kernel, (n / 2 + 127) / 128, 1, 1);
    }
  wl_gpu_end(&w);
  wl_buffer_read(&w, buf, 0, count * 4, keys);
  wl_finish(&w, wl_compare_u32("sorted", keys, want, count) == 0, "exact");
}
