#include "platforms/juno_machine.h"
#include "platforms/boot_layout.h"
#include "platforms/image_loader.h"
#include "platforms/juno_board.h"
#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace vplat {

namespace {
// Instructions a core runs before the next one gets its turn. Small enough that a core spinning on a lock
// soon lets the holder run; large enough that switching costs little. A turn goes on to the next block
// boundary past it (at most 64 more), so that the next turn starts with a translated block instead of
// interpreting the rest of the one the quantum ended in.
constexpr uint64_t kQuantum = 2000;
// With one core to run there is no other core to wait for: a turn lasts up to kSoloQuantum instructions,
// ending no earlier than kQuantum and otherwise at the next timer or GPU event, so that interrupts come as
// early as with short turns. Each turn's end costs the run loop, the devices' catch-up and a new chain of
// translated blocks: sha256sum over 20 MiB in the guest (second run) took 0.59 s with 2000-instruction turns,
// 0.55 s with 20000 (4 alternating runs, medians); three runs of it in one guest command, 2.94 s with 20000,
// 2.72 s with 200000 (3 alternating runs, medians; every pair the same way); zstd -9 and gzip -6 over 8 MB
// in one command, 11.97 -> 11.04 s (2 alternating runs).
constexpr uint64_t kSoloQuantum = 200000;
// 0.5 ms at the virtual clock's 50 MHz: 512 k instructions at --cpu-mips 1000.
constexpr uint64_t kConsoleFlushTicks = 25600;
// The RTC starts at a fixed time so that runs repeat exactly (2026-01-01 00:00:00 UTC).
constexpr uint32_t kRtcEpoch = 1767225600;
constexpr int kSpiBase = 32;
// The virtual clock's view of a running core (VirtualClock::begin_quantum): time moves with each instruction,
// as the generic timer does on hardware, not only between quanta. Linux's jitter entropy source
// (try_to_generate_entropy) gives up when back-to-back counter reads mostly agree, and then getrandom()
// blocks until enough interrupts have been counted.
uint64_t retired_by(const void* core) {
  return static_cast<const cpu::Core*>(core)->retired_exact();
}
static_assert(juno::kGpuClockHz == gpu::MaliG71::kGpuClockHz,
              "the DT clock and the GPU's cycle counter disagree");
} // namespace

juno::DtbConfig dtb_config(const Options& o) {
  juno::DtbConfig c;
  c.cpus = o.smp;
  c.ram_size = o.memory;
  c.bootargs = o.append;
  c.virtio_disk = !o.disk.empty();
  c.gpu = o.gpu;
  switch (o.rng_seed) {
  case Options::RngSeed::Number:
    c.rng_seed = juno::rng_seed_bytes(o.rng_seed_number);
    break;
  case Options::RngSeed::Random:
    c.rng_seed = juno::host_rng_seed_bytes();
    break;
  case Options::RngSeed::None:
    break;
  }
  return c;
}

JunoMachine::JunoMachine(const Options& options)
    : options_(options), clock_(options.cpu_mips * 1'000'000 / dev::VirtualClock::kFrequency) {}

JunoMachine::~JunoMachine() {
  console_.flush();
  if (console_log_) std::fclose(console_log_);
  if (gpu_) gpu_->set_trace(nullptr);
  if (trace_owned_) std::fclose(trace_);
}

std::unique_ptr<JunoMachine> JunoMachine::create(const Options& options, std::string& error) {
  std::unique_ptr<JunoMachine> m(new JunoMachine(options));
  if (!m->load(error)) return nullptr;
  return m;
}

