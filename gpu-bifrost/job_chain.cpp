#include "gpu-bifrost/job_chain.h"
#include "gpu-bifrost/mali_regs.h"
#include <bitset>
#include <cstring>
#include <memory>
#include <unordered_set>
#include <vector>

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
} // namespace

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

namespace {

class ChainRunner {
public:
  ChainRunner(GpuMmu& mmu, const ChainEnv& env) : mmu_(mmu), env_(env), done_(new std::bitset<65536>) {}

  ChainResult run(uint64_t head) {
    uint64_t addr = head;
    unsigned walked = 0;
    while (addr != 0) {
      result_.tail = addr;
      // Bounded walk and cycle detection: real hardware would spin on a cyclic chain until the driver's
      // timeout; the model ends it at once with a configuration fault.
      if (++walked > job::kMaxChainJobs || !visited_.insert(addr).second) return fail(addr, exc::JOB_CONFIG_FAULT);
      if (addr % job::kHeaderAlign) return fail(addr, exc::JOB_CONFIG_FAULT);
      uint8_t raw[job::kHeaderSize];
      MmuFault f;
      if (!mmu_.read(env_.as, addr, raw, sizeof raw, f)) {
        fail_access(addr, f, /*writeback=*/false); // the header cannot be read, so not written either
        return result_;
      }
      JobHeader h = JobHeader::decode(raw);
      // Only the 64-bit descriptor layout exists on Bifrost.
      if (!h.is_64b) return fail(addr, exc::JOB_CONFIG_FAULT);
      if (ready(h, pending_.empty())) {
        if (!execute(addr, h)) return result_;
        if (!drain()) return result_;
      } else {
        pending_.push_back({addr, h});
      }
      addr = h.next;
    }
    if (!drain()) return result_;
    // Jobs still waiting can never run: a dependency on an index no job in the chain has. The hardware
    // would wait for ever; the model reports the first of them as misconfigured.
    if (!pending_.empty()) return fail(pending_.front().addr, exc::JOB_CONFIG_FAULT);
    result_.status = exc::DONE;
    result_.head = 0;
    return result_;
  }

private:
  struct Pending {
    uint64_t addr;
    JobHeader h;
  };
  GpuMmu& mmu_;
  ChainEnv env_;
  std::unique_ptr<std::bitset<65536>> done_; // completed job indices (the scoreboard)
  std::unordered_set<uint64_t> visited_;
  std::vector<Pending> pending_;
  ChainResult result_;

  bool dep_ok(uint16_t d) const { return d == 0 || (*done_)[d]; }
  // `first` says whether every earlier job in the chain has completed (what a barrier job waits for).
  bool ready(const JobHeader& h, bool first) const {
    return dep_ok(h.dep1) && dep_ok(h.dep2) && (!h.barrier || first);
  }

  // Runs pending jobs that became ready, in chain order, until none is.
  bool drain() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t i = 0; i < pending_.size(); i++) {
        if (!ready(pending_[i].h, i == 0)) continue;
        Pending p = pending_[i];
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
        if (!execute(p.addr, p.h)) return false;
        progress = true;
        break;
      }
    }
    return true;
  }

  bool execute(uint64_t addr, const JobHeader& h) {
    result_.tail = addr;
    uint32_t code = exc::DONE;
    MmuFault f;
    bool access_ok = true;
    switch (h.type) {
    case job::Null:
    case job::CacheFlush: // no caches are modelled: memory is always coherent
      break;
    case job::WriteValue: {
      uint8_t payload[24];
      if (!mmu_.read(env_.as, addr + job::kHeaderSize, payload, sizeof payload, f)) {
        access_ok = false;
        break;
      }
      uint64_t target = le64(payload + 0);
      uint32_t type = le32(payload + 8);
      uint64_t imm = le64(payload + 16);
      uint64_t value = 0;
      size_t size = 8;
      switch (type) {
      case job::CycleCounter: value = env_.cycle_count; break;
      case job::SystemTimestamp: value = env_.timestamp; break;
      case job::Zero: value = 0; break;
      case job::Immediate8: value = imm; size = 1; break;
      case job::Immediate16: value = imm; size = 2; break;
      case job::Immediate32: value = imm; size = 4; break;
      case job::Immediate64: value = imm; break;
      default: code = exc::JOB_CONFIG_FAULT; break;
      }
      if (code != exc::DONE) break;
      uint8_t bytes[8];
      std::memcpy(bytes, &value, 8); // little-endian host, as the guest
      if (!mmu_.write(env_.as, target, bytes, size, f)) access_ok = false;
      break;
    }
    default:
      // Compute/Vertex/Tiler/Fragment/... are not executed by this model yet; types 0 and > 10 do not exist.
      code = exc::JOB_CONFIG_FAULT;
      break;
    }
    if (!access_ok) return fail_access(addr, f, true);
    if (code != exc::DONE) {
      fail(addr, code);
      return false;
    }
    if (env_.writeback) {
      uint32_t done = exc::DONE;
      if (!mmu_.write(env_.as, addr, &done, 4, f)) return fail_access(addr, f, false);
    }
    (*done_)[h.index] = true;
    result_.jobs_done++;
    return true;
  }

  // Ends the chain at job `addr` with `code`, written back into its header when possible.
  ChainResult fail(uint64_t addr, uint32_t code, uint64_t fault_va = 0) {
    result_.status = code;
    result_.head = addr;
    result_.tail = addr;
    if (env_.writeback && addr % job::kHeaderAlign == 0) {
      MmuFault ignored;
      uint8_t w[16];
      uint32_t first_incomplete = 0;
      std::memcpy(w, &code, 4);
      std::memcpy(w + 4, &first_incomplete, 4);
      std::memcpy(w + 8, &fault_va, 8);
      mmu_.write(env_.as, addr, w, sizeof w, ignored); // best effort: the header may be what faulted
    }
    return result_;
  }

  bool fail_access(uint64_t addr, const MmuFault& f, bool writeback) {
    if (f.kind == MmuFault::Kind::Mmu) result_.mmu_fault = f;
    ChainEnv saved = env_;
    if (!writeback) env_.writeback = false;
    fail(addr, f.exception, f.va);
    env_ = saved;
    return false;
  }
};

} // namespace

ChainResult run_job_chain(GpuMmu& mmu, uint64_t head, const ChainEnv& env) {
  return ChainRunner(mmu, env).run(head);
}

} // namespace vplat::gpu
