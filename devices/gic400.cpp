#include "devices/gic400.h"

namespace vplat::dev {

Gic400::Gic400(int num_cpus, std::function<void(int, bool)> cpu_irq)
    : num_cpus_(num_cpus), cpu_irq_(std::move(cpu_irq)) {
  for (int c = 0; c < kMaxCpus; ++c)
    for (int i = 0; i < 16; ++i) cpus_[c].banked[i].edge = true; // SGIs are edge-triggered
}

void Gic400::set_spi(int intid, bool level) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  if (intid < 32 || intid >= kNumIrqs) return;
  Irq& q = spis_[intid];
  if (level && !q.level && q.edge) q.pending = true; // a rising edge latches
  q.level = level;
  update();
}

void Gic400::set_ppi(int cpu, int intid, bool level) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  if (cpu < 0 || cpu >= num_cpus_ || intid < 16 || intid >= 32) return;
  Irq& q = cpus_[cpu].banked[intid];
  if (level && !q.level && q.edge) q.pending = true;
  q.level = level;
  update();
}

bool Gic400::is_pending(int cpu, int intid) {
  if (intid < 16) return cpus_[cpu].sgi_sources[intid] != 0;
  Irq& q = irq(cpu, intid);
  return q.pending || (!q.edge && q.level);
}

bool Gic400::targets(int cpu, int intid) { return intid < 32 || (spis_[intid].targets >> cpu & 1); }

uint8_t Gic400::running_priority(int cpu) const {
  const auto& st = cpus_[cpu].active_stack;
  return st.empty() ? 0xff : st.back().second;
}

// The highest-priority (lowest value) pending, enabled, not active interrupt for `cpu`; ties go to the
// lowest INTID, as the architecture recommends.
uint32_t Gic400::highest_pending(int cpu, uint8_t* prio) {
  uint32_t best = kSpurious;
  uint8_t best_prio = 0xff;
  for (int i = 0; i < kNumIrqs; ++i) {
    Irq& q = irq(cpu, i);
    if (!q.enabled || q.active || !is_pending(cpu, i) || !targets(cpu, i)) continue;
    if (best == kSpurious || q.priority < best_prio) {
      best = static_cast<uint32_t>(i);
      best_prio = q.priority;
    }
  }
  if (prio) *prio = best_prio;
  return best;
}

void Gic400::update() {
  for (int c = 0; c < num_cpus_; ++c) {
    Cpu& cpu = cpus_[c];
    bool out = false;
    if ((dist_ctlr_ & 1) && (cpu.ctlr & 1)) {
      uint8_t p;
      uint32_t id = highest_pending(c, &p);
      // Preemption compares group priorities: the bits above the binary point.
      uint8_t mask = static_cast<uint8_t>(0xff << ((cpu.bpr & 7) + 1));
      if (id != kSpurious && p < cpu.pmr && (p & mask) < (running_priority(c) & mask)) out = true;
    }
    if (out != cpu.irq_out) {
      cpu.irq_out = out;
      if (cpu_irq_) cpu_irq_(c, out);
    }
  }
}

bool Gic400::irq_pending(int cpu) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  return cpus_[cpu].irq_out;
}

uint32_t Gic400::acknowledge(int c) {
  Cpu& cpu = cpus_[c];
  uint8_t p;
  uint32_t id = highest_pending(c, &p);
  if (id == kSpurious || p >= cpu.pmr) return kSpurious;
  uint32_t result = id;
  if (id < 16) {
    // Take the lowest-numbered source CPU; others stay pending.
    int src = __builtin_ctz(cpu.sgi_sources[id]);
    cpu.sgi_sources[id] &= static_cast<uint8_t>(~(1u << src));
    cpu.sgi_active_src[id] = static_cast<uint8_t>(src);
    result |= static_cast<uint32_t>(src) << 10;
  } else {
    irq(c, id).pending = false; // a level interrupt whose line is still high stays pending through `level`
  }
  irq(c, id).active = true;
  cpu.active_stack.push_back({id, p});
  update();
  return result;
}

void Gic400::deactivate(int c, uint32_t value) {
  uint32_t id = value & 0x3ff;
  if (id >= static_cast<uint32_t>(kNumIrqs)) return;
  irq(c, static_cast<int>(id)).active = false;
}

