// Shader statistics at near-zero run-time cost. Everything that depends only on a clause's encoding
// (instruction classes, empty slots, register and FAU traffic, memory messages and their sizes) is worked out
// once, when the clause is decoded (ClauseMetrics, in DecodedClause). While shaders run, the only thing
// counted is how often each clause executes with how many active lanes, and where branching lanes went
// (ClauseCounters, held per host thread next to the clause in that thread's ClauseMemo: no lock, no shared
// cache line). When a job completes its host threads' counters are summed (ClauseTally) and multiplied out
// against the static metrics (derive_counters, derive_cfg).
//
// One place counts a clause execution: QuadExec::step calls ClauseCounters::count. A per-clause model that
// needs execution counts (timing) reads the same tally.
#pragma once
#include "gpu-bifrost/bifrost_clause.h"
#include "instrumentation/stats.h"
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace vplat::gpu::bifrost {

// What one instruction contributes, from the description's metadata (class, unit, attrs, fields, helpers).
struct InsnStatic {
  std::string name, class_key, category; // class_key "<unit>.<class>"; category: see README (instrumentation)
  bool nop = false;
  uint8_t staging_reads = 0, staging_writes = 0; // words (attr staging = rN / wN)
  MemOp mem = MemOp::None;
  MemSeg fixed_seg = MemSeg::Global; // when the encoding has no segment field
  uint8_t mem_bytes = 0;             // per access; 0 where the size depends on data (image formats)
  int seg_lsb = -1;                  // the `seg` field (ISA.xml segment code), or -1
  int wls_lsb = -1;                  // the `wls` flag of the exchange atomics, or -1
  std::array<int8_t, 4> src_lsb{};   // operand selector fields src0..src3
  uint8_t srcs = 0;
};
// Static facts of generated instruction `id` (0 <= id < kNumInsns); built once.
const InsnStatic& insn_static(int id);

// The counters of one clause on one host thread.
struct ClauseCounters {
  std::array<uint64_t, 4> by_lanes{}; // executions with 1..4 active lanes
  // Executions where some lane did not fall through, and the lanes that branched or ended there.
  uint64_t branch_warps = 0, all_left_warps = 0; // all_left: no lane fell through
  uint64_t end_warps = 0, end_lanes = 0;
  struct Target {
    uint64_t pc = 0, warps = 0, lanes = 0;
  };
  std::array<Target, 2> taken{};
  uint64_t other_warps = 0, other_lanes = 0; // branches to a third target (computed branches)
  uint64_t divergent = 0;
  std::array<uint64_t, 16> taken_masks{}; // divergent executions by the mask of lanes that branched

  // One execution by the lanes in `active`: those in `taken` branched to npc[lane], those in `ended` finished
  // the shader, the rest fell through.
  void count(uint8_t active, uint8_t taken_lanes, uint8_t ended, const std::array<uint64_t, 4>& npc) {
    // A table, not std::popcount: without -mpopcnt that is a library call.
    static constexpr uint8_t kLanes[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    const unsigned lanes = kLanes[active & 15];
    ++by_lanes[lanes - 1];
    if (!(taken_lanes | ended)) return;
    // A loop's back edge: every lane branches to the target seen first (no divergence, nothing else to
    // learn).
    if (taken_lanes == active && !ended && taken[0].warps) {
      const uint64_t t = taken[0].pc;
      const unsigned elsewhere = unsigned{npc[0] != t} | unsigned{npc[1] != t} << 1 |
                                 unsigned{npc[2] != t} << 2 | unsigned{npc[3] != t} << 3;
      if (!(elsewhere & active)) {
        ++branch_warps;
        ++all_left_warps;
        ++taken[0].warps;
        taken[0].lanes += lanes;
        return;
      }
    }
    count_branch(active, taken_lanes, ended, npc);
  }
  void count_branch(uint8_t active, uint8_t taken_lanes, uint8_t ended, const std::array<uint64_t, 4>& npc);
  uint64_t executions() const { return by_lanes[0] + by_lanes[1] + by_lanes[2] + by_lanes[3]; }
  uint64_t lanes() const { return by_lanes[0] + 2 * by_lanes[1] + 3 * by_lanes[2] + 4 * by_lanes[3]; }
  void add(const ClauseCounters& o);
};

// A job's clause executions summed over host threads, by (address space, clause address) (ordered, so
// anything derived from it is the same for every host-thread count).
struct ClauseTally {
  struct Item {
    std::shared_ptr<const DecodedClause> clause;
    ClauseCounters counts;
  };
  std::map<std::pair<unsigned, uint64_t>, Item> items;
  // Image texel bytes loaded and stored (format-dependent: counted at the access, ShaderThread::image_bytes).
  std::array<uint64_t, 2> image_bytes{};
  void add(unsigned as, uint64_t address, const std::shared_ptr<const DecodedClause>& clause,
           const ClauseCounters& n);
  void merge(const ClauseTally& o);
};

stats::ShaderCounters derive_counters(const ClauseTally& tally);
stats::ShaderCfg derive_cfg(const ClauseTally& tally, unsigned as, uint64_t entry);

} // namespace vplat::gpu::bifrost
