// The API-neutral half of the workload harness; see wl_common.h for the result-line format.
#define _GNU_SOURCE
#include "wl_common.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// The one harness in the process, for the watchdog, which has no handle.
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

void wl_print_pass(struct wl* w, const char* check) {
  char tail[200];
  snprintf(tail, sizeof tail, "check=%s", check);
  print_line(w, "PASS", tail);
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

void wl_unavailable(struct wl* w, const char* fmt, ...) {
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
  printf(
      "usage: %s [--quick] [--skip-unavailable] [--expect-fault]\n"
      "  --quick             tiny sizes (make check)\n"
      "  --skip-unavailable  exit 77 (SKIP) when no usable GPU device can be opened\n"
      "  --expect-fault      (fault workload) FAIL unless the GPU fault was observed\n"
      "environment: WL_EXPECT_RENDERER=<substring of the device name>, WL_TIMEOUT=<seconds, default 1200>\n",
      name);
}

void wl_start(struct wl* w, const char* name, int argc, char** argv) {
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
}

void wl_gpu_begin(struct wl* w) {
  w->gpu_begin = wl_now();
}

void wl_sizes(struct wl* w, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->sizes, sizeof w->sizes, fmt, ap);
  va_end(ap);
  for (char* p = w->sizes; *p; ++p)
    if (*p == ' ') *p = '_';
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
