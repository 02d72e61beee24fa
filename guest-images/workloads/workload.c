// Harness of the GPU workload suite; see workload.h for the result-line format.
#define _GNU_SOURCE
#include "workload.h"

#include <EGL/eglext.h>
#include <GLES2/gl2ext.h>

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// The one harness in the process, for the watchdog and the FAIL paths that have no handle.
static struct wl* g_wl;

double wl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_line(struct wl* w, const char* verdict, const char* tail) {
  printf("WORKLOAD %s %s %s gpu_jobs=%u gpu_s=%.3f total_s=%.3f %s\n", w->name, w->sizes[0] ? w->sizes : "-",
         verdict, w->dispatches, w->gpu_seconds, wl_now() - w->start, tail);
  fflush(stdout);
}

void wl_fail(struct wl* w, const char* fmt, ...) {
  char reason[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  // The reason runs to the end of the line: keep it to one line.
  for (char* p = reason; *p; ++p)
    if (*p == '\n' || *p == '\r') *p = ' ';
  char tail[600];
  snprintf(tail, sizeof tail, "reason=%s", reason);
  print_line(w, "FAIL", tail);
  exit(WL_EXIT_FAIL);
}

static void on_watchdog(int sig) {
  (void)sig;
  // Only async-signal-safe calls here; the line keeps the parseable shape with what is known.
  static const char a[] = "WORKLOAD ";
  static const char b[] =
      " FAIL gpu_jobs=0 gpu_s=0 total_s=0 reason=watchdog expired (the GPU or driver hung)\n";
  const char* name = g_wl ? g_wl->name : "?";
  const char* sizes = g_wl && g_wl->sizes[0] ? g_wl->sizes : "-";
  if (write(STDOUT_FILENO, a, sizeof a - 1) < 0 || write(STDOUT_FILENO, name, strlen(name)) < 0 ||
      write(STDOUT_FILENO, " ", 1) < 0 || write(STDOUT_FILENO, sizes, strlen(sizes)) < 0 ||
      write(STDOUT_FILENO, b, sizeof b - 1) < 0)
    _exit(WL_EXIT_FAIL);
  _exit(WL_EXIT_FAIL);
}

static void usage(const char* name) {
  printf("usage: %s [--quick] [--skip-unavailable] [--expect-fault]\n"
         "  --quick             tiny sizes (make check)\n"
         "  --skip-unavailable  exit 77 (SKIP) when no EGL device with GLES 3.1 can be opened\n"
         "  --expect-fault      (fault workload) FAIL unless the GPU fault was observed\n"
         "environment: WL_EXPECT_RENDERER=<substring of GL_RENDERER>, WL_TIMEOUT=<seconds, default 1200>\n",
         name);
}

// No device is a SKIP only when asked for; in the guest it is always a FAIL.
__attribute__((noreturn, format(printf, 2, 3))) static void unavailable(struct wl* w, const char* fmt, ...) {
  char reason[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (!w->skip_unavailable) wl_fail(w, "%s", reason);
  printf("WORKLOAD %s %s SKIP reason=%s\n", w->name, w->sizes[0] ? w->sizes : "-", reason);
  fflush(stdout);
  exit(WL_EXIT_SKIP);
}

static int has_word(const char* list, const char* word) {
  size_t n = strlen(word);
  for (const char* p = list; p && (p = strstr(p, word)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

int wl_has_gl_extension(const char* ext) {
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; ++i) {
    const char* e = (const char*)glGetStringi(GL_EXTENSIONS, (GLuint)i);
    if (e && strcmp(e, ext) == 0) return 1;
  }
  return 0;
}

static int create_context(struct wl* w, unsigned flags) {
  const char* dpy_ext = eglQueryString(w->dpy, EGL_EXTENSIONS);
  EGLint attrs[16];
  int a = 0;
  attrs[a++] = EGL_CONTEXT_MAJOR_VERSION;
  attrs[a++] = 3;
  attrs[a++] = EGL_CONTEXT_MINOR_VERSION;
  attrs[a++] = 1;
  w->reset_notification = 0;
  if ((flags & WL_RESET_NOTIFICATION) && has_word(dpy_ext, "EGL_EXT_create_context_robustness")) {
    attrs[a++] = EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT;
    attrs[a++] = EGL_LOSE_CONTEXT_ON_RESET_EXT;
    w->reset_notification = 1;
  }
  attrs[a] = EGL_NONE;
  w->ctx = eglCreateContext(w->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
  if (w->ctx == EGL_NO_CONTEXT && w->reset_notification) {
    // The extension is listed but the driver may still refuse the strategy; a plain context will do.
    w->reset_notification = 0;
    attrs[a - 2] = EGL_NONE;
    w->ctx = eglCreateContext(w->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attrs);
  }
  if (w->ctx == EGL_NO_CONTEXT) return 0;
  return eglMakeCurrent(w->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, w->ctx);
}

int wl_recreate_context(struct wl* w, unsigned flags) {
  eglMakeCurrent(w->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(w->dpy, w->ctx);
  return create_context(w, flags);
}

void wl_init(struct wl* w, const char* name, int argc, char** argv, unsigned flags) {
  memset(w, 0, sizeof *w);
  w->name = name;
  w->start = wl_now();
  g_wl = w;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      w->quick = 1;
    else if (strcmp(argv[i], "--skip-unavailable") == 0)
      w->skip_unavailable = 1;
    else if (strcmp(argv[i], "--expect-fault") == 0)
      w->expect_fault = 1;
    else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(argv[0]);
      exit(0);
    } else {
      fprintf(stderr, "%s: unknown option '%s'\n", argv[0], argv[i]);
      usage(argv[0]);
      exit(2);
    }
  }
  const char* timeout = getenv("WL_TIMEOUT");
  long seconds = timeout ? strtol(timeout, NULL, 10) : 1200;
  signal(SIGALRM, on_watchdog);
  alarm(seconds > 0 ? (unsigned)seconds : 1200u);

  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!client_ext || !has_word(client_ext, "EGL_MESA_platform_surfaceless"))
    unavailable(w, "EGL has no EGL_MESA_platform_surfaceless (client extensions: %s)",
                client_ext ? client_ext : "none");
  w->dpy = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  EGLint major = 0, minor = 0;
  if (w->dpy == EGL_NO_DISPLAY || !eglInitialize(w->dpy, &major, &minor))
    unavailable(w, "eglInitialize on the surfaceless platform failed (EGL error 0x%x)", eglGetError());
  const char* dpy_ext = eglQueryString(w->dpy, EGL_EXTENSIONS);
  // A context with no config and no surface: compute needs neither.
  if (!has_word(dpy_ext, "EGL_KHR_surfaceless_context") || !has_word(dpy_ext, "EGL_KHR_no_config_context"))
    unavailable(w, "EGL display lacks EGL_KHR_surfaceless_context or EGL_KHR_no_config_context");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) unavailable(w, "eglBindAPI(EGL_OPENGL_ES_API) failed");
  if (!create_context(w, flags))
    unavailable(w, "no current GLES 3.1 context without surface (EGL error 0x%x)", eglGetError());

  const char* renderer = (const char*)glGetString(GL_RENDERER);
  const char* version = (const char*)glGetString(GL_VERSION);
  GLint invocations = 0, shared = 0;
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &invocations);
  glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared);
  printf("# %s: EGL %d.%d, GL_RENDERER=%s, GL_VERSION=%s, max invocations %d, shared %d bytes\n", name, major,
         minor, renderer ? renderer : "?", version ? version : "?", invocations, shared);
  fflush(stdout);
  const char* expect = getenv("WL_EXPECT_RENDERER");
  if (expect && *expect && (!renderer || !strstr(renderer, expect)))
    wl_fail(w, "GL_RENDERER '%s' is not the expected '%s'", renderer ? renderer : "?", expect);
  // The kernels keep to GLES 3.1's guaranteed minimums (128 invocations, 16 KiB shared memory).
  if (invocations < 128 || shared < 16384)
    wl_fail(w, "the context is below GLES 3.1 minimums (invocations %d, shared %d)", invocations, shared);
}

