// Timing models for the Mali-G71 (issue [TIMING]; equations and assumptions in README.md next to this file).
//
//  1. Static, per clause: a pipeline execution graph (clause issue, each tuple's FMA then ADD stage, register
//     write-back, the message unit) solved as a longest path gives the clause's best-case latency and its
//     message's completion time; analysing each pair of adjacent clauses the same way gives how much of a
//     clause's issue hides behind its predecessor (an overlap correction). Resource usage per clause is
//     counted on the same pass. Computed once when a clause is decoded (ClauseCost).
//  2. Run time, per warp (a quad): WarpClock adds each executed clause's cost, waiting on the header's
//     dependency slots for earlier messages. A few additions per clause.
//  3. Analytical, per job: a workgroup takes the longest of its warps plus their launch offsets; workgroups
//  run
//     n_par at a time per core (occupancy from the thread, register and WLS limits) over the cores, each new
//     one starting when the earliest running one ends; the kernel takes the longer of that schedule and the
//     busiest resource's total usage over its units (KernelModel).
// Every latency, unit count and issue rule comes from one parameter file, g71.ini (Params).
// This library knows nothing of the decoder: gpu-bifrost describes each clause as a ClauseShape.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vplat::models {

// Resources whose total usage over a job can bound it. Usage is counted in cycles of one unit of that
// resource for one warp (a quad): an engine issues one tuple of one warp per cycle, so a tuple costs 1 engine
// cycle.
enum Resource : unsigned { kEngine, kFma, kAdd, kLoadStore, kVarying, kTexture, kNumResources };
const char* resource_name(unsigned r);

// Message units (which resource a message type occupies) and the header's message types (Mesa bifrost.h).
enum MessageType : unsigned {
  kMsgNone = 0,
  kMsgVarying = 1,
  kMsgAttribute = 2,
  kMsgTex = 3,
  kMsgVartex = 4,
  kMsgLoad = 5,
  kMsgStore = 6,
  kMsgAtomic = 7,
  kMsgBarrier = 8,
  kNumMessageTypes = 16
};

struct MessageParams {
  unsigned resource = kLoadStore; // the unit it occupies
  unsigned occupancy = 0;         // cycles of that unit per warp message
  unsigned latency = 0;           // from leaving the unit to the result being usable (dependency slot set)
};

struct Params {
  // Shader core.
  unsigned engines = 0, warp_width = 0, max_threads = 0, register_file = 0, registers_per_thread = 0;
  unsigned wls_bytes_per_core = 0; // 0: no limit
  unsigned max_workgroup_threads = 0;
  // Issue and pipeline (cycles).
  unsigned clause_issue = 0, fma_stage = 0, add_stage = 0, writeback = 0;
  unsigned warp_launch = 0, workgroup_launch = 0, job_launch = 0, barrier_latency = 0;
  // Units of each resource per core.
  std::array<unsigned, kNumResources> units{};
  std::array<MessageParams, kNumMessageTypes> messages{};
  double clock_mhz = 0;
};

// Parses the INI text of a parameter file ("[section]" lines, "key = value", "#" comments; every key g71.ini
// has is required). False with `error` naming the line on anything else.
bool parse_params(const std::string& text, Params& out, std::string& error);
// The G71 parameters: g71.ini as built into the binary, or the file $VPLAT_GPU_MODEL_PARAMS names (parsed on
// first use; a file that does not parse is reported on stderr once and the built-in values are used).
const Params& g71();
// g71.ini's text as built in.
const char* g71_ini();

// What the timing models need to know about one decoded clause.
enum class OpKind : uint8_t { Nop, Arith, Message, Branch };
struct ClauseShape {
  unsigned tuples = 0;
  std::array<OpKind, 8> fma{}, add{};
  unsigned message_type = kMsgNone; // header message type
  int message_tuple = -1;           // the tuple holding the message instruction (-1: none)
  uint8_t wait_mask = 0;            // header dependency_wait: slots this clause waits for before it starts
  uint8_t slot = 0;                 // header dependency_slot: the slot its message sets
};

// The static cost of one clause, kept with the decoded clause and added per execution.
struct ClauseCost {
  uint32_t issue = 0;   // clause issue cycles, of which `hidden` overlap the previous clause's drain
  uint32_t hidden = 0;  // the pair analysis' overlap correction (the same for any predecessor, see README)
  uint32_t body = 0;    // first FMA stage to the last tuple's results written back
  uint32_t latency = 0; // best-case latency alone: issue + body (longest path of its graph)
  uint32_t message_done = 0; // first FMA stage to its message's result (0: no message)
  uint8_t wait_mask = 0, slot = 0;
  bool has_message = false, barrier = false;
  std::array<uint32_t, kNumResources> usage{};
};

