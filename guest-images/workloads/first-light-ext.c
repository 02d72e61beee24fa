// first-light-ext: the GLES compute features beyond first-light's vector add that every larger workload
// leans on, each through the unmodified Mesa stack and checked against the same computation on the CPU:
//   reduce-shared     a per-workgroup sum in shared memory with barrier() between halving steps
//   atomic-histogram  atomicAdd on SSBO words (Mesa's ATOM_C1/ATOM_CX pair on Bifrost)
//   integer-ops       a data-dependent loop, unsigned division and modulo by constants, int/uint conversions
//   float-math        sqrt, exp, sin (software sequences on G71, which has no fp32 transcendental unit)
// Prints one line per check and then "first-light-ext: PASS (...)" or "first-light-ext: FAIL (...)".
#include "first-light-common.h"
#include <math.h>

enum { N = 4096 };

static GLuint build(const char* text) {
  GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(sh, 1, &text, NULL);
  glCompileShader(sh);
  GLint ok = 0;
  char log[4096] = "";
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    fail("shader does not compile: %s", log);
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, sh);
  glLinkProgram(p);
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    glGetProgramInfoLog(p, sizeof log, NULL, log);
    fail("program does not link: %s", log);
  }
  glDeleteShader(sh);
  return p;
}

static GLuint ssbo(GLuint binding, size_t bytes, const void* data) {
  GLuint b;
  glGenBuffers(1, &b);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, data, GL_DYNAMIC_READ);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, b);
  return b;
}

// A copy of the buffer after the dispatches so far (the caller frees it).
static void* readback(GLuint b, size_t bytes) {
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  void* p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (!p) fail("glMapBufferRange(read): GL error 0x%x", glGetError());
  void* copy = malloc(bytes);
  if (!copy) fail("out of memory");
  memcpy(copy, p, bytes);
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  return copy;
}

static int failed;
static void verdict(const char* check, long bad, long total) {
  printf("%s: %s %s (%ld of %ld wrong)\n", fl_name, check, bad ? "FAIL" : "PASS", bad, total);
  if (bad) failed++;
}

static void reduce_shared(void) {
  GLuint p = build("#version 310 es\n"
                   "layout(local_size_x = 128) in;\n"
                   "layout(std430, binding = 0) readonly buffer A { uint a[]; };\n"
                   "layout(std430, binding = 1) writeonly buffer S { uint s[]; };\n"
                   "shared uint t[128];\n"
                   "void main() {\n"
                   "  uint l = gl_LocalInvocationID.x;\n"
                   "  t[l] = a[gl_GlobalInvocationID.x];\n"
                   "  barrier();\n"
                   "  for (uint k = 64u; k > 0u; k >>= 1u) {\n"
                   "    if (l < k) t[l] += t[l + k];\n"
                   "    barrier();\n"
                   "  }\n"
                   "  if (l == 0u) s[gl_WorkGroupID.x] = t[0];\n"
                   "}\n");
  enum { GROUPS = N / 128 };
  uint32_t* a = malloc(N * 4);
  if (!a) fail("out of memory");
  for (uint32_t i = 0; i < N; i++) a[i] = (i * 2654435761u) >> 20;
  GLuint ba = ssbo(0, N * 4, a), bs = ssbo(1, GROUPS * 4, NULL);
  glUseProgram(p);
  glDispatchCompute(GROUPS, 1, 1);
  uint32_t* s = readback(bs, GROUPS * 4);
  long bad = 0;
  for (int g = 0; g < GROUPS; g++) {
    uint32_t want = 0;
    for (int i = 0; i < 128; i++) want += a[g * 128 + i];
    if (s[g] != want && !bad++) printf("%s: group %d: got %u, want %u\n", fl_name, g, s[g], want);
  }
  verdict("reduce-shared", bad, GROUPS);
  glDeleteBuffers(1, &ba);
  glDeleteBuffers(1, &bs);
  glDeleteProgram(p);
  free(a);
  free(s);
}

