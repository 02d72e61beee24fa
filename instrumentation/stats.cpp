#include "instrumentation/stats.h"
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace vplat::stats {

namespace {

template <class M> void add_map(M& into, const M& from) {
  for (const auto& [k, v] : from) into[k] += v;
}
template <size_t N> void add_array(std::array<uint64_t, N>& into, const std::array<uint64_t, N>& from) {
  for (size_t i = 0; i < N; ++i) into[i] += from[i];
}

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%" PRIx64, v);
  return b;
}

std::string quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      o += "\\\"";
      break;
    case '\\':
      o += "\\\\";
      break;
    case '\n':
      o += "\\n";
      break;
    case '\t':
      o += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        o += b;
      } else
        o += c;
    }
  }
  return o + "\"";
}

// A small streaming JSON writer: objects and arrays with two-space indentation, keys in insertion order.
class Json {
public:
  std::string str() const { return out_ + "\n"; }
  Json& begin(const char* key, char bracket) {
    sep(key);
    out_ += bracket;
    first_.push_back(true);
    return *this;
  }
  Json& obj(const char* key = nullptr) { return begin(key, '{'); }
  Json& arr(const char* key = nullptr) { return begin(key, '['); }
  Json& end(char bracket) {
    bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += bracket;
    return *this;
  }
  Json& end_obj() { return end('}'); }
  Json& end_arr() { return end(']'); }
  Json& num(const char* key, uint64_t v) {
    sep(key);
    out_ += std::to_string(v);
    return *this;
  }
  Json& real(const char* key, double v) {
    sep(key);
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    out_ += b;
    return *this;
  }
  Json& str(const char* key, const std::string& v) {
    sep(key);
    out_ += quote(v);
    return *this;
  }
  Json& boolean(const char* key, bool v) {
    sep(key);
    out_ += v ? "true" : "false";
    return *this;
  }
  template <class M> Json& counts(const char* key, const M& m) {
    obj(key);
    for (const auto& [k, v] : m) num(k.c_str(), v);
    return end_obj();
  }
  template <size_t N> Json& list(const char* key, const std::array<uint64_t, N>& a) {
    sep(key);
    out_ += "[";
    for (size_t i = 0; i < N; ++i) out_ += (i ? ", " : "") + std::to_string(a[i]);
    out_ += "]";
    return *this;
  }
  Json& list3(const char* key, const std::array<uint32_t, 3>& a) {
    sep(key);
    out_ += "[" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]) + "]";
    return *this;
  }

private:
  std::string out_;
  std::vector<bool> first_;
  void newline() { out_ += "\n" + std::string(2 * first_.size(), ' '); }
  void sep(const char* key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ",";
      first_.back() = false;
      newline();
    }
    if (key) out_ += quote(key) + ": ";
  }
};

void shader_json(Json& j, const char* key, const ShaderCounters& c) {
  j.obj(key);
  j.num("workgroups", c.workgroups).num("warps", c.warps).num("threads", c.threads);
  j.num("warp_clauses", c.warp_clauses).num("thread_clauses", c.thread_clauses);
  j.num("warp_tuples", c.warp_tuples).num("thread_tuples", c.thread_tuples);
  j.num("warp_instructions", c.warp_instructions).num("thread_instructions", c.thread_instructions);
  j.num("warp_nops", c.warp_nops).num("thread_nops", c.thread_nops);
  j.list("clause_size_dynamic", c.clause_size_dynamic).list("clause_size_static", c.clause_size_static);
  j.list("active_lanes", c.active_lanes);
  j.counts("by_category", c.by_category).counts("by_class", c.by_class).counts("by_opcode", c.by_opcode);
  j.obj("data");
  j.num("reg_reads", c.reg_reads).num("reg_writes", c.reg_writes);
  j.num("staging_reads", c.staging_reads).num("staging_writes", c.staging_writes);
  j.num("temp_reads", c.temp_reads);
  j.num("fau_uniform", c.fau_uniform).num("fau_constant", c.fau_constant).num("fau_special", c.fau_special);
  j.obj("memory");
  for (const auto& [k, m] : c.memory)
    j.obj(k.c_str()).num("accesses", m.accesses).num("bytes", m.bytes).end_obj();
  j.end_obj().end_obj();
  j.num("divergent_branches", c.divergent_branches);
  j.end_obj();
}

std::string percent(uint64_t part, uint64_t whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%5.1f%%",
                whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return b;
}

} // namespace

