// The part of the GPU workload harness that does not depend on the GPU API
// (guest-images/workloads/README.md). Every workload is one program that runs its kernel on the GPU, checks
// the result against a CPU reference computed in the same program, and prints exactly one result line that
// bench/gpu_suite.py parses:
//
//   WORKLOAD <name> <sizes> PASS gpu_jobs=<dispatches> gpu_s=<seconds> total_s=<seconds> check=<how>
//   WORKLOAD <name> <sizes> FAIL gpu_jobs=<dispatches> gpu_s=<seconds> total_s=<seconds> reason=<text to eol>
//   WORKLOAD <name> <sizes> SKIP reason=<text to eol>                       (only with --skip-unavailable)
//
// <sizes> is one token (k=v,k=v). Exit status: 0 PASS, 1 FAIL, 77 SKIP.
//
// Two back ends implement the GPU side: GLES 3.1 compute through EGL (workload.c, programs wl-NAME) and
// OpenCL 1.2 (workload_cl.c, programs wlcl-NAME). A workload written against the API-neutral calls below
// (wl_kernel, wl_buffer, wl_arg_*, wl_run) carries its kernel in both languages and is built against each
// back end from the same source, so sizes, inputs, CPU reference and comparison are one piece of code.
#ifndef VPLAT_WL_COMMON_H
#define VPLAT_WL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define WL_EXIT_PASS 0
#define WL_EXIT_FAIL 1
#define WL_EXIT_SKIP 77

// Flags for wl_init.
enum {
  // GLES only: ask for a context with reset notification (EGL_EXT_create_context_robustness) when the driver
  // offers it, so that glGetGraphicsResetStatus can report a GPU reset; without it the status always reads
  // GL_NO_ERROR.
  WL_RESET_NOTIFICATION = 1u << 0,
};

struct wl {
  const char* name;
  int quick;            // --quick: tiny sizes (make check)
  int skip_unavailable; // --skip-unavailable: no usable GPU device is a SKIP, not a FAIL
  int expect_fault;     // --expect-fault: only the fault workload uses it
  char sizes[160];
  unsigned dispatches;
  double gpu_seconds; // host seconds inside wl_gpu_begin/wl_gpu_end, which waits for the GPU
  double start, gpu_begin;
  int reset_notification; // GLES: the context was created with reset notification
  void* dpy;              // GLES: the EGLDisplay
  void* ctx;              // GLES: the EGLContext
};

// --- Provided by each back end ---

// Parses the command line (--quick, --skip-unavailable, --expect-fault, --help), arms a watchdog (WL_TIMEOUT
// seconds, default 1200) and opens the device; prints one "# " line naming it. With
// WL_EXPECT_RENDERER=<substring> (GLES: of GL_RENDERER; OpenCL: of "<platform> / <device>") a different
// device is a FAIL, so that a guest run cannot silently fall back to a software implementation. Never returns
// on failure.
void wl_init(struct wl* w, const char* name, int argc, char** argv, unsigned flags);
void wl_gpu_begin(struct wl* w);
void wl_gpu_end(struct wl* w); // waits for the GPU (glFinish / clFinish), adds the span to gpu_seconds
// Result: prints the line and exits (PASS only if ok and the API reports no pending error). `check` says how
// the output was compared, e.g. "exact" or "abs<=1e-5".
__attribute__((noreturn)) void wl_finish(struct wl* w, int ok, const char* check);

// One compute kernel in both languages. `defines` ("#define X 1\n" lines) precede either source. The GLSL
// body follows "#version 310 es" and declares its local size; `local` must match it (checked), and is the
// OpenCL work-group size. In OpenCL, the kernel called `cl_entry` takes its buffers and scalars as arguments,
// in the order the wl_arg_* calls number them; in GLSL, a buffer argument's index is its SSBO binding and a
// scalar is the uniform called `name`.
struct wl_kernel_src {
  const char* glsl;
  const char* cl;
  const char* cl_entry;
  unsigned local[3];
};
struct wl_kernel;
struct wl_buffer;
struct wl_kernel* wl_kernel(struct wl* w, const char* defines, const struct wl_kernel_src* src);
struct wl_buffer* wl_buffer(struct wl* w, size_t bytes, const void* init); // zeroed if init is NULL
void wl_buffer_write(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, const void* src);
void wl_buffer_read(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, void* dst);
void wl_arg_buffer(struct wl* w, struct wl_kernel* k, unsigned index, struct wl_buffer* b);
void wl_arg_u32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, uint32_t v);
void wl_arg_i32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, int32_t v);
void wl_arg_f32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, float v);
// One dispatch of groups[0] x groups[1] x groups[2] work groups, counted in gpu_jobs; later dispatches and
// reads see its writes. An API error is a FAIL.
void wl_run(struct wl* w, struct wl_kernel* k, unsigned gx, unsigned gy, unsigned gz);

// --- Shared by both back ends (wl_common.c) ---

// Parses the options and arms the watchdog; the back ends' wl_init starts with it.
void wl_start(struct wl* w, const char* name, int argc, char** argv);
// No device: a SKIP with --skip-unavailable, else a FAIL. Never returns.
__attribute__((noreturn, format(printf, 2, 3))) void wl_unavailable(struct wl* w, const char* fmt, ...);
// Records the size token printed in the result line (printf-style; spaces become '_').
void wl_sizes(struct wl* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
__attribute__((noreturn, format(printf, 2, 3))) void wl_fail(struct wl* w, const char* fmt, ...);
void wl_print_pass(struct wl* w, const char* check);
double wl_now(void);

// Comparison helpers: print up to 5 mismatches on stderr and return the number of mismatches.
size_t wl_compare_u32(const char* what, const uint32_t* got, const uint32_t* want, size_t n);
size_t wl_compare_i32(const char* what, const int32_t* got, const int32_t* want, size_t n);
// |got - want| <= tol[i] (tol may be NULL: then tol_all for every element). *max_err gets the largest error.
size_t wl_compare_f32(const char* what, const float* got, const double* want, const double* tol,
                      double tol_all, size_t n, double* max_err);

// Deterministic inputs (splitmix64): the same seed gives the same data on every host.
uint32_t wl_rand_u32(uint64_t* state);
float wl_rand_f32(uint64_t* state, float lo, float hi); // uniform, multiples of 2^-24 of the range
void* wl_alloc(struct wl* w, size_t bytes);             // calloc that FAILs instead of returning NULL

#endif
