#include "instrumentation/models/timing.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

namespace vplat::models {

const char* resource_name(unsigned r) {
  static const char* const names[kNumResources] = {"engine",     "fma",     "add",
                                                   "load_store", "varying", "texture"};
  return r < kNumResources ? names[r] : "schedule";
}

// ---------------------------------------------------------------- parameters

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

const std::map<std::string, unsigned>& message_sections() {
  static const std::map<std::string, unsigned> m = {{"varying", kMsgVarying}, {"attribute", kMsgAttribute},
                                                    {"tex", kMsgTex},         {"vartex", kMsgVartex},
                                                    {"load", kMsgLoad},       {"store", kMsgStore},
                                                    {"atomic", kMsgAtomic},   {"barrier", kMsgBarrier}};
  return m;
}

} // namespace

bool parse_params(const std::string& text, Params& out, std::string& error) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line, section;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        error = "line " + std::to_string(n) + ": unterminated section";
        return false;
      }
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos || section.empty()) {
      error = "line " + std::to_string(n) + ": expected 'key = value' inside a section";
      return false;
    }
    std::string key = section + "." + trim(line.substr(0, eq));
    if (!kv.emplace(key, trim(line.substr(eq + 1))).second) {
      error = "line " + std::to_string(n) + ": " + key + " given twice";
      return false;
    }
  }
  Params p;
  auto take = [&](const std::string& key, auto& dst) {
    auto it = kv.find(key);
    if (it == kv.end()) {
      error = "missing " + key;
      return false;
    }
    const std::string v = it->second;
    kv.erase(it);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || d < 0 || d > 1e9) {
      error = key + ": not a number in range: '" + v + "'";
      return false;
    }
    dst = static_cast<std::remove_reference_t<decltype(dst)>>(d);
    return true;
  };
  bool ok = take("core.engines", p.engines) && take("core.warp_width", p.warp_width) &&
            take("core.max_threads", p.max_threads) && take("core.register_file", p.register_file) &&
            take("core.registers_per_thread", p.registers_per_thread) &&
            take("core.wls_bytes_per_core", p.wls_bytes_per_core) &&
            take("core.max_workgroup_threads", p.max_workgroup_threads) &&
            take("pipeline.clause_issue", p.clause_issue) && take("pipeline.fma_stage", p.fma_stage) &&
            take("pipeline.add_stage", p.add_stage) && take("pipeline.writeback", p.writeback) &&
            take("pipeline.warp_launch", p.warp_launch) &&
            take("pipeline.workgroup_launch", p.workgroup_launch) &&
            take("pipeline.job_launch", p.job_launch) &&
            take("pipeline.barrier_latency", p.barrier_latency) && take("clock.mhz", p.clock_mhz);
  for (unsigned r = 0; ok && r < kNumResources; ++r)
    ok = take(std::string("units.") + resource_name(r), p.units[r]);
  for (auto& [name, type] : message_sections()) {
    if (!ok) break;
    std::string s = "message." + name;
    MessageParams& m = p.messages[type];
    auto it = kv.find(s + ".resource");
    if (it == kv.end()) {
      error = "missing " + s + ".resource";
      return false;
    }
    std::string unit = it->second;
    kv.erase(it);
    m.resource = kNumResources;
    for (unsigned r = 0; r < kNumResources; ++r)
      if (unit == resource_name(r)) m.resource = r;
    if (unit != "none" && m.resource == kNumResources) {
      error = s + ".resource: unknown unit '" + unit + "'";
      return false;
    }
    ok = take(s + ".occupancy", m.occupancy) && take(s + ".latency", m.latency);
  }
  if (!ok) return false;
  if (!kv.empty()) {
    error = "unknown key " + kv.begin()->first;
    return false;
  }
  if (!p.engines || !p.warp_width || !p.max_threads || !p.registers_per_thread || !p.clock_mhz) {
    error = "engines, warp_width, max_threads, registers_per_thread and clock.mhz must be nonzero";
    return false;
  }
  for (unsigned r = 0; r < kNumResources; ++r)
    if (!p.units[r]) {
      error = std::string("units.") + resource_name(r) + " must be nonzero";
      return false;
    }
  out = p;
  return true;
}

extern const char kG71Ini[]; // generated from g71.ini (CMakeLists.txt)
const char* g71_ini() {
  return kG71Ini;
}

const Params& g71() {
  static const Params params = [] {
    Params p;
    std::string error;
    if (const char* path = std::getenv("VPLAT_GPU_MODEL_PARAMS"); path && *path) {
      std::ifstream f(path);
      std::stringstream text;
      text << f.rdbuf();
      if (f && parse_params(text.str(), p, error)) return p;
      std::fprintf(stderr, "vplat: %s: %s; using the built-in G71 parameters\n", path,
                   f ? error.c_str() : "cannot read it");
    }
    if (!parse_params(kG71Ini, p, error)) {
      std::fprintf(stderr, "vplat: built-in g71.ini: %s\n", error.c_str());
      std::abort(); // a build defect, caught by the tests
    }
    return p;
  }();
  return params;
}

// ---------------------------------------------------------------- the pipeline execution graph