void ShaderCounters::add(const ShaderCounters& o) {
  workgroups += o.workgroups;
  warps += o.warps;
  threads += o.threads;
  warp_clauses += o.warp_clauses;
  thread_clauses += o.thread_clauses;
  warp_tuples += o.warp_tuples;
  thread_tuples += o.thread_tuples;
  warp_instructions += o.warp_instructions;
  thread_instructions += o.thread_instructions;
  warp_nops += o.warp_nops;
  thread_nops += o.thread_nops;
  add_array(clause_size_dynamic, o.clause_size_dynamic);
  add_array(clause_size_static, o.clause_size_static);
  add_array(active_lanes, o.active_lanes);
  add_map(by_opcode, o.by_opcode);
  add_map(by_class, o.by_class);
  add_map(by_category, o.by_category);
  reg_reads += o.reg_reads;
  reg_writes += o.reg_writes;
  staging_reads += o.staging_reads;
  staging_writes += o.staging_writes;
  temp_reads += o.temp_reads;
  fau_uniform += o.fau_uniform;
  fau_constant += o.fau_constant;
  fau_special += o.fau_special;
  for (const auto& [k, m] : o.memory) {
    memory[k].accesses += m.accesses;
    memory[k].bytes += m.bytes;
  }
  divergent_branches += o.divergent_branches;
}

void ShaderCfg::add(const ShaderCfg& o) {
  as = o.as;
  entry = o.entry;
  for (const auto& [pc, n] : o.nodes) {
    CfgNode& d = nodes[pc];
    d.tuples = n.tuples;
    if (d.text.empty()) d.text = n.text;
    d.warp_executions += n.warp_executions;
    d.thread_executions += n.thread_executions;
    for (const auto& [to, e] : n.successors) {
      d.successors[to].warps += e.warps;
      d.successors[to].lanes += e.lanes;
    }
    d.divergent += n.divergent;
    add_array(d.taken_masks, n.taken_masks);
  }
}

namespace {

// Which shader a job ran: its address space and entry, and what the entry clause holds (a driver may put
// another shader at an address it used before).
std::tuple<unsigned, uint64_t, unsigned, std::string> shader_key(const ShaderCfg& cfg) {
  auto it = cfg.nodes.find(cfg.entry);
  if (it == cfg.nodes.end()) return {cfg.as, cfg.entry, 0, ""};
  return {cfg.as, cfg.entry, it->second.tuples, it->second.text};
}

} // namespace

ShaderCounters Run::shader_totals() const {
  ShaderCounters t;
  // Static clause sizes count distinct clauses over the run (per shader), not per job.
  std::map<std::pair<std::tuple<unsigned, uint64_t, unsigned, std::string>, uint64_t>, unsigned> clauses;
  for (const auto& j : jobs)
    if (j.has_compute) {
      t.add(j.compute.counters);
      for (const auto& [pc, n] : j.compute.cfg.nodes) clauses[{shader_key(j.compute.cfg), pc}] = n.tuples;
    }
  t.clause_size_static = {};
  for (const auto& [k, tuples] : clauses) t.clause_size_static[std::min(tuples, 8u)]++;
  return t;
}

std::vector<ShaderCfg> Run::shaders() const {
  std::map<std::tuple<unsigned, uint64_t, unsigned, std::string>, size_t> index;
  std::vector<ShaderCfg> out;
  for (const auto& j : jobs) {
    if (!j.has_compute) continue;
    auto [it, added] = index.try_emplace(shader_key(j.compute.cfg), out.size());
    if (added) out.emplace_back();
    out[it->second].add(j.compute.cfg);
  }
  return out;
}

std::map<std::string, uint64_t> Run::jobs_by_type() const {
  std::map<std::string, uint64_t> m;
  for (const auto& j : jobs) m[j.type]++;
  return m;
}

std::map<std::string, uint64_t> Run::jobs_by_slot() const {
  std::map<std::string, uint64_t> m;
  for (const auto& j : jobs) m["js" + std::to_string(j.slot)]++;
  return m;
}

uint64_t Run::gpu_pages() const {
  uint64_t n = 0;
  for (const auto& j : jobs) n += j.has_compute ? j.compute.pages : 0;
  return n;
}

