// The Bifrost shader core model: a quad (a warp of 4 threads) executing decoded clauses.
//
//  - Each thread has its own generated State (archdesc/bifrost): 64 registers, the temporaries, and the inputs
//    the core fills per tuple (register ports, FAU word). FMA then ADD execute per active lane; the register
//    block's writes land one tuple later (the last tuple's at the end of the clause), as the encoding defines.
//  - Divergence: every lane has its own PC. The quad always runs the clause at the lowest PC among its live
//    lanes, with exactly the lanes at that PC active. Lanes that branch ahead wait there, so a forward branch
//    reconverges at its target and a loop's exited lanes wait at the exit until the others leave the loop; when
//    all lanes agree the quad runs as one (warp-level branch). This is the behaviour the header's reconvergence
//    flags describe for the code Mesa emits (it does not model the flags themselves). A lane ends when it
//    leaves an END clause without branching or when it branches to address 0 (Mesa's "return").
//  - Memory goes through a ShaderMemory (shader_memory.h: the GpuMmu directly, or a compute job's view of it; its faults end the run with the MMU's fault, like the hardware's job fault);
//    an encoding the description does not know raises INSTR_INVALID_ENC (0x51), an unreadable or misaligned
//    clause address INSTR_INVALID_PC (0x50) or the MMU fault. Nothing here can touch host memory.
//  - Clauses are decoded once per (address space, address) into a ShaderCache; begin_job() makes entries
//    re-check their bytes the first time a new job uses them, so rewritten shader memory is never stale.
// ComputeCores (compute_cores.h) runs a compute job's workgroups with run_workgroup(), one ShaderCore per host thread.
#pragma once
#include "gpu-bifrost/bifrost_clause.h"
#include "gpu-bifrost/clause_stats.h"
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/shader_memory.h"
#include "instrumentation/models/timing.h"
#include <atomic>
#include <functional>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace vplat::gpu::bifrost {

constexpr unsigned kQuadLanes = 4;
constexpr unsigned kNumRegs = 64;

class ShaderCache {
public:
  // The decoded clause at `address` in address space `as`, reading it through `mem` when it is not cached
  // (or not yet re-validated in this job). nullptr with `fault` filled when the clause cannot be read. Safe to
  // call from several host threads; memory is read without holding the cache's lock (a read may stall on an
  // MMU fault for as long as the guest's driver takes).
  std::shared_ptr<const DecodedClause> get(ShaderMemory& mem, unsigned as, uint64_t address, MmuFault& fault);
  void begin_job() {
    std::lock_guard<std::mutex> lock(mu_);
    ++epoch_;
  }
  void clear();
  struct Stats {
    uint64_t hits = 0, decodes = 0, revalidations = 0;
  };
  Stats stats() const;

