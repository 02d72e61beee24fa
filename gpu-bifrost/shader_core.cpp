#include "gpu-bifrost/shader_core.h"
#include "gpu-bifrost/shader_thread.h"
#include "gpu-bifrost/mali_regs.h"
#include "bifrost_isa.h"
#include <algorithm>

namespace vplat::gpu::bifrost {

namespace gen = vplat::gen::bifrost;

// ---------------------------------------------------------------- cache

namespace {

bool read_qword(ShaderMemory& mem, unsigned as, uint64_t addr, uint64_t& lo, uint64_t& hi, MmuFault& fault) {
  uint64_t q[2];
  if (!mem.read(as, addr, q, 16, fault, Access::Execute)) return false;
  lo = q[0];
  hi = q[1];
  return true;
}

} // namespace

std::shared_ptr<const DecodedClause> ShaderCache::get(ShaderMemory& mem, unsigned as, uint64_t address,
                                                       MmuFault& fault) {
  auto key = std::make_pair(as, address);
  std::shared_ptr<const DecodedClause> known;
  std::vector<uint64_t> known_raw;
  uint64_t epoch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    epoch = epoch_;
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      Entry& e = it->second;
      if (e.epoch == epoch_) {
        ++stats_.hits;
        return e.clause;
      }
      ++stats_.revalidations;
      known = e.clause;
      known_raw = e.raw;
    }
  }
  // First use in this job: the bytes must still be those it was decoded from.
  if (known) {
    bool same = true;
    for (size_t i = 0; i < known_raw.size() / 2 && same; ++i) {
      uint64_t lo = 0, hi = 0;
      if (!read_qword(mem, as, address + 16 * i, lo, hi, fault)) return nullptr;
      same = lo == known_raw[2 * i] && hi == known_raw[2 * i + 1];
    }
    if (same) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end() && it->second.clause == known) it->second.epoch = std::max(it->second.epoch, epoch);
      return known;
    }
  }
  auto c = std::make_shared<DecodedClause>();
  std::vector<uint64_t> raw;
  bool ok = decode_clause(
      address,
      [&](uint64_t a, uint64_t& lo, uint64_t& hi) {
        if (!read_qword(mem, as, a, lo, hi, fault)) return false;
        raw.push_back(lo);
        raw.push_back(hi);
        return true;
      },
      *c);
  if (!ok) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.decodes;
  if (entries_.size() >= kMaxEntries) entries_.clear();
  Entry& e = entries_[key];
  e.clause = c;
  e.raw = std::move(raw);
  e.epoch = epoch;
  return c;
}

void ShaderCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
}

ShaderCache::Stats ShaderCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

// ---------------------------------------------------------------- execution

namespace {

void write_slot(gen::State& s, SlotOp op, unsigned reg, uint32_t v) {
  uint32_t& r = s.R[reg & 63];
  switch (op) {
  case SlotOp::Write: r = v; break;
  case SlotOp::WriteLo: r = (r & 0xffff0000u) | (v & 0xffffu); break;
  case SlotOp::WriteHi: r = (r & 0x0000ffffu) | (v & 0xffff0000u); break;
  default: break;
  }
}

void commit_writes(gen::State& s, const DecodedTuple& t, uint32_t fma_result, uint32_t add_result) {
  write_slot(s, t.write2, t.write2_reg, fma_result);
  write_slot(s, t.write3, t.write3_reg, t.write3_fma ? fma_result : add_result);
}

uint64_t fau_word(const DecodedTuple& t, const QuadLaunch& l, unsigned lane) {
  switch (t.fau_kind) {
  case FauKind::Constant: return t.fau_const;
  case FauKind::Uniform: {
    unsigned i = t.fau_idx & 0x7f;
    return i < l.uniform_count && l.uniforms ? l.uniforms[i] : 0;
  }
  case FauKind::Special:
  default:
    // Compute-relevant special values; the graphics ones (framebuffer size, blend descriptors, ...) read 0.
    switch (t.fau_idx) {
    case 1: return lane;
    case 2: return l.warp_id;
    case 3: return l.core_id;
    default: return 0;
    }
  }
}

} // namespace

