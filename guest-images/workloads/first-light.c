// first-light: the smallest end-to-end GPU compute check through the unmodified Mesa stack. EGL on Mesa's
// surfaceless platform (or GBM on the render node when surfaceless is missing), a GLES 3.1 context, one
// compute shader that adds two float vectors held in shader storage buffers, and a comparison with the same
// sum computed on the CPU. Prints the renderer and version strings, then one line
// "first-light: PASS (...)" or "first-light: FAIL (...)"; exits 0 only on PASS.
//
//   first-light [N]        N elements (default 4096, 1..16777216)
#include "first-light-common.h"

enum { LOCAL_SIZE = 64 };

static const char* shader_source = "#version 310 es\n"
                                   "layout(local_size_x = 64) in;\n"
                                   "layout(std430, binding = 0) readonly buffer A { float a[]; };\n"
                                   "layout(std430, binding = 1) readonly buffer B { float b[]; };\n"
                                   "layout(std430, binding = 2) writeonly buffer C { float c[]; };\n"
                                   "uniform uint n;\n"
                                   "void main() {\n"
                                   "  uint i = gl_GlobalInvocationID.x;\n"
                                   "  if (i < n) c[i] = a[i] + b[i];\n"
                                   "}\n";

static GLuint build_program(void) {
  GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(sh, 1, &shader_source, NULL);
  glCompileShader(sh);
  GLint ok = 0;
  char log[2048] = "";
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    glGetShaderInfoLog(sh, sizeof log, NULL, log);
    fail("compute shader does not compile: %s", log);
  }
  GLuint prog = glCreateProgram();
  glAttachShader(prog, sh);
  glLinkProgram(prog);
  glGetProgramiv(prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    glGetProgramInfoLog(prog, sizeof log, NULL, log);
    fail("program does not link: %s", log);
  }
  glDeleteShader(sh);
  return prog;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  long n = 4096;
  if (argc > 1) {
    char* end;
    n = strtol(argv[1], &end, 0);
    if (*end || n < 1 || n > (1L << 24)) fail("bad element count '%s' (1..16777216)", argv[1]);
  }
  signal(SIGALRM, on_alarm);
  alarm(900);
  t_start = now_s();

  EGLDisplay dpy = open_display();
  EGLint major = 0, minor = 0;
  if (!eglInitialize(dpy, &major, &minor)) fail("eglInitialize: error 0x%x", eglGetError());
  printf("first-light: EGL %d.%d, vendor %s\n", major, minor, eglQueryString(dpy, EGL_VENDOR));
  step("EGL initialised");
  const char* dpy_ext = eglQueryString(dpy, EGL_EXTENSIONS);
  if (!has_extension(dpy_ext, "EGL_KHR_surfaceless_context"))
    fail("display lacks EGL_KHR_surfaceless_context");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) fail("eglBindAPI(GLES): error 0x%x", eglGetError());

  // No surface is ever drawn to, so no config is needed where the display allows it.
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!has_extension(dpy_ext, "EGL_KHR_no_config_context")) {
    static const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_NONE};
    EGLint count = 0;
    if (!eglChooseConfig(dpy, want, &config, 1, &count) || count < 1) fail("no GLES3 EGL config");
  }
  static const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attribs);
  if (ctx == EGL_NO_CONTEXT) fail("no GLES 3.1 context: error 0x%x", eglGetError());
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx))
    fail("eglMakeCurrent: error 0x%x", eglGetError());
  printf("first-light: GL_VENDOR = %s\n", (const char*)glGetString(GL_VENDOR));
  printf("first-light: GL_RENDERER = %s\n", (const char*)glGetString(GL_RENDERER));
  printf("first-light: GL_VERSION = %s\n", (const char*)glGetString(GL_VERSION));
  printf("first-light: GL_SHADING_LANGUAGE_VERSION = %s\n",
         (const char*)glGetString(GL_SHADING_LANGUAGE_VERSION));
  step("GLES context current");

  GLuint prog = build_program();
  step("compute shader compiled and linked");

  size_t bytes = (size_t)n * sizeof(float);
  float *a = malloc(bytes), *b = malloc(bytes), *want = malloc(bytes);
  if (!a || !b || !want) fail("out of memory for %ld elements", n);
  // Values with fractional parts and both signs, so that a wrong operand, lane or rounding shows.
  for (long i = 0; i < n; i++) {
    a[i] = (float)(i % 1000) * 0.25f - 100.0f;
    b[i] = (float)((i * 7) % 513) * 0.125f + 0.5f;
    want[i] = a[i] + b[i];
  }
  GLuint bufs[3];
  glGenBuffers(3, bufs);
  const float* init[3] = {a, b, NULL};
  for (int k = 0; k < 3; k++) {
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[k]);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, init[k],
                 k < 2 ? GL_STATIC_DRAW : GL_DYNAMIC_READ);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)k, bufs[k]);
  }
  // The output starts as a pattern no correct sum produces (a NaN), so unwritten elements are caught.
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
  float* c0 = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_WRITE_BIT);
  if (!c0) fail("glMapBufferRange(write) failed: GL error 0x%x", glGetError());
  memset(c0, 0xff, bytes);
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);

  glUseProgram(prog);
  glUniform1ui(glGetUniformLocation(prog, "n"), (GLuint)n);
  GLuint groups = (GLuint)((n + LOCAL_SIZE - 1) / LOCAL_SIZE);
  glDispatchCompute(groups, 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) fail("GL error 0x%x after dispatch", err);

  glBindBuffer(GL_SHADER_STORAGE_BUFFER, bufs[2]);
  const float* c = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (!c) fail("glMapBufferRange(read) failed: GL error 0x%x", glGetError());
  step("dispatch finished, result mapped");

  long bad = 0, first_bad = -1;
  for (long i = 0; i < n; i++) {
    // IEEE single addition is correctly rounded on both sides, so the sums must match bit for bit.
    if (memcmp(&c[i], &want[i], sizeof(float)) != 0) {
      if (first_bad < 0) first_bad = i;
      bad++;
    }
  }
  if (bad) {
    printf("first-light: element %ld: got %g, want %g (%g + %g)\n", first_bad, (double)c[first_bad],
           (double)want[first_bad], (double)a[first_bad], (double)b[first_bad]);
    fail("vector add, n=%ld, %u groups of %d: %ld wrong elements", n, groups, LOCAL_SIZE, bad);
  }
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  glDeleteBuffers(3, bufs);
  glDeleteProgram(prog);
  eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(dpy, ctx);
  eglTerminate(dpy);
  printf("first-light: PASS (vector add, n=%ld, %u groups of %d, %.2f s)\n", n, groups, LOCAL_SIZE,
         now_s() - t_start);
  return 0;
}