bool JunoMachine::load(std::string& error) {
  auto banks = juno::ram_banks(options_.memory);
  for (auto [base, size] : banks) bus_.add_ram(base, size);

  if (!options_.dump_shaders.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options_.dump_shaders, ec);
    if (ec) {
      error = "cannot create '" + options_.dump_shaders + "': " + ec.message();
      return false;
    }
  }
  if (!options_.console_log.empty()) {
    console_log_ = std::fopen(options_.console_log.c_str(), "w");
    if (!console_log_) {
      error = "cannot write '" + options_.console_log + "'";
      return false;
    }
  }
  const unsigned n = options_.smp;
  gic_ = std::make_unique<dev::Gic400>(static_cast<int>(n), [this](int cpu, bool level) {
    if (cpu < static_cast<int>(cores_.size())) cores_[cpu]->set_irq(level);
  });
  bus_.add_device(juno::kGicdBase, juno::kGicdSize, &gic_->distributor());
  bus_.add_device(juno::kGiccBase, juno::kGiccSize, &gic_->cpu_interface());

  for (const auto& d : juno::kDevices) {
    switch (d.kind) {
    case juno::DeviceKind::Pl011:
      uart_ = std::make_unique<dev::Pl011>(gic_->spi_line(kSpiBase + d.spi[0]),
                                           [this](uint8_t b) { console_byte(b); });
      bus_.add_device(d.base, d.size, uart_.get());
      break;
    case juno::DeviceKind::Pl031:
      rtc_ = std::make_unique<dev::Pl031>(clock_, gic_->spi_line(kSpiBase + d.spi[0]), kRtcEpoch);
      bus_.add_device(d.base, d.size, rtc_.get());
      break;
    case juno::DeviceKind::VirtioMmio:
      if (options_.disk.empty()) break;
      try {
        disk_ = std::make_unique<dev::VirtioBlk>(bus_, gic_->spi_line(kSpiBase + d.spi[0]), options_.disk);
      } catch (const std::exception& e) {
        error = e.what();
        return false;
      }
      bus_.add_device(d.base, d.size, disk_.get());
      break;
    case juno::DeviceKind::MaliG71:
      if (!options_.gpu) break;
      try {
        gpu_ = std::make_unique<gpu::MaliG71>(bus_, gic_->spi_line(kSpiBase + d.spi[0]),
                                              gic_->spi_line(kSpiBase + d.spi[1]),
                                              gic_->spi_line(kSpiBase + d.spi[2]), options_.gpu_cores);
      } catch (const std::exception& e) {
        error = e.what();
        return false;
      }
      // TIMESTAMP counts the system counter, as the CPUs' CNTPCT does (panfrost reports both with one
      // frequency).
      gpu_->set_clock(&clock_);
      if (options_.stats_enabled()) {
        stats_ = std::make_unique<stats::Collector>(!options_.trace_timeline.empty());
        gpu_->set_stats(stats_.get());
      }
      {
        gpu::bifrost::ComputeCores::Config cc;
        cc.host_threads =
            options_.gpu_threads ? options_.gpu_threads : gpu::bifrost::ComputeCores::default_host_threads();
        cc.shader_cores = options_.gpu_cores;
        // Statistics report every compute job's estimate, so they turn the models on (what the guest sees
        // changes only with "complete"); the estimates are printed on stderr only when asked for.
        cc.timing = options_.gpu_timing != "off" || stats_ != nullptr;
        cc.timing_drives_completion = options_.gpu_timing == "complete";
        cc.report = options_.gpu_timing != "off";
        cc.dump_shaders_dir = options_.dump_shaders;
        cc.clock_mhz = options_.gpu_clock_mhz;
        cc.virtual_clock_hz = dev::VirtualClock::kFrequency;
        compute_ = std::make_unique<gpu::bifrost::ComputeCores>(cc);
        if (stats_) compute_->set_stats(stats_.get());
        gpu_->set_shader_core(compute_.get());
      }
      if (options_.trace_gpu_regs) {
        if (!trace_) {
          trace_ = options_.trace_file.empty() ? stderr : std::fopen(options_.trace_file.c_str(), "w");
          if (!trace_) {
            error = "cannot write the trace file '" + options_.trace_file + "'";
            return false;
          }
          trace_owned_ = !options_.trace_file.empty();
        }
        gpu_->set_trace(trace_);
      }
      bus_.add_device(d.base, d.size, gpu_.get());
      break;
    }
  }

  for (unsigned i = 0; i < n; ++i) {
    timers_.push_back(std::make_unique<dev::GenericTimer>(
        clock_, gic_->ppi_line(static_cast<int>(i), dev::GenericTimer::kPhysIntid),
        gic_->ppi_line(static_cast<int>(i), dev::GenericTimer::kVirtIntid)));
    cpu::Core::Config c;
    c.system = true;
    c.midr = juno::cpu_is_a72(i) ? 0x410FD081 : 0x410FD034;
    c.mpidr = juno::kCpuMpidr[i];
    c.cntfrq = dev::VirtualClock::kFrequency;
    cores_.push_back(std::make_unique<cpu::Core>(*this, c, this));
    group_.add(*cores_.back());
    cpu::Engine engine = cpu::Engine::Auto;
    cpu::parse_engine(options_.cpu_engine, engine); // validated by the command line
    cores_.back()->set_engine(engine);
    if (options_.cpu_stats) {
      insn_counts_.emplace_back(gen::aarch64::kNumInsns, 0);
      cores_.back()->set_insn_counts(insn_counts_.back().data());
    }
    cores_.back()->power_off();
  }
  waiting_.assign(n, false);

  std::vector<uint64_t> mpidrs(juno::kCpuMpidr, juno::kCpuMpidr + n);
  psci_ = std::make_unique<Psci>(mpidrs, Psci::Hooks{[this](unsigned i, uint64_t entry, uint64_t context) {
                                                       cores_[i]->power_on(entry, context);
                                                       waiting_[i] = false;
                                                       psci_->mark_on(i);
                                                     },
                                                     [this](unsigned i) { cores_[i]->power_off(); },
                                                     [this] { outcome_ = Outcome::PowerOff; },
                                                     [this] { outcome_ = Outcome::Reset; }});

  // The guest: kernel, device tree, initrd.
  if (options_.kernel.empty()) {
    error = "no kernel given (--kernel FILE)";
    return false;
  }
  auto kernel = load_kernel_image(options_.kernel, error);
  if (!kernel) return false;
  // The initrd is sized now and read straight into guest RAM once the layout has placed it.
  uint64_t initrd_size = 0;
  if (!options_.initrd.empty()) {
    auto size = file_size(options_.initrd, banks[0].second, error);
    if (!size) {
      error = "initrd: " + error;
      return false;
    }
    initrd_size = *size;
  }
  juno::DtbConfig dc = dtb_config(options_);
  dc.cpus = n;
  dc.virtio_disk = disk_ != nullptr;
  dc.gpu = gpu_ != nullptr;
  // Plan with a worst-case DTB size, then generate the real one with the initrd's final range.
  auto layout = plan_boot(banks[0].first, banks[0].second, kernel->text_offset, kernel->image_size,
                          kMaxDtbSize, initrd_size, error);
  if (!layout) return false;
  if (initrd_size) dc.initrd = {{layout->initrd_start, layout->initrd_end}};
  auto dtb = juno::build_dtb(dc);
  uint8_t* kernel_ram = bus_.ram_pointer(layout->kernel_load, kernel->content_size);
  uint8_t* initrd_ram = initrd_size ? bus_.ram_pointer(layout->initrd_start, initrd_size) : nullptr;
  if (!kernel_ram || (initrd_size && !initrd_ram) || !bus_.copy_to(layout->dtb, dtb.data(), dtb.size())) {
    error = "internal error: the boot layout does not fit in RAM";
    return false;
  }
  if (!copy_kernel_image(*kernel, kernel_ram, error)) {
    error = "kernel: " + error;
    return false;
  }
  if (initrd_size && !read_file_into(options_.initrd, initrd_ram, initrd_size, error)) {
    error = "initrd: " + error;
    return false;
  }
  // The boot CPU enters the kernel at EL1 with the MMU off and x0 = DTB (x1..x3 = 0).
  cores_[0]->power_on(layout->kernel_load, layout->dtb);
  return true;
}

