#include "gpu-bifrost/mali_g71.h"
#include <stdexcept>

namespace vplat::gpu {

namespace {
// JS_CONFIG cache-flush fields (panfrost_regs.h): START_FLUSH [9:8], END_FLUSH [13:12].
constexpr uint32_t kJsConfigStartFlush = 3u << 8;
constexpr uint32_t kJsConfigEndFlush = 3u << 12;
std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

MaliG71::MaliG71(dev::Bus& bus, dev::IrqLine job_irq, dev::IrqLine mmu_irq, dev::IrqLine gpu_irq,
                 unsigned shader_cores)
    : bus_(bus), job_irq_(std::move(job_irq)), mmu_irq_(std::move(mmu_irq)), gpu_irq_(std::move(gpu_irq)),
      index_(kWords, -1), mmu_(bus),
      jm_(mmu_, mmu_mu_, [this](uint64_t t) { return cycle_count_at(t); }) {
  if (shader_cores < 1 || shader_cores > kMaxShaderCores)
    throw std::invalid_argument("mali-g71: shader core count must be 1..32, got " + std::to_string(shader_cores));
  config_.shader_cores = shader_cores;
  table_ = build_register_table(config_);
  for (size_t i = 0; i < table_.size(); i++) index_[table_[i].offset / 4] = static_cast<int32_t>(i);
  reg_reads_.assign(table_.size(), 0);
  reg_writes_.assign(table_.size(), 0);
  reset();
}

void MaliG71::set_clock(const dev::VirtualClock* clock) {
  std::lock_guard lock(mu_);
  clock_ = clock;
}

void MaliG71::set_trace(std::FILE* out) {
  std::lock_guard lock(mu_);
  trace_ = out;
  jm_.set_trace(out != nullptr);
}

void MaliG71::set_shader_core(ShaderCore* core) {
  std::lock_guard lock(mu_);
  jm_.set_shader_core(core);
}

uint64_t MaliG71::next_event() {
  std::lock_guard lock(mu_);
  return jm_.next_event();
}

void MaliG71::service(uint64_t now) {
  std::lock_guard lock(mu_);
  while (auto ev = jm_.poll(now)) apply(*ev);
  update_irqs();
}

const RegDesc* MaliG71::describe(uint32_t offset) const {
  if (offset >= kWindowSize || (offset & 3)) return nullptr;
  int32_t i = index_[offset / 4];
  return i < 0 ? nullptr : &table_[static_cast<size_t>(i)];
}

void MaliG71::reset() {
  // GPU_INT_MASK survives a reset: kbase unmasks only RESET_COMPLETED before a soft reset and waits for that
  // interrupt, so the reset must not mask it again. Everything else returns to its reset value.
  uint32_t gpu_mask = regs_[reg::GPU_INT_MASK / 4];
  regs_.fill(0);
  for (const auto& d : table_) regs_[d.offset / 4] = d.reset;
  regs_[reg::GPU_INT_MASK / 4] = gpu_mask;
  // Running chains end without a result (the driver resubmits after a reset).
  jm_.reset();
  std::lock_guard mmu_lock(mmu_mu_);
  mmu_.reset();
  as_busy_reads_.fill(0);
  fault_stalled_.fill(false);
  cycle_running_ = false;
  cycle_base_ = 0;
  update_irqs();
}

uint64_t MaliG71::cycle_count() const { return cycle_count_at(ticks()); }

uint64_t MaliG71::cycle_count_at(uint64_t t) const {
  if (!cycle_running_ || t < cycle_start_ticks_) return cycle_base_;
  return cycle_base_ + (t - cycle_start_ticks_) * (kGpuClockHz / dev::VirtualClock::kFrequency);
}

uint64_t MaliG71::read(uint64_t offset, unsigned size) {
  uint64_t v = read_locked(offset, size);
  if (trace_) trace('R', static_cast<uint32_t>(offset), size, v);
  return v;
}

uint64_t MaliG71::read_locked(uint64_t offset, unsigned size) {
  std::lock_guard lock(mu_);
  if (offset >= kWindowSize || offset + size > kWindowSize || (offset & (size - 1))) return 0;
  uint32_t off = static_cast<uint32_t>(offset);
  if (size == 8) return read32(off) | (uint64_t{read32(off + 4)} << 32);
  uint32_t word = read32(off & ~3u);
  if (size == 4) return word;
  // Narrow reads see their part of the 32-bit register.
  uint32_t shift = (off & 3) * 8;
  return (word >> shift) & (size == 1 ? 0xffu : 0xffffu);
}

void MaliG71::write(uint64_t offset, unsigned size, uint64_t value) {
  if (trace_) trace('W', static_cast<uint32_t>(offset), size, value);
  write_locked(offset, size, value);
}

void MaliG71::write_locked(uint64_t offset, unsigned size, uint64_t value) {
  std::lock_guard lock(mu_);
  if (offset >= kWindowSize || offset + size > kWindowSize || (offset & (size - 1))) return;
  uint32_t off = static_cast<uint32_t>(offset);
  if (size == 8) {
    write32(off, static_cast<uint32_t>(value));
    write32(off + 4, static_cast<uint32_t>(value >> 32));
  } else if (size == 4) {
    write32(off, static_cast<uint32_t>(value));
  }
  // Byte and halfword writes are ignored: the registers are 32 bits wide and the driver only uses writel.
  update_irqs();
}

uint32_t MaliG71::read32(uint32_t off) {
  const RegDesc* d = describe(off);
  if (!d) return 0;
  ++reg_reads_[static_cast<size_t>(d - table_.data())];
  switch (off) {
  case reg::GPU_INT_STATUS: return r(reg::GPU_INT_RAWSTAT) & r(reg::GPU_INT_MASK);
  case reg::JOB_INT_STATUS: return r(reg::JOB_INT_RAWSTAT) & r(reg::JOB_INT_MASK);
  case reg::MMU_INT_STATUS: return r(reg::MMU_INT_RAWSTAT) & r(reg::MMU_INT_MASK);
  case reg::CYCLE_COUNT_LO: return static_cast<uint32_t>(cycle_count());
  case reg::CYCLE_COUNT_HI: return static_cast<uint32_t>(cycle_count() >> 32);
  // TIMESTAMP is the system counter: panfrost reports it with the CPU timer's frequency.
  case reg::TIMESTAMP_LO: return static_cast<uint32_t>(ticks());
  case reg::TIMESTAMP_HI: return static_cast<uint32_t>(ticks() >> 32);
  case reg::JOB_INT_JS_STATE: return js_state();
  default: break;
  }
  if (off >= reg::AS_BASE && off < reg::as(kNumAddressSpaces, 0) && (off - reg::AS_BASE) % reg::AS_STRIDE == reg::AS_STATUS) {
    unsigned as = (off - reg::AS_BASE) / reg::AS_STRIDE;
    if (as_busy_reads_[as]) {
      as_busy_reads_[as]--;
      return AS_STATUS_ACTIVE;
    }
    return 0;
  }
  if (d->kind == RegKind::Command) {
    // COMMAND_NEXT keeps a queued command readable until the job manager takes it; other commands read 0.
    bool is_next = off >= reg::JS_BASE && (off - reg::JS_BASE) % reg::JS_STRIDE == reg::JS_COMMAND_NEXT;
    return is_next ? regs_[off / 4] : 0;
  }
  return regs_[off / 4];
}

void MaliG71::write32(uint32_t off, uint32_t value) {
  const RegDesc* d = describe(off);
  if (!d) return;
  ++reg_writes_[static_cast<size_t>(d - table_.data())];
  switch (off) {
  case reg::GPU_INT_CLEAR: r(reg::GPU_INT_RAWSTAT) &= ~value; return;
  case reg::GPU_COMMAND: gpu_command(value); return;
  case reg::JOB_INT_CLEAR: {
    uint32_t before = r(reg::JOB_INT_RAWSTAT);
    r(reg::JOB_INT_RAWSTAT) &= ~value;
    // A slot that failed holds its _NEXT job until the driver acknowledges the error (panfrost writes
    // COMMAND_NEXT = NOP first to cancel it, and requeues it later).
    for (unsigned s = 0; s < kNumJobSlots; s++)
      if (before & value & (1u << (s + 16))) try_take_next(s, ticks());
    return;
  }
  case reg::MMU_INT_CLEAR: {
    uint32_t cleared = r(reg::MMU_INT_RAWSTAT) & value;
    r(reg::MMU_INT_RAWSTAT) &= ~value;
    for (unsigned as = 0; as < kNumAddressSpaces; as++)
      if (cleared & (0x10001u << as)) jm_.mmu_irq_cleared(as, ticks());
    return;
  }
  default: break;
  }
  if (off >= reg::SHADER_PWRON_LO && off < reg::SHADER_PWRTRANS_LO) {
    power(off, value);
    return;
  }
  if (off >= reg::JS_BASE && off < reg::js(kNumJobSlots, 0)) {
    unsigned slot = (off - reg::JS_BASE) / reg::JS_STRIDE;
    uint32_t rel = (off - reg::JS_BASE) % reg::JS_STRIDE;
    if (rel == reg::JS_COMMAND_NEXT) {
      regs_[off / 4] = value == JS_CMD_START ? value : 0;
      try_take_next(slot, ticks());
      return;
    }
    if (rel == reg::JS_COMMAND) {
      js_command(slot, value);
      return;
    }
  }
  if (off >= reg::AS_BASE && off < reg::as(kNumAddressSpaces, 0) && (off - reg::AS_BASE) % reg::AS_STRIDE == reg::AS_COMMAND) {
    as_command((off - reg::AS_BASE) / reg::AS_STRIDE, value);
    return;
  }
  if (d->kind == RegKind::Rw) regs_[off / 4] = value;
  // Const, State and Live registers ignore writes.
}

void MaliG71::gpu_command(uint32_t cmd) {
  switch (cmd) {
  case GPU_CMD_SOFT_RESET:
  case GPU_CMD_HARD_RESET:
    // Everything returns to its reset value, then RESET_COMPLETED is raised (panfrost polls RAWSTAT for it
    // with the mask at 0; kbase unmasks it and waits for the interrupt).
    reset();
    r(reg::GPU_INT_RAWSTAT) |= GPU_IRQ_RESET_COMPLETED;
    break;
  case GPU_CMD_CLEAN_CACHES:
  case GPU_CMD_CLEAN_INV_CACHES:
    // No caches are modelled; the flush is done at once. LATEST_FLUSH counts flushes (flush reduction
    // compares a job's FLUSH_ID with it).
    r(reg::LATEST_FLUSH)++;
    r(reg::GPU_INT_RAWSTAT) |= GPU_IRQ_CLEAN_CACHES_COMPLETED;
    break;
  case GPU_CMD_CYCLE_COUNT_START:
    if (!cycle_running_) {
      cycle_running_ = true;
      cycle_start_ticks_ = ticks();
      r(reg::GPU_STATUS) |= GPU_STATUS_CYCLE_COUNT_ACTIVE;
    }
    break;
  case GPU_CMD_CYCLE_COUNT_STOP:
    if (cycle_running_) {
      cycle_base_ = cycle_count();
      cycle_running_ = false;
      r(reg::GPU_STATUS) &= ~GPU_STATUS_CYCLE_COUNT_ACTIVE;
    }
    break;
  case GPU_CMD_PERFCNT_SAMPLE:
    // Performance counters are not modelled; the sample "completes" so a waiting driver is not stuck.
    r(reg::GPU_INT_RAWSTAT) |= GPU_IRQ_PERFCNT_SAMPLE_COMPLETED;
    break;
  default: break; // NOP, PERFCNT_CLEAR, unknown: nothing to do
  }
}

void MaliG71::power(uint32_t off, uint32_t value) {
  // off is in SHADER_PWRON_LO .. L2_PWROFF_HI: PWRON at 0x180, PWROFF at 0x1c0; domain at +0x10 each.
  bool on = off < reg::SHADER_PWROFF_LO;
  uint32_t rel = off - (on ? reg::SHADER_PWRON_LO : reg::SHADER_PWROFF_LO);
  unsigned domain = rel / 0x10;
  uint32_t half = rel % 0x10; // 0 = LO word, 4 = HI word
  if (domain > 2 || (half != 0 && half != 4)) return;
  uint32_t present = regs_[(reg::SHADER_PRESENT_LO + 0x10 * domain + half) / 4];
  uint32_t& ready = regs_[(reg::SHADER_READY_LO + 0x10 * domain + half) / 4];
  uint32_t mask = value & present;
  if (!mask) return;
  if (on) ready |= mask;
  else ready &= ~mask;
  // The transition is complete at once (PWRTRANS stays 0): report both the single-domain and the
  // all-transitions-done events, whether or not a core actually changed state, as a driver waiting for
  // either must not hang.
  r(reg::GPU_INT_RAWSTAT) |= GPU_IRQ_POWER_CHANGED_SINGLE | GPU_IRQ_POWER_CHANGED_ALL;
}

void MaliG71::try_take_next(unsigned slot, uint64_t now) {
  using namespace reg;
  if (r(js(slot, JS_COMMAND_NEXT)) != JS_CMD_START || jm_.active(slot) || (r(JOB_INT_RAWSTAT) & (1u << (slot + 16))))
    return;
  // The job manager takes the queued chain: the _NEXT registers move to the active ones.
  uint64_t head = get64(js(slot, JS_HEAD_NEXT_LO));
  set64(js(slot, JS_HEAD_LO), head);
  set64(js(slot, JS_TAIL_LO), head);
  set64(js(slot, JS_AFFINITY_LO), get64(js(slot, JS_AFFINITY_NEXT_LO)));
  r(js(slot, JS_CONFIG)) = r(js(slot, JS_CONFIG_NEXT));
  r(js(slot, JS_XAFFINITY)) = r(js(slot, JS_XAFFINITY_NEXT));
  r(js(slot, JS_COMMAND_NEXT)) = 0;
  r(js(slot, JS_STATUS)) = exc::ACTIVE;

  uint32_t config = r(js(slot, JS_CONFIG));
  uint32_t flush_id = r(js(slot, JS_FLUSH_ID_NEXT));
  // Flush reduction: a start flush is skipped when no flush happened since the driver read LATEST_FLUSH.
  if ((config & kJsConfigStartFlush) && flush_id != r(LATEST_FLUSH)) r(LATEST_FLUSH)++;
  unsigned as = config & JS_CONFIG_AS_MASK;
  if (trace_) trace_job(now, slot, "start chain 0x" + hex(head) + " as " + std::to_string(as));
  if (as >= kNumAddressSpaces) {
    // No such address space: the chain cannot start.
    r(js(slot, JS_STATUS)) = exc::JOB_CONFIG_FAULT;
    r(JOB_INT_RAWSTAT) |= 1u << (slot + 16);
    if (trace_) trace_job(now, slot, "end JOB_CONFIG_FAULT (no address space " + std::to_string(as) + ")");
    return;
  }
  jm_.start(slot, head, as, !(config & JS_CONFIG_DISABLE_DESCRIPTOR_WR_BK), now);
}

void MaliG71::js_command(unsigned slot, uint32_t cmd) {
  using namespace reg;
  // The _0/_1 variants act only on a chain whose JS_CONFIG.JOB_CHAIN_FLAG matches (panfrost's close path
  // uses them to hit the right one of two queued chains).
  uint32_t code = 0;
  int flag = -1;
  switch (cmd) {
  case JS_CMD_SOFT_STOP: code = exc::STOPPED; break;
  case JS_CMD_HARD_STOP: code = exc::TERMINATED; break;
  case JS_CMD_SOFT_STOP_0: code = exc::STOPPED; flag = 0; break;
  case JS_CMD_HARD_STOP_0: code = exc::TERMINATED; flag = 0; break;
  case JS_CMD_SOFT_STOP_1: code = exc::STOPPED; flag = 1; break;
  case JS_CMD_HARD_STOP_1: code = exc::TERMINATED; flag = 1; break;
  default: return; // NOP, START (only meaningful on COMMAND_NEXT) and unknown values
  }
  if (!jm_.active(slot)) return;
  if (flag >= 0 && ((r(js(slot, JS_CONFIG)) & JS_CONFIG_JOB_CHAIN_FLAG) != 0) != (flag == 1)) return;
  jm_.stop(slot, code, ticks());
}

uint32_t MaliG71::js_state() {
  // Bit s: slot s has a chain (running or stalled); bit s + 16: its _NEXT registers hold a queued START.
  uint32_t state = 0;
  for (unsigned s = 0; s < kNumJobSlots; s++) {
    if (jm_.active(s)) state |= 1u << s;
    if (r(reg::js(s, reg::JS_COMMAND_NEXT)) == JS_CMD_START) state |= 1u << (s + 16);
  }
  return state;
}

void MaliG71::apply(const JobManager::Event& ev) {
  using namespace reg;
  unsigned slot = ev.slot;
  switch (ev.kind) {
  case JobManager::Event::Kind::Progress:
    record_job(ev, exc::DONE);
    set64(js(slot, JS_TAIL_LO), ev.job_va);
    if (trace_) trace_job(ev.time, slot, ev.trace + " -> DONE");
    return;
  case JobManager::Event::Kind::Stall:
    ++mmu_faults_[ev.fault.exception];
    fault_stalled_[slot] = true;
    report_mmu_fault(ev.as, ev.fault);
    if (trace_)
      trace_job(ev.time, slot, "stalled on MMU fault 0x" + hex(ev.fault.status()) + " at 0x" + hex(ev.fault.va) +
                                   " (AS" + std::to_string(ev.as) + ")");
    return;
  case JobManager::Event::Kind::End: break;
  }
  const StepOutcome& res = ev.end;
  if (ev.job_type && res.status != exc::DONE) record_job(ev, res.status);
  // A chain that ends after a stall reports that fault again (or the one its retry met): one fault for the
  // statistics.
  if (res.mmu_fault && !fault_stalled_[slot]) ++mmu_faults_[res.mmu_fault->exception];
  fault_stalled_[slot] = false;
  if (res.mmu_fault) report_mmu_fault(ev.as, *res.mmu_fault);
  if (r(js(slot, JS_CONFIG)) & kJsConfigEndFlush) r(LATEST_FLUSH)++;
  set64(js(slot, JS_HEAD_LO), res.head);
  set64(js(slot, JS_TAIL_LO), res.tail);
  r(js(slot, JS_STATUS)) = res.status;
  r(JOB_INT_RAWSTAT) |= res.status == exc::DONE ? (1u << slot) : (1u << (slot + 16));
  if (trace_) {
    if (!ev.trace.empty()) trace_job(ev.time, slot, ev.trace);
    trace_job(ev.time, slot, "end status 0x" + hex(res.status) + " head 0x" + hex(res.head) + " tail 0x" + hex(res.tail));
  }
  // Done: the job manager goes on with the queued chain at once, without waiting for the interrupt to be
  // acknowledged (panfrost_job_handle_irq relies on it).
  if (res.status == exc::DONE) try_take_next(slot, ev.time);
}

void MaliG71::report_mmu_fault(unsigned as, const MmuFault& f) {
  uint32_t bit = f.bus_fault_irq ? (1u << (as + 16)) : (1u << as);
  uint32_t& raw = r(reg::MMU_INT_RAWSTAT);
  // The first fault's details stay until the driver clears the interrupt.
  if (!(raw & (0x10001u << as))) {
    r(reg::as(as, reg::AS_FAULTSTATUS)) = f.status();
    set64(reg::as(as, reg::AS_FAULTADDRESS_LO), f.va);
  }
  raw |= bit;
}

void MaliG71::as_command(unsigned as, uint32_t cmd) {
  using namespace reg;
  if (as >= kNumAddressSpaces) return;
  if (cmd >= AS_CMD_UPDATE && cmd <= AS_CMD_FLUSH_MEM && cmd != AS_CMD_LOCK) jm_.quiesce(as);
  std::unique_lock mmu_lock(mmu_mu_);
  switch (cmd) {
  case AS_CMD_UPDATE:
    mmu_.update(as, get64(reg::as(as, AS_TRANSTAB_LO)), get64(reg::as(as, AS_MEMATTR_LO)),
                get64(reg::as(as, AS_TRANSCFG_LO)));
    break;
  case AS_CMD_LOCK:
    // The TLB holds only complete translations, and the flush or unlock that ends the lock invalidates it,
    // so the lock itself need not block the job manager's walks.
    break;
  case AS_CMD_UNLOCK:
  case AS_CMD_FLUSH_PT:
  case AS_CMD_FLUSH_MEM: mmu_.invalidate(as); break;
  default: return; // NOP and unknown commands do nothing and do not report activity
  }
  mmu_lock.unlock();
  as_busy_reads_[as] = kAsBusyReads;
  // A stalled access is retried once the driver has changed the translation and cleared the fault.
  if (cmd != AS_CMD_LOCK) jm_.as_command(as, ticks());
}

void MaliG71::update_irqs() {
  const bool level[3] = {(r(reg::JOB_INT_RAWSTAT) & r(reg::JOB_INT_MASK)) != 0,
                         (r(reg::MMU_INT_RAWSTAT) & r(reg::MMU_INT_MASK)) != 0,
                         (r(reg::GPU_INT_RAWSTAT) & r(reg::GPU_INT_MASK)) != 0};
  job_irq_.set(level[0]);
  mmu_irq_.set(level[1]);
  gpu_irq_.set(level[2]);
  static const char* names[3] = {"job", "mmu", "gpu"};
  for (unsigned i = 0; i < 3; ++i) {
    if (level[i] == irq_level_[i]) continue;
    irq_level_[i] = level[i];
    if (level[i]) {
      ++irq_asserts_[i];
      irq_since_[i] = ticks();
    } else if (stats_ && stats_->timeline())
      stats_->event({stats::TimelineEvent::Kind::Irq, irq_since_[i], ticks(), i, std::string(names[i]) + " irq"});
  }
}

void MaliG71::set_stats(stats::Collector* collector) {
  std::lock_guard lock(mu_);
  stats_ = collector;
}

void MaliG71::record_job(const JobManager::Event& ev, uint32_t status) {
  if (!stats_ || !ev.job_type) return;
  stats_->job_visible(ev.slot, ev.as, ev.job_at, job::type_name(ev.job_type), status, ev.start, ev.time);
}

stats::GpuDeviceCounters MaliG71::device_counters() {
  std::lock_guard lock(mu_);
  stats::GpuDeviceCounters c;
  for (size_t i = 0; i < table_.size(); ++i) {
    if (reg_reads_[i]) c.reg_reads[table_[i].name] = reg_reads_[i];
    if (reg_writes_[i]) c.reg_writes[table_[i].name] = reg_writes_[i];
  }
  static const char* names[3] = {"job", "mmu", "gpu"};
  for (unsigned i = 0; i < 3; ++i) c.irqs[names[i]] = irq_asserts_[i];
  {
    std::lock_guard mmu_lock(mmu_mu_);
    c.pages_translated = mmu_.pages_translated();
  }
  for (const auto& [code, n] : mmu_faults_) {
    const char* kind = (code & 0xf8) == exc::TRANSLATION_FAULT_0   ? "TRANSLATION_FAULT_"
                       : (code & 0xf8) == exc::PERMISSION_FAULT_0  ? "PERMISSION_FAULT_"
                       : (code & 0xf8) == exc::TRANSTAB_BUS_FAULT_0 ? "TRANSTAB_BUS_FAULT_"
                                                                   : nullptr;
    char b[48];
    if (kind) std::snprintf(b, sizeof b, "%s%u", kind, code & 7);
    else std::snprintf(b, sizeof b, "0x%x", code);
    c.mmu_faults[b] += n;
  }
  return c;
}

} // namespace vplat::gpu

namespace vplat::gpu {

void MaliG71::trace_job(uint64_t time, unsigned slot, const std::string& what) {
  double seconds = static_cast<double>(time) / dev::VirtualClock::kFrequency;
  std::fprintf(trace_, "[%12.6f] gpu job JS%u %s\n", seconds, slot, what.c_str());
}

void MaliG71::trace(char dir, uint32_t off, unsigned size, uint64_t value) {
  const RegDesc* d = describe(off & ~3u);
  std::string name = d ? d->name : "(no register)";
  // Command registers: say what the value asks for.
  const char* what = nullptr;
  auto ends_with = [&](const char* suffix) {
    size_t n = std::char_traits<char>::length(suffix);
    return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
  };
  if (dir == 'W' && name == "GPU_COMMAND") {
    static const char* gpu[] = {"NOP", "SOFT_RESET", "HARD_RESET", "PERFCNT_CLEAR", "PERFCNT_SAMPLE",
                                "CYCLE_COUNT_START", "CYCLE_COUNT_STOP", "CLEAN_CACHES", "CLEAN_INV_CACHES"};
    if (value < 9) what = gpu[value];
  } else if (dir == 'W' && name.rfind("AS", 0) == 0 && ends_with("_COMMAND")) {
    static const char* as[] = {"NOP", "UPDATE", "LOCK", "UNLOCK", "FLUSH_PT", "FLUSH_MEM"};
    if (value < 6) what = as[value];
  } else if (dir == 'W' && name.rfind("JS", 0) == 0 && (ends_with("_COMMAND") || ends_with("_COMMAND_NEXT"))) {
    static const char* js[] = {"NOP", "START", "SOFT_STOP", "HARD_STOP", "SOFT_STOP_0", "HARD_STOP_0", "SOFT_STOP_1", "HARD_STOP_1"};
    if (value < 8) what = js[value];
  }
  double seconds = static_cast<double>(ticks()) / dev::VirtualClock::kFrequency;
  std::fprintf(trace_, "[%12.6f] gpu %c %-24s 0x%04x %s 0x%0*llx%s%s\n", seconds, dir, name.c_str(), off,
               dir == 'R' ? "->" : "<-", size == 8 ? 16 : 8, static_cast<unsigned long long>(value),
               what ? "  " : "", what ? what : "");
}

} // namespace vplat::gpu
