#include "gpu-bifrost/job_chain.h"
#include "gpu-bifrost/mali_regs.h"
#include <cinttypes>
#include <cstdio>
#include <algorithm>
#include <cstring>

namespace vplat::gpu {

namespace {
uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
std::string format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}
} // namespace

const char* job::type_name(uint32_t type) {
  static const char* names[] = {"NotStarted", "Null",   "WriteValue", "CacheFlush", "Compute",      "Vertex",
                                "Geometry",   "Tiler",  "Fused",      "Fragment",   "IndexedVertex"};
  return type < 11 ? names[type] : "(no such type)";
}

JobHeader JobHeader::decode(const uint8_t (&raw)[job::kHeaderSize]) {
  JobHeader h;
  h.exception_status = le32(raw + 0);
  h.first_incomplete_task = le32(raw + 4);
  h.fault_pointer = le64(raw + 8);
  uint32_t w4 = le32(raw + 16), w5 = le32(raw + 20);
  h.is_64b = w4 & 1;
  h.type = (w4 >> 1) & 0x7f;
  h.barrier = (w4 >> 8) & 1;
  h.index = static_cast<uint16_t>(w4 >> 16);
  h.dep1 = static_cast<uint16_t>(w5);
  h.dep2 = static_cast<uint16_t>(w5 >> 16);
  h.next = le64(raw + 24);
  return h;
}

bool decode_invocation(uint32_t word0, uint32_t word1, uint32_t (&local_size)[3], uint32_t (&workgroups)[3],
                       uint32_t& thread_group_split) {
  // Field starts: size_x at 0, then the five shifts of word 1; the last field ends at bit 32.
  unsigned start[7] = {0,
                       word1 & 0x1f,
                       (word1 >> 5) & 0x1f,
                       (word1 >> 10) & 0x3f,
                       (word1 >> 16) & 0x3f,
                       (word1 >> 22) & 0x3f,
                       32};
  uint32_t value[6];
  for (unsigned i = 0; i < 6; i++) {
    if (start[i] > start[i + 1] || start[i + 1] > 32) return false;
    unsigned width = start[i + 1] - start[i];
    uint64_t field = width == 0 ? 0 : (uint64_t{word0} >> start[i]) & ((uint64_t{1} << width) - 1);
    value[i] = static_cast<uint32_t>(field + 1);
  }
  for (unsigned i = 0; i < 3; i++) {
    local_size[i] = value[i];
    workgroups[i] = value[3 + i];
  }
  thread_group_split = word1 >> 28;
  return true;
}

ChainRunner::ChainRunner(ChainMemory& memory, unsigned as, bool writeback, ShaderCore* shader_core,
                         const std::atomic<bool>& abort, bool trace)
    : mem_(memory), as_(as), writeback_(writeback), shader_core_(shader_core), abort_(abort), trace_(trace),
      done_(std::make_shared<std::bitset<65536>>()) {}

void ChainRunner::begin(uint64_t head, const ResumeState* resume) {
  walk_ = head;
  tail_ = head;
  if (resume && resume->at == head && resume->done) {
    *done_ = *resume->done;
    executed_ = resume->executed;
  }
}

ResumeState ChainRunner::resume_state() const {
  ResumeState r;
  r.at = stop_point();
  r.done = std::make_shared<std::bitset<65536>>(*done_);
  r.executed = executed_;
  return r;
}