unsigned JunoMachine::index_of(const cpu::Core& core) const {
  for (unsigned i = 0; i < cores_.size(); ++i)
    if (cores_[i].get() == &core) return i;
  return 0;
}

uint64_t JunoMachine::timer_read(cpu::Core& core, cpu::TimerReg reg) {
  auto& t = *timers_[index_of(core)];
  switch (reg) {
  case cpu::TimerReg::Cntpct:
    return t.physical_count();
  case cpu::TimerReg::Cntvct:
    return t.virtual_count();
  case cpu::TimerReg::CntpCtl:
    return t.read_ctl(t.phys, t.physical_count());
  case cpu::TimerReg::CntpCval:
    return t.phys.cval;
  case cpu::TimerReg::CntpTval:
    return t.read_tval(t.phys, t.physical_count());
  case cpu::TimerReg::CntvCtl:
    return t.read_ctl(t.virt, t.virtual_count());
  case cpu::TimerReg::CntvCval:
    return t.virt.cval;
  case cpu::TimerReg::CntvTval:
    return t.read_tval(t.virt, t.virtual_count());
  }
  return 0;
}

void JunoMachine::timer_write(cpu::Core& core, cpu::TimerReg reg, uint64_t value) {
  auto& t = *timers_[index_of(core)];
  switch (reg) {
  case cpu::TimerReg::CntpCtl:
    t.phys.ctl = static_cast<uint32_t>(value & 3);
    break;
  case cpu::TimerReg::CntpCval:
    t.phys.cval = value;
    break;
  case cpu::TimerReg::CntpTval:
    t.write_tval(t.phys, t.physical_count(), static_cast<uint32_t>(value));
    break;
  case cpu::TimerReg::CntvCtl:
    t.virt.ctl = static_cast<uint32_t>(value & 3);
    break;
  case cpu::TimerReg::CntvCval:
    t.virt.cval = value;
    break;
  case cpu::TimerReg::CntvTval:
    t.write_tval(t.virt, t.virtual_count(), static_cast<uint32_t>(value));
    break;
  default:
    break; // the counters are read-only
  }
  t.update();
}

