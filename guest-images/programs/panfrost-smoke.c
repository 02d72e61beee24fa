// panfrost-smoke: exercises the Mali GPU through Debian's unmodified panfrost driver from user space, with
// jobs that need no shader core (Write value and Null), so it checks the DRM interface, the GPU MMU, the job
// manager's chain walking and the driver's fault recovery without Mesa.
//
//   1. open the render node, print DRM_IOCTL_VERSION and every GET_PARAM the 6.1 UAPI defines;
//   2. a chain of Write-value jobs (immediate 32, immediate 64, zero) and Null jobs, linked by Next pointers,
//      ordered by job-index dependencies and a barrier; every written word and every job header's exception
//      status is checked against what this program chose;
//   3. a chain whose middle job writes to a GPU address the driver never maps: the driver must report an MMU
//      fault and recover (the chain ends in error, by the GPU's fault status or by the driver's job timeout and
//      GPU reset), the job after the faulting one must not run, and nothing may hang;
//   4. a chain like 2. with new values, which must succeed after that recovery.
// Prints one line "panfrost-smoke: PASS ..." or "panfrost-smoke: FAIL ..." and exits 0 only on PASS.
//
// Job descriptor layout (Mesa src/panfrost/lib/genxml/v6.xml, "Job Header" and "Write Value Job Payload"):
//   header word 0 exception status, 1 first incomplete task, 2-3 fault pointer, 4 [0] is-64b [7:1] type
//   [8] barrier [31:16] index, 5 dependency 1 [15:0] and 2 [31:16], 6-7 next; the payload at +32:
//   words 0-1 target address, 2 value type, 4-5 immediate.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/panfrost_drm.h>

#define TAG "panfrost-smoke: "

enum { JOB_TYPE_NULL = 1, JOB_TYPE_WRITE_VALUE = 2 };
enum { WRITE_VALUE_ZERO = 3, WRITE_VALUE_IMM32 = 6, WRITE_VALUE_IMM64 = 7 };
enum { EXC_NOT_WRITTEN = 0x00, EXC_DONE = 0x01 };
// Job slots are 64-byte aligned (the header's alignment); 128 bytes hold a header plus a write-value payload
// with room to spare.
#define JOB_SLOT 128u
// panfrost gives each file's address space the range 32 MiB .. 4 GiB (drm_mm in panfrost_mmu.c), so an
// address below 32 MiB is never mapped.
#define UNMAPPED_GPU_VA 0x1000040ull
// Waits are bounded: far beyond the driver's 500 ms job timeout, and the whole program has a watchdog.
#define WAIT_SECONDS 60
#define WATCHDOG_SECONDS 300
#define STR_(x) #x
#define STR(x) STR_(x)

static unsigned checks, failures;

static void check(bool ok, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf(TAG "%s ", ok ? "ok  " : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  checks++;
  if (!ok) failures++;
  fflush(stdout);
}

static void on_watchdog(int sig) {
  (void)sig;
  static const char msg[] = TAG "FAIL: watchdog expired after " STR(WATCHDOG_SECONDS) " s (something hung)\n";
  if (write(STDOUT_FILENO, msg, sizeof msg - 1) < 0) _exit(3);
  _exit(3);
}

static int64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t* p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const volatile uint8_t* p) {
  uint32_t v;
  memcpy(&v, (const uint8_t*)p, 4);
  return v;
}
static uint64_t get64(const volatile uint8_t* p) {
  uint64_t v;
  memcpy(&v, (const uint8_t*)p, 8);
  return v;
}

static const char* exception_name(uint32_t s) {
  switch (s & 0xff) {
  case 0x00: return "not written back (the job never finished)";
  case 0x01: return "DONE";
  case 0x02: return "INTERRUPTED";
  case 0x03: return "STOPPED";
  case 0x04: return "TERMINATED";
  case 0x08: return "ACTIVE";
  case 0x40: return "JOB_CONFIG_FAULT";
  case 0x42: return "JOB_READ_FAULT";
  case 0x43: return "JOB_WRITE_FAULT";
  case 0x48: return "JOB_BUS_FAULT";
  case 0x58: return "DATA_INVALID_FAULT";
  default: break;
  }
  if (s >= 0xc0 && s <= 0xc7) return "TRANSLATION_FAULT";
  if (s >= 0xc8 && s <= 0xcf) return "PERMISSION_FAULT";
  if (s >= 0xd0 && s <= 0xd7) return "TRANSTAB_BUS_FAULT";
  if (s >= 0xd8 && s <= 0xdf) return "ACCESS_FLAG_FAULT";
  return "other";
}