void Gic400::end_of_interrupt(int c, uint32_t value) {
  Cpu& cpu = cpus_[c];
  uint32_t id = value & 0x3ff;
  // Priority drop: remove the most recent acknowledgement of this interrupt.
  for (auto it = cpu.active_stack.rbegin(); it != cpu.active_stack.rend(); ++it)
    if (it->first == id) {
      cpu.active_stack.erase(std::next(it).base());
      break;
    }
  if (!(cpu.ctlr & (1u << 9))) deactivate(c, value); // EOImodeNS = 0: EOIR also deactivates
  update();
}

void Gic400::send_sgi(int c, uint32_t v) {
  uint32_t id = v & 0xf;
  uint32_t filter = (v >> 24) & 3;
  uint32_t list = (v >> 16) & 0xff;
  uint32_t targets_mask = filter == 0 ? list : filter == 1 ? (((1u << num_cpus_) - 1) & ~(1u << c)) : filter == 2 ? (1u << c) : 0;
  for (int t = 0; t < num_cpus_; ++t)
    if (targets_mask >> t & 1) cpus_[t].sgi_sources[id] |= static_cast<uint8_t>(1u << c);
  update();
}

uint64_t Gic400::dist_read(int c, uint64_t o) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  auto bits = [&](uint64_t base, auto field) -> uint64_t {
    int first = static_cast<int>((o - base) * 8);
    uint32_t v = 0;
    for (int i = 0; i < 32 && first + i < kNumIrqs; ++i)
      if (field(first + i)) v |= 1u << i;
    return v;
  };
  if (o == 0x000) return dist_ctlr_;
  if (o == 0x004) return static_cast<uint64_t>((kNumIrqs / 32 - 1) | ((num_cpus_ - 1) << 5));
  if (o == 0x008) return 0x0200043b; // GICD_IIDR of the GIC-400
  if (o >= 0x080 && o < 0x0a0) return 0; // IGROUPR: all Group 0
  if (o >= 0x100 && o < 0x120) return bits(0x100, [&](int i) { return irq(c, i).enabled; });
  if (o >= 0x180 && o < 0x1a0) return bits(0x180, [&](int i) { return irq(c, i).enabled; });
  if (o >= 0x200 && o < 0x220) return bits(0x200, [&](int i) { return is_pending(c, i); });
  if (o >= 0x280 && o < 0x2a0) return bits(0x280, [&](int i) { return is_pending(c, i); });
  if (o >= 0x300 && o < 0x320) return bits(0x300, [&](int i) { return irq(c, i).active; });
  if (o >= 0x380 && o < 0x3a0) return bits(0x380, [&](int i) { return irq(c, i).active; });
  if (o >= 0x400 && o < 0x500) {
    uint64_t v = 0;
    for (int k = 0; k < 4; ++k) v |= uint64_t(irq(c, static_cast<int>(o - 0x400 + k)).priority) << (8 * k);
    return v & ~0x0707070707070707ull & 0xffffffff; // 5 priority bits implemented (32 levels)
  }
  if (o >= 0x800 && o < 0x900) {
    uint64_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int i = static_cast<int>(o - 0x800 + k);
      v |= uint64_t(i < 32 ? (1u << c) : spis_[i].targets) << (8 * k);
    }
    return v;
  }
  if (o >= 0xc00 && o < 0xc40) {
    uint64_t v = 0;
    for (int k = 0; k < 16; ++k) {
      int i = static_cast<int>((o - 0xc00) * 4 + k);
      if (irq(c, i).edge) v |= 2ull << (2 * k);
    }
    return v;
  }
  if (o >= 0xf10 && o < 0xf30) { // CPENDSGIR / SPENDSGIR
    uint64_t v = 0;
    for (int k = 0; k < 4; ++k) v |= uint64_t(cpus_[c].sgi_sources[(o & 0xf) + k]) << (8 * k);
    return v;
  }
  if (o == 0xfe8) return 0x2b; // ICPIDR2: GICv2
  return 0;
}