void wl_sizes(struct wl* w, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->sizes, sizeof w->sizes, fmt, ap);
  va_end(ap);
  for (char* p = w->sizes; *p; ++p)
    if (*p == ' ') *p = '_';
}

static GLuint compile(struct wl* w, const char* defines, const char* body) {
  const char* parts[3] = {"#version 310 es\nprecision highp float;\nprecision highp int;\n",
                          defines ? defines : "", body};
  GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(sh, 3, parts, NULL);
  glCompileShader(sh);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096] = "";
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    fprintf(stderr, "%s: shader compile log:\n%s\n", w->name, log);
    wl_fail(w, "compute shader does not compile: %.300s", log);
  }
  return sh;
}

GLuint wl_program(struct wl* w, const char* defines, const char* body) {
  GLuint sh = compile(w, defines, body);
  GLuint prog = glCreateProgram();
  glAttachShader(prog, sh);
  glLinkProgram(prog);
  glDeleteShader(sh);
  GLint ok = 0;
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096] = "";
    glGetProgramInfoLog(prog, sizeof log, NULL, log);
    fprintf(stderr, "%s: program link log:\n%s\n", w->name, log);
    wl_fail(w, "compute program does not link: %.300s", log);
  }
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x while building a program", err);
  return prog;
}

static GLint uniform_location(struct wl* w, GLuint prog, const char* name) {
  GLint loc = glGetUniformLocation(prog, name);
  if (loc < 0) wl_fail(w, "program has no active uniform '%s'", name);
  glUseProgram(prog);
  return loc;
}
void wl_uniform_u(struct wl* w, GLuint prog, const char* name, GLuint v) {
  glUniform1ui(uniform_location(w, prog, name), v);
}
void wl_uniform_i(struct wl* w, GLuint prog, const char* name, GLint v) {
  glUniform1i(uniform_location(w, prog, name), v);
}
void wl_uniform_f(struct wl* w, GLuint prog, const char* name, GLfloat v) {
  glUniform1f(uniform_location(w, prog, name), v);
}

