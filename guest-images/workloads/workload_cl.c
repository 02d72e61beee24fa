// OpenCL back end of the GPU workload harness (wl_common.h): the first platform with a GPU device (any device
// if none is a GPU, so that PoCL's CPU device serves the host tests), one in-order queue, OpenCL C kernels on
// plain buffers. Only OpenCL 1.2 calls are used, which both PoCL and Mesa's Rusticl provide.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "wl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wl_kernel {
  cl_kernel kernel;
  const char* entry;
  size_t local[3];
};
struct wl_buffer {
  cl_mem mem;
};

static cl_context g_context;
static cl_command_queue g_queue;
static cl_device_id g_device;

static void check(struct wl* w, cl_int err, const char* what) {
  if (err != CL_SUCCESS) wl_fail(w, "OpenCL error %d in %s", err, what);
}

// Picks the device; returns 0 if there is none. OpenCL's platform order is the ICD loader's, so a GPU is
// preferred explicitly rather than trusting platform 0.
static int pick_device(cl_platform_id* platform_out, cl_device_id* device_out) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) return 0;
  if (np > 16) np = 16;
  static const cl_device_type kPreference[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
  for (int pass = 0; pass < 2; ++pass)
    for (cl_uint p = 0; p < np; ++p) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(platforms[p], kPreference[pass], 1, device_out, &nd) == CL_SUCCESS && nd > 0) {
        *platform_out = platforms[p];
        return 1;
      }
    }
  return 0;
}