  // A guest can make the core decode any number of distinct clause addresses; past this many entries the
  // cache starts over, so host memory stays bounded (a decoded clause is about 1 KiB).
  static constexpr size_t kMaxEntries = 1 << 16;

private:
  struct Entry {
    std::shared_ptr<const DecodedClause> clause;
    std::vector<uint64_t> raw; // the quadwords it was decoded from
    uint64_t epoch = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<unsigned, uint64_t>, Entry> entries_;
  uint64_t epoch_ = 1;
  Stats stats_;
};

// Values a thread starts with and the quad-wide inputs.
struct QuadLaunch {
  uint64_t entry = 0;                   // GPU address of the first clause
  unsigned as = 0;                      // GPU address space
  const uint64_t* uniforms = nullptr;   // FAU uniform words (RSD/draw "push uniforms"), 64-bit each
  unsigned uniform_count = 0;
  std::array<std::array<uint32_t, kNumRegs>, kQuadLanes> regs{}; // preloaded registers per lane
  uint8_t active = 0xf;                 // lanes that exist (a partial quad at the edge of a workgroup)
  uint32_t warp_id = 0, core_id = 0;    // FAU special values
  uint64_t max_clauses = 1u << 22;      // a runaway shader stops here (status Timeout), never hangs the host
  bool timing = false;                  // annotate each executed clause with its static cost (QuadExec::clock)
  // Memory segments (see MemorySegments): the workgroup's WLS window, each lane's TLS window, the UBO table.
  uint64_t wls_base = 0, wls_size = 0;
  std::array<uint64_t, kQuadLanes> tls_base{};
  uint64_t tls_size = 0;
  uint64_t ubo_table = 0;
  uint32_t ubo_count = 0;
  uint64_t attr_table = 0, attr_buffers = 0; // the primary attribute table (see MemorySegments)
  uint32_t attr_count = 0;
};

// Where a workgroup's segments live, as the job manager derives them from the job's thread-storage descriptor
// ("Local Storage": TLS/WLS base pointers and sizes) and its uniform-buffer descriptor table. Segment offsets a
// shader uses are checked against these sizes; the resulting GPU addresses go through the MMU like any other.
//  - WLS: one block of wls_size bytes at wls_base, shared by every quad of the workgroup (the job manager picks
//    the instance block for this workgroup).
//  - TLS: thread t of the workgroup (x fastest) gets tls_size bytes at tls_base + t * tls_size.
//  - UBO: ubo_count descriptors at ubo_table (genxml "Uniform Buffer": entries - 1 in [11:0], pointer >> 4 in
//    [63:12]; 16-byte entries).
//  - Images: the primary attribute table, attr_count Attribute records at attr_table and the Attribute Buffer
//    records they index at attr_buffers (a compute job's Draw.Attributes / Attribute Buffers; image.adl).
struct MemorySegments {
  uint64_t wls_base = 0, wls_size = 0;
  uint64_t tls_base = 0, tls_size = 0;
  uint64_t ubo_table = 0;
  uint32_t ubo_count = 0;
  uint64_t attr_table = 0, attr_buffers = 0;
  uint32_t attr_count = 0;
};

struct QuadResult {
  enum class Status { Done, Fault, Timeout } status = Status::Done;
  uint32_t exception = 0;                 // GPU exception code when status == Fault
  std::optional<MmuFault> mmu_fault;      // the MMU fault behind it, if any
  uint64_t fault_pc = 0;                  // clause address where it happened
  std::string error;                      // detail for logs and tests
  std::array<std::array<uint32_t, kNumRegs>, kQuadLanes> regs{};
  uint64_t clauses = 0, tuples = 0, lane_instructions = 0;
  uint64_t warps = 0; // quads launched (run_workgroup)
  models::WorkgroupCost timing; // run_workgroup with timing on: the workgroup's annotated time and usage
};

struct ShaderThread;

// One host thread's index of the clauses it has used in the current job, in front of the shared ShaderCache: a
// hit takes no lock and touches no reference count that other host threads also touch. Valid for one job (the
// shared cache re-validates its entries once per job; clear() at the start of the next). Each entry also holds
// this thread's execution counters of the clause (clause_stats.h), kept when `counting` is on.
class ClauseMemo {
public:
  struct Entry {
    std::shared_ptr<const DecodedClause> clause;
    ClauseCounters counts;
    unsigned as = 0;
  };
  bool counting = false;
  // ShaderThread::image_bytes of this host thread's quads (when counting).
  std::array<uint64_t, 2> image_bytes{};

  Entry* find(unsigned as, uint64_t address) {
    auto it = map_.find(key(as, address));
    return it == map_.end() ? nullptr : &it->second;
  }
  Entry* add(unsigned as, uint64_t address, std::shared_ptr<const DecodedClause> c) {
    if (map_.size() >= ShaderCache::kMaxEntries) {
      take_counts(spilled_);
      map_.clear();
    }
    Entry& e = map_[key(as, address)];
    e.clause = std::move(c);
    e.counts = {};
    e.as = as;
    return &e;
  }
  // Moves the counters gathered so far into `into` (and zeroes them here).
  void take_counts(ClauseTally& into);
  void clear() {
    map_.clear();
    spilled_ = {};
    image_bytes = {};
  }

private:
  // GPU virtual addresses have 48 bits; the address space goes above them.
  static uint64_t key(unsigned as, uint64_t address) { return address ^ (uint64_t{as} << 56); }
  std::unordered_map<uint64_t, Entry> map_;
  ClauseTally spilled_; // counters of entries dropped when the memo was full
};

// One quad's execution, resumable one clause at a time, so a workgroup can interleave its quads (and, later,
// park them at a barrier until all arrive).
class QuadExec {
public:
  // `memo`, when given, is consulted before `cache` (see ClauseMemo).
  QuadExec(const QuadLaunch& launch, ShaderMemory& mem, ShaderCache& cache, ClauseMemo* memo = nullptr);
  ~QuadExec();
  QuadExec(QuadExec&&) noexcept;
  QuadExec& operator=(QuadExec&&) = delete;
  QuadExec(const QuadExec&) = delete;
  QuadExec& operator=(const QuadExec&) = delete;

