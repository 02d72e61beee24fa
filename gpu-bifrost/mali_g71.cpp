#include "gpu-bifrost/mali_g71.h"
#include <stdexcept>

namespace vplat::gpu {

namespace {
// JS_CONFIG cache-flush fields (panfrost_regs.h): START_FLUSH [9:8], END_FLUSH [13:12].
constexpr uint32_t kJsConfigStartFlush = 3u << 8;
constexpr uint32_t kJsConfigEndFlush = 3u << 12;
} // namespace

MaliG71::MaliG71(dev::Bus& bus, dev::IrqLine job_irq, dev::IrqLine mmu_irq, dev::IrqLine gpu_irq,
                 unsigned shader_cores)
    : bus_(bus), job_irq_(std::move(job_irq)), mmu_irq_(std::move(mmu_irq)), gpu_irq_(std::move(gpu_irq)),
      index_(kWords, -1), mmu_(bus) {
  if (shader_cores < 1 || shader_cores > kMaxShaderCores)
    throw std::invalid_argument("mali-g71: shader core count must be 1..32, got " + std::to_string(shader_cores));
  config_.shader_cores = shader_cores;
  table_ = build_register_table(config_);
  for (size_t i = 0; i < table_.size(); i++) index_[table_[i].offset / 4] = static_cast<int32_t>(i);
  reset();
}

void MaliG71::set_clock(const dev::VirtualClock* clock) {
  std::lock_guard lock(mu_);
  clock_ = clock;
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
  mmu_.reset();
  as_busy_reads_.fill(0);
  cycle_running_ = false;
  cycle_base_ = 0;
  update_irqs();
}

uint64_t MaliG71::cycle_count() const {
  if (!cycle_running_) return cycle_base_;
  return cycle_base_ + (ticks() - cycle_start_ticks_) * (kGpuClockHz / dev::VirtualClock::kFrequency);
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
  switch (off) {
  case reg::GPU_INT_STATUS: return r(reg::GPU_INT_RAWSTAT) & r(reg::GPU_INT_MASK);
  case reg::JOB_INT_STATUS: return r(reg::JOB_INT_RAWSTAT) & r(reg::JOB_INT_MASK);
  case reg::MMU_INT_STATUS: return r(reg::MMU_INT_RAWSTAT) & r(reg::MMU_INT_MASK);
  case reg::CYCLE_COUNT_LO: return static_cast<uint32_t>(cycle_count());
  case reg::CYCLE_COUNT_HI: return static_cast<uint32_t>(cycle_count() >> 32);
  // TIMESTAMP is the system counter: panfrost reports it with the CPU timer's frequency.
  case reg::TIMESTAMP_LO: return static_cast<uint32_t>(ticks());
  case reg::TIMESTAMP_HI: return static_cast<uint32_t>(ticks() >> 32);
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
  switch (off) {
  case reg::GPU_INT_CLEAR: r(reg::GPU_INT_RAWSTAT) &= ~value; return;
  case reg::GPU_COMMAND: gpu_command(value); return;
  case reg::JOB_INT_CLEAR: {
    r(reg::JOB_INT_RAWSTAT) &= ~value;
    // JOB_INT_JS_STATE is sampled when JOB_INT_CLEAR is written, for the slots whose bits are written (the
    // panfrost IRQ handler relies on this). Chains run synchronously, so a slot is never active here.
    for (unsigned s = 0; s < kNumJobSlots; s++)
      if (value & (0x10001u << s)) r(reg::JOB_INT_JS_STATE) &= ~(0x10001u << s);
    return;
  }
  case reg::MMU_INT_CLEAR: r(reg::MMU_INT_RAWSTAT) &= ~value; return;
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
      regs_[off / 4] = value;
      if (value == JS_CMD_START) js_start_next(slot);
      else if (value == JS_CMD_NOP) regs_[off / 4] = 0;
      return;
    }
    if (rel == reg::JS_COMMAND) {
      // SOFT_STOP/HARD_STOP act on a running chain; chains complete inside the START write, so there is
      // never one to stop.
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

void MaliG71::js_start_next(unsigned slot) {
  using namespace reg;
  // The job manager takes the queued chain: the _NEXT registers move to the active ones.
  set64(js(slot, JS_HEAD_LO), get64(js(slot, JS_HEAD_NEXT_LO)));
  set64(js(slot, JS_TAIL_LO), get64(js(slot, JS_HEAD_NEXT_LO)));
  set64(js(slot, JS_AFFINITY_LO), get64(js(slot, JS_AFFINITY_NEXT_LO)));
  r(js(slot, JS_CONFIG)) = r(js(slot, JS_CONFIG_NEXT));
  r(js(slot, JS_XAFFINITY)) = r(js(slot, JS_XAFFINITY_NEXT));
  r(js(slot, JS_COMMAND_NEXT)) = 0;
  r(js(slot, JS_STATUS)) = exc::ACTIVE;

  uint32_t config = r(js(slot, JS_CONFIG));
  uint32_t flush_id = r(js(slot, JS_FLUSH_ID_NEXT));
  // Flush reduction: a start flush is skipped when no flush happened since the driver read LATEST_FLUSH.
  if ((config & kJsConfigStartFlush) && flush_id != r(LATEST_FLUSH)) r(LATEST_FLUSH)++;

  ChainResult res;
  unsigned as = config & JS_CONFIG_AS_MASK;
  if (as >= kNumAddressSpaces) {
    res.status = exc::JOB_CONFIG_FAULT;
    res.head = res.tail = get64(js(slot, JS_HEAD_LO));
  } else {
    ChainEnv env;
    env.as = as;
    env.writeback = !(config & JS_CONFIG_DISABLE_DESCRIPTOR_WR_BK);
    env.cycle_count = cycle_count();
    env.timestamp = ticks();
    res = run_job_chain(mmu_, get64(js(slot, JS_HEAD_LO)), env);
  }
  if (res.mmu_fault) report_mmu_fault(as, *res.mmu_fault);
  if (config & kJsConfigEndFlush) r(LATEST_FLUSH)++;

  set64(js(slot, JS_HEAD_LO), res.head);
  set64(js(slot, JS_TAIL_LO), res.tail);
  r(js(slot, JS_STATUS)) = res.status;
  r(JOB_INT_RAWSTAT) |= res.status == exc::DONE ? (1u << slot) : (1u << (slot + 16));
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
  switch (cmd) {
  case AS_CMD_UPDATE:
    mmu_.update(as, get64(reg::as(as, AS_TRANSTAB_LO)), get64(reg::as(as, AS_MEMATTR_LO)),
                get64(reg::as(as, AS_TRANSCFG_LO)));
    break;
  case AS_CMD_LOCK:
    // Nothing runs concurrently with the driver's table update, so the lock itself has no effect; the
    // flush or unlock that ends it invalidates the TLB.
    break;
  case AS_CMD_UNLOCK:
  case AS_CMD_FLUSH_PT:
  case AS_CMD_FLUSH_MEM: mmu_.invalidate(as); break;
  default: return; // NOP and unknown commands do nothing and do not report activity
  }
  as_busy_reads_[as] = kAsBusyReads;
}

void MaliG71::update_irqs() {
  gpu_irq_.set(r(reg::GPU_INT_RAWSTAT) & r(reg::GPU_INT_MASK));
  job_irq_.set(r(reg::JOB_INT_RAWSTAT) & r(reg::JOB_INT_MASK));
  mmu_irq_.set(r(reg::MMU_INT_RAWSTAT) & r(reg::MMU_INT_MASK));
}

} // namespace vplat::gpu

namespace vplat::gpu {

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
    static const char* js[] = {"NOP", "START", "SOFT_STOP", "HARD_STOP"};
    if (value < 4) what = js[value];
  }
  double seconds = static_cast<double>(ticks()) / dev::VirtualClock::kFrequency;
  std::fprintf(trace_, "[%12.6f] gpu %c %-24s 0x%04x %s 0x%0*llx%s%s\n", seconds, dir, name.c_str(), off,
               dir == 'R' ? "->" : "<-", size == 8 ? 16 : 8, static_cast<unsigned long long>(value),
               what ? "  " : "", what ? what : "");
}

} // namespace vplat::gpu