void wl_init(struct wl* w, const char* name, int argc, char** argv, unsigned flags) {
  (void)flags;
  wl_start(w, name, argc, argv);
  cl_platform_id platform;
  if (!pick_device(&platform, &g_device))
    wl_unavailable(w, "no OpenCL platform with a device (is an ICD such as pocl-opencl-icd installed?)");
  char pname[256] = "?", dname[256] = "?", dversion[256] = "?";
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetDeviceInfo(g_device, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  clGetDeviceInfo(g_device, CL_DEVICE_VERSION, sizeof dversion, dversion, NULL);
  size_t max_wg = 0;
  cl_ulong local_mem = 0;
  clGetDeviceInfo(g_device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  clGetDeviceInfo(g_device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
  printf("# %s: OpenCL platform=%s, device=%s, version=%s, max work-group %zu, local %llu bytes\n", name,
         pname, dname, dversion, max_wg, (unsigned long long)local_mem);
  fflush(stdout);
  const char* expect = getenv("WL_EXPECT_RENDERER");
  if (expect && *expect && !strstr(pname, expect) && !strstr(dname, expect))
    wl_fail(w, "OpenCL device '%s / %s' is not the expected '%s'", pname, dname, expect);
  // The kernels keep to the GLES 3.1 minimums, which OpenCL's embedded/full profiles also meet or exceed.
  if (max_wg < 128 || local_mem < 16384)
    wl_fail(w, "the device is below the suite's minimums (work-group %zu, local %llu)", max_wg,
            (unsigned long long)local_mem);
  cl_int err;
  g_context = clCreateContext(NULL, 1, &g_device, NULL, NULL, &err);
  check(w, err, "clCreateContext");
  g_queue = clCreateCommandQueue(g_context, g_device, 0, &err);
  check(w, err, "clCreateCommandQueue");
}

struct wl_kernel* wl_kernel(struct wl* w, const char* defines, const struct wl_kernel_src* src) {
  const char* parts[2] = {defines ? defines : "", src->cl};
  cl_int err;
  cl_program prog = clCreateProgramWithSource(g_context, 2, parts, NULL, &err);
  check(w, err, "clCreateProgramWithSource");
  err = clBuildProgram(prog, 1, &g_device, "-cl-std=CL1.2", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(prog, g_device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "%s: OpenCL build log of %s:\n%s\n", w->name, src->cl_entry, log);
    wl_fail(w, "OpenCL program %s does not build (error %d): %.300s", src->cl_entry, err, log);
  }
  struct wl_kernel* k = wl_alloc(w, sizeof *k);
  k->kernel = clCreateKernel(prog, src->cl_entry, &err);
  check(w, err, "clCreateKernel");
  clReleaseProgram(prog);
  k->entry = src->cl_entry;
  size_t max_wg = 0;
  clGetKernelWorkGroupInfo(k->kernel, g_device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
  for (int i = 0; i < 3; ++i) k->local[i] = src->local[i];
  if (k->local[0] * k->local[1] * k->local[2] > max_wg)
    wl_fail(w, "kernel %s needs %zu work-items per group, the device allows %zu for it", src->cl_entry,
            k->local[0] * k->local[1] * k->local[2], max_wg);
  return k;
}

struct wl_buffer* wl_buffer(struct wl* w, size_t bytes, const void* init) {
  struct wl_buffer* b = wl_alloc(w, sizeof *b);
  cl_int err;
  b->mem = clCreateBuffer(g_context, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
  check(w, err, "clCreateBuffer");
  void* zero = NULL;
  if (!init) init = zero = wl_alloc(w, bytes ? bytes : 4);
  wl_buffer_write(w, b, 0, bytes ? bytes : 4, init);
  free(zero);
  return b;
}

void wl_buffer_write(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, const void* src) {
  check(w, clEnqueueWriteBuffer(g_queue, b->mem, CL_TRUE, offset, bytes, src, 0, NULL, NULL),
        "clEnqueueWriteBuffer");
}

void wl_buffer_read(struct wl* w, struct wl_buffer* b, size_t offset, size_t bytes, void* dst) {
  check(w, clEnqueueReadBuffer(g_queue, b->mem, CL_TRUE, offset, bytes, dst, 0, NULL, NULL),
        "clEnqueueReadBuffer");
}

static void set_arg(struct wl* w, struct wl_kernel* k, unsigned index, size_t size, const void* value,
                    const char* what) {
  cl_int err = clSetKernelArg(k->kernel, index, size, value);
  if (err != CL_SUCCESS)
    wl_fail(w, "OpenCL error %d setting argument %u (%s) of %s", err, index, what, k->entry);
}
void wl_arg_buffer(struct wl* w, struct wl_kernel* k, unsigned index, struct wl_buffer* b) {
  set_arg(w, k, index, sizeof b->mem, &b->mem, "buffer");
}
void wl_arg_u32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, uint32_t v) {
  cl_uint x = v;
  set_arg(w, k, index, sizeof x, &x, name);
}
void wl_arg_i32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, int32_t v) {
  cl_int x = v;
  set_arg(w, k, index, sizeof x, &x, name);
}
void wl_arg_f32(struct wl* w, struct wl_kernel* k, unsigned index, const char* name, float v) {
  cl_float x = v;
  set_arg(w, k, index, sizeof x, &x, name);
}

void wl_run(struct wl* w, struct wl_kernel* k, unsigned gx, unsigned gy, unsigned gz) {
  size_t global[3] = {gx * k->local[0], gy * k->local[1], gz * k->local[2]};
  // The in-order queue orders this after earlier dispatches and before later reads: the barrier the GLES
  // back end issues explicitly.
  cl_int err = clEnqueueNDRangeKernel(g_queue, k->kernel, 3, NULL, global, k->local, 0, NULL, NULL);
  w->dispatches++;
  if (err != CL_SUCCESS)
    wl_fail(w, "OpenCL error %d enqueueing %s (%u, %u, %u groups)", err, k->entry, gx, gy, gz);
}

void wl_gpu_end(struct wl* w) {
  check(w, clFinish(g_queue), "clFinish");
  w->gpu_seconds += wl_now() - w->gpu_begin;
}

void wl_finish(struct wl* w, int ok, const char* check_how) {
  check(w, clFinish(g_queue), "clFinish");
  if (!ok)
    wl_fail(w, "GPU result differs from the CPU reference (check %s; mismatches on stderr)", check_how);
  wl_print_pass(w, check_how);
  clReleaseCommandQueue(g_queue);
  clReleaseContext(g_context);
  exit(WL_EXIT_PASS);
}