ClauseCost analyse_clause(const ClauseShape& c, const Params& p);
// Longest path through the graphs of clause a then clause b as one warp runs them (b waits for a's results
// and, for the slots it waits on, a's message), from a's issue to b's results. The overlap correction of the
// pair is latency(a) + latency(b) - pair_latency(a, b).
uint32_t pair_latency(const ClauseShape& a, const ClauseShape& b, const Params& p);

// One warp's annotated time: cycles since its workgroup started (the warp starts at its launch offset,
// warp_start()), and its resource usage.
class WarpClock {
public:
  explicit WarpClock(uint64_t start = 0) : now_(start) {}
  void step(const ClauseCost& c) {
    uint64_t start = now_ + c.issue - (started_ ? c.hidden : 0);
    started_ = true;
    for (unsigned s = 0, m = c.wait_mask; m; ++s, m >>= 1)
      if ((m & 1) && ready_[s] > start) start = ready_[s];
    if (c.has_message) ready_[c.slot & 7] = start + c.message_done;
    now_ = start + c.body;
    for (unsigned r = 0; r < kNumResources; ++r) usage_[r] += c.usage[r];
  }
  // A workgroup barrier released this warp at `t` (after every warp arrived).
  void release_at(uint64_t t) { now_ = t; }
  uint64_t now() const { return now_; }
  const std::array<uint64_t, kNumResources>& usage() const { return usage_; }

private:
  uint64_t now_ = 0;
  bool started_ = false;
  std::array<uint64_t, 8> ready_{};
  std::array<uint64_t, kNumResources> usage_{};
};

// When warp `index` of a workgroup starts: warps are launched one after another.
inline uint64_t warp_start(uint64_t index, const Params& p) {
  return index * p.warp_launch;
}

// One workgroup as the analytical model sees it.
struct WorkgroupCost {
  uint64_t cycles = 0; // the last warp's end (launch offsets included), or the engines' issue bound if larger
  uint64_t warps = 0;
  std::array<uint64_t, kNumResources> usage{};
};
// Barrier release time for warps that all arrived: the latest arrival plus the barrier's latency.
uint64_t barrier_release(uint64_t latest_arrival, const Params& p);
// Combines a workgroup's warps.
WorkgroupCost combine_warps(const std::vector<const WarpClock*>& warps, const Params& p);

struct KernelEstimate {
  uint64_t cycles = 0;     // max(schedule, busiest resource) + job launch
  double microseconds = 0; // at Params::clock_mhz
  uint64_t schedule = 0;   // makespan of the workgroup schedule
  uint64_t resource_bound = 0;
  unsigned bound = kNumResources; // the busiest resource when it sets the time, else kNumResources (schedule)
  unsigned n_par = 0;             // workgroups resident per core
  uint64_t workgroups = 0, warps = 0;
  std::array<uint64_t, kNumResources> usage{};
  std::string summary() const; // one line
};

// Occupancy: workgroups of `threads` threads (each with `wls_bytes` of WLS) that fit on one core at once.
unsigned workgroups_per_core(uint64_t threads, uint64_t wls_bytes, const Params& p);

// The analytical kernel model. Feed workgroups in dispatch order.
class KernelModel {
public:
  KernelModel(const Params& p, unsigned cores, uint64_t wg_threads, uint64_t wls_bytes);
  void add(const WorkgroupCost& wg);
  KernelEstimate finish() const;

private:
  const Params& p_;
  unsigned cores_, n_par_;
  std::vector<uint64_t> free_at_; // per slot (cores x n_par), a min-heap
  uint64_t makespan_ = 0, workgroups_ = 0, warps_ = 0;
  std::array<uint64_t, kNumResources> usage_{};
};

// A first-order static estimate per shader in the style of the Mali offline compiler: cycles per thread on
// each pipe (arithmetic, load/store, varying, texture) over the given clauses (each counted once), and the
// bound pipe.
struct ShaderEstimate {
  unsigned clauses = 0, tuples = 0;
  double arith = 0, load_store = 0, varying = 0, texture = 0;
  std::string bound() const;
  std::string text() const; // "A x LS x V x T x Bound: y"
};
ShaderEstimate estimate_shader(const std::vector<ClauseShape>& clauses, const Params& p);

} // namespace vplat::models