QuadExec::QuadExec(const QuadLaunch& l, ShaderMemory& mem, ShaderCache& cache, ClauseMemo* memo)
    : launch_(l), mem_(mem), cache_(cache), memo_(memo), th_(std::make_unique<std::array<ShaderThread, kQuadLanes>>()) {
  live_ = l.active & 0xf;
  for (unsigned i = 0; i < kQuadLanes; ++i) {
    ShaderThread& t = (*th_)[i];
    t.mmu = &mem_;
    t.as = l.as;
    t.wls = {l.wls_base, l.wls_size};
    t.tls = {l.tls_base[i], l.tls_size};
    t.ubo_table = l.ubo_table;
    t.ubo_count = l.ubo_count;
    t.attr_table = l.attr_table;
    t.attr_buffers = l.attr_buffers;
    t.attr_count = l.attr_count;
    t.image_bytes = memo && memo->counting ? memo->image_bytes.data() : nullptr;
    t.quad = th_->data();
    std::copy(l.regs[i].begin(), l.regs[i].end(), t.s.R);
    pc_[i] = l.entry;
  }
  if (!live_) status_ = Status::Done;
  if (l.timing) clock_ = models::WarpClock(models::warp_start(l.warp_id, models::g71()));
}

QuadExec::~QuadExec() = default;
QuadExec::QuadExec(QuadExec&& o) noexcept
    : launch_(o.launch_), mem_(o.mem_), cache_(o.cache_), memo_(o.memo_), th_(std::move(o.th_)), pc_(o.pc_), live_(o.live_),
      status_(o.status_), res_(std::move(o.res_)), clock_(o.clock_) {}

QuadResult QuadExec::result() const {
  QuadResult r = res_;
  switch (status_) {
  case Status::Fault: r.status = QuadResult::Status::Fault; break;
  case Status::Timeout: r.status = QuadResult::Status::Timeout; break;
  default: r.status = QuadResult::Status::Done; break;
  }
  for (unsigned i = 0; i < kQuadLanes; ++i) std::copy((*th_)[i].s.R, (*th_)[i].s.R + kNumRegs, r.regs[i].begin());
  return r;
}

QuadExec::Status QuadExec::fail(uint32_t code, uint64_t at, const std::string& why) {
  res_.exception = code;
  res_.fault_pc = at;
  res_.error = why;
  return status_ = Status::Fault;
}