bool JunoMachine::firmware_call(cpu::Core& core) {
  uint64_t r = psci_->call(index_of(core), core.X[0], core.X[1], core.X[2], core.X[3]);
  core.X[0] = r;
  return true;
}

void JunoMachine::update_timers() {
  for (auto& t : timers_) t->update();
  rtc_->update();
}

void JunoMachine::console_byte(uint8_t b) {
  console_.output(b);
  if (!console_log_ || b == '\r') return;
  // The line's time is when its first byte reached the UART: for a guest program's output that is close to
  // when it printed it, which is what lets host tools place lines next to GPU jobs' virtual times.
  if (console_log_line_start_)
    std::fprintf(console_log_, "%llu ", static_cast<unsigned long long>(clock_.ticks()));
  std::fputc(b, console_log_);
  console_log_line_start_ = b == '\n';
}

void JunoMachine::feed_console_input(int wait_ms) {
  if (pending_input_.empty()) pending_input_ = console_.poll_input(wait_ms);
  size_t used = 0;
  while (used < pending_input_.size() && uart_->can_receive())
    uart_->receive(static_cast<uint8_t>(pending_input_[used++]));
  pending_input_.erase(0, used);
  if (console_.quit_requested()) outcome_ = Outcome::Quit;
}

uint64_t JunoMachine::next_device_event() const {
  uint64_t next = UINT64_MAX;
  for (auto& t : timers_) next = std::min(next, t->next_deadline());
  // A GPU job result due later is an event too (a job stalled on an MMU fault has none: it waits for the
  // driver).
  if (gpu_) next = std::min(next, gpu_->next_event());
  return next;
}