void Gic400::dist_write(int c, uint64_t o, unsigned size, uint64_t value) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  uint32_t v = static_cast<uint32_t>(value);
  auto each_bit = [&](uint64_t base, auto action) {
    int first = static_cast<int>((o - base) * 8);
    for (int i = 0; i < 32 && first + i < kNumIrqs; ++i)
      if (v >> i & 1) action(first + i);
  };
  if (o == 0x000) dist_ctlr_ = v & 1;
  else if (o >= 0x100 && o < 0x120) each_bit(0x100, [&](int i) { irq(c, i).enabled = true; });
  else if (o >= 0x180 && o < 0x1a0) each_bit(0x180, [&](int i) { irq(c, i).enabled = false; });
  else if (o >= 0x200 && o < 0x220) each_bit(0x200, [&](int i) { if (i >= 16) irq(c, i).pending = true; });
  else if (o >= 0x280 && o < 0x2a0) each_bit(0x280, [&](int i) { if (i >= 16) irq(c, i).pending = false; });
  else if (o >= 0x300 && o < 0x320) each_bit(0x300, [&](int i) { irq(c, i).active = true; });
  else if (o >= 0x380 && o < 0x3a0) each_bit(0x380, [&](int i) { irq(c, i).active = false; });
  else if (o >= 0x400 && o < 0x500) {
    for (unsigned k = 0; k < size && o - 0x400 + k < kNumIrqs; ++k)
      irq(c, static_cast<int>(o - 0x400 + k)).priority = static_cast<uint8_t>((value >> (8 * k)) & 0xf8);
  } else if (o >= 0x820 && o < 0x900) {
    for (unsigned k = 0; k < size && o - 0x800 + k < kNumIrqs; ++k)
      spis_[o - 0x800 + k].targets = static_cast<uint8_t>((value >> (8 * k)) & ((1u << num_cpus_) - 1));
  } else if (o >= 0xc08 && o < 0xc40) { // ICFGR for PPIs is read-only on the GIC-400; SPIs configurable
    for (int k = 0; k < 16; ++k) {
      int i = static_cast<int>((o - 0xc00) * 4 + k);
      if (i >= 32 && i < kNumIrqs) spis_[i].edge = (v >> (2 * k + 1)) & 1;
    }
  } else if (o == 0xf00) {
    send_sgi(c, v);
  } else if (o >= 0xf10 && o < 0xf30) {
    bool set = o >= 0xf20;
    for (unsigned k = 0; k < size && k < 4; ++k) {
      uint8_t m = static_cast<uint8_t>(value >> (8 * k));
      auto& s = cpus_[c].sgi_sources[(o & 0xf) + k];
      s = set ? (s | m) : (s & ~m);
    }
  }
  update();
}

uint64_t Gic400::cpu_read(int c, uint64_t o) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  Cpu& cpu = cpus_[c];
  switch (o) {
  case 0x00: return cpu.ctlr;
  case 0x04: return cpu.pmr;
  case 0x08: return cpu.bpr;
  case 0x0c: return acknowledge(c);
  case 0x14: return running_priority(c);
  case 0x18: {
    uint32_t id = highest_pending(c, nullptr);
    if (id < 16) id |= static_cast<uint32_t>(__builtin_ctz(cpu.sgi_sources[id])) << 10;
    return id;
  }
  case 0xd0: { // GICC_APR0: one bit per active group priority (32 levels)
    uint32_t v = 0;
    for (auto& a : cpu.active_stack) v |= 1u << (a.second >> 3);
    return v;
  }
  case 0xfc: return 0x0202143b; // GICC_IIDR of the GIC-400
  default: return 0;
  }
}

void Gic400::cpu_write(int c, uint64_t o, uint64_t value) {
  std::lock_guard<std::recursive_mutex> g(lock_);
  Cpu& cpu = cpus_[c];
  uint32_t v = static_cast<uint32_t>(value);
  switch (o) {
  case 0x00: cpu.ctlr = v & 0x261; break; // Enable, FIQBypDis/IRQBypDis, EOImodeNS
  case 0x04: cpu.pmr = v & 0xf8; break;
  case 0x08: cpu.bpr = std::max<uint32_t>(v & 7, 2); break;
  case 0x10: end_of_interrupt(c, v); break;
  case 0x1000: deactivate(c, v); break;
  default: break;
  }
  update();
}

} // namespace vplat::dev