RunEstimate run_estimate(const Run& run) {
  RunEstimate t;
  for (const auto& r : run.jobs) {
    if (!r.has_compute) continue;
    if (r.compute.host_seconds > 0) t.host_seconds += r.compute.host_seconds;
    if (!r.compute.has_estimate) continue;
    ++t.jobs;
    t.cycles += r.compute.estimate.cycles;
    t.microseconds += r.compute.estimate.microseconds;
    t.bound[r.compute.estimate.bound]++;
  }
  return t;
}

// ---------------------------------------------------------------- collector

void Collector::compute_done(ComputeJobStats s) {
  std::lock_guard lock(m_);
  // A job that never became visible (GPU reset) is replaced by the next run of the same job.
  auto key = std::make_pair(s.as, s.job_va);
  pending_[key] = std::move(s);
}

void Collector::job_visible(unsigned slot, unsigned as, uint64_t va, const std::string& type, uint32_t status,
                            uint64_t start, uint64_t end) {
  std::lock_guard lock(m_);
  JobRecord r;
  r.index = jobs_.size();
  r.va = va;
  r.slot = slot;
  r.as = as;
  r.type = type;
  r.status = status;
  r.start = start;
  r.end = end;
  auto it = pending_.find({as, va});
  if (it != pending_.end()) {
    r.has_compute = true;
    r.compute = std::move(it->second);
    pending_.erase(it);
  }
  if (timeline_ && events_.size() < kMaxEvents)
    events_.push_back({TimelineEvent::Kind::Job, start, end, slot, type + " " + hex(va)});
  jobs_.push_back(std::move(r));
}

void Collector::event(TimelineEvent e) {
  if (!timeline_) return;
  std::lock_guard lock(m_);
  if (events_.size() < kMaxEvents)
    events_.push_back(std::move(e));
  else
    ++dropped_events_;
}

void Collector::finish(Run& run, std::vector<TimelineEvent>& events) {
  std::lock_guard lock(m_);
  run.jobs = std::move(jobs_);
  events = std::move(events_);
  jobs_.clear();
  events_.clear();
}

// ---------------------------------------------------------------- writers

std::string to_json(const Run& run) {
  Json j;
  j.obj();
  j.num("schema_version", kSchemaVersion).str("tool", run.tool);
  j.num("virtual_ticks", run.virtual_ticks).num("tick_hz", run.tick_hz);
  j.obj("cpu");
  j.arr("instructions");
  for (uint64_t n : run.cpu_instructions) j.num(nullptr, n);
  j.end_arr();
  if (!run.cpu_by_instruction.empty())
    j.counts("by_instruction", run.cpu_by_instruction).counts("by_class", run.cpu_by_class);
  j.end_obj();
  j.obj("gpu");
  j.num("host_threads", run.gpu_threads).num("shader_cores", run.gpu_cores);
  j.counts("jobs_by_type", run.jobs_by_type()).counts("jobs_by_slot", run.jobs_by_slot());
  j.counts("reg_reads", run.device.reg_reads).counts("reg_writes", run.device.reg_writes);
  j.counts("irqs", run.device.irqs).counts("mmu_faults", run.device.mmu_faults);
  j.num("pages_translated", run.device.pages_translated).num("shader_pages_accessed", run.gpu_pages());
  shader_json(j, "shader", run.shader_totals());
  RunEstimate total = run_estimate(run);
  if (total.jobs) {
    j.obj("estimate").num("jobs", total.jobs).num("cycles", total.cycles).real("us", total.microseconds);
    j.counts("bound", total.bound).end_obj();
  }
  if (run.host_times) j.real("host_seconds", total.host_seconds);
  j.arr("jobs");
  for (const auto& r : run.jobs) {
    j.obj()
        .num("index", r.index)
        .str("type", r.type)
        .num("slot", r.slot)
        .num("as", r.as)
        .str("va", hex(r.va));
    j.str("status", hex(r.status)).num("start", r.start).num("end", r.end);
    if (r.has_compute) {
      j.str("shader", hex(r.compute.shader))
          .list3("local_size", r.compute.local)
          .list3("workgroups", r.compute.groups);
      j.num("pages_accessed", r.compute.pages);
      shader_json(j, "counters", r.compute.counters);
      if (r.compute.has_estimate) {
        const JobEstimate& e = r.compute.estimate;
        j.obj("estimate").num("cycles", e.cycles).real("us", e.microseconds).str("bound", e.bound);
        j.num("n_par", e.n_par).num("schedule", e.schedule).num("resource_bound", e.resource_bound).end_obj();
      }
      if (run.host_times && r.compute.host_seconds >= 0) j.real("host_seconds", r.compute.host_seconds);
    }
    j.end_obj();
  }
  j.end_arr();
  j.arr("shaders");
  for (const auto& cfg : run.shaders()) {
    j.obj().num("as", cfg.as).str("entry", hex(cfg.entry));
    j.arr("clauses");
    for (const auto& [pc, n] : cfg.nodes) {
      j.obj().str("address", hex(pc)).num("tuples", n.tuples).num("warp_executions", n.warp_executions);
      j.num("thread_executions", n.thread_executions).num("divergent", n.divergent);
      j.arr("successors");
      for (const auto& [to, e] : n.successors)
        j.obj()
            .str("to", to == ShaderCfg::kEnd ? "end" : hex(to))
            .num("warps", e.warps)
            .num("lanes", e.lanes)
            .end_obj();
      j.end_arr();
      if (n.divergent) {
        j.obj("taken_masks");
        for (unsigned m = 0; m < 16; ++m)
          if (n.taken_masks[m]) j.num(hex(m).c_str(), n.taken_masks[m]);
        j.end_obj();
      }
      j.end_obj();
    }
    j.end_arr().end_obj();
  }
  j.end_arr();
  j.end_obj(); // gpu
  j.end_obj();
  return j.str();
}