QuadExec::Status QuadExec::step() {
  if (status_ != Status::Running) return status_;
  if (res_.clauses >= launch_.max_clauses) {
    res_.error = "clause budget exhausted";
    return status_ = Status::Timeout;
  }
  auto& th = *th_;
  uint64_t at = UINT64_MAX;
  for (unsigned i = 0; i < kQuadLanes; ++i)
    if (live_ >> i & 1) at = std::min(at, pc_[i]);
  uint8_t mask = 0;
  for (unsigned i = 0; i < kQuadLanes; ++i)
    if ((live_ >> i & 1) && pc_[i] == at) mask |= static_cast<uint8_t>(1u << i);

  ClauseMemo::Entry* entry = memo_ ? memo_->find(launch_.as, at) : nullptr;
  const DecodedClause* clause = entry ? entry->clause.get() : nullptr;
  std::shared_ptr<const DecodedClause> held;
  if (!clause) {
    MmuFault mf;
    held = cache_.get(mem_, launch_.as, at, mf);
    if (!held) {
      res_.mmu_fault = mf;
      return fail(mf.exception ? mf.exception : kInstrInvalidPc, at, "clause fetch failed");
    }
    clause = held.get();
    if (memo_) entry = memo_->add(launch_.as, at, std::move(held));
  }
  const DecodedClause& c = *clause;
  if (c.exception) return fail(c.exception, at, c.error);
  ++res_.clauses;
  if (launch_.timing) clock_.step(c.cost);

  std::array<uint32_t, kQuadLanes> fma_out{}, add_out{};
  for (unsigned i = 0; i < kQuadLanes; ++i) {
    if (!(mask >> i & 1)) continue;
    gen::State& s = th[i].s;
    s.SR = static_cast<uint8_t>(c.staging_register());
    s.PC = c.address;
    s.NPC = c.next();
    s.FAULT = 0;
    s.BARRIER = 0;
  }
  for (unsigned ti = 0; ti < c.tuple_count; ++ti) {
    const DecodedTuple& t = c.tuples[ti];
    ++res_.tuples;
    // Ports read the registers before the previous tuple's writes land, in every lane before any lane executes:
    // a cross-lane op (+CLPER_V6) reads another lane's port value of this tuple.
    for (unsigned i = 0; i < kQuadLanes; ++i) {
      gen::State& s = th[i].s;
      for (unsigned p = 0; p < 3; ++p) s.PORT[p] = t.port_read[p] ? s.R[t.port_reg[p] & 63] : 0;
    }
    for (unsigned i = 0; i < kQuadLanes; ++i) {
      if (!(mask >> i & 1)) continue;
      gen::State& s = th[i].s;
      if (ti > 0) commit_writes(s, c.tuples[ti - 1], fma_out[i], add_out[i]);
      s.FAU = fau_word(t, launch_, i);
      s.STAGE = 0;
      s.DEST = 0;
      gen::kExec[t.fma_id](s, t.fma_word);
      if (s.FAULT) {
        res_.mmu_fault = th[i].mmu_fault;
        return fail(s.FAULT, at, "FMA fault");
      }
      uint32_t f = s.DEST;
      s.STAGE = f;
      s.DEST = 0;
      gen::kExec[t.add_id](s, t.add_word);
      if (s.FAULT) {
        res_.mmu_fault = th[i].mmu_fault;
        return fail(s.FAULT, at, "ADD fault");
      }
      fma_out[i] = f;
      add_out[i] = s.DEST;
      s.T0 = f;
      s.T1 = s.DEST;
      res_.lane_instructions += 2;
    }
  }
  bool barrier = false;
  uint8_t taken_lanes = 0, ended = 0;
  for (unsigned i = 0; i < kQuadLanes; ++i) {
    if (!(mask >> i & 1)) continue;
    gen::State& s = th[i].s;
    barrier |= s.BARRIER != 0;
    if (c.tuple_count) commit_writes(s, c.tuples[c.tuple_count - 1], fma_out[i], add_out[i]);
    bool taken = s.NPC != c.next();
    // A thread ends at the end of an END clause it falls out of, or when it branches to address 0: Mesa
    // lowers every branch to the end of the program (bi_is_terminal_block targets) to an absolute target of 0
    // (an embedded constant 0 that is not PC-relative), in any clause, and its shaders run on Bifrost
    // hardware; no clause is ever fetched there. Only the target's low 32 bits are encoded.
    bool returns = taken && static_cast<uint32_t>(s.NPC) == 0;
    taken_lanes |= static_cast<uint8_t>((taken && !returns) << i);
    if ((c.flow() == 0 && !taken) || returns) ended |= static_cast<uint8_t>(1u << i); // end of shader
    pc_[i] = s.NPC;
  }
  live_ &= static_cast<uint8_t>(~ended);
  // The one place a clause execution is counted (statistics; see clause_stats.h).
  if (entry && memo_->counting) entry->counts.count(mask, taken_lanes, ended, pc_);
  if (!live_) status_ = Status::Done;
  else if (barrier) status_ = Status::AtBarrier;
  return status_;
}

void ClauseMemo::take_counts(ClauseTally& into) {
  into.merge(spilled_);
  spilled_ = {};
  for (size_t i = 0; i < image_bytes.size(); ++i) into.image_bytes[i] += image_bytes[i];
  image_bytes = {};
  for (auto& [k, e] : map_) {
    if (!e.counts.executions()) continue;
    into.add(e.as, e.clause->address, e.clause, e.counts);
    e.counts = {};
  }
}

QuadResult ShaderCore::run_quad(const QuadLaunch& l) {
  QuadExec q(l, mem_, cache_, memo_.get());
  for (;;) {
    auto st = q.step();
    if (st == QuadExec::Status::AtBarrier) q.release_barrier();
    else if (st != QuadExec::Status::Running) break;
  }
  return q.result();
}