GLuint wl_ssbo(struct wl* w, size_t bytes, const void* init) {
  GLuint buf = 0;
  glGenBuffers(1, &buf);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  void* zero = NULL;
  if (!init) init = zero = wl_alloc(w, bytes ? bytes : 1);
  glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, init, GL_DYNAMIC_COPY);
  free(zero);
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x creating a %zu-byte buffer", err, bytes);
  return buf;
}

void wl_bind(GLuint binding, GLuint buf) {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, buf);
}

void wl_upload(struct wl* w, GLuint buf, size_t offset, size_t bytes, const void* src) {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)offset, (GLsizeiptr)bytes, src);
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x uploading %zu bytes", err, bytes);
}

void wl_read(struct wl* w, GLuint buf, size_t offset, size_t bytes, void* dst) {
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  const void* p =
      glMapBufferRange(GL_SHADER_STORAGE_BUFFER, (GLintptr)offset, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (!p) wl_fail(w, "glMapBufferRange(%zu bytes) failed, GL error 0x%x", bytes, glGetError());
  memcpy(dst, p, bytes);
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x reading a buffer back", err);
}

void wl_dispatch(struct wl* w, GLuint x, GLuint y, GLuint z) {
  glDispatchCompute(x, y, z);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT | GL_UNIFORM_BARRIER_BIT);
  w->dispatches++;
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x after glDispatchCompute(%u, %u, %u)", err, x, y, z);
}

void wl_gpu_begin(struct wl* w) {
  w->gpu_begin = wl_now();
}
void wl_gpu_end(struct wl* w) {
  glFinish();
  w->gpu_seconds += wl_now() - w->gpu_begin;
}

void wl_finish(struct wl* w, int ok, const char* check) {
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x pending at the end", err);
  if (!ok) wl_fail(w, "GPU result differs from the CPU reference (check %s; mismatches on stderr)", check);
  char tail[200];
  snprintf(tail, sizeof tail, "check=%s", check);
  print_line(w, "PASS", tail);
  eglMakeCurrent(w->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(w->dpy, w->ctx);
  eglTerminate(w->dpy);
  exit(WL_EXIT_PASS);
}

size_t wl_compare_u32(const char* what, const uint32_t* got, const uint32_t* want, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "  %s[%zu]: gpu %u (0x%08x), cpu %u (0x%08x)\n", what, i, got[i], got[i], want[i],
              want[i]);
  if (bad) fprintf(stderr, "  %s: %zu of %zu differ\n", what, bad, n);
  return bad;
}

size_t wl_compare_i32(const char* what, const int32_t* got, const int32_t* want, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "  %s[%zu]: gpu %d, cpu %d\n", what, i, got[i], want[i]);
  if (bad) fprintf(stderr, "  %s: %zu of %zu differ\n", what, bad, n);
  return bad;
}

size_t wl_compare_f32(const char* what, const float* got, const double* want, const double* tol,
                      double tol_all, size_t n, double* max_err) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double err = fabs((double)got[i] - want[i]);
    double t = tol ? tol[i] : tol_all;
    // NaN compares false both ways: count it as a mismatch.
    if (!(err <= t)) {
      if (bad++ < 5)
        fprintf(stderr, "  %s[%zu]: gpu %.9g, cpu %.9g, |diff| %.3g > tol %.3g\n", what, i, got[i], want[i],
                err, t);
      err = INFINITY;
    }
    if (err > worst) worst = err;
  }
  if (bad) fprintf(stderr, "  %s: %zu of %zu outside tolerance\n", what, bad, n);
  if (max_err) *max_err = worst;
  return bad;
}

uint32_t wl_rand_u32(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)((z ^ (z >> 31)) >> 32);
}

float wl_rand_f32(uint64_t* state, float lo, float hi) {
  float u = (float)(wl_rand_u32(state) >> 8) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * u;
}

void* wl_alloc(struct wl* w, size_t bytes) {
  void* p = calloc(1, bytes ? bytes : 1);
  if (!p) wl_fail(w, "out of host memory (%zu bytes)", bytes);
  return p;
}