std::string summary(const Run& run) {
  std::ostringstream o;
  char b[256];
  o << "vplat statistics (virtual time " << run.virtual_ticks << " ticks, "
    << static_cast<double>(run.virtual_ticks) / static_cast<double>(run.tick_hz) << " s)\n";
  uint64_t cpu_total = 0;
  for (size_t i = 0; i < run.cpu_instructions.size(); ++i) {
    o << "  cpu" << i << ": " << run.cpu_instructions[i] << " instructions\n";
    cpu_total += run.cpu_instructions[i];
  }
  if (!run.cpu_by_class.empty()) {
    std::vector<std::pair<uint64_t, std::string>> top;
    for (const auto& [k, v] : run.cpu_by_class) top.push_back({v, k});
    std::sort(top.rbegin(), top.rend());
    o << "  cpu instruction classes (--cpu-stats):";
    for (size_t i = 0; i < std::min<size_t>(10, top.size()); ++i)
      o << " " << top[i].second << " " << percent(top[i].first, cpu_total);
    o << "\n";
  }
  o << "  gpu jobs:";
  for (const auto& [k, v] : run.jobs_by_type()) o << " " << k << " " << v;
  o << " (";
  for (const auto& [k, v] : run.jobs_by_slot()) o << k << " " << v << " ";
  o << "by slot)\n";
  uint64_t reads = 0, writes = 0;
  for (const auto& [k, v] : run.device.reg_reads) reads += v;
  for (const auto& [k, v] : run.device.reg_writes) writes += v;
  o << "  gpu registers: " << reads << " reads, " << writes << " writes; irqs:";
  for (const auto& [k, v] : run.device.irqs) o << " " << k << " " << v;
  uint64_t faults = 0;
  for (const auto& [k, v] : run.device.mmu_faults) faults += v;
  o << "; mmu faults " << faults << "; pages translated " << run.device.pages_translated
    << " (shader pages per job, summed: " << run.gpu_pages() << ")\n";
  RunEstimate est = run_estimate(run);
  if (est.jobs) {
    std::snprintf(b, sizeof b,
                  "  gpu timing estimate: %" PRIu64 " compute jobs, %" PRIu64 " cycles, %.1f us; bound:",
                  est.jobs, est.cycles, est.microseconds);
    o << b;
    for (const auto& [k, v] : est.bound) o << " " << k << " " << v;
    o << "\n";
  }
  if (run.host_times) {
    std::snprintf(b, sizeof b, "  host seconds in the shader cores: %.3f\n", est.host_seconds);
    o << b;
  }
  ShaderCounters c = run.shader_totals();
  if (!c.warp_clauses) return o.str();
  std::snprintf(b, sizeof b,
                "  shaders: %" PRIu64 " workgroups, %" PRIu64 " warps, %" PRIu64 " threads; %" PRIu64
                " warp clauses, %" PRIu64 " thread instructions (%s empty slots)\n",
                c.workgroups, c.warps, c.threads, c.warp_clauses, c.thread_instructions,
                percent(c.thread_nops, c.thread_instructions).c_str());
  o << b;
  o << "  instruction mix:";
  for (const auto& [k, v] : c.by_category) o << " " << k << " " << percent(v, c.thread_instructions);
  o << "\n  clause sizes (executed):";
  for (unsigned n = 1; n <= 8; ++n) o << " " << n << ":" << c.clause_size_dynamic[n];
  o << "\n  clause sizes (static):";
  for (unsigned n = 1; n <= 8; ++n) o << " " << n << ":" << c.clause_size_static[n];
  o << "\n  active lanes per warp clause:";
  for (unsigned n = 1; n <= 4; ++n) o << " " << n << ":" << c.active_lanes[n];
  o << "; divergent branches " << c.divergent_branches << "\n";
  std::snprintf(b, sizeof b,
                "  data: reg reads %" PRIu64 ", writes %" PRIu64 "; staging reads %" PRIu64
                ", writes %" PRIu64 "; temporaries %" PRIu64 "; FAU uniform %" PRIu64 ", constant %" PRIu64
                ", special %" PRIu64 "\n",
                c.reg_reads, c.reg_writes, c.staging_reads, c.staging_writes, c.temp_reads, c.fau_uniform,
                c.fau_constant, c.fau_special);
  o << b;
  o << "  memory:";
  for (const auto& [k, m] : c.memory) o << " " << k << " " << m.accesses << " (" << m.bytes << " B)";
  o << "\n";
  return o.str();
}