StepOutcome ChainRunner::step(const StepEnv& env) {
  in_job_ = false;
  auto execute = [&](uint64_t addr, const JobHeader& h, const StepEnv& e) {
    StepOutcome o = this->execute(addr, h, e);
    o.job_type = h.type;
    o.job_at = addr;
    return o;
  };
  // A job waiting for its dependencies that can run now goes first, in chain order.
  for (size_t i = 0; i < pending_.size(); i++) {
    if (!ready(pending_[i].h, i == 0)) continue;
    Pending p = pending_[i];
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    current_from_ = i;
    return execute(p.addr, p.h, env);
  }
  while (walk_ != 0) {
    uint64_t addr = walk_;
    tail_ = addr;
    // Bounded walk and cycle detection: real hardware would spin on a cyclic chain until the driver's
    // timeout; the model ends it at once with a configuration fault.
    if (++walked_ > job::kMaxChainJobs || !visited_.insert(addr).second) return end(exc::JOB_CONFIG_FAULT, addr, true);
    if (addr % job::kHeaderAlign) return end(exc::JOB_CONFIG_FAULT, addr, false);
    uint8_t raw[job::kHeaderSize];
    if (!mem_.read(addr, raw, sizeof raw)) return end_access(addr, false); // unreadable, so not writable either
    JobHeader h = JobHeader::decode(raw);
    // Only the 64-bit descriptor layout exists on Bifrost.
    if (!h.is_64b) return end(exc::JOB_CONFIG_FAULT, addr, true);
    walk_ = h.next;
    // A resumed chain: the job ran before the stop.
    if (executed_.count(addr)) {
      (*done_)[h.index] = true;
      continue;
    }
    if (ready(h, pending_.empty())) {
      current_from_ = pending_.size(); // after every waiting job: they come earlier in the chain
      return execute(addr, h, env);
    }
    pending_.push_back({addr, h});
  }
  // Jobs still waiting can never run: a dependency on an index no job in the chain has. The hardware
  // would wait for ever; the model reports the first of them as misconfigured.
  if (!pending_.empty()) return end(exc::JOB_CONFIG_FAULT, pending_.front().addr, true);
  StepOutcome o;
  o.kind = StepOutcome::Kind::ChainEnd;
  o.status = exc::DONE;
  o.head = 0;
  o.tail = tail_;
  return o;
}

StepOutcome ChainRunner::stop(uint32_t code) {
  uint64_t at = stop_point();
  if (at == 0) {
    StepOutcome o;
    o.status = exc::DONE;
    o.tail = tail_;
    return o;
  }
  StepOutcome o;
  o.status = code;
  o.head = o.tail = at;
  return o;
}

StepOutcome ChainRunner::execute(uint64_t addr, const JobHeader& h, const StepEnv& env) {
  tail_ = addr;
  in_job_ = true;
  current_h_ = h;
  std::string trace;
  if (trace_)
    trace = format("job 0x%" PRIx64 " %s index %u deps %u,%u%s next 0x%" PRIx64, addr, job::type_name(h.type),
                   h.index, h.dep1, h.dep2, h.barrier ? " barrier" : "", h.next);
  uint64_t cycles = 0, completion_ticks = 0;
  switch (h.type) {
  case job::Null:
  case job::CacheFlush: // no caches are modelled: memory is always coherent
    break;
  case job::WriteValue: {
    uint8_t payload[24];
    if (!mem_.read(addr + job::kHeaderSize, payload, sizeof payload)) return end_access(addr, true);
    uint64_t target = le64(payload + 0);
    uint32_t type = le32(payload + 8);
    uint64_t imm = le64(payload + 16);
    uint64_t value = 0;
    size_t size = 8;
    switch (type) {
    case job::CycleCounter: value = env.cycle_count; break;
    case job::SystemTimestamp: value = env.timestamp; break;
    case job::Zero: value = 0; break;
    case job::Immediate8: value = imm; size = 1; break;
    case job::Immediate16: value = imm; size = 2; break;
    case job::Immediate32: value = imm; size = 4; break;
    case job::Immediate64: value = imm; break;
    default: {
      StepOutcome o = end(exc::JOB_CONFIG_FAULT, addr, true);
      o.trace = trace;
      return o;
    }
    }
    if (trace_) trace += format(" write %zu bytes 0x%" PRIx64 " to 0x%" PRIx64, size, value, target);
    uint8_t bytes[8];
    std::memcpy(bytes, &value, 8); // little-endian host, as the guest
    if (!mem_.write(target, bytes, size)) {
      StepOutcome o = end_access(addr, true);
      o.trace = trace;
      return o;
    }
    break;
  }
  case job::Compute: {
    StepOutcome o = run_compute(addr, h, trace);
    if (o.kind == StepOutcome::Kind::ChainEnd) return o;
    cycles = o.gpu_cycles;
    completion_ticks = o.completion_ticks;
    break;
  }
  default: {
    // Vertex/Geometry/Tiler/Fused/Fragment/Indexed Vertex need the fixed-function units this model does not
    // have, and types 0 and > 10 do not exist: the job faults as misconfigured.
    StepOutcome o = end(exc::JOB_CONFIG_FAULT, addr, true);
    o.trace = trace;
    return o;
  }
  }
  if (writeback_) {
    uint32_t done = exc::DONE;
    if (!mem_.write(addr, &done, 4)) {
      StepOutcome o = end_access(addr, false);
      o.trace = trace;
      return o;
    }
  }
  (*done_)[h.index] = true;
  executed_.insert(addr);
  StepOutcome o;
  o.kind = StepOutcome::Kind::JobDone;
  o.job_va = addr;
  o.gpu_cycles = cycles;
  o.completion_ticks = completion_ticks;
  o.trace = std::move(trace);
  return o;
}