// ---- the GET_PARAM list of the 6.1 UAPI ----
#define PARAM(x) {DRM_PANFROST_PARAM_##x, #x}
static const struct {
  uint32_t id;
  const char* name;
} kParams[] = {
    PARAM(GPU_PROD_ID),        PARAM(GPU_REVISION),      PARAM(SHADER_PRESENT),
    PARAM(TILER_PRESENT),      PARAM(L2_PRESENT),        PARAM(STACK_PRESENT),
    PARAM(AS_PRESENT),         PARAM(JS_PRESENT),        PARAM(L2_FEATURES),
    PARAM(CORE_FEATURES),      PARAM(TILER_FEATURES),    PARAM(MEM_FEATURES),
    PARAM(MMU_FEATURES),       PARAM(THREAD_FEATURES),   PARAM(MAX_THREADS),
    PARAM(THREAD_MAX_WORKGROUP_SZ), PARAM(THREAD_MAX_BARRIER_SZ), PARAM(COHERENCY_FEATURES),
    PARAM(TEXTURE_FEATURES0),  PARAM(TEXTURE_FEATURES1), PARAM(TEXTURE_FEATURES2),
    PARAM(TEXTURE_FEATURES3),  PARAM(JS_FEATURES0),      PARAM(JS_FEATURES1),
    PARAM(JS_FEATURES2),       PARAM(JS_FEATURES3),      PARAM(JS_FEATURES4),
    PARAM(JS_FEATURES5),       PARAM(JS_FEATURES6),      PARAM(JS_FEATURES7),
    PARAM(JS_FEATURES8),       PARAM(JS_FEATURES9),      PARAM(JS_FEATURES10),
    PARAM(JS_FEATURES11),      PARAM(JS_FEATURES12),     PARAM(JS_FEATURES13),
    PARAM(JS_FEATURES14),      PARAM(JS_FEATURES15),     PARAM(NR_CORE_GROUPS),
    PARAM(THREAD_TLS_ALLOC),   PARAM(AFBC_FEATURES),
};
#undef PARAM

static int get_param(int fd, uint32_t id, uint64_t* value) {
  struct drm_panfrost_get_param gp = {.param = id};
  if (ioctl(fd, DRM_IOCTL_PANFROST_GET_PARAM, &gp) != 0) return -errno;
  *value = gp.value;
  return 0;
}

static void read_params(int fd) {
  unsigned accepted = 0;
  uint64_t prod_id = 0;
  bool have_prod_id = false;
  for (size_t i = 0; i < sizeof kParams / sizeof kParams[0]; i++) {
    uint64_t v = 0;
    int r = get_param(fd, kParams[i].id, &v);
    if (r == 0) {
      printf(TAG "param %2u %-24s 0x%llx\n", kParams[i].id, kParams[i].name, (unsigned long long)v);
      accepted++;
      if (kParams[i].id == DRM_PANFROST_PARAM_GPU_PROD_ID) {
        prod_id = v;
        have_prod_id = true;
      }
    } else {
      printf(TAG "param %2u %-24s rejected by the kernel (%s)\n", kParams[i].id, kParams[i].name, strerror(-r));
    }
  }
  // One number past the 6.1 list: newer kernels define more parameters; 6.1 answers EINVAL.
  uint32_t beyond = DRM_PANFROST_PARAM_AFBC_FEATURES + 1;
  uint64_t v = 0;
  int r = get_param(fd, beyond, &v);
  if (r == 0) printf(TAG "param %2u (after the 6.1 list)      0x%llx\n", beyond, (unsigned long long)v);
  else printf(TAG "param %2u (after the 6.1 list)      rejected by the kernel (%s)\n", beyond, strerror(-r));
  printf(TAG "%u of %zu parameters answered\n", accepted, sizeof kParams / sizeof kParams[0]);
  // Mesa matches the product id exactly; 0x6000 is the Mali-G71.
  check(have_prod_id && prod_id == 0x6000, "GPU_PROD_ID is 0x6000 (Mali-G71)");
}

// ---- buffer objects ----
struct bo {
  uint32_t handle;
  uint64_t gpu_va;
  size_t size;
  volatile uint8_t* cpu;
};