QuadResult ShaderCore::run_workgroup(const Workgroup& wg) {
  std::vector<QuadExec> quads;
  uint64_t threads = uint64_t(wg.size[0]) * wg.size[1] * wg.size[2];
  for (uint64_t base = 0; base < threads; base += kQuadLanes) {
    QuadLaunch l;
    l.entry = wg.entry;
    l.as = wg.as;
    l.max_clauses = wg.max_clauses;
    l.timing = wg.timing;
    l.uniforms = wg.uniforms;
    l.uniform_count = wg.uniform_count;
    l.active = 0;
    l.warp_id = static_cast<uint32_t>(base / kQuadLanes);
    l.wls_base = wg.mem.wls_base;
    l.wls_size = wg.mem.wls_size;
    l.tls_size = wg.mem.tls_size;
    l.ubo_table = wg.mem.ubo_table;
    l.ubo_count = wg.mem.ubo_count;
    l.attr_table = wg.mem.attr_table;
    l.attr_buffers = wg.mem.attr_buffers;
    l.attr_count = wg.mem.attr_count;
    for (unsigned lane = 0; lane < kQuadLanes && base + lane < threads; ++lane) {
      uint64_t t = base + lane;
      uint32_t x = static_cast<uint32_t>(t % wg.size[0]);
      uint32_t y = static_cast<uint32_t>(t / wg.size[0] % wg.size[1]);
      uint32_t z = static_cast<uint32_t>(t / (uint64_t(wg.size[0]) * wg.size[1]));
      auto& r = l.regs[lane];
      auto want = [&](unsigned bit) { return (wg.preload >> bit & 1) != 0; };
      if (want(7)) r[55] = (x & 0xffff) | (y << 16);
      if (want(8)) r[56] = z;
      for (unsigned d = 0; d < 3; ++d) {
        if (want(9 + d)) r[57 + d] = wg.id[d];
        uint32_t local = d == 0 ? x : d == 1 ? y : z;
        if (want(12 + d)) r[60 + d] = wg.id[d] * wg.size[d] + local;
      }
      l.tls_base[lane] = wg.mem.tls_base + t * wg.mem.tls_size;
      l.active |= static_cast<uint8_t>(1u << lane);
    }
    quads.emplace_back(l, mem_, cache_, memo_.get());
  }
  QuadResult total;
  total.warps = quads.size();
  auto add_counts = [&](const QuadResult& q) {
    total.clauses += q.clauses;
    total.tuples += q.tuples;
    total.lane_instructions += q.lane_instructions;
  };
  for (bool running = true; running;) {
    if (wg.stop && wg.stop()) {
      for (auto& o : quads) add_counts(o.result());
      total.status = QuadResult::Status::Fault;
      total.exception = exc::TERMINATED;
      total.error = "stopped";
      return total;
    }
    running = false;
    bool waiting = false;
    for (auto& q : quads) {
      auto st = q.step();
      if (st == QuadExec::Status::Running) running = true;
      else if (st == QuadExec::Status::AtBarrier) waiting = true;
      else if (st != QuadExec::Status::Done) {
        QuadResult r = q.result();
        for (auto& o : quads) add_counts(o.result());
        r.clauses = total.clauses;
        r.tuples = total.tuples;
        r.lane_instructions = total.lane_instructions;
        r.warps = total.warps;
        return r;
      }
    }
    // Everyone still alive is at the barrier: release them together.
    if (!running && waiting) {
      uint64_t latest = 0;
      for (auto& q : quads)
        if (q.status() == QuadExec::Status::AtBarrier) latest = std::max(latest, q.clock().now());
      const uint64_t release = models::barrier_release(latest, models::g71());
      for (auto& q : quads) {
        if (wg.timing && q.status() == QuadExec::Status::AtBarrier) q.clock().release_at(release);
        q.release_barrier();
      }
      running = true;
    }
  }
  for (auto& q : quads) add_counts(q.result());
  if (wg.timing) {
    std::vector<const models::WarpClock*> clocks;
    clocks.reserve(quads.size());
    for (auto& q : quads) clocks.push_back(&q.clock());
    total.timing = models::combine_warps(clocks, models::g71());
  }
  return total;
}

} // namespace vplat::gpu::bifrost
