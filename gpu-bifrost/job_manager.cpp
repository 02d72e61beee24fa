#include "gpu-bifrost/job_manager.h"
#include "gpu-bifrost/mali_regs.h"

namespace vplat::gpu {

struct JobManager::Slot {
  // Machine thread only.
  Phase phase = Phase::Idle;
  uint64_t boundary = 0; // B: the virtual time the current step began
  unsigned as = 0;
  uint32_t stop_code = 0; // a stop to apply at the next boundary (STOPPED or TERMINATED)
  bool irq_cleared = false, as_changed = false; // since the stall was reported
  std::optional<ResumeState> resume;            // of the last soft-stopped chain
  std::unique_ptr<Memory> memory;
  std::unique_ptr<ChainRunner> runner;
  std::atomic<bool> abort{false};

  // Shared with the slot's thread, under m.
  std::mutex m;
  std::condition_variable cv;
  bool granted = false;
  uint32_t grant_stop = 0;
  StepEnv env;
  bool has_outcome = false;
  StepOutcome outcome;
  bool stalled = false;
  MmuFault stall_fault;
  Resolve resolution = Resolve::None;
  uint32_t resolution_code = 0;
  bool quit = false;
  std::thread thread;
};

// A job's view of memory: its AS through the shared GPU MMU; MMU faults stall the slot's thread.
class JobManager::Memory : public ChainMemory {
public:
  Memory(JobManager& jm, Slot& slot, unsigned as) : jm_(jm), slot_(slot), as_(as) {}

  bool read(uint64_t va, void* dst, size_t len, Access access) override {
    return access_with_stalls([&](MmuFault& f) { return jm_.mmu_.read(as_, va, dst, len, f, access); });
  }
  bool write(uint64_t va, const void* src, size_t len) override {
    return access_with_stalls([&](MmuFault& f) { return jm_.mmu_.write(as_, va, src, len, f); });
  }
  bool write_no_stall(uint64_t va, const void* src, size_t len) override {
    std::lock_guard lock(jm_.mmu_mutex_);
    MmuFault ignored;
    return jm_.mmu_.write(as_, va, src, len, ignored);
  }
  uint32_t fault_status() const override { return status_; }
  uint8_t* page_pointer(uint64_t va, Access access) override {
    std::lock_guard lock(jm_.mmu_mutex_);
    MmuFault ignored;
    return jm_.mmu_.host_pointer(as_, va & ~uint64_t{0xfff}, 0x1000, access, ignored);
  }
  uint64_t fault_address() const override { return address_; }
  std::optional<MmuFault> take_unreported_fault() override {
    auto f = unreported_;
    unreported_.reset();
    return f;
  }

private:
  JobManager& jm_;
  Slot& slot_;
  unsigned as_;
  uint32_t status_ = 0;
  uint64_t address_ = 0;
  std::optional<MmuFault> unreported_;

  template <class Op> bool access_with_stalls(Op op) {
    std::optional<MmuFault> first;
    for (;;) {
      MmuFault f;
      bool ok, disabled = false;
      {
        std::lock_guard lock(jm_.mmu_mutex_);
        ok = op(f);
        if (!ok) disabled = jm_.mmu_.translation_disabled(as_);
      }
      if (ok) return true;
      address_ = f.va;
      if (f.kind != MmuFault::Kind::Mmu) { // a bus error after translation: a job fault, no MMU interrupt
        status_ = f.exception;
        return false;
      }
      if (disabled) {
        // Nothing the driver can fix without re-enabling the AS: the job ends. A first fault is still
        // reported on the MMU interrupt; a retry after the driver disabled the AS ends with the fault that
        // stalled it.
        if (!first) unreported_ = f;
        status_ = first ? first->exception : f.exception;
        if (first) address_ = first->va;
        return false;
      }
      if (!first) first = f;
      uint32_t code = 0;
      if (!stall(f, code)) {
        status_ = code;
        return false;
      }
    }
  }