uint64_t JunoMachine::quantum(bool debugging) const {
  unsigned runnable = 0;
  for (unsigned i = 0; i < cores_.size(); ++i)
    if (cores_[i]->powered() && (!waiting_[i] || cores_[i]->irq_line())) ++runnable;
  if (runnable != 1 || debugging) return kQuantum;
  const uint64_t next = next_device_event();
  const uint64_t now = clock_.ticks();
  if (next <= now) return kQuantum;
  if ((next - now) >= kSoloQuantum / clock_.insns_per_tick()) return kSoloQuantum;
  return std::max(kQuantum, (next - now) * clock_.insns_per_tick());
}

JunoMachine::RoundResult JunoMachine::round(DebugRun* debug) {
  uint64_t longest = 0;
  bool any_running = false;
  int hit = -1;
  const uint64_t turn = quantum(debug != nullptr);
  for (unsigned i = 0; i < cores_.size() && !outcome_ && hit < 0; ++i) {
    cpu::Core& c = *cores_[i];
    if (!c.powered()) continue;
    if (waiting_[i] && !c.irq_line()) continue;
    if (debug) {
      // Core::run never checks the first instruction of a call against its breakpoints, so the start of
      // each quantum is checked here; a CPU's first instruction after a continue is exempt (the stub's
      // contract), or a continue from a breakpoint would stop at once.
      if (debug->started[i] &&
          std::find(debug->breakpoints.begin(), debug->breakpoints.end(), c.PC) != debug->breakpoints.end()) {
        hit = static_cast<int>(i);
        any_running = true;
        break;
      }
      debug->started[i] = true;
    }
    // A WFI that the next round ends at the same virtual time was no idle time.
    if (waiting_[i] && stats_ && stats_->timeline() && clock_.ticks() > idle_since_[i])
      stats_->event({stats::TimelineEvent::Kind::CpuIdle, idle_since_[i], clock_.ticks(), i, "wfi"});
    waiting_[i] = false;
    gic_->set_current_cpu(static_cast<int>(i));
    clock_.begin_quantum(&retired_by, &c);
    cpu::RunResult r = c.run(turn, cpu::Core::RunEnd::AtBlockBoundary);
    clock_.end_quantum();
    instructions_ += r.retired;
    longest = std::max(longest, r.retired);
    switch (r.exit) {
    case cpu::Exit::Idle:
      waiting_[i] = true;
      if (idle_since_.size() <= i) idle_since_.resize(i + 1);
      // The round's clock advances after all CPUs ran: the idle start is this quantum's instructions later.
      idle_since_[i] = clock_.ticks() + r.retired / clock_.insns_per_tick();
      break;
    case cpu::Exit::Off:
      break;
    case cpu::Exit::Breakpoint:
      hit = static_cast<int>(i);
      any_running = true;
      break;
    default:
      any_running = true;
      break;
    }
  }
  // Cores run side by side: a round lasts as long as its busiest core.
  clock_.retire(longest);
  if (!any_running && !outcome_) {
    // Every core waits for an interrupt: jump to the next timer event, or wait for the console.
    const uint64_t next = next_device_event();
    bool woken = false;
    for (unsigned i = 0; i < cores_.size(); ++i) woken |= cores_[i]->powered() && cores_[i]->irq_line();
    if (!woken) {
      console_.flush();
      if (next != UINT64_MAX)
        clock_.advance_to(next);
      else
        feed_console_input(100);
    }
  }
  // GPU job results due by now become visible (registers and interrupts), waiting for the job manager's
  // threads if they are behind: virtual time, not host speed, decides when the guest sees them.
  if (gpu_) gpu_->service(clock_.ticks());
  update_timers();
  if (++rounds_ % 64 == 0 || !any_running) feed_console_input(0);
  // Console output leaves in batches: at least every kConsoleFlushTicks of virtual time while the guest runs
  // (a round can be 200000 instructions long with one CPU; 256 rounds had been ~50 ms of guest time then).
  if (clock_.ticks() - console_flushed_at_ >= kConsoleFlushTicks) {
    console_.flush();
    console_flushed_at_ = clock_.ticks();
  }
  return {any_running, hit};
}

