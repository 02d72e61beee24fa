// bsearch: q independent lower-bound searches (first index whose key is >= the query, or n) in a sorted array
// of n distinct keys, one invocation per query. Queries hit keys, fall between keys, and lie below the first
// and above the last key. Exact compare with a CPU binary search.
#include "wl_common.h"

#include <stdlib.h>

static const struct wl_kernel_src kKernel = {
    .glsl = "layout(local_size_x = 128) in;\n"
            "layout(std430, binding = 0) readonly buffer Keys { uint key[]; };\n"
            "layout(std430, binding = 1) readonly buffer Queries { uint query[]; };\n"
            "layout(std430, binding = 2) writeonly buffer Result { uint result[]; };\n"
            "uniform uint n, q;\n"
            "void main() {\n"
            "  uint i = gl_GlobalInvocationID.x;\n"
            "  if (i >= q) return;\n"
            "  uint v = query[i], lo = 0u, hi = n;\n"
            "  while (lo < hi) {\n"
            "    uint mid = (lo + hi) >> 1;\n"
            "    if (key[mid] < v) lo = mid + 1u; else hi = mid;\n"
            "  }\n"
            "  result[i] = lo;\n"
            "}\n",
    .cl = "__kernel void lower_bound(__global const uint* key, __global const uint* query, __global uint* "
          "result, uint n,\n"
          "                          uint q) {\n"
          "  uint i = get_global_id(0);\n"
          "  if (i >= q) return;\n"
          "  uint v = query[i], lo = 0u, hi = n;\n"
          "  while (lo < hi) {\n"
          "    uint mid = (lo + hi) >> 1;\n"
          "    if (key[mid] < v) lo = mid + 1u; else hi = mid;\n"
          "  }\n"
          "  result[i] = lo;\n"
          "}\n",
    .cl_entry = "lower_bound",
    .local = {128, 1, 1},
};

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "bsearch", argc, argv, 0);
  const uint32_t n = w.quick ? 1000 : 1u << 20, q = w.quick ? 777 : 1u << 18;
  wl_sizes(&w, "n=%u,queries=%u", n, q);
  uint32_t* keys = wl_alloc(&w, n * 4);
  uint32_t* queries = wl_alloc(&w, q * 4);
  uint32_t* got = wl_alloc(&w, q * 4);
  uint32_t* want = wl_alloc(&w, q * 4);
  uint64_t seed = 9;
  uint32_t v = 100;
  for (uint32_t i = 0; i < n; ++i) keys[i] = v += 1 + wl_rand_u32(&seed) % 16;
  for (uint32_t i = 0; i < q; ++i) {
    uint32_t r = wl_rand_u32(&seed);
    queries[i] = r % 4 == 0 ? keys[r % n] : r % (v + 200);
  }
  for (uint32_t i = 0; i < q; ++i) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < queries[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    want[i] = lo;
  }
  struct wl_kernel* k = wl_kernel(&w, NULL, &kKernel);
  struct wl_buffer* br = wl_buffer(&w, q * 4, NULL);
  wl_arg_buffer(&w, k, 0, wl_buffer(&w, n * 4, keys));
  wl_arg_buffer(&w, k, 1, wl_buffer(&w, q * 4, queries));
  wl_arg_buffer(&w, k, 2, br);
  wl_arg_u32(&w, k, 3, "n", n);
  wl_arg_u32(&w, k, 4, "q", q);
  wl_gpu_begin(&w);
  wl_run(&w, k, (q + 127) / 128, 1, 1);
  wl_gpu_end(&w);
  wl_buffer_read(&w, br, 0, q * 4, got);
  wl_finish(&w, wl_compare_u32("index", got, want, q) == 0, "exact");
}