StepOutcome ChainRunner::run_compute(uint64_t addr, const JobHeader&, std::string& trace) {
  auto fail = [&](StepOutcome o) {
    o.trace = trace;
    return o;
  };
  uint8_t d[job::kComputeJobSize];
  if (!mem_.read(addr, d, sizeof d)) return fail(end_access(addr, true));
  ComputeJob cj;
  cj.job_va = addr;
  cj.as = as_;
  cj.invocation_raw[0] = le32(d + 32);
  cj.invocation_raw[1] = le32(d + 36);
  if (!decode_invocation(cj.invocation_raw[0], cj.invocation_raw[1], cj.local_size, cj.workgroups,
                         cj.thread_group_split)) {
    if (trace_) trace += format(" invocation 0x%08x 0x%08x: bad shifts", cj.invocation_raw[0], cj.invocation_raw[1]);
    return fail(end(exc::JOB_CONFIG_FAULT, addr, true));
  }
  cj.job_task_split = (le32(d + 40) >> 26) & 0xf;
  const uint8_t* draw = d + 64;
  cj.uniform_buffers_va = le64(draw + 6 * 4);
  cj.textures_va = le64(draw + 8 * 4);
  cj.samplers_va = le64(draw + 10 * 4);
  cj.push_uniforms_va = le64(draw + 12 * 4);
  cj.renderer_state_va = le64(draw + 14 * 4);
  cj.attribute_buffers_va = le64(draw + 16 * 4);
  cj.attributes_va = le64(draw + 18 * 4);
  cj.thread_storage_va = le64(draw + 28 * 4);
  if (trace_)
    trace += format(" local %ux%ux%u workgroups %ux%ux%u split %u task-split %u rsd 0x%" PRIx64 " tls 0x%" PRIx64,
                    cj.local_size[0], cj.local_size[1], cj.local_size[2], cj.workgroups[0], cj.workgroups[1],
                    cj.workgroups[2], cj.thread_group_split, cj.job_task_split, cj.renderer_state_va,
                    cj.thread_storage_va);

  // The descriptors the draw points at are read as the hardware reads them: through the MMU, so a bad
  // pointer is a translation fault like any other.
  uint8_t rsd[job::kRendererStateSize];
  if (!mem_.read(cj.renderer_state_va, rsd, sizeof rsd)) return fail(end_access(addr, true));
  cj.shader_pc = le64(rsd + 0);
  cj.sampler_count = le32(rsd + 8) & 0xffff;
  cj.texture_count = le32(rsd + 8) >> 16;
  cj.attribute_count = le32(rsd + 12) & 0xffff;
  cj.varying_count = le32(rsd + 12) >> 16;
  uint32_t props = le32(rsd + 16);
  cj.uniform_buffer_count = props & 0xff;
  cj.shader_contains_barrier = (props >> 11) & 1;
  cj.preload = le32(rsd + 48);
  cj.push_uniform_words = (cj.preload >> 15) & 0x7f;

  uint8_t tls[job::kLocalStorageSize];
  if (!mem_.read(cj.thread_storage_va, tls, sizeof tls)) return fail(end_access(addr, true));
  uint32_t t0 = le32(tls + 0), t1 = le32(tls + 4);
  cj.tls_size = t0 & 0x1f;
  cj.tls_initial_sp_offset = t0 >> 5;
  cj.wls_instances_log2 = t1 & 0x1f;
  cj.wls_size_base = (t1 >> 5) & 0x3;
  cj.wls_size_scale = (t1 >> 8) & 0x1f;
  cj.tls_base = le64(tls + 8);
  cj.wls_base = le64(tls + 16);

  if (cj.uniform_buffer_count) {
    std::vector<uint8_t> ubos(size_t{cj.uniform_buffer_count} * 8);
    if (!mem_.read(cj.uniform_buffers_va, ubos.data(), ubos.size())) return fail(end_access(addr, true));
    for (uint32_t i = 0; i < cj.uniform_buffer_count; i++) {
      uint64_t v = le64(ubos.data() + 8 * i);
      cj.uniform_buffers.push_back({(v >> 12) << 4, static_cast<uint32_t>(v & 0xfff) + 1});
    }
  }
  if (trace_)
    trace += format(" shader 0x%" PRIx64 " ubos %u push-words %u", cj.shader_pc, cj.uniform_buffer_count,
                    cj.push_uniform_words);

  if (!shader_core_) {
    // No shader cores are attached (the [GPU-SC] model plugs in here): the job cannot run and faults as
    // misconfigured, like the job types without a model.
    if (trace_) trace += " (no shader core attached)";
    return fail(end(exc::JOB_CONFIG_FAULT, addr, true));
  }
  ShaderResult r = shader_core_->run_compute(cj, mem_, abort_);
  // A failed access decides the status (the shader core may not know it); an abort is a termination.
  uint32_t status = mem_.fault_status() ? mem_.fault_status() : r.status;
  if (abort_.load() && status == exc::DONE) status = exc::TERMINATED;
  if (status != exc::DONE) {
    bool stopped = status == exc::STOPPED || status == exc::TERMINATED;
    StepOutcome o = end(status, addr, !stopped, mem_.fault_status() ? mem_.fault_address() : 0);
    o.mmu_fault = mem_.take_unreported_fault();
    if (status == exc::STOPPED) requeue_stopped(addr, o);
    return fail(o);
  }
  if (trace_ && r.has_estimate)
    trace += format(" estimate %" PRIu64 " cycles %.3f us", r.estimate_cycles, r.estimate_us);
  StepOutcome o;
  o.kind = StepOutcome::Kind::JobDone;
  o.gpu_cycles = r.gpu_cycles;
  o.completion_ticks = r.completion_ticks;
  return o;
}