bool JunoMachine::write_stats(std::string& error) {
  if (!stats_ && !options_.stats_enabled()) return true;
  stats::Run run;
  std::vector<stats::TimelineEvent> events;
  if (stats_) {
    // CPUs still idle at the end: their WFI interval ends now.
    for (unsigned i = 0; i < cores_.size() && stats_->timeline(); ++i)
      if (waiting_[i] && i < idle_since_.size() && clock_.ticks() > idle_since_[i])
        stats_->event({stats::TimelineEvent::Kind::CpuIdle, idle_since_[i], clock_.ticks(), i, "wfi"});
    stats_->finish(run, events);
  }
  run.virtual_ticks = clock_.ticks();
  run.tick_hz = dev::VirtualClock::kFrequency;
  for (auto& c : cores_) {
    run.cpu_instructions.push_back(c->retired);
    c->flush_insn_counts();
  }
  for (const auto& counts : insn_counts_)
    for (int id = 0; id < gen::aarch64::kNumInsns; ++id)
      if (counts[static_cast<size_t>(id)]) {
        run.cpu_by_instruction[gen::aarch64::kInsnInfo[id].name] += counts[static_cast<size_t>(id)];
        run.cpu_by_class[gen::aarch64::kInsnInfo[id].cls] += counts[static_cast<size_t>(id)];
      }
  if (gpu_) {
    run.device = gpu_->device_counters();
    run.gpu_cores = gpu_->shader_cores();
  }
  if (compute_) run.gpu_threads = compute_->host_threads();
  run.host_times = options_.stats_host_time;
  if (!options_.stats_file.empty() && !stats::write_file(options_.stats_file, stats::to_json(run), error))
    return false;
  if (!options_.stats_csv.empty() && !stats::write_csv(run, options_.stats_csv, error)) return false;
  if (!options_.trace_timeline.empty() &&
      !stats::write_file(options_.trace_timeline, stats::timeline_json(run, events), error))
    return false;
  if (options_.stats_summary || !options_.stats_file.empty()) std::fputs(stats::summary(run).c_str(), stderr);
  return true;
}

JunoMachine::Outcome JunoMachine::run(gdb::GdbStub* debugger, bool wait_for_debugger) {
  // Serves a connected GDB; false when the run is over (GDB killed the guest, or it powered off meanwhile).
  auto serve = [&] {
    console_.flush();
    if (debugger->serve()) return true;
    if (!outcome_) outcome_ = Outcome::Quit;
    return false;
  };
  if (debugger && wait_for_debugger) {
    debugger->wait_for_connection();
    if (!serve()) return *outcome_;
  }
  // Without a debugger the loop is the bare round; with one, the socket is polled every 64 rounds (about
  // 128k instructions per CPU) and after idle rounds, so an attached-but-not-connected stub costs nothing
  // per instruction.
  while (!outcome_) {
    RoundResult r = round(nullptr);
    if (debugger && (rounds_ % 64 == 0 || !r.any_running) && !outcome_ && debugger->try_accept() && !serve())
      break;
  }
  console_.flush();
  std::string error;
  if (!write_stats(error)) std::fprintf(stderr, "vplat: %s\n", error.c_str());
  return *outcome_;
}

// ------------------------------------------------------------------------------------------ gdb::Target

gdb::Registers JunoMachine::read_registers(int cpu) {
  gdb::Registers r{};
  if (cpu < 0 || cpu >= num_cpus()) return r;
  const cpu::Core& c = *cores_[static_cast<size_t>(cpu)];
  std::copy(c.X, c.X + 31, r.x);
  r.sp = c.X[31]; // X[31] holds the SP selected by the current EL and SPSel
  r.pc = c.PC;
  r.cpsr = c.pstate();
  std::copy(c.V, c.V + 32, r.v);
  r.fpsr = static_cast<uint32_t>(c.FPSR);
  r.fpcr = static_cast<uint32_t>(c.FPCR);
  return r;
}

