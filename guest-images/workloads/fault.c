// fault: makes the GPU access an address outside every buffer, reports what the application can see of it,
// and checks that the GPU still works afterwards.
//
// GLES 3.1 has no pointers (no buffer_reference), but it leaves out-of-bounds shader storage accesses
// undefined unless the context asks for robust access, which this one does not. Mesa 22.3's panfrost lowers
// SSBO accesses to global loads at buffer address + offset with no bounds check (nir_lower_ssbo, whose header
// says so), so an index 0x3c000000 words past a small buffer is a load 3.75 GiB beyond it: panfrost maps a
// process's buffers between 32 MiB and 4 GiB of the GPU address space, and nothing this program allocates is
// near that address, so the GPU MMU takes a translation fault, the kernel driver logs it and fails the job
// (and resets the GPU if needed). Mesa 22.3 does not pass the job's failure to GL: glGetError stays
// GL_NO_ERROR and, unless the driver implements reset notification, so does glGetGraphicsResetStatus. What
// the program does see is that the faulting job's stores never happened: every invocation stores (loaded
// value + 1) over a 0xdeadbeef background, and a store after a faulting load cannot complete. The kernel's
// log lines are printed when readable (root in the guest). Drivers that bounds-check (llvmpipe on the host
// returns 0 for the load) produce no fault: then the result is all ones, "fault=not-observed", which passes
// unless --expect-fault is given (the guest suite gives it). Either way a vector addition must then run
// correctly, in the same context or, if the context was lost, in a new one.
#define _GNU_SOURCE
#include "workload.h"

#include <GLES2/gl2ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#define BAD_WORD_OFFSET 0x3c000000u // * 4 bytes = 0xf0000000, still a 32-bit byte offset
#define MARK 0xdeadbeefu
#define INVOCATIONS 64u

static const char kFault[] = "layout(local_size_x = 64) in;\n"
                             "layout(std430, binding = 0) readonly buffer Data { uint data[]; };\n"
                             "layout(std430, binding = 1) writeonly buffer Out { uint result[]; };\n"
                             "uniform uint bad_offset;\n"
                             "void main() {\n"
                             "  uint i = gl_GlobalInvocationID.x;\n"
                             "  result[i] = data[i + bad_offset] + 1u;\n"
                             "}\n";

static const char kAdd[] = "layout(local_size_x = 128) in;\n"
                           "layout(std430, binding = 0) readonly buffer A { uint a[]; };\n"
                           "layout(std430, binding = 1) readonly buffer B { uint b[]; };\n"
                           "layout(std430, binding = 2) writeonly buffer C { uint c[]; };\n"
                           "uniform uint n;\n"
                           "void main() {\n"
                           "  uint i = gl_GlobalInvocationID.x;\n"
                           "  if (i < n) c[i] = a[i] + b[i];\n"
                           "}\n";

// The kernel log as one string (NULL if it cannot be read, e.g. without CAP_SYSLOG).
static char* kernel_log(int* len) {
  int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
  if (size <= 0) return NULL;
  char* buf = malloc((size_t)size + 1);
  if (!buf) return NULL;
  int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
  if (n < 0) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

// Prints the lines of `after` that are not in `before` and mention the GPU driver; returns how many.
static int print_new_driver_lines(const char* before, const char* after) {
  int count = 0;
  for (const char* line = after; *line;) {
    const char* end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    char text[400];
    snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text - 1 ? n : sizeof text - 1), line);
    if ((strstr(text, "panfrost") || strstr(text, "mali") || strstr(text, "Page fault")) &&
        (!before || !strstr(before, text))) {
      printf("# fault: kernel: %s\n", text);
      count++;
    }
    line += n + (end ? 1 : 0);
  }
  return count;
}

static const char* reset_name(GLenum s) {
  switch (s) {
  case GL_NO_ERROR:
    return "none";
  case GL_GUILTY_CONTEXT_RESET_KHR:
    return "guilty";
  case GL_INNOCENT_CONTEXT_RESET_KHR:
    return "innocent";
  case GL_UNKNOWN_CONTEXT_RESET_KHR:
    return "unknown";
  default:
    return "other";
  }
}

