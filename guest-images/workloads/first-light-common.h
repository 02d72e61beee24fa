// Shared by the first-light programs: timing, the FAIL line and watchdog, and opening an EGL display on
// Mesa's surfaceless platform (GBM on the render node when surfaceless is missing). Each program sets
// fl_name (the prefix of every line it prints) and t_start first. Header-only: the workload build compiles
// one .c file per program.
#pragma once
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
#include <errno.h>
#include <fcntl.h>
#include <gbm.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char* fl_name = "first-light";
static double t_start;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((unused)) static void step(const char* what) {
  printf("%s: %7.2f s %s\n", fl_name, now_s() - t_start, what);
}

static void fail(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s: FAIL (", fl_name);
  vprintf(fmt, ap);
  printf(")\n");
  va_end(ap);
  fflush(stdout);
  exit(1);
}

// A guest that never gets an answer from the GPU must still end with a verdict.
static void on_alarm(int sig) {
  (void)sig;
  static const char rest[] = ": FAIL (watchdog: no result after 900 s)\n";
  ssize_t r = write(1, fl_name, strlen(fl_name));
  r = write(1, rest, sizeof rest - 1);
  (void)r;
  _exit(1);
}

static int has_extension(const char* list, const char* name) {
  size_t n = strlen(name);
  for (const char* p = list; p && (p = strstr(p, name)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

// Surfaceless first (no window system, no device node to pick), GBM on the render node otherwise.
static EGLDisplay open_display(void) {
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!client) fail("no EGL client extensions (EGL_EXT_client_extensions missing)");
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  if (!get_platform_display) fail("eglGetPlatformDisplayEXT not available");
  if (has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay d = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (d != EGL_NO_DISPLAY) {
      printf("%s: EGL platform surfaceless\n", fl_name);
      return d;
    }
  }
  if (!has_extension(client, "EGL_MESA_platform_gbm") && !has_extension(client, "EGL_KHR_platform_gbm"))
    fail("neither EGL_MESA_platform_surfaceless nor a GBM platform (client extensions: %s)", client);
  const char* node = "/dev/dri/renderD128";
  int fd = open(node, O_RDWR | O_CLOEXEC);
  if (fd < 0) fail("open %s: %s", node, strerror(errno));
  struct gbm_device* gbm = gbm_create_device(fd);
  if (!gbm) fail("gbm_create_device on %s failed", node);
  EGLDisplay d = get_platform_display(EGL_PLATFORM_GBM_MESA, gbm, NULL);
  if (d == EGL_NO_DISPLAY) fail("no EGL display for GBM on %s", node);
  printf("%s: EGL platform gbm on %s\n", fl_name, node);
  return d;
}