static bool bo_create(int fd, size_t size, struct bo* bo, const char* what) {
  struct drm_panfrost_create_bo cb = {.size = (uint32_t)size};
  if (ioctl(fd, DRM_IOCTL_PANFROST_CREATE_BO, &cb) != 0) {
    check(false, "CREATE_BO %s (%zu bytes): %s", what, size, strerror(errno));
    return false;
  }
  struct drm_panfrost_mmap_bo mb = {.handle = cb.handle};
  if (ioctl(fd, DRM_IOCTL_PANFROST_MMAP_BO, &mb) != 0) {
    check(false, "MMAP_BO %s: %s", what, strerror(errno));
    return false;
  }
  void* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mb.offset);
  if (p == MAP_FAILED) {
    check(false, "mmap of %s: %s", what, strerror(errno));
    return false;
  }
  bo->handle = cb.handle;
  bo->gpu_va = cb.offset;
  bo->size = size;
  bo->cpu = p;
  // Every BO gets a GPU address inside the driver's range, and it must not be 0 (panfrost_drm.h).
  check(cb.offset >= 0x2000000 && cb.offset + size <= 0x100000000ull, "BO %s: handle %u, GPU VA 0x%llx, %zu bytes",
        what, cb.handle, (unsigned long long)cb.offset, size);
  return true;
}

// ---- job chains ----
struct job {
  uint8_t type;
  bool barrier;
  uint16_t index, dep1, dep2;
  uint32_t value_type; // write value only
  uint64_t target;     // GPU address written (write value only)
  uint64_t value;      // the immediate
};

// Writes `n` jobs into consecutive slots of `jobs` starting at byte `offset`, each one's Next pointing at the
// following slot; returns the GPU address of the first.
static uint64_t write_chain(struct bo* jobs, size_t offset, const struct job* j, unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    uint8_t slot[JOB_SLOT];
    memset(slot, 0, sizeof slot);
    uint64_t next = i + 1 < n ? jobs->gpu_va + offset + (i + 1) * JOB_SLOT : 0;
    uint32_t control = 1u /* is 64b */ | (uint32_t)j[i].type << 1 | (j[i].barrier ? 1u << 8 : 0) |
                       (uint32_t)j[i].index << 16;
    put32(slot + 16, control);
    put32(slot + 20, (uint32_t)j[i].dep1 | (uint32_t)j[i].dep2 << 16);
    put64(slot + 24, next);
    if (j[i].type == JOB_TYPE_WRITE_VALUE) {
      put64(slot + 32, j[i].target);
      put32(slot + 40, j[i].value_type);
      put64(slot + 48, j[i].value);
    }
    memcpy((uint8_t*)jobs->cpu + offset + i * JOB_SLOT, slot, sizeof slot);
  }
  __sync_synchronize();
  return jobs->gpu_va + offset;
}

static uint32_t job_status(const struct bo* jobs, size_t offset, unsigned i) {
  return get32(jobs->cpu + offset + i * JOB_SLOT);
}

static int syncobj_create(int fd, uint32_t* handle) {
  struct drm_syncobj_create sc = {0};
  if (ioctl(fd, DRM_IOCTL_SYNCOBJ_CREATE, &sc) != 0) return -errno;
  *handle = sc.handle;
  return 0;
}