int main(int argc, char** argv) {
  struct wl w;
  wl_init(&w, "fault", argc, argv, WL_RESET_NOTIFICATION);
  wl_sizes(&w, "invocations=%u,bad_offset=0x%x", INVOCATIONS, BAD_WORD_OFFSET * 4u);

  PFNGLGETGRAPHICSRESETSTATUSKHRPROC reset_status = NULL;
  if (wl_has_gl_extension("GL_KHR_robustness"))
    reset_status = (PFNGLGETGRAPHICSRESETSTATUSKHRPROC)eglGetProcAddress("glGetGraphicsResetStatusKHR");
  else if (wl_has_gl_extension("GL_EXT_robustness"))
    reset_status = (PFNGLGETGRAPHICSRESETSTATUSKHRPROC)eglGetProcAddress("glGetGraphicsResetStatusEXT");

  uint32_t data[256], marks[INVOCATIONS], result[INVOCATIONS];
  for (uint32_t i = 0; i < 256; ++i) data[i] = i;
  for (uint32_t i = 0; i < INVOCATIONS; ++i) marks[i] = MARK;
  GLuint prog = wl_program(&w, NULL, kFault);
  GLuint bdata = wl_ssbo(&w, sizeof data, data), bout = wl_ssbo(&w, sizeof marks, marks);
  wl_bind(0, bdata);
  wl_bind(1, bout);
  glUseProgram(prog);
  wl_uniform_u(&w, prog, "bad_offset", BAD_WORD_OFFSET);

  int before_len = 0, after_len = 0;
  char* before = kernel_log(&before_len);
  wl_gpu_begin(&w);
  glDispatchCompute(1, 1, 1);
  glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
  w.dispatches++;
  wl_gpu_end(&w);
  GLenum gl_error = glGetError();
  GLenum status = reset_status ? reset_status() : GL_NO_ERROR;
  int lost = status != GL_NO_ERROR;

  uint32_t untouched = 0, plus_one = 0;
  if (!lost) {
    wl_read(&w, bout, 0, sizeof result, result);
    for (uint32_t i = 0; i < INVOCATIONS; ++i) {
      untouched += result[i] == MARK;
      plus_one += result[i] == 1;
    }
  }
  char* after = kernel_log(&after_len);
  int kernel_lines = after ? print_new_driver_lines(before, after) : -1;
  int fault = lost || untouched > 0;
  printf("# fault: %s; GL error after the job 0x%x; reset status %s (%s); %u of %u stores missing, %u read 0 "
         "(bounds-checked); kernel log: %s\n",
         fault ? "GPU fault observed" : "no fault observed", gl_error,
         reset_status ? reset_name(status) : "n/a",
         w.reset_notification ? "reset notification on" : "no reset notification", untouched, INVOCATIONS,
         plus_one,
         kernel_lines < 0 ? "not readable"
         : kernel_lines   ? "driver lines above"
                          : "no new driver lines");
  free(before);
  free(after);

  if (lost && !wl_recreate_context(&w, WL_RESET_NOTIFICATION))
    wl_fail(&w, "the context was lost (%s) and no new one could be made", reset_name(status));
  (void)glGetError();

  // The GPU must still compute correctly.
  enum { N = 4096 };
  static uint32_t a[N], b[N], c[N], want[N];
  uint64_t seed = 20;
  for (uint32_t i = 0; i < N; ++i) {
    a[i] = wl_rand_u32(&seed);
    b[i] = wl_rand_u32(&seed);
    want[i] = a[i] + b[i];
  }
  GLuint add = wl_program(&w, NULL, kAdd);
  GLuint bc = wl_ssbo(&w, sizeof c, NULL);
  wl_bind(0, wl_ssbo(&w, sizeof a, a));
  wl_bind(1, wl_ssbo(&w, sizeof b, b));
  wl_bind(2, bc);
  glUseProgram(add);
  wl_uniform_u(&w, add, "n", N);
  wl_gpu_begin(&w);
  wl_dispatch(&w, (N + 127) / 128, 1, 1);
  wl_gpu_end(&w);
  wl_read(&w, bc, 0, sizeof c, c);
  if (wl_compare_u32("after-fault c", c, want, N))
    wl_fail(&w, "the vector addition after the fault computed wrong results");
  if (w.expect_fault && !fault)
    wl_fail(&w, "no GPU fault observed (%u stores read 0: bounds-checked?)", plus_one);
  if (!fault && plus_one != INVOCATIONS)
    wl_fail(&w, "no fault, yet only %u of %u out-of-bounds loads read 0", plus_one, INVOCATIONS);
  char check[120];
  snprintf(check, sizeof check, "fault=%s,reset=%s,gl_error=0x%x,recovered=yes",
           fault ? "observed" : "not-observed", reset_status ? reset_name(status) : "n/a", gl_error);
  wl_finish(&w, 1, check);
}