  // Blocks the slot's thread until the machine resolves the stall: true to retry, false (with the slot's
  // stop code) to give up.
  bool stall(const MmuFault& f, uint32_t& code) {
    std::unique_lock lock(slot_.m);
    if (slot_.abort.load()) {
      code = exc::TERMINATED;
      return false;
    }
    slot_.stalled = true;
    slot_.stall_fault = f;
    slot_.resolution = Resolve::None;
    slot_.cv.notify_all();
    slot_.cv.wait(lock, [&] { return slot_.resolution != Resolve::None; });
    slot_.stalled = false;
    Resolve r = slot_.resolution;
    slot_.resolution = Resolve::None;
    code = slot_.resolution_code;
    return r == Resolve::Retry;
  }
};

JobManager::JobManager(GpuMmu& mmu, std::mutex& mmu_mutex, std::function<uint64_t(uint64_t)> cycle_at)
    : mmu_(mmu), mmu_mutex_(mmu_mutex), cycle_at_(std::move(cycle_at)) {
  for (auto& s : slots_) {
    s = std::make_unique<Slot>();
    Slot* p = s.get();
    s->thread = std::thread([this, p] { worker(*p); });
  }
}

JobManager::~JobManager() {
  reset();
  for (auto& s : slots_) {
    {
      std::lock_guard lock(s->m);
      s->quit = true;
    }
    s->cv.notify_all();
    s->thread.join();
  }
}

void JobManager::worker(Slot& s) {
  std::unique_lock lock(s.m);
  for (;;) {
    s.cv.wait(lock, [&] { return s.quit || s.granted; });
    if (s.quit) return;
    s.granted = false;
    uint32_t stop_code = s.grant_stop;
    StepEnv env = s.env;
    lock.unlock();
    StepOutcome o = stop_code ? s.runner->stop(stop_code) : s.runner->step(env);
    lock.lock();
    s.outcome = std::move(o);
    s.has_outcome = true;
    s.cv.notify_all();
  }
}

void JobManager::grant(Slot& s, uint64_t boundary, uint32_t stop_code) {
  s.phase = Phase::Step;
  s.boundary = boundary;
  {
    std::lock_guard lock(s.m);
    s.has_outcome = false;
    s.granted = true;
    s.grant_stop = stop_code;
    s.env = StepEnv{cycle_at_(boundary), boundary};
  }
  s.cv.notify_all();
}

void JobManager::resolve(Slot& s, Resolve how, uint32_t code, uint64_t now) {
  s.phase = Phase::Step;
  s.boundary = now;
  {
    std::lock_guard lock(s.m);
    s.resolution = how;
    s.resolution_code = code;
  }
  s.cv.notify_all();
}

bool JobManager::settled(const Slot& s) {
  return s.has_outcome || (s.stalled && s.resolution == Resolve::None);
}

uint64_t JobManager::visible_at(const Slot& s) const {
  uint64_t t = s.boundary + kStepTicks;
  if (s.has_outcome && s.outcome.completion_ticks) t += s.outcome.completion_ticks;
  else if (s.has_outcome) t += (s.outcome.gpu_cycles + kCyclesPerTick - 1) / kCyclesPerTick;
  return t;
}

void JobManager::start(unsigned slot, uint64_t head, unsigned as, bool writeback, uint64_t now) {
  Slot& s = *slots_[slot];
  if (s.phase != Phase::Idle) return;
  s.as = as;
  s.stop_code = 0;
  s.abort = false;
  s.memory = std::make_unique<Memory>(*this, s, as);
  s.runner = std::make_unique<ChainRunner>(*s.memory, as, writeback, shader_core_, s.abort, trace_);
  // A chain restarted where a soft stop left it continues with the scoreboard it had.
  const ResumeState* resume = s.resume && s.resume->at == head ? &*s.resume : nullptr;
  s.runner->begin(head, resume);
  s.resume.reset();
  grant(s, now, 0);
}

bool JobManager::active(unsigned slot) const { return slot < kSlots && slots_[slot]->phase != Phase::Idle; }

void JobManager::stop(unsigned slot, uint32_t code, uint64_t now) {
  Slot& s = *slots_[slot];
  if (s.phase == Phase::Idle) return;
  if (code == exc::TERMINATED) s.abort = true;
  if (s.phase == Phase::Stalled) {
    resolve(s, Resolve::Abort, code, now);
    return;
  }
  if (s.stop_code != exc::TERMINATED) s.stop_code = code;
}

void JobManager::mmu_irq_cleared(unsigned as, uint64_t now) {
  for (auto& p : slots_) {
    Slot& s = *p;
    if (s.phase != Phase::Stalled || s.as != as) continue;
    s.irq_cleared = true;
    if (s.as_changed) resolve(s, Resolve::Retry, 0, now);
  }
}

void JobManager::quiesce(unsigned as) {
  for (auto& p : slots_) {
    Slot& s = *p;
    if (s.phase != Phase::Step || s.as != as) continue;
    std::unique_lock lock(s.m);
    s.cv.wait(lock, [&] { return settled(s); });
  }
}

bool JobManager::as_disabled(unsigned as) {
  std::lock_guard lock(mmu_mutex_);
  return mmu_.translation_disabled(as);
}

void JobManager::as_command(unsigned as, uint64_t now) {
  bool disabled = as_disabled(as);
  for (auto& p : slots_) {
    Slot& s = *p;
    if (s.phase != Phase::Stalled || s.as != as) continue;
    s.as_changed = true;
    // A disabled AS ends the stalled job whether or not the fault was acknowledged (panfrost disables
    // the AS to kill the jobs using it).
    if (s.irq_cleared || disabled) resolve(s, Resolve::Retry, 0, now);
  }
}

void JobManager::reset() {
  for (auto& p : slots_) {
    Slot& s = *p;
    if (s.phase == Phase::Idle) continue;
    s.abort = true;
    std::unique_lock lock(s.m);
    if (s.stalled && s.resolution == Resolve::None) {
      s.resolution = Resolve::Abort;
      s.resolution_code = exc::TERMINATED;
      s.cv.notify_all();
    }
    // The step in flight ends soon: accesses fail instead of stalling and shader cores see the abort.
    s.cv.wait(lock, [&] { return s.has_outcome; });
    s.has_outcome = false;
    lock.unlock();
    s.phase = Phase::Idle;
    s.stop_code = 0;
    s.abort = false;
  }
}

uint64_t JobManager::next_event() {
  uint64_t next = UINT64_MAX;
  for (auto& p : slots_) {
    Slot& s = *p;
    if (s.phase != Phase::Step) continue;
    std::lock_guard lock(s.m);
    next = std::min(next, settled(s) ? visible_at(s) : s.boundary + kStepTicks);
  }
  return next;
}

std::optional<JobManager::Event> JobManager::poll(uint64_t now) {
  for (;;) {
    // Steps whose earliest visibility has come must be settled before anything is decided.
    for (auto& p : slots_) {
      Slot& s = *p;
      if (s.phase != Phase::Step || s.boundary + kStepTicks > now) continue;
      std::unique_lock lock(s.m);
      s.cv.wait(lock, [&] { return settled(s); });
    }
    Slot* best = nullptr;
    unsigned best_index = 0;
    uint64_t best_time = UINT64_MAX;
    for (unsigned i = 0; i < kSlots; i++) {
      Slot& s = *slots_[i];
      if (s.phase != Phase::Step) continue;
      std::lock_guard lock(s.m);
      if (!settled(s)) continue;
      uint64_t t = visible_at(s);
      if (t <= now && t < best_time) {
        best = &s;
        best_index = i;
        best_time = t;
      }
    }
    if (!best) return std::nullopt;
    Slot& s = *best;
    Event ev;
    ev.slot = best_index;
    ev.time = best_time;
    ev.as = s.as;
    std::unique_lock lock(s.m);
    if (s.has_outcome) {
      StepOutcome o = std::move(s.outcome);
      s.has_outcome = false;
      lock.unlock();
      ev.trace = std::move(o.trace);
      ev.start = s.boundary;
      ev.job_type = o.job_type;
      ev.job_at = o.job_at;
      if (o.kind == StepOutcome::Kind::JobDone) {
        ev.kind = Event::Kind::Progress;
        ev.job_va = o.job_va;
        uint32_t stop_code = s.stop_code;
        s.stop_code = 0;
        grant(s, best_time, stop_code);
      } else {
        ev.kind = Event::Kind::End;
        if (o.status == exc::STOPPED) s.resume = s.runner->resume_state();
        ev.end = std::move(o);
        s.phase = Phase::Idle;
        s.abort = false;
      }
      return ev;
    }
    ev.fault = s.stall_fault;
    lock.unlock();
    if (as_disabled(s.as)) {
      // The driver disabled the AS while this stall was not yet visible: the retry ends the job with its
      // fault, and there is nothing left to report.
      resolve(s, Resolve::Retry, 0, best_time);
      continue;
    }
    // A stall: reported now, resolved by the driver later. A stop that came while it was not yet visible
    // ends it at once.
    ev.kind = Event::Kind::Stall;
    s.phase = Phase::Stalled;
    s.irq_cleared = s.as_changed = false;
    if (s.stop_code) {
      uint32_t code = s.stop_code;
      s.stop_code = 0;
      resolve(s, Resolve::Abort, code, best_time);
    }
    return ev;
  }
}

} // namespace vplat::gpu
