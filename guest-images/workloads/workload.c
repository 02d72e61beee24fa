// GLES 3.1 back end of the workload harness (EGL surfaceless, SSBOs); wl_common.h has the result-line format.
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
  wl_start(w, name, argc, argv);
  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!client_ext || !has_word(client_ext, "EGL_MESA_platform_surfaceless"))
    wl_unavailable(w, "EGL has no EGL_MESA_platform_surfaceless (client extensions: %s)",
                   client_ext ? client_ext : "none");
  w->dpy = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  EGLint major = 0, minor = 0;
  if (w->dpy == EGL_NO_DISPLAY || !eglInitialize(w->dpy, &major, &minor))
    wl_unavailable(w, "eglInitialize on the surfaceless platform failed (EGL error 0x%x)", eglGetError());
  const char* dpy_ext = eglQueryString(w->dpy, EGL_EXTENSIONS);
  // A context with no config and no surface: compute needs neither.
  if (!has_word(dpy_ext, "EGL_KHR_surfaceless_context") || !has_word(dpy_ext, "EGL_KHR_no_config_context"))
    wl_unavailable(w, "EGL display lacks EGL_KHR_surfaceless_context or EGL_KHR_no_config_context");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) wl_unavailable(w, "eglBindAPI(EGL_OPENGL_ES_API) failed");
  if (!create_context(w, flags))
    wl_unavailable(w, "no current GLES 3.1 context without surface (EGL error 0x%x)", eglGetError());

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

void wl_gpu_end(struct wl* w) {
  glFinish();
  w->gpu_seconds += wl_now() - w->gpu_begin;
}

void wl_finish(struct wl* w, int ok, const char* check) {
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) wl_fail(w, "GL error 0x%x pending at the end", err);
  if (!ok) wl_fail(w, "GPU result differs from the CPU reference (check %s; mismatches on stderr)", check);
  wl_print_pass(w, check);
  eglMakeCurrent(w->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(w->dpy, w->ctx);
  eglTerminate(w->dpy);
  exit(WL_EXIT_PASS);
}

// The API-neutral calls (wl_common.h) on GLES: a kernel remembers its SSBO bindings and binds them at each
// dispatch, so kernels that use the same binding numbers for different buffers do not disturb each other.
#define WL_GLES_MAX_BINDINGS 16
struct wl_kernel {
  GLuint prog;
  GLuint bindings[WL_GLES_MAX_BINDINGS];
};
struct wl_buffer {
  GLuint name;
};

struct wl_kernel* wl_kernel(struct wl* w, const char* defines, const struct wl_kernel_src* src) {
  struct wl_kernel* k = wl_alloc(w, sizeof *k);
  k->prog = wl_program(w, defines, src->glsl);
  GLint size[3] = {0, 0, 0};
  glGetProgramiv(k->prog, GL_COMPUTE_WORK_GROUP_SIZE, size);
  if ((unsigned)size[0] != src->local[0] || (unsigned)size[1] != src->local[1] ||
      (unsigned)size[2] != src->local[2])
    wl_fail(w, "kernel %s: GLSL local size %dx%dx%d differs from the declared %ux%ux%u", src->cl_entry,
            size[0], size[1], size[2], src->local[0], src->local[1], src->local[2]);
  return k;
}

struct wl_buffer* wl_buffer(struct wl* w, size_t bytes, const void* init) {
  struct wl_buffer* b = wl_alloc(w, sizeof *b);
  b->name = wl_ssbo(w, bytes, init);
  return b;
}
void wl_buffer_write(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, const void* src) {
  wl_upload(w, b->name, offset, bytes, src);
}
void wl_buffer_read(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, void* dst) {
  wl_read(w, b->name, offset, bytes, dst);
}

void wl_arg_buffer(struct wl* w, struct wl_kernel* k, unsigned index, struct wl_buffer* b) {
  if (index >= WL_GLES_MAX_BINDINGS) wl_fail(w, "SSBO binding %u out of range", index);
  k->bindings[index] = b->name;
}
void wl_arg_u32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, uint32_t v) {
  (void)index;
  wl_uniform_u(w, k->prog, name, v);
}
void wl_arg_i32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, int32_t v) {
  (void)index;
  wl_uniform_i(w, k->prog, name, v);
}
void wl_arg_f32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, float v) {
  (void)index;
  wl_uniform_f(w, k->prog, name, v);
}

void wl_run(struct wl* w, struct wl_kernel* k, unsigned gx, unsigned gy, unsigned gz) {
  glUseProgram(k->prog);
  for (GLuint i = 0; i < WL_GLES_MAX_BINDINGS; ++i)
    if (k->bindings[i]) wl_bind(i, k->bindings[i]);
  wl_dispatch(w, gx, gy, gz);
}
