// The compute-job fixture: what a driver builds for one Compute job (a job chain of one Compute job with a packed
// Invocation, a Renderer State with preload bits and a push-uniform count, push uniforms, a thread-storage
// descriptor, and a shader assembled with the test assembler), submitted on job slot 1 the way panfrost does,
// run on the Bifrost shader cores with the test's host-thread count. Used by compute_job_test.cpp and stats_test.cpp.
//
// Descriptor layouts: Mesa v6.xml ("Compute Job", "Invocation", "Draw", "Renderer State", "Preload", "Local
// Storage"); invocation packing: ../shared/reference/mali-g71.md section 2 (each value minus 1 in ceil(log2)
// bits, LSB first; thread group split = workgroups-x shift).
#pragma once
#include "bifrost_asm.h"
#include "gpu-bifrost/compute_cores.h"
#include "instrumentation/stats.h"
#include "mali_fixture.h"
#include "vector_add_kernel.h"
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace computejob {

using namespace gputest;
using vplat::gpu::bifrost::ComputeCores;

// Buffers and descriptors, as GPU virtual addresses (all mapped read-write to RAM from kDataPa on).
constexpr uint64_t kJob = kGpuVa, kRsd = kGpuVa + 0x400, kTlsDesc = kGpuVa + 0x500, kPush = kGpuVa + 0x700;
constexpr uint64_t kCode = kGpuVa + 0x1000;
constexpr uint64_t kIn = kGpuVa + 0x10000, kIn2 = kGpuVa + 0x20000, kOut = kGpuVa + 0x30000;
constexpr uint64_t kWls = kGpuVa + 0x80000, kStack = kGpuVa + 0x100000;
constexpr unsigned kMappedPages = 0x300;
// A GPU address no page maps (its level-3 table exists, as in a real address space with sparse buffers).
constexpr uint64_t kUnmapped = kGpuVa + 0x400000;

constexpr uint32_t kPreloadGlobalX = 1u << 12, kPreloadLocalXY = 1u << 7, kPreloadGroupX = 1u << 9;

inline unsigned log2_ceil(uint32_t v) {
  unsigned b = 0;
  while ((uint64_t{1} << b) < v) ++b;
  return b;
}

struct Dispatch {
  uint32_t local[3] = {1, 1, 1}, groups[3] = {1, 1, 1};
  uint32_t preload = 0;
  std::vector<uint64_t> push;
  std::vector<std::string> clauses;
  uint32_t wls_bytes = 0; // per workgroup; 0 = none
  uint32_t tls_bytes = 0; // per thread; 0 = none
};

class ComputeJobs : public MaliTest, public ::testing::WithParamInterface<unsigned> {
protected:
  std::unique_ptr<ComputeCores> cores;
  uint64_t max_clauses = uint64_t{1} << 24;
  vplat::stats::Collector* collector = nullptr; // statistics of the jobs, when a test sets one before attach()

  void SetUp() override {
    MaliTest::SetUp();
    soft_reset();
    unmask_all();
    map_and_enable(0, kMappedPages);
    pt->map(kUnmapped + 0x100000, kDataPa + 0x100000, kRw); // creates the tables around kUnmapped, not its page
    clock.advance(1000);
  }
  void TearDown() override {
    gpu->set_shader_core(nullptr);
    gpu->set_stats(nullptr);
  }
  // threads 0: the test's parameter.
  void attach(unsigned threads = 0) {
    ComputeCores::Config c;
    c.host_threads = threads ? threads : GetParam();
    c.shader_cores = 8;
    c.max_clauses_per_quad = max_clauses;
    cores = std::make_unique<ComputeCores>(c);
    cores->set_stats(collector);
    gpu->set_stats(collector);
    gpu->set_shader_core(cores.get());
  }

  void put32(uint64_t va, uint32_t v) { ASSERT_TRUE(bus.copy_to(pa_of(va), &v, 4)); }
  void put64(uint64_t va, uint64_t v) { ASSERT_TRUE(bus.copy_to(pa_of(va), &v, 8)); }
  uint32_t get32(uint64_t va) { return ram32(bus, pa_of(va)); }

  // Builds the job, submits it on slot 1 and lets the GPU run until nothing is pending.
  void run(const Dispatch& d) {
    prepare(d);
    queue(1, kJob);
    run_jobs();
  }
  // Writes the shader and the job's descriptors (and attaches the cores if no test did).
  void prepare(const Dispatch& d) {
    if (!cores) attach();
    uint64_t at = kCode;
    for (const auto& c : d.clauses) {
      std::vector<uint64_t> words = bifrost_asm::assemble(c);
      ASSERT_TRUE(bus.copy_to(pa_of(at), words.data(), words.size() * 8));
      at += words.size() * 8;
    }
    // Invocation: size x/y/z then workgroups x/y/z, each minus 1 in ceil(log2(value)) bits, LSB first.
    const uint32_t values[6] = {d.local[0], d.local[1], d.local[2], d.groups[0], d.groups[1], d.groups[2]};
    uint32_t packed = 0, start[6] = {};
    unsigned bit = 0;
    for (unsigned i = 0; i < 6; ++i) {
      start[i] = bit;
      packed |= (values[i] - 1) << bit;
      bit += log2_ceil(values[i]);
    }
    ASSERT_LE(bit, 32u);
    uint32_t shifts = start[1] | start[2] << 5 | start[3] << 10 | start[4] << 16 | start[5] << 22 | start[3] << 28;
    put_header(bus, pa_of(kJob), job::Compute, 1, 0);
    put32(kJob + 32, packed);
    put32(kJob + 36, shifts);
    put64(kJob + 64 + 12 * 4, kPush);     // Draw: push uniforms
    put64(kJob + 64 + 14 * 4, kRsd);      // Draw: state
    put64(kJob + 64 + 28 * 4, kTlsDesc);  // Draw: thread storage
    // Renderer State: the shader; Preload = the compute preload bits | uniform count (64-bit words) << 15.
    put64(kRsd, kCode);
    put32(kRsd + 16, 0);
    put32(kRsd + 48, d.preload | static_cast<uint32_t>(d.push.size()) << 15);
    for (size_t i = 0; i < d.push.size(); ++i) put64(kPush + 8 * i, d.push[i]);
    // Local Storage, sized as Mesa's pan_emit_tls / panfrost_get_stack_shift do it.
    uint32_t tls_shift = d.tls_bytes ? log2_ceil((d.tls_bytes + 15) / 16) : 0;
    uint32_t instances = 1;
    for (uint32_t g : d.groups) instances *= 1u << log2_ceil(g);
    uint32_t wls_size = 1u << log2_ceil(std::max(d.wls_bytes, 128u));
    put32(kTlsDesc, tls_shift);
    put32(kTlsDesc + 4, d.wls_bytes ? log2_ceil(instances) | (log2_ceil(wls_size) + 1) << 8 : 31u);
    put64(kTlsDesc + 8, d.tls_bytes ? kStack : 0);
    put64(kTlsDesc + 16, d.wls_bytes ? kWls : 0);
  }

  // Storage images as panfrost lays them out for a compute job (archdesc/bifrost/image.adl): image i is
  // attribute i of the job's attribute table, with `format` (the 22-bit pixel format) and buffer 2i, a
  // 3D-linear Attribute Buffer of `stride` bytes per texel followed by its Continuation 3D record (buffer 2i
  // + 1). Call after prepare().
  struct Image {
    uint64_t va;
    uint32_t format, width, height, stride, row_bytes;
  };
  static constexpr uint64_t kAttrs = kGpuVa + 0x800, kAttrBufs = kGpuVa + 0x900;
  void put_images(const std::vector<Image>& images) {
    put64(kJob + 64 + 16 * 4, kAttrBufs);                   // Draw: attribute buffers
    put64(kJob + 64 + 18 * 4, kAttrs);                      // Draw: attributes
    put32(kRsd + 12, static_cast<uint32_t>(images.size())); // Renderer State: attribute count
    for (uint32_t i = 0; i < images.size(); ++i) {
      const Image& im = images[i];
      put32(kAttrs + 8 * i, (2 * i) | im.format << 10);
      put32(kAttrs + 8 * i + 4, 0);
      const uint64_t buf = kAttrBufs + 32 * i;
      put64(buf, im.va | 5);                       // 3D linear
      put32(buf + 8, im.stride);                   // bytes per texel
      put32(buf + 12, im.row_bytes * im.height);   // size
      put32(buf + 16, 32u | (im.width - 1) << 16); // continuation: width - 1
      put32(buf + 20, im.height - 1);              // height - 1, depth - 1 (0)
      put32(buf + 24, im.row_bytes);               // row stride
      put32(buf + 28, im.row_bytes * im.height);   // slice stride
    }
  }
};

// Pixel formats (genxml v6.xml: the mali_format number in [19:12], channel selectors R G B A / 0 / 1 in
// [11:0]).
constexpr uint32_t kFormatR32F = 167u << 12 | (0 | 4 << 3 | 4 << 6 | 5 << 9);  // R, 0, 0, 1
constexpr uint32_t kFormatRG32F = 175u << 12 | (0 | 1 << 3 | 4 << 6 | 5 << 9); // R, G, 0, 1

// out(x, y) = in(x, y) + 1.0 as Mesa's v6 compiler emits an image kernel (image.adl): image 0 is read with
// LD_ATTR_TEX at the thread's (global x, global y), image 1 written with LEA_ATTR_TEX + ST_CVT. The grid is
// `groups_x` x `groups_y` workgroups of 4x2 threads. Callers set up the images (put_images) after prepare().
inline Dispatch image_add_one_dispatch(uint32_t groups_x, uint32_t groups_y) {
  Dispatch d;
  d.local[0] = 4;
  d.local[1] = 2;
  d.groups[0] = groups_x;
  d.groups[1] = groups_y;
  d.preload = kPreloadGlobalX | kPreloadGlobalX << 1; // global id x (r60) and y (r61)
  d.clauses = {
      "header flow=3\ntuple p0=r60 p1=r61 ; *MKVEC.v2i16 src0=0 src1=1 ; +NOP ; fma->r2",
      "header flow=3 sr=12 msg=2\ntuple p0=r1 p1=r2 ; *DTSEL_IMM src0=0 table=0 ; +LD_ATTR_TEX src0=1 src1=0 "
      "src2=3 fmt=1 vec=0",
      "header flow=3\ntuple p0=r12 fau=c0 ; *FADD.f32 src0=0 src1=4 ; +NOP ; fma->r16\nconst 0x3f800000",
      "header flow=3 sr=20 msg=2\ntuple p0=r1 p1=r2 fau=c0 ; *DTSEL_IMM src0=4 table=0 ; +LEA_ATTR_TEX "
      "src0=1 src1=0 src2=3 fmt=1\nconst 0x1",
      "header sr=16 msg=6\ntuple p0=r20 p1=r21 p2=r22 ; *NOP ; +ST_CVT src0=0 src1=1 src2=2 vec=0"};
  return d;
}

inline uint32_t fbits(float f) {
  uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}

// r2 = rN << 2, for the store clause below.
inline std::string times4(const std::string& reg) {
  return "header flow=3\ntuple p0=" + reg + " fau=c0 ; *LSHIFT_OR.i32 src0=0 src1=3 src2=4 not1=1 ; +NOP ; fma->r2\n"
         "const 0x2";
}
// Stores r<sr> at uniform <u> + r2 and ends the shader (buffers sit below 4 GiB).
inline std::string store_at(unsigned u, unsigned sr) {
  return "header sr=" + std::to_string(sr) + " msg=6\ntuple p0=r2 fau=u" + std::to_string(u) +
         " ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3\ntuple ; *NOP ; +STORE.i32 src0=7 src1=3 seg=1";
}

// The atomic histogram: every thread loads in[global id] (a bucket, 0..15) and increments out[bucket] with
// ATOM_C1 + ATOM_CX (opc 0); 6 workgroups of 32 threads, so workgroups on different host threads hit the same
// words at once. Callers write the inputs and zero the buckets.
inline Dispatch histogram_dispatch() {
  Dispatch d;
  d.local[0] = 32;
  d.groups[0] = 6;
  d.preload = kPreloadGlobalX;
  d.push = {kIn, kOut};
  d.clauses = {
      times4("r60"),
      "header flow=3 sr=10 msg=5\ntuple p0=r2 fau=u0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r3\n"
      "tuple ; *NOP ; +LOAD.i32 src0=7 src1=3 seg=1",
      times4("r10"),
      "header flow=3\ntuple p0=r2 fau=u1 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r0\n"
      "tuple fau=u1 ; *NOP ; +MOV.i32 src0=5 ; add->r1",
      "header sr=12 msg=7\ntuple p0=r0 p1=r1 ; *ATOM_C1.i32 src0=0 src1=1 opc=0 ; +ATOM_CX src0=0 src1=1"};
  return d;
}

// A loop whose trip count differs per lane: thread g (global id) adds g, g-1, ..., 1 (g + 1 iterations, the
// last adding 0) and stores the sum at out[g]; 3 workgroups of 16 threads.
inline Dispatch divergent_sum_dispatch() {
  Dispatch d;
  d.local[0] = 16;
  d.groups[0] = 3;
  d.preload = kPreloadGlobalX;
  d.push = {kOut};
  d.clauses = {"header flow=3\ntuple p0=r60 fau=c0 ; *NOP ; +IADD.s32 src0=0 src1=4 ; add->r0\nconst 0x1", R"(
header flow=1
tuple p0=r0 fau=c1 ; *NOP ; +ISUB.s32 src0=0 src1=4 ; add->r0
tuple p0=r1 ; *NOP ; +IADD.s32 src0=0 src1=7 ; add->r1
tuple p0=r0 fau=c0 ; *NOP ; +BRANCHZ.i32 src0=0 src2=5 eq=0
const pchi 0
const 0x1
)",
               times4("r60"), store_at(0, 1)};
  return d;
}

// A store to an unmapped page: 4 workgroups of 8 threads, thread g storing its global id at kUnmapped + 4g.
inline Dispatch unmapped_store_dispatch() {
  Dispatch d;
  d.local[0] = 8;
  d.groups[0] = 4;
  d.preload = kPreloadGlobalX;
  d.push = {kUnmapped};
  d.clauses = {times4("r60"), store_at(0, 60)};
  return d;
}

// The vector-add kernel out[i] = in[i] + in2[i] over 7 workgroups of 16 threads (global id preloaded in r60):
// address arithmetic in one clause, two global loads, then the add and the store. Callers write the inputs.
inline Dispatch vector_add_dispatch() {
  Dispatch d;
  d.local[0] = 16;
  d.groups[0] = 7;
  d.preload = kPreloadGlobalX;
  d.push = {kIn, kIn2, kOut};
  d.clauses = vector_add_clauses();
  return d;
}

} // namespace computejob
