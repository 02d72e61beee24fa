#include "platforms/juno_machine.h"
#include "platforms/boot_layout.h"
#include "platforms/image_loader.h"
#include "platforms/juno_board.h"
#include <algorithm>
#include <cstdio>

namespace vplat {

namespace {
// Instructions a core runs before the next one gets its turn. Small enough that a core spinning on a lock
// soon lets the holder run; large enough that switching costs little.
constexpr uint64_t kQuantum = 2000;
// The RTC starts at a fixed time so that runs repeat exactly (2026-01-01 00:00:00 UTC).
constexpr uint32_t kRtcEpoch = 1767225600;
constexpr int kSpiBase = 32;
} // namespace

JunoMachine::JunoMachine(const Options& options) : options_(options) {}

JunoMachine::~JunoMachine() { console_.flush(); }

std::unique_ptr<JunoMachine> JunoMachine::create(const Options& options, std::string& error) {
  std::unique_ptr<JunoMachine> m(new JunoMachine(options));
  if (!m->load(error)) return nullptr;
  return m;
}

bool JunoMachine::load(std::string& error) {
  auto banks = juno::ram_banks(options_.memory);
  for (auto [base, size] : banks) bus_.add_ram(base, size);

  const unsigned n = options_.smp;
  gic_ = std::make_unique<dev::Gic400>(static_cast<int>(n), [this](int cpu, bool level) {
    if (cpu < static_cast<int>(cores_.size())) cores_[cpu]->set_irq(level);
  });
  bus_.add_device(juno::kGicdBase, juno::kGicdSize, &gic_->distributor());
  bus_.add_device(juno::kGiccBase, juno::kGiccSize, &gic_->cpu_interface());

  for (const auto& d : juno::kDevices) {
    switch (d.kind) {
    case juno::DeviceKind::Pl011:
      uart_ = std::make_unique<dev::Pl011>(gic_->spi_line(kSpiBase + d.spi[0]), [this](uint8_t b) { console_.output(b); });
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
    case juno::DeviceKind::MaliG71: break; // the GPU model arrives with the GPU-DEV issue
    }
  }

  for (unsigned i = 0; i < n; ++i) {
    timers_.push_back(std::make_unique<dev::GenericTimer>(clock_, gic_->ppi_line(static_cast<int>(i), dev::GenericTimer::kPhysIntid),
                                                         gic_->ppi_line(static_cast<int>(i), dev::GenericTimer::kVirtIntid)));
    cpu::Core::Config c;
    c.system = true;
    c.midr = juno::cpu_is_a72(i) ? 0x410FD081 : 0x410FD034;
    c.mpidr = juno::kCpuMpidr[i];
    c.cntfrq = dev::VirtualClock::kFrequency;
    cores_.push_back(std::make_unique<cpu::Core>(*this, c, this));
    group_.add(*cores_.back());
    cores_.back()->power_off();
  }
  waiting_.assign(n, false);

  std::vector<uint64_t> mpidrs(juno::kCpuMpidr, juno::kCpuMpidr + n);
  psci_ = std::make_unique<Psci>(mpidrs, Psci::Hooks{
      [this](unsigned i, uint64_t entry, uint64_t context) {
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
  std::vector<uint8_t> initrd;
  if (!options_.initrd.empty()) {
    auto data = read_file(options_.initrd, banks[0].second, error);
    if (!data) {
      error = "initrd: " + error;
      return false;
    }
    initrd = std::move(*data);
  }
  juno::DtbConfig dc;
  dc.cpus = n;
  dc.ram_size = options_.memory;
  dc.bootargs = options_.append;
  dc.virtio_disk = disk_ != nullptr;
  // Plan with a worst-case DTB size, then generate the real one with the initrd's final range.
  auto layout = plan_boot(banks[0].first, banks[0].second, kernel->text_offset, kernel->image_size, kMaxDtbSize,
                          initrd.size(), error);
  if (!layout) return false;
  if (!initrd.empty()) dc.initrd = {{layout->initrd_start, layout->initrd_end}};
  auto dtb = juno::build_dtb(dc);
  if (!bus_.copy_to(layout->kernel_load, kernel->bytes.data(), kernel->bytes.size()) ||
      !bus_.copy_to(layout->dtb, dtb.data(), dtb.size()) ||
      (!initrd.empty() && !bus_.copy_to(layout->initrd_start, initrd.data(), initrd.size()))) {
    error = "internal error: the boot layout does not fit in RAM";
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
  case cpu::TimerReg::Cntpct: return t.physical_count();
  case cpu::TimerReg::Cntvct: return t.virtual_count();
  case cpu::TimerReg::CntpCtl: return t.read_ctl(t.phys, t.physical_count());
  case cpu::TimerReg::CntpCval: return t.phys.cval;
  case cpu::TimerReg::CntpTval: return t.read_tval(t.phys, t.physical_count());
  case cpu::TimerReg::CntvCtl: return t.read_ctl(t.virt, t.virtual_count());
  case cpu::TimerReg::CntvCval: return t.virt.cval;
  case cpu::TimerReg::CntvTval: return t.read_tval(t.virt, t.virtual_count());
  }
  return 0;
}

void JunoMachine::timer_write(cpu::Core& core, cpu::TimerReg reg, uint64_t value) {
  auto& t = *timers_[index_of(core)];
  switch (reg) {
  case cpu::TimerReg::CntpCtl: t.phys.ctl = static_cast<uint32_t>(value & 3); break;
  case cpu::TimerReg::CntpCval: t.phys.cval = value; break;
  case cpu::TimerReg::CntpTval: t.write_tval(t.phys, t.physical_count(), static_cast<uint32_t>(value)); break;
  case cpu::TimerReg::CntvCtl: t.virt.ctl = static_cast<uint32_t>(value & 3); break;
  case cpu::TimerReg::CntvCval: t.virt.cval = value; break;
  case cpu::TimerReg::CntvTval: t.write_tval(t.virt, t.virtual_count(), static_cast<uint32_t>(value)); break;
  default: break; // the counters are read-only
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

void JunoMachine::feed_console_input(int wait_ms) {
  if (pending_input_.empty()) pending_input_ = console_.poll_input(wait_ms);
  size_t used = 0;
  while (used < pending_input_.size() && uart_->can_receive()) uart_->receive(static_cast<uint8_t>(pending_input_[used++]));
  pending_input_.erase(0, used);
  if (console_.quit_requested()) outcome_ = Outcome::Quit;
}

JunoMachine::Outcome JunoMachine::run() {
  uint64_t round = 0;
  while (!outcome_) {
    uint64_t longest = 0;
    bool any_running = false;
    for (unsigned i = 0; i < cores_.size() && !outcome_; ++i) {
      cpu::Core& c = *cores_[i];
      if (!c.powered()) continue;
      if (waiting_[i] && !c.irq_line()) continue;
      waiting_[i] = false;
      gic_->set_current_cpu(static_cast<int>(i));
      cpu::RunResult r = c.run(kQuantum);
      instructions_ += r.retired;
      longest = std::max(longest, r.retired);
      switch (r.exit) {
      case cpu::Exit::Idle: waiting_[i] = true; break;
      case cpu::Exit::Off: break;
      default: any_running = true; break;
      }
    }
    // Cores run side by side: a round lasts as long as its busiest core.
    clock_.advance(longest);
    if (!any_running && !outcome_) {
      // Every core waits for an interrupt: jump to the next timer event, or wait for the console.
      uint64_t next = UINT64_MAX;
      for (auto& t : timers_) next = std::min(next, t->next_deadline());
      bool woken = false;
      for (unsigned i = 0; i < cores_.size(); ++i) woken |= cores_[i]->powered() && cores_[i]->irq_line();
      if (!woken) {
        console_.flush();
        if (next != UINT64_MAX) clock_.advance_to(next);
        else feed_console_input(100);
      }
    }
    update_timers();
    if (++round % 64 == 0 || !any_running) feed_console_input(0);
    if (round % 256 == 0) console_.flush();
  }
  console_.flush();
  return *outcome_;
}

} // namespace vplat