// Ends the chain at job `addr` with `code`, written back into its header when possible (best effort: the
// header may be what faulted).
StepOutcome ChainRunner::end(uint32_t code, uint64_t addr, bool writeback, uint64_t fault_va) {
  StepOutcome o;
  o.kind = StepOutcome::Kind::ChainEnd;
  o.status = code;
  o.head = o.tail = addr;
  if (writeback && writeback_ && addr % job::kHeaderAlign == 0) {
    uint8_t w[16];
    uint32_t first_incomplete = 0;
    std::memcpy(w, &code, 4);
    std::memcpy(w + 4, &first_incomplete, 4);
    std::memcpy(w + 8, &fault_va, 8);
    mem_.write_no_stall(addr, w, sizeof w);
  }
  return o;
}

// Ends the chain after a failed access: the memory says why. A stopped chain leaves its job untouched (it
// resumes from it); a fault is written back with the faulting address.
StepOutcome ChainRunner::end_access(uint64_t addr, bool writeback) {
  uint32_t code = mem_.fault_status();
  if (code == 0) code = exc::JOB_BUS_FAULT; // not reached: every failed access records its status
  bool stopped = code == exc::STOPPED || code == exc::TERMINATED;
  StepOutcome o = end(code, addr, writeback && !stopped, mem_.fault_address());
  o.mmu_fault = mem_.take_unreported_fault();
  if (code == exc::STOPPED) requeue_stopped(addr, o);
  return o;
}

// A soft stop inside a job: the job did not complete, so it goes back where it was taken from and the
// chain resumes from the earliest job not yet done.
void ChainRunner::requeue_stopped(uint64_t addr, StepOutcome& o) {
  if (in_job_) pending_.insert(pending_.begin() + static_cast<std::ptrdiff_t>(std::min(current_from_, pending_.size())),
                               Pending{addr, current_h_});
  o.head = o.tail = stop_point();
}

} // namespace vplat::gpu