namespace {

// A small weighted DAG; longest paths by relaxing every edge until nothing changes (a fixpoint: the graphs
// here have a few dozen nodes and are acyclic, so it ends after at most as many rounds as the longest path
// has edges).
class Graph {
public:
  unsigned node() { return nodes_++; }
  void edge(unsigned from, unsigned to, uint32_t weight) { edges_.push_back({from, to, weight}); }
  std::vector<int64_t> longest_from(unsigned source) const {
    std::vector<int64_t> d(nodes_, -1);
    d[source] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (const Edge& e : edges_)
        if (d[e.from] >= 0 && d[e.from] + e.weight > d[e.to]) {
          d[e.to] = d[e.from] + e.weight;
          changed = true;
        }
    }
    return d;
  }

private:
  struct Edge {
    unsigned from, to;
    uint32_t weight;
  };
  unsigned nodes_ = 0;
  std::vector<Edge> edges_;
};

struct ClauseNodes {
  unsigned issue = 0, first = 0, last_fma = 0, done = 0, message = 0;
  bool has_message = false;
};

// Issue -> F0 -> A0 -> F1 -> A1 ... -> A(n-1) -> done; the message leaves from its tuple's ADD stage,
// occupies its unit and completes `latency` later. An engine issues a warp's tuples in order: F(i+1) follows
// A(i) by the ADD stage because tuple i+1 may read tuple i's results through t0/t1.
ClauseNodes build(Graph& g, const ClauseShape& c, const Params& p) {
  ClauseNodes n;
  n.issue = g.node();
  n.first = g.node();
  g.edge(n.issue, n.first, p.clause_issue);
  unsigned f = n.first;
  unsigned tuples = std::max(1u, std::min(c.tuples, 8u));
  for (unsigned i = 0; i < tuples; ++i) {
    unsigned a = g.node();
    g.edge(f, a, p.fma_stage);
    if (static_cast<int>(i) == c.message_tuple && c.message_type != kMsgNone) {
      const MessageParams& m = p.messages[c.message_type % kNumMessageTypes];
      n.message = g.node();
      n.has_message = true;
      g.edge(a, n.message, m.occupancy + m.latency);
    }
    n.last_fma = f;
    if (i + 1 < tuples) {
      unsigned next = g.node();
      g.edge(a, next, p.add_stage);
      f = next;
    } else {
      n.done = g.node();
      g.edge(a, n.done, p.add_stage + p.writeback);
    }
  }
  return n;
}

} // namespace

ClauseCost analyse_clause(const ClauseShape& c, const Params& p) {
  Graph g;
  ClauseNodes n = build(g, c, p);
  auto d = g.longest_from(n.issue);
  ClauseCost cost;
  cost.issue = p.clause_issue;
  cost.latency = static_cast<uint32_t>(d[n.done]);
  cost.body = cost.latency - cost.issue;
  cost.has_message = n.has_message;
  if (n.has_message) cost.message_done = static_cast<uint32_t>(d[n.message] - d[n.first]);
  cost.wait_mask = c.wait_mask;
  cost.slot = c.slot & 7;
  cost.barrier = c.message_type == kMsgBarrier;
  // The pair analysis (pair_latency) lets the issue of a clause start once its predecessor's last tuple has
  // entered the FMA stage, so the issue overlaps the predecessor's last tuple and write-back: as every clause
  // has at least one tuple, that overlap is the same for any predecessor.
  cost.hidden = std::min(p.clause_issue, p.fma_stage + p.add_stage + p.writeback);

  unsigned tuples = std::max(1u, std::min(c.tuples, 8u));
  cost.usage[kEngine] = tuples;
  for (unsigned i = 0; i < tuples; ++i) {
    if (c.fma[i] != OpKind::Nop) ++cost.usage[kFma];
    if (c.add[i] != OpKind::Nop) ++cost.usage[kAdd];
  }
  if (c.message_type != kMsgNone) {
    const MessageParams& m = p.messages[c.message_type % kNumMessageTypes];
    if (m.resource < kNumResources) cost.usage[m.resource] = cost.usage[m.resource] + m.occupancy;
  }
  return cost;
}

uint32_t pair_latency(const ClauseShape& a, const ClauseShape& b, const Params& p) {
  Graph g;
  ClauseNodes na = build(g, a, p);
  ClauseNodes nb = build(g, b, p);
  g.edge(na.last_fma, nb.issue, 0); // b's issue overlaps a's last tuple
  g.edge(na.done, nb.first, 0);     // b reads a's registers
  if (na.has_message && (b.wait_mask >> (a.slot & 7) & 1)) g.edge(na.message, nb.first, 0);
  auto d = g.longest_from(na.issue);
  return static_cast<uint32_t>(d[nb.done]);
}

// ---------------------------------------------------------------- workgroups and the kernel

uint64_t barrier_release(uint64_t latest_arrival, const Params& p) {
  return latest_arrival + p.barrier_latency;
}

