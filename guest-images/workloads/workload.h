// Shared harness of the GPU workload suite (guest-images/workloads/README.md): every workload is one program
// that sets up EGL (surfaceless platform, no window system) and a GLES 3.1 context, runs GLSL ES compute
// shaders on shader storage buffers, checks the GPU's result against a CPU reference computed in the same
// program, and prints exactly one result line that scripts/gpu-suite.sh parses:
//
//   WORKLOAD <name> <sizes> PASS gpu_jobs=<dispatches> gpu_s=<seconds> total_s=<seconds> check=<how>
//   WORKLOAD <name> <sizes> FAIL gpu_jobs=<dispatches> gpu_s=<seconds> total_s=<seconds> reason=<text to eol>
//   WORKLOAD <name> <sizes> SKIP reason=<text to eol>                       (only with --skip-unavailable)
//
// <sizes> is one token (k=v,k=v). Exit status: 0 PASS, 1 FAIL, 77 SKIP.
#ifndef VPLAT_WORKLOAD_H
#define VPLAT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <EGL/egl.h>
#include <GLES3/gl31.h>

#define WL_EXIT_PASS 0
#define WL_EXIT_FAIL 1
#define WL_EXIT_SKIP 77

// Flags for wl_init.
enum {
  // Ask for a context with reset notification (EGL_EXT_create_context_robustness) when the driver offers it,
  // so
  // that glGetGraphicsResetStatus can report a GPU reset; without it the status always reads GL_NO_ERROR.
  WL_RESET_NOTIFICATION = 1u << 0,
};

struct wl {
  const char* name;
  int quick;            // --quick: tiny sizes (make check)
  int skip_unavailable; // --skip-unavailable: no EGL/GLES 3.1 device is a SKIP, not a FAIL
  int expect_fault;     // --expect-fault: only the fault workload uses it
  char sizes[160];
  unsigned dispatches;
  double gpu_seconds; // host seconds inside wl_gpu_begin/wl_gpu_end, ending with glFinish
  double start, gpu_begin;
  int reset_notification; // the context was created with reset notification
  EGLDisplay dpy;
  EGLContext ctx;
};

// Parses the command line (--quick, --skip-unavailable, --expect-fault, --help), arms a watchdog (WL_TIMEOUT
// seconds, default 1200), and creates the EGL display and GLES 3.1 context; prints GL_RENDERER and GL_VERSION
// once. With WL_EXPECT_RENDERER=<substring> in the environment a different renderer is a FAIL (so that a
// guest run cannot silently fall back to Mesa's software renderer). Never returns on failure.
void wl_init(struct wl* w, const char* name, int argc, char** argv, unsigned flags);
// Destroys the context and makes a new current one with the same flags (after a lost context); 0 on failure.
int wl_recreate_context(struct wl* w, unsigned flags);
// Records the size token printed in the result line (printf-style, must not contain spaces).
void wl_sizes(struct wl* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// Compiles and links "#version 310 es" + defines + body; on failure prints the info log and FAILs.
GLuint wl_program(struct wl* w, const char* defines, const char* body);
// Sets a uniform of the current program; a name the program does not have is a FAIL (a typo must not pass).
void wl_uniform_u(struct wl* w, GLuint prog, const char* name, GLuint v);
void wl_uniform_i(struct wl* w, GLuint prog, const char* name, GLint v);
void wl_uniform_f(struct wl* w, GLuint prog, const char* name, GLfloat v);

// Shader storage buffers. wl_ssbo creates one of `bytes` (initialised from `init` if not NULL, else zero).
GLuint wl_ssbo(struct wl* w, size_t bytes, const void* init);
void wl_bind(GLuint binding, GLuint buf);
void wl_upload(struct wl* w, GLuint buf, size_t offset, size_t bytes, const void* src);
void wl_read(struct wl* w, GLuint buf, size_t offset, size_t bytes, void* dst);

// One glDispatchCompute, counted in gpu_jobs, followed by a storage barrier so the next dispatch or read sees
// its writes. A GL error here is a FAIL.
void wl_dispatch(struct wl* w, GLuint x, GLuint y, GLuint z);
void wl_gpu_begin(struct wl* w);
void wl_gpu_end(struct wl* w); // glFinish, then adds the span to gpu_seconds

// Result: prints the line and exits (PASS only if ok and no GL error is pending). `check` says how the output
// was compared, e.g. "exact" or "abs<=1e-5".
__attribute__((noreturn)) void wl_finish(struct wl* w, int ok, const char* check);
__attribute__((noreturn, format(printf, 2, 3))) void wl_fail(struct wl* w, const char* fmt, ...);

double wl_now(void);
int wl_has_gl_extension(const char* ext);

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