bool write_file(const std::string& path, const std::string& text, std::string& error) {
  std::ofstream f(path, std::ios::binary);
  if (!f || !f.write(text.data(), static_cast<std::streamsize>(text.size()))) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool write_csv(const Run& run, const std::string& dir, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  std::ostringstream jobs;
  jobs << "index,type,slot,as,va,status,start,end,workgroups,warps,threads,warp_clauses,thread_instructions,"
          "thread_nops,"
          "reg_reads,reg_writes,temp_reads,fau_uniform,fau_constant,divergent_branches,pages,"
          "estimate_cycles,estimate_us,estimate_bound,n_par,host_seconds\n";
  for (const auto& r : run.jobs) {
    const ShaderCounters& c = r.compute.counters;
    jobs << r.index << "," << r.type << "," << r.slot << "," << r.as << "," << hex(r.va) << ","
         << hex(r.status) << "," << r.start << "," << r.end << "," << c.workgroups << "," << c.warps << ","
         << c.threads << "," << c.warp_clauses << "," << c.thread_instructions << "," << c.thread_nops << ","
         << c.reg_reads << "," << c.reg_writes << "," << c.temp_reads << "," << c.fau_uniform << ","
         << c.fau_constant << "," << c.divergent_branches << "," << r.compute.pages << ",";
    // Empty fields: no estimate (not a compute job, timing off, or the job failed) or no host time measured.
    const JobEstimate& e = r.compute.estimate;
    if (r.compute.has_estimate) {
      char us[32];
      std::snprintf(us, sizeof us, "%.3f", e.microseconds);
      jobs << e.cycles << "," << us << "," << e.bound << "," << e.n_par;
    } else {
      jobs << ",,,";
    }
    jobs << ",";
    if (run.host_times && r.has_compute && r.compute.host_seconds >= 0) {
      char hs[32];
      std::snprintf(hs, sizeof hs, "%.6f", r.compute.host_seconds);
      jobs << hs;
    }
    jobs << "\n";
  }
  ShaderCounters t = run.shader_totals();
  std::ostringstream ops;
  ops << "opcode,thread_instructions\n";
  for (const auto& [k, v] : t.by_opcode) ops << k << "," << v << "\n";
  std::ostringstream classes;
  classes << "class,thread_instructions\n";
  for (const auto& [k, v] : t.by_class) classes << k << "," << v << "\n";
  std::ostringstream sizes;
  sizes << "tuples,dynamic,static\n";
  for (unsigned n = 1; n <= 8; ++n)
    sizes << n << "," << t.clause_size_dynamic[n] << "," << t.clause_size_static[n] << "\n";
  std::ostringstream mem;
  mem << "segment_op,accesses,bytes\n";
  for (const auto& [k, m] : t.memory) mem << k << "," << m.accesses << "," << m.bytes << "\n";
  std::ostringstream regs;
  regs << "register,reads,writes\n";
  std::set<std::string> names;
  for (const auto& [k, v] : run.device.reg_reads) names.insert(k);
  for (const auto& [k, v] : run.device.reg_writes) names.insert(k);
  for (const auto& n : names) {
    auto r = run.device.reg_reads.find(n);
    auto w = run.device.reg_writes.find(n);
    regs << n << "," << (r == run.device.reg_reads.end() ? 0 : r->second) << ","
         << (w == run.device.reg_writes.end() ? 0 : w->second) << "\n";
  }
  const std::pair<const char*, std::string> files[] = {
      {"jobs.csv", jobs.str()},          {"opcodes.csv", ops.str()}, {"classes.csv", classes.str()},
      {"clause_sizes.csv", sizes.str()}, {"memory.csv", mem.str()},  {"gpu_registers.csv", regs.str()}};
  for (const auto& [name, text] : files)
    if (!write_file((std::filesystem::path(dir) / name).string(), text, error)) return false;
  // One control-flow graph per shader (Graphviz: dot -Tsvg FILE).
  const std::vector<ShaderCfg> shaders = run.shaders();
  for (size_t i = 0; i < shaders.size(); ++i) {
    const ShaderCfg& cfg = shaders[i];
    std::string name =
        "cfg" + std::to_string(i) + "_as" + std::to_string(cfg.as) + "_" + hex(cfg.entry) + ".dot";
    if (!write_file((std::filesystem::path(dir) / name).string(), cfg_dot(cfg), error)) return false;
  }
  return true;
}

std::string cfg_dot(const ShaderCfg& cfg) {
  std::ostringstream o;
  o << "digraph shader_" << hex(cfg.entry) << " {\n  node [shape=box, fontname=monospace];\n";
  o << "  label=\"shader " << hex(cfg.entry) << " (AS" << cfg.as
    << "): clauses with warp/thread executions; edges: lanes\";\n";
  bool ends = false;
  for (const auto& [pc, n] : cfg.nodes) {
    // Graphviz label: the instructions left-aligned (\l), quotes made harmless.
    std::string lines;
    for (char ch : n.text)
      lines += ch == '\n' ? std::string("\\l") : ch == '"' ? std::string("'") : std::string(1, ch);
    o << "  \"" << hex(pc) << "\" [label=\"" << hex(pc) << "  " << n.tuples << " tuples\\n"
      << lines << "warps " << n.warp_executions << ", threads " << n.thread_executions;
    if (n.divergent) {
      o << "\\ndivergent " << n.divergent << ": taken masks";
      for (unsigned m = 0; m < 16; ++m)
        if (n.taken_masks[m]) o << " " << hex(m) << ":" << n.taken_masks[m];
      o << "\", color=red, penwidth=2";
    } else
      o << "\"";
    o << (pc == cfg.entry ? ", style=bold" : "") << "];\n";
    for (const auto& [to, e] : n.successors) {
      ends |= to == ShaderCfg::kEnd;
      o << "  \"" << hex(pc) << "\" -> \"" << (to == ShaderCfg::kEnd ? std::string("end") : hex(to))
        << "\" [label=\"" << e.lanes << "\"];\n";
    }
  }
  if (ends) o << "  \"end\" [shape=oval];\n";
  o << "}\n";
  return o.str();
}

std::string timeline_json(const Run& run, const std::vector<TimelineEvent>& events) {
  // Chrome's trace viewer and Perfetto read "X" (complete) events with microsecond timestamps; pid groups the
  // tracks (1 GPU job slots, 2 GPU interrupt lines, 3 CPUs).
  const double us_per_tick = 1e6 / static_cast<double>(run.tick_hz);
  std::ostringstream o;
  o << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  o << "{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", \"args\": {\"name\": \"GPU job slots\"}},\n";
  o << "{\"ph\": \"M\", \"pid\": 2, \"name\": \"process_name\", \"args\": {\"name\": \"GPU interrupts\"}},\n";
  o << "{\"ph\": \"M\", \"pid\": 3, \"name\": \"process_name\", \"args\": {\"name\": \"CPUs (idle in "
       "WFI)\"}}";
  for (const auto& e : events) {
    int pid = e.kind == TimelineEvent::Kind::Job ? 1 : e.kind == TimelineEvent::Kind::Irq ? 2 : 3;
    char b[160];
    std::snprintf(b, sizeof b,
                  ",\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %u, \"ts\": %.3f, \"dur\": %.3f, \"name\": ", pid,
                  e.track, static_cast<double>(e.start) * us_per_tick,
                  static_cast<double>(e.end - std::min(e.end, e.start)) * us_per_tick);
    o << b << quote(e.name) << "}";
  }
  o << "\n]}\n";
  return o.str();
}

} // namespace vplat::stats