WorkgroupCost combine_warps(const std::vector<const WarpClock*>& warps, const Params& p) {
  WorkgroupCost wg;
  wg.warps = warps.size();
  for (size_t w = 0; w < warps.size(); ++w) {
    wg.cycles = std::max(wg.cycles, warps[w]->now());
    for (unsigned r = 0; r < kNumResources; ++r) wg.usage[r] += warps[w]->usage()[r];
  }
  // A workgroup alone cannot issue faster than its core's engines.
  wg.cycles = std::max(wg.cycles, (wg.usage[kEngine] + p.units[kEngine] - 1) / p.units[kEngine]);
  return wg;
}

unsigned workgroups_per_core(uint64_t threads, uint64_t wls_bytes, const Params& p) {
  uint64_t quads = (std::max<uint64_t>(threads, 1) + p.warp_width - 1) / p.warp_width;
  uint64_t slots = quads * p.warp_width; // threads are allocated per warp
  uint64_t n = p.max_threads / slots;
  n = std::min<uint64_t>(n, p.register_file / (slots * p.registers_per_thread));
  if (p.wls_bytes_per_core && wls_bytes) n = std::min<uint64_t>(n, p.wls_bytes_per_core / wls_bytes);
  return static_cast<unsigned>(std::max<uint64_t>(n, 1));
}

KernelModel::KernelModel(const Params& p, unsigned cores, uint64_t wg_threads, uint64_t wls_bytes)
    : p_(p), cores_(std::max(1u, cores)), n_par_(workgroups_per_core(wg_threads, wls_bytes, p)) {
  free_at_.assign(size_t{cores_} * n_par_, 0);
}

void KernelModel::add(const WorkgroupCost& wg) {
  std::pop_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  uint64_t end = free_at_.back() + p_.workgroup_launch + wg.cycles;
  free_at_.back() = end;
  std::push_heap(free_at_.begin(), free_at_.end(), std::greater<>());
  makespan_ = std::max(makespan_, end);
  ++workgroups_;
  warps_ += wg.warps;
  for (unsigned r = 0; r < kNumResources; ++r) usage_[r] += wg.usage[r];
}

KernelEstimate KernelModel::finish() const {
  KernelEstimate e;
  e.schedule = makespan_;
  e.n_par = n_par_;
  e.workgroups = workgroups_;
  e.warps = warps_;
  e.usage = usage_;
  for (unsigned r = 0; r < kNumResources; ++r) {
    uint64_t units = uint64_t{p_.units[r]} * cores_;
    uint64_t t = (usage_[r] + units - 1) / units;
    if (t > e.resource_bound) {
      e.resource_bound = t;
      if (t > e.schedule) e.bound = r;
    }
  }
  e.cycles = std::max(e.schedule, e.resource_bound) + p_.job_launch;
  e.microseconds = static_cast<double>(e.cycles) / p_.clock_mhz;
  return e;
}

std::string KernelEstimate::summary() const {
  char b[256];
  std::snprintf(b, sizeof b,
                "%llu cycles (%.3f us): schedule %llu, busiest resource %llu, bound by %s; n_par %u, %llu "
                "workgroups, %llu warps",
                static_cast<unsigned long long>(cycles), microseconds,
                static_cast<unsigned long long>(schedule), static_cast<unsigned long long>(resource_bound),
                resource_name(bound), n_par, static_cast<unsigned long long>(workgroups),
                static_cast<unsigned long long>(warps));
  return b;
}

// ---------------------------------------------------------------- static per-shader estimate

ShaderEstimate estimate_shader(const std::vector<ClauseShape>& clauses, const Params& p) {
  ShaderEstimate e;
  // Per thread, in core cycles: an engine runs one tuple of warp_width threads per cycle, engines in
  // parallel; a message unit spends `occupancy` cycles per warp.
  double threads_per_cycle = double(p.engines) * p.warp_width;
  for (const ClauseShape& c : clauses) {
    ++e.clauses;
    for (unsigned i = 0; i < c.tuples && i < 8; ++i) {
      ++e.tuples;
      if (c.fma[i] == OpKind::Arith || c.add[i] == OpKind::Arith) e.arith += 1.0 / threads_per_cycle;
    }
    if (c.message_type == kMsgNone) continue;
    const MessageParams& m = p.messages[c.message_type % kNumMessageTypes];
    if (m.resource >= kNumResources) continue;
    double per_thread = double(m.occupancy) / p.warp_width / p.units[m.resource];
    if (m.resource == kLoadStore)
      e.load_store += per_thread;
    else if (m.resource == kVarying)
      e.varying += per_thread;
    else if (m.resource == kTexture)
      e.texture += per_thread;
  }
  return e;
}

std::string ShaderEstimate::bound() const {
  double m = std::max({arith, load_store, varying, texture});
  if (m == 0) return "none";
  return m == arith ? "A" : m == load_store ? "LS" : m == varying ? "V" : "T";
}

std::string ShaderEstimate::text() const {
  char b[192];
  std::snprintf(b, sizeof b,
                "%u clauses, %u tuples; cycles per thread: A %.2f  LS %.2f  V %.2f  T %.2f  Bound: %s",
                clauses, tuples, arith, load_store, varying, texture, bound().c_str());
  return b;
}

} // namespace vplat::models