void JunoMachine::write_registers(int cpu, const gdb::Registers& r) {
  if (cpu < 0 || cpu >= num_cpus()) return;
  cpu::Core& c = *cores_[static_cast<size_t>(cpu)];
  std::copy(r.x, r.x + 31, c.X);
  c.X[31] = r.sp;
  c.PC = r.pc;
  // Of CPSR only NZCV and DAIF are taken: changing EL, SPSel or IL from a debugger would bypass the
  // exception model (banked SPs, cached translation state), so those fields keep their values.
  c.NF = r.cpsr >> 31 & 1;
  c.ZF = r.cpsr >> 30 & 1;
  c.CF = r.cpsr >> 29 & 1;
  c.VF = r.cpsr >> 28 & 1;
  c.set_daif(r.cpsr & 0x3c0);
  std::copy(r.v, r.v + 32, c.V);
  c.FPSR = r.fpsr;
  c.FPCR = r.fpcr;
}

bool JunoMachine::read_memory(int cpu, uint64_t va, void* buf, size_t n) {
  if (cpu < 0 || cpu >= num_cpus()) return false;
  return cores_[static_cast<size_t>(cpu)]->debug_read(va, buf, n);
}

bool JunoMachine::write_memory(int cpu, uint64_t va, const void* buf, size_t n) {
  if (cpu < 0 || cpu >= num_cpus()) return false;
  cpu::Core& c = *cores_[static_cast<size_t>(cpu)];
  // debug_write stops at the first unmapped page with the earlier pages written; the stub wants all or
  // nothing, so probe the whole range first (a read sees exactly the pages a write would reach).
  std::vector<uint8_t> probe(n);
  if (!c.debug_read(va, probe.data(), n)) return false;
  return c.debug_write(va, buf, n);
}

gdb::Target::Stop JunoMachine::resume(bool step, int cpu, const std::vector<uint64_t>& breakpoints,
                                      const std::function<bool()>& should_stop, int& stopped_cpu) {
  stopped_cpu = cpu >= 0 && cpu < num_cpus() ? cpu : 0;
  if (outcome_) return Stop::Exited;
  if (step) {
    cpu::Core& c = *cores_[static_cast<size_t>(stopped_cpu)];
    // A CPU in WFI leaves it: a wake-up without an event is allowed by the architecture (WFI is a hint),
    // and a step that never returns would be worse. A powered-off CPU does not move.
    if (c.powered()) {
      waiting_[static_cast<size_t>(stopped_cpu)] = false;
      gic_->set_current_cpu(stopped_cpu);
      clock_.begin_quantum(&retired_by, &c);
      cpu::RunResult r = c.run(1);
      clock_.end_quantum();
      instructions_ += r.retired;
      if (r.exit == cpu::Exit::Idle) waiting_[static_cast<size_t>(stopped_cpu)] = true;
      clock_.retire(r.retired);
      if (gpu_) gpu_->service(clock_.ticks());
      update_timers();
      console_.flush();
    }
    return outcome_ ? Stop::Exited : Stop::Step;
  }
  for (auto& c : cores_)
    for (uint64_t a : breakpoints) c->add_breakpoint(a);
  DebugRun debug{breakpoints, std::vector<bool>(cores_.size(), false)};
  Stop why = Stop::Interrupted;
  // Ctrl-C is polled every 8 rounds (about 16k instructions per CPU) and after every idle round (which may
  // have waited for console input): prompt, yet one system call per many thousand instructions.
  for (uint64_t n = 1;; ++n) {
    RoundResult r = round(&debug);
    if (outcome_) {
      why = Stop::Exited;
      break;
    }
    if (r.breakpoint >= 0) {
      stopped_cpu = r.breakpoint;
      why = Stop::Breakpoint;
      break;
    }
    if ((n % 8 == 0 || !r.any_running) && should_stop()) break;
  }
  for (auto& c : cores_)
    for (uint64_t a : breakpoints) c->remove_breakpoint(a);
  console_.flush();
  return why;
}

} // namespace vplat