  enum class Status { Running, Done, Fault, Timeout, AtBarrier };
  Status step(); // runs the clause at the lowest PC among the live lanes, with exactly those lanes
  Status status() const { return status_; }
  void release_barrier() {
    if (status_ == Status::AtBarrier) status_ = Status::Running;
  }
  QuadResult result() const; // registers as they are now, counters, fault details
  // The warp's annotated time (launch.timing): every executed clause adds its static cost.
  const models::WarpClock& clock() const { return clock_; }
  models::WarpClock& clock() { return clock_; }

private:
  QuadLaunch launch_;
  ShaderMemory& mem_;
  ShaderCache& cache_;
  ClauseMemo* memo_;
  std::unique_ptr<std::array<ShaderThread, kQuadLanes>> th_;
  std::array<uint64_t, kQuadLanes> pc_{};
  uint8_t live_ = 0;
  Status status_ = Status::Running;
  QuadResult res_;
  models::WarpClock clock_;
  Status fail(uint32_t code, uint64_t at, const std::string& why);
};

class ShaderCore {
public:
  ShaderCore(GpuMmu& mmu, ShaderCache& cache)
      : owned_mem_(std::make_unique<MmuShaderMemory>(mmu)), mem_(*owned_mem_), cache_(cache) {}
  // One host thread's core for a compute job: memory through `mem`, clauses through a ClauseMemo of its own.
  ShaderCore(ShaderMemory& mem, ShaderCache& cache) : mem_(mem), cache_(cache), memo_(std::make_unique<ClauseMemo>()) {}
  // A lone quad: a barrier releases at once (the quad is the whole workgroup).
  QuadResult run_quad(const QuadLaunch& launch);

  // Compute dispatch of one workgroup: threads are numbered x fastest, packed into quads; each thread gets
  // the compute preload registers `preload` asks for (Renderer State "Compute Preload" bits; the register of
  // each is Mesa's, pan_shader.h / bifrost_compile.c): bit 7 r55 = local id x | y << 16, bit 8 r56 = local id
  // z, bits 9..11 r57..r59 = workgroup id x/y/z, bits 12..14 r60..r62 = global id x/y/z. Registers not asked
  // for start at 0. (Bit 6, "PC", is not modelled: Mesa never sets it for compute.) The quads run interleaved, one clause each in turn; a quad
  // that executes +BARRIER waits until every quad that has not ended is waiting too. The workgroup stops at the
  // first fault.
  struct Workgroup {
    uint64_t entry = 0;
    unsigned as = 0;
    const uint64_t* uniforms = nullptr;
    unsigned uniform_count = 0;
    std::array<uint32_t, 3> size{1, 1, 1}, id{0, 0, 0};
    MemorySegments mem;
    uint32_t preload = kPreloadAll;
    uint64_t max_clauses = 1u << 22; // per quad, see QuadLaunch
    bool timing = false;             // fill QuadResult::timing (the workgroup's annotated time)
    // Polled between rounds of quad steps: true ends the workgroup with exception TERMINATED.
    std::function<bool()> stop;
  };
  static constexpr uint32_t kPreloadAll = 0xffu << 7;
  // The result's counters cover all quads; on a fault it describes the faulting quad (registers included),
  // otherwise its registers are unused.
  QuadResult run_workgroup(const Workgroup& wg);

  // Forget the clauses this core's memo holds (a new job begins).
  void begin_job() {
    if (memo_) memo_->clear();
  }
  // Per-clause execution counting (a compute job's cores only), and handing the counts over.
  void set_counting(bool on) {
    if (memo_) memo_->counting = on;
  }
  void take_counts(ClauseTally& into) {
    if (memo_) memo_->take_counts(into);
  }

private:
  std::unique_ptr<MmuShaderMemory> owned_mem_;
  ShaderMemory& mem_;
  ShaderCache& cache_;
  std::unique_ptr<ClauseMemo> memo_; // only for a compute job's cores (tests rewrite code between runs)
};

} // namespace vplat::gpu::bifrost