// Submits the chain at `jc` with every BO listed and waits for its out-fence; returns the wait's result
// (0 or -errno) and the time the wait took.
static int submit_and_wait(int fd, uint64_t jc, const uint32_t* handles, unsigned nhandles, const char* what,
                           double* waited_ms) {
  uint32_t sync = 0;
  int r = syncobj_create(fd, &sync);
  if (r != 0) {
    check(false, "%s: SYNCOBJ_CREATE: %s", what, strerror(-r));
    return r;
  }
  struct drm_panfrost_submit s = {
      .jc = jc,
      .out_sync = sync,
      .bo_handles = (uint64_t)(uintptr_t)handles,
      .bo_handle_count = nhandles,
  };
  int64_t t0 = monotonic_ns();
  if (ioctl(fd, DRM_IOCTL_PANFROST_SUBMIT, &s) != 0) {
    r = -errno;
    check(false, "%s: SUBMIT (jc 0x%llx): %s", what, (unsigned long long)jc, strerror(-r));
    return r;
  }
  struct drm_syncobj_wait w = {
      .handles = (uint64_t)(uintptr_t)&sync,
      .timeout_nsec = t0 + (int64_t)WAIT_SECONDS * 1000000000,
      .count_handles = 1,
      .flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
  };
  r = ioctl(fd, DRM_IOCTL_SYNCOBJ_WAIT, &w) == 0 ? 0 : -errno;
  *waited_ms = (double)(monotonic_ns() - t0) / 1e6;
  struct drm_syncobj_destroy d = {.handle = sync};
  ioctl(fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
  return r;
}

// WAIT_BO on a BO the finished chain used: it must be idle at once.
static void check_bo_idle(int fd, const struct bo* bo, const char* what) {
  struct drm_panfrost_wait_bo wb = {.handle = bo->handle, .timeout_ns = monotonic_ns() + 1000000000};
  int r = ioctl(fd, DRM_IOCTL_PANFROST_WAIT_BO, &wb) == 0 ? 0 : errno;
  check(r == 0, "%s: WAIT_BO on the job BO returns at once (%s)", what, r ? strerror(r) : "idle");
}

// The data BO's words, each 64 bytes apart so that no two targets share a cache line.
enum { W_IMM32 = 0, W_IMM64 = 1, W_ZERO = 2, W_AFTER_BARRIER = 3, W_ORDERED = 4, W_FAULT_BEFORE = 5,
       W_FAULT_AFTER = 6, W_COUNT = 7 };
#define WORD_OFFSET(w) ((size_t)(w) * 64)
#define FILL 0x5a5a5a5a5a5a5a5aull

static uint64_t word(const struct bo* data, unsigned w) { return get64(data->cpu + WORD_OFFSET(w)); }
static void set_word(struct bo* data, unsigned w, uint64_t v) {
  uint8_t b[8];
  put64(b, v);
  memcpy((uint8_t*)data->cpu + WORD_OFFSET(w), b, 8);
}

// A chain of 8 jobs exercising every ordering mechanism; `salt` makes each run's values distinct.
//   1 WV imm32 -> W_IMM32            2 Null, dep 1
//   3 WV imm64 -> W_IMM64, dep 2     4 WV zero -> W_ZERO, deps 1 and 3
//   5 Null, barrier                  6 WV imm32 -> W_AFTER_BARRIER, dep 5
//   7 WV imm64 -> W_ORDERED          8 WV imm32 -> W_ORDERED (low half), dep 7
// Job 8 depends on job 7, so the word ends as job 7's high half and job 8's low half.
static bool run_good_chain(int fd, struct bo* jobs, struct bo* data, size_t offset, uint32_t salt,
                           const char* what) {
  const uint32_t v_imm32 = 0xc0de0000u ^ salt, v_barrier = 0xba5e0000u ^ salt, v_low = 0x0dd50000u ^ salt;
  const uint64_t v_imm64 = 0x0123456789abcdefull ^ ((uint64_t)salt << 32 | salt);
  const uint64_t v_ordered = 0xfeedface00000000ull ^ ((uint64_t)salt << 40) ^ 0x12345678u;
  const uint64_t va = data->gpu_va;
  const struct job chain[] = {
      {JOB_TYPE_WRITE_VALUE, false, 1, 0, 0, WRITE_VALUE_IMM32, va + WORD_OFFSET(W_IMM32), v_imm32},
      {JOB_TYPE_NULL, false, 2, 1, 0, 0, 0, 0},
      {JOB_TYPE_WRITE_VALUE, false, 3, 2, 0, WRITE_VALUE_IMM64, va + WORD_OFFSET(W_IMM64), v_imm64},
      {JOB_TYPE_WRITE_VALUE, false, 4, 1, 3, WRITE_VALUE_ZERO, va + WORD_OFFSET(W_ZERO), 0x1111111111111111ull},
      {JOB_TYPE_NULL, true, 5, 0, 0, 0, 0, 0},
      {JOB_TYPE_WRITE_VALUE, false, 6, 5, 0, WRITE_VALUE_IMM32, va + WORD_OFFSET(W_AFTER_BARRIER), v_barrier},
      {JOB_TYPE_WRITE_VALUE, false, 7, 0, 0, WRITE_VALUE_IMM64, va + WORD_OFFSET(W_ORDERED), v_ordered},
      {JOB_TYPE_WRITE_VALUE, false, 8, 7, 0, WRITE_VALUE_IMM32, va + WORD_OFFSET(W_ORDERED), v_low},
  };
  const unsigned n = sizeof chain / sizeof chain[0];
  for (unsigned w = 0; w < W_COUNT; w++) set_word(data, w, FILL);
  uint64_t jc = write_chain(jobs, offset, chain, n);
  const uint32_t handles[] = {jobs->handle, data->handle};
  double ms = 0;
  int r = submit_and_wait(fd, jc, handles, 2, what, &ms);
  check(r == 0, "%s: %u jobs at 0x%llx submitted, out-fence signalled after %.1f ms (%s)", what, n,
        (unsigned long long)jc, ms, r ? strerror(-r) : "ok");
  if (r != 0) return false;
  check_bo_idle(fd, jobs, what);
  unsigned before = failures;
  for (unsigned i = 0; i < n; i++) {
    uint32_t s = job_status(jobs, offset, i);
    check(s == EXC_DONE, "%s: job %u (%s) exception status 0x%02x %s", what, chain[i].index,
          chain[i].type == JOB_TYPE_NULL ? "null" : "write value", s, exception_name(s));
  }
  // Each expected word follows from the job list above: an imm32 write replaces the low 4 bytes only.
  const uint64_t want_imm32 = (FILL & ~0xffffffffull) | v_imm32;
  const uint64_t want_barrier = (FILL & ~0xffffffffull) | v_barrier;
  const uint64_t want_ordered = (v_ordered & ~0xffffffffull) | v_low;
  check(word(data, W_IMM32) == want_imm32, "%s: imm32 word 0x%016llx (want 0x%016llx)", what,
        (unsigned long long)word(data, W_IMM32), (unsigned long long)want_imm32);
  check(word(data, W_IMM64) == v_imm64, "%s: imm64 word 0x%016llx (want 0x%016llx)", what,
        (unsigned long long)word(data, W_IMM64), (unsigned long long)v_imm64);
  check(word(data, W_ZERO) == 0, "%s: zero word 0x%016llx (want 0)", what, (unsigned long long)word(data, W_ZERO));
  check(word(data, W_AFTER_BARRIER) == want_barrier, "%s: word after the barrier 0x%016llx (want 0x%016llx)", what,
        (unsigned long long)word(data, W_AFTER_BARRIER), (unsigned long long)want_barrier);
  check(word(data, W_ORDERED) == want_ordered, "%s: dependency-ordered word 0x%016llx (want 0x%016llx)", what,
        (unsigned long long)word(data, W_ORDERED), (unsigned long long)want_ordered);
  check(word(data, W_FAULT_BEFORE) == FILL, "%s: a word no job targets is untouched", what);
  return failures == before;
}

// Counts kernel-log lines containing `needle` (the log is read whole; older lines count too, so callers
// compare counts taken before and after).
static int count_klog(const char* needle, char* last, size_t last_size) {
  int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
  if (size <= 0) return -1;
  char* buf = malloc((size_t)size + 1);
  if (!buf) return -1;
  int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
  if (n < 0) {
    free(buf);
    return -1;
  }
  buf[n] = 0;
  int count = 0;
  for (char* line = buf; line && *line;) {
    char* end = strchr(line, '\n');
    if (end) *end = 0;
    if (strstr(line, needle)) {
      count++;
      if (last) snprintf(last, last_size, "%s", line);
    }
    line = end ? end + 1 : NULL;
  }
  free(buf);
  return count;
}

// A chain whose second job writes to an address with no mapping.
//   1 WV imm32 -> W_FAULT_BEFORE     2 WV imm32 -> unmapped, dep 1     3 WV imm32 -> W_FAULT_AFTER, dep 2
static void run_fault_chain(int fd, struct bo* jobs, struct bo* data, size_t offset) {
  const char* what = "chain 2 (fault)";
  const uint32_t v_before = 0xbef0a17u, v_after = 0xaf7e4a17u;
  const uint64_t va = data->gpu_va;
  const struct job chain[] = {
      {JOB_TYPE_WRITE_VALUE, false, 1, 0, 0, WRITE_VALUE_IMM32, va + WORD_OFFSET(W_FAULT_BEFORE), v_before},
      {JOB_TYPE_WRITE_VALUE, false, 2, 1, 0, WRITE_VALUE_IMM32, UNMAPPED_GPU_VA, 0xdeadbeefu},
      {JOB_TYPE_WRITE_VALUE, false, 3, 2, 0, WRITE_VALUE_IMM32, va + WORD_OFFSET(W_FAULT_AFTER), v_after},
  };
  for (unsigned w = 0; w < W_COUNT; w++) set_word(data, w, FILL);
  char last_fault[256] = "";
  int faults_before = count_klog("Unhandled Page fault", NULL, 0);
  uint64_t jc = write_chain(jobs, offset, chain, 3);
  const uint32_t handles[] = {jobs->handle, data->handle};
  printf(TAG "%s: job 2 writes to GPU VA 0x%llx, which is not mapped\n", what, (unsigned long long)UNMAPPED_GPU_VA);
  fflush(stdout);
  double ms = 0;
  int r = submit_and_wait(fd, jc, handles, 2, what, &ms);
  check(r == 0, "%s: out-fence signalled after %.1f ms, no hang (%s)", what, ms, r ? strerror(-r) : "ok");
  uint32_t s1 = job_status(jobs, offset, 0), s2 = job_status(jobs, offset, 1), s3 = job_status(jobs, offset, 2);
  // What happened to the faulting job depends on the GPU and the driver: the GPU ends it with a fault
  // status, or the driver's timeout resets the GPU before anything is written back. Either way it is not
  // DONE, and the job that depends on it never runs.
  printf(TAG "%s: job 2 exception status 0x%02x (%s)\n", what, s2, exception_name(s2));
  check(s1 == EXC_DONE, "%s: job 1 (before the fault) exception status 0x%02x %s", what, s1, exception_name(s1));
  check(word(data, W_FAULT_BEFORE) == ((FILL & ~0xffffffffull) | v_before), "%s: job 1 wrote its word", what);
  check(s2 != EXC_DONE, "%s: the faulting job did not complete (status 0x%02x %s)", what, s2, exception_name(s2));
  check(s3 == EXC_NOT_WRITTEN && word(data, W_FAULT_AFTER) == FILL,
        "%s: job 3 (depends on the faulting job) did not run (status 0x%02x, word 0x%016llx)", what, s3,
        (unsigned long long)word(data, W_FAULT_AFTER));
  int faults_after = count_klog("Unhandled Page fault", last_fault, sizeof last_fault);
  if (faults_before >= 0 && faults_after >= 0) {
    check(faults_after > faults_before, "%s: the driver logged %d new MMU fault report(s)%s%s", what,
          faults_after - faults_before, last_fault[0] ? ": " : "", last_fault);
  } else {
    printf(TAG "%s: kernel log not readable (%s); the fault report is checked on the console only\n", what,
           strerror(errno));
  }
  char last_js[256] = "", last_timeout[256] = "";
  if (count_klog("js fault", last_js, sizeof last_js) > 0) printf(TAG "%s: kernel: %s\n", what, last_js);
  if (count_klog("sched timeout", last_timeout, sizeof last_timeout) > 0)
    printf(TAG "%s: kernel: %s\n", what, last_timeout);
}

int main(int argc, char** argv) {
  const char* node = argc > 1 ? argv[1] : "/dev/dri/renderD128";
  signal(SIGALRM, on_watchdog);
  alarm(WATCHDOG_SECONDS);
  setvbuf(stdout, NULL, _IOLBF, 0);

  int fd = open(node, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    printf(TAG "FAIL: cannot open %s: %s\n", node, strerror(errno));
    return 1;
  }
  char name[64] = "", date[64] = "", desc[128] = "";
  struct drm_version ver = {.name_len = sizeof name - 1, .name = name, .date_len = sizeof date - 1, .date = date,
                            .desc_len = sizeof desc - 1, .desc = desc};
  if (ioctl(fd, DRM_IOCTL_VERSION, &ver) == 0)
    printf(TAG "%s: driver %s %d.%d.%d (%s)\n", node, name, ver.version_major, ver.version_minor,
           ver.version_patchlevel, desc);
  check(strcmp(name, "panfrost") == 0, "%s is driven by panfrost", node);

  read_params(fd);

  struct bo jobs, data;
  if (!bo_create(fd, 4096, &jobs, "jobs") || !bo_create(fd, 4096, &data, "data")) {
    printf(TAG "FAIL (%u of %u checks failed; no buffers)\n", failures, checks);
    return 1;
  }
  // Each chain has its own part of the job BO, so one chain's headers never alias another's.
  run_good_chain(fd, &jobs, &data, 0, 0x0001, "chain 1");
  run_fault_chain(fd, &jobs, &data, 1024);
  run_good_chain(fd, &jobs, &data, 2048, 0x0003, "chain 3 (after the fault)");

  close(fd);
  if (failures == 0) printf(TAG "PASS (%u checks)\n", checks);
  else printf(TAG "FAIL (%u of %u checks failed)\n", failures, checks);
  return failures == 0 ? 0 : 1;
}