static void atomic_histogram(void) {
  GLuint p = build("#version 310 es\n"
                   "layout(local_size_x = 64) in;\n"
                   "layout(std430, binding = 0) readonly buffer A { uint a[]; };\n"
                   "layout(std430, binding = 1) buffer H { uint h[]; };\n"
                   "void main() { atomicAdd(h[a[gl_GlobalInvocationID.x] % 16u], 1u); }\n");
  uint32_t *a = malloc(N * 4), zero[16] = {0}, want[16] = {0};
  if (!a) fail("out of memory");
  for (uint32_t i = 0; i < N; i++) a[i] = i * 7919u % 1000u;
  for (int i = 0; i < N; i++) want[a[i] % 16]++;
  GLuint ba = ssbo(0, N * 4, a), bh = ssbo(1, sizeof zero, zero);
  glUseProgram(p);
  glDispatchCompute(N / 64, 1, 1);
  uint32_t* h = readback(bh, sizeof zero);
  long bad = 0;
  for (int i = 0; i < 16; i++)
    if (h[i] != want[i] && !bad++) printf("%s: bin %d: got %u, want %u\n", fl_name, i, h[i], want[i]);
  verdict("atomic-histogram", bad, 16);
  glDeleteBuffers(1, &ba);
  glDeleteBuffers(1, &bh);
  glDeleteProgram(p);
  free(a);
  free(h);
}

static void integer_and_float(void) {
  GLuint p = build("#version 310 es\n"
                   "layout(local_size_x = 64) in;\n"
                   "layout(std430, binding = 0) writeonly buffer U { uint u[]; };\n"
                   "layout(std430, binding = 1) writeonly buffer F { float f[]; };\n"
                   "void main() {\n"
                   "  uint i = gl_GlobalInvocationID.x;\n"
                   "  uint acc = 0u;\n"
                   "  for (uint k = 0u; k < i % 13u; k++) acc += k * i;\n"
                   "  u[i] = acc / 7u + (i * 31u) % 11u + uint(int(i) - 2000) / 3u;\n"
                   "  float x = float(i) * 0.001;\n"
                   "  f[i] = sqrt(x) + exp(-x) + sin(x) + float(int(i) / 5);\n"
                   "}\n");
  GLuint bu = ssbo(0, N * 4, NULL), bf = ssbo(1, N * 4, NULL);
  glUseProgram(p);
  glDispatchCompute(N / 64, 1, 1);
  uint32_t* u = readback(bu, N * 4);
  float* f = readback(bf, N * 4);
  long bad_u = 0, bad_f = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint32_t acc = 0;
    for (uint32_t k = 0; k < i % 13; k++) acc += k * i;
    uint32_t want = acc / 7 + (i * 31) % 11 + (uint32_t)((int)i - 2000) / 3;
    if (u[i] != want && !bad_u++) printf("%s: integer element %u: got %u, want %u\n", fl_name, i, u[i], want);
    // GLSL ES gives sqrt/exp/sin no exact precision; 1e-3 relative is far inside what Mesa's sequences reach
    // and far outside any wrong operation.
    float x = (float)i * 0.001f;
    float wf = sqrtf(x) + expf(-x) + sinf(x) + (float)((int)i / 5);
    if (!(fabsf(f[i] - wf) <= 1e-3f * (1.0f + fabsf(wf))) && !bad_f++)
      printf("%s: float element %u: got %.7g, want %.7g\n", fl_name, i, (double)f[i], (double)wf);
  }
  verdict("integer-ops", bad_u, N);
  verdict("float-math", bad_f, N);
  glDeleteBuffers(1, &bu);
  glDeleteBuffers(1, &bf);
  glDeleteProgram(p);
  free(u);
  free(f);
}

int main(void) {
  fl_name = "first-light-ext";
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGALRM, on_alarm);
  alarm(900);
  t_start = now_s();
  EGLDisplay dpy = open_display();
  if (!eglInitialize(dpy, NULL, NULL)) fail("eglInitialize: error 0x%x", eglGetError());
  if (!eglBindAPI(EGL_OPENGL_ES_API)) fail("eglBindAPI(GLES): error 0x%x", eglGetError());
  static const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attribs);
  if (ctx == EGL_NO_CONTEXT) fail("no GLES 3.1 context without a config: error 0x%x", eglGetError());
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx))
    fail("eglMakeCurrent: error 0x%x", eglGetError());
  reduce_shared();
  atomic_histogram();
  integer_and_float();
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) fail("GL error 0x%x", err);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, ctx);
  eglTerminate(dpy);
  if (failed) fail("%d of 4 checks failed", failed);
  printf("%s: PASS (4 checks, n=%d, %.2f s)\n", fl_name, N, now_s() - t_start);
  return 0;
}
