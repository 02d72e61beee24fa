// The run loop, exception entry and return, the soft TLB slow paths, the debugger accessors and the core
// group. Facts: Arm ARM (DDI 0487) D1 (exception model), D5 (VMSA), D17 (ESR/FAR/SPSR/PAR layouts).
#include "cpu-dbt/a64_core.h"
#include "devices/host_memory.h"
#include <algorithm>
#include <array>
#include <cstddef>
#include <new>

namespace vplat::cpu {

namespace {

// ESR_ELx.EC values used here.
constexpr uint32_t kEcUnknown = 0x00, kEcIllegal = 0x0e, kEcSvc = 0x15, kEcInsnAbortLower = 0x20,
                   kEcPcAlign = 0x22, kEcDataAbortLower = 0x24, kEcSpAlign = 0x26, kEcBrk = 0x3c;
constexpr uint32_t kIL = 1u << 25; // every exception here is from a 32-bit instruction or has IL RES1

bool has_token(const char* list, const char* token) {
  std::string_view l(list), t(token);
  size_t pos = 0;
  while (pos <= l.size()) {
    size_t end = l.find(',', pos);
    if (end == std::string_view::npos) end = l.size();
    if (l.substr(pos, end - pos) == t) return true;
    pos = end + 1;
  }
  return false;
}

std::array<uint8_t, a64::kNumInsns> build_flags() {
  std::array<uint8_t, a64::kNumInsns> f{};
  for (int id = 0; id < a64::kNumInsns; ++id) {
    const auto& i = a64::kInsnInfo[id];
    std::string_view name(i.name), cls(i.cls);
    uint8_t v = 0;
    for (const char* list : {i.reads, i.writes})
      if (has_token(list, "V") || has_token(list, "FPCR") || has_token(list, "FPSR")) v |= kFlagFp;
    if (name == "HINT") v |= kFlagHint;
    if (name == "LDXR" || name == "LDXP") v |= kFlagExclLoad;
    if (cls.substr(0, 4) == "mem_" && cls != "mem_prefetch" && name.find("_lit") == std::string_view::npos)
      v |= kFlagSpBase;
    if (name == "LDR_imm9" || name == "STR_imm9" || name == "LDRS_imm9") v |= kFlagUnpriv;
    f[id] = v;
  }
  return f;
}

const std::array<uint8_t, a64::kNumInsns> kFlags = build_flags();

// Instructions after which a translated block may start: branches and what blocks leave to the
// interpreter (a64_jit.cpp decides the same from the same metadata).
std::array<bool, a64::kNumInsns> build_ends_block() {
  std::array<bool, a64::kNumInsns> e{};
  for (int id = 0; id < a64::kNumInsns; ++id) {
    const auto& i = a64::kInsnInfo[id];
    std::string_view cls(i.cls);
    e[id] = i.is_branch || (cls.substr(0, 4) == "sys_" && cls != "sys_nop") ||
            kFlags[id] & (kFlagHint | kFlagExclLoad) || has_token(i.helpers, "raise_exception") ||
            has_token(i.helpers, "sysreg_read") || has_token(i.helpers, "sysreg_write") ||
            has_token(i.helpers, "undefined");
  }
  return e;
}
const std::array<bool, a64::kNumInsns> kEndsBlock = build_ends_block();

bool no_monitors = false; // what monitors_active_ points at for a core outside any group

} // namespace

uint8_t insn_flags(int id) {
  return kFlags[id];
}

bool ends_block(int id) {
  return kEndsBlock[id];
}

const char* exception_name(Exception e) {
  switch (e) {
  case Exception::None:
    return "none";
  case Exception::Undefined:
    return "undefined instruction";
  case Exception::DataAbort:
    return "data abort";
  case Exception::InstructionAbort:
    return "instruction abort";
  case Exception::Alignment:
    return "alignment fault";
  case Exception::SupervisorCall:
    return "supervisor call";
  case Exception::HypervisorCall:
    return "hypervisor call";
  case Exception::SecureMonitorCall:
    return "secure monitor call";
  case Exception::Breakpoint:
    return "breakpoint";
  case Exception::Halt:
    return "halt";
  case Exception::System:
    return "system instruction";
  case Exception::Trap:
    return "trapped instruction";
  case Exception::PcAlignment:
    return "PC alignment fault";
  case Exception::SpAlignment:
    return "SP alignment fault";
  case Exception::IllegalState:
    return "illegal execution state";
  }
  return "?";
}

void* Core::operator new(std::size_t size) {
  void* p = dev::reserve_host_memory(size);
  if (!p) throw std::bad_alloc();
  return p;
}

void Core::operator delete(void* p, std::size_t size) {
  dev::release_host_memory(p, size);
}

Core::Core(MemoryPort& memory, const Config& cfg, CoreHooks* h)
    : config(cfg), hooks(h), mem(memory), monitors_active_(&no_monitors) {
  // User-level tests run FP code at EL1 without an OS to enable it.
  if (!config.system) sys.cpacr = 3u << 20;
  update_cached();
}

void Core::power_on(uint64_t pc, uint64_t x0) {
  for (auto& x : X) x = 0;
  for (auto& v : V) v = 0;
  NF = ZF = CF = VF = 0;
  FPCR = FPSR = 0;
  EXC = 0;
  EXCL_VALID = 0;
  X[0] = x0;
  PC = pc;
  el_ = 1;
  spsel_ = 1;
  sp_other_ = 0;
  daif_ = 0x3c0;
  il_ = false;
  event_ = false;
  sys.sctlr = 0x30D00800;
  off_ = false;
  attention_.fetch_and(~kAttnOff, std::memory_order_relaxed);
  flush_tlb();
  update_cached();
}

uint32_t Core::pstate() const {
  return uint32_t(NF) << 31 | uint32_t(ZF) << 30 | uint32_t(CF) << 29 | uint32_t(VF) << 28 |
         uint32_t(il_) << 20 | daif_ | el_ << 2 | spsel_;
}

uint64_t Core::get_sp_el0() const {
  return (el_ == 0 || !spsel_) ? X[31] : sp_other_;
}
void Core::set_sp_el0(uint64_t v) {
  if (el_ == 0 || !spsel_)
    X[31] = v;
  else
    sp_other_ = v;
}
uint64_t Core::sp_el(unsigned which) const {
  bool current_is_el1 = el_ == 1 && spsel_;
  return (which == 1) == current_is_el1 ? X[31] : sp_other_;
}

void Core::set_sp_sel(unsigned new_el, unsigned new_spsel) {
  bool cur = el_ == 1 && spsel_;
  bool next = new_el == 1 && new_spsel;
  if (cur != next) std::swap(X[31], sp_other_);
  if (new_el != el_) fetch_page_ = ~0ull; // the fetch page was translated for the other EL
  el_ = new_el;
  spsel_ = new_spsel;
}

void Core::update_cached() {
  set_access_el(el_);
  align_mask_ = (sys.sctlr & 2) ? ~0ull : 0;
  sp_check_ = el_ == 0 ? (sys.sctlr >> 4 & 1) : (sys.sctlr >> 3 & 1);
  unsigned fpen = (sys.cpacr >> 20) & 3;
  fp_trap_ = fpen == 0 || fpen == 2 || (fpen == 1 && el_ == 0);
}

void Core::write_sctlr(uint64_t v) {
  // Writable: M A C SA SA0 UMA I DZE UCT nTWI nTWE WXN UCI; EE/E0E are RES0 (no mixed endianness); RES1 set.
  constexpr uint64_t kWritable =
      0x1f | 1u << 9 | 1u << 12 | 1u << 14 | 1u << 15 | 1u << 16 | 1u << 18 | 1u << 19 | 1u << 26;
  uint64_t nv = (v & kWritable) | 0x30D00800;
  // M and WXN change what translations mean; A sends every data access to the slow path (TlbEntry).
  if ((nv ^ sys.sctlr) & (1 | 2 | 1u << 19)) flush_tlb();
  sys.sctlr = nv;
  update_cached();
}

void Core::write_cpacr(uint64_t v) {
  sys.cpacr = v & (3u << 20);
  update_cached();
}

TranslationRegs Core::translation_regs() const {
  TranslationRegs r;
  r.sctlr = sys.sctlr;
  r.tcr = sys.tcr;
  r.ttbr0 = sys.ttbr0;
  r.ttbr1 = sys.ttbr1;
  r.pa_bits = 40;
  return r;
}

void Core::flush_tlb() {
  if (filled_count_ <= kFilledListed) {
    for (size_t i = 0; i < filled_count_; ++i) *filled_[i] = TlbEntry{};
  } else {
    for (auto& bank : tlb_)
      for (auto& e : bank) e = TlbEntry{};
    for (auto& bank : itlb_)
      for (auto& e : bank) e = TlbEntry{};
  }
  if (victims_used_)
    for (auto& bank : victims_)
      for (auto& e : bank) e = TlbEntry{};
  victims_used_ = false;
  filled_count_ = 0;
  block_count_ = 0;
  fetch_page_ = ~0ull;
}

void Core::flush_tlb_va(uint64_t va) {
  const uint64_t v = va & kBlockVaBits & ~0xfffull;
  if (block_count_ > kBlocksListed) return flush_tlb();
  for (size_t i = 0; i < block_count_; ++i)
    if ((v & ~blocks_[i].mask) == blocks_[i].base) return flush_tlb();
  // Direct-mapped: the page can only sit in its own slot of each table (cleared whatever it holds).
  const size_t slot = (v >> 12) & (kTlbSize - 1);
  for (unsigned el = 0; el < 2; ++el) {
    tlb_[el][slot] = TlbEntry{};
    itlb_[el][slot] = TlbEntry{};
    victims_[el][victim_slot(v)] = TlbEntry{};
  }
  fetch_page_ = ~0ull;
}

// ---------------------------------------------------------------------------------------- exceptions

void Core::raise(Exception e, uint64_t address) {
  EXC = static_cast<uint8_t>(e);
  fault_address = address;
  pending_ret_ = PC;
  pending_far_ = address;
  pending_far_valid_ = false;
  switch (e) {
  case Exception::Alignment: // from check_alignment (exclusive and ordered accesses): bit 22 is L
    raise_data_abort(address, fsc::kAlignment, !(cur_insn >> 22 & 1));
    EXC = static_cast<uint8_t>(Exception::Alignment);
    return;
  case Exception::SupervisorCall:
    last_esr = kEcSvc << 26 | kIL | (exception_syndrome & 0xffff);
    pending_ret_ = PC + 4;
    return;
  case Exception::Breakpoint:
    last_esr = kEcBrk << 26 | kIL | (exception_syndrome & 0xffff);
    return;
  case Exception::PcAlignment:
    last_esr = kEcPcAlign << 26 | kIL;
    pending_far_valid_ = true;
    return;
  case Exception::SpAlignment:
    last_esr = kEcSpAlign << 26 | kIL;
    return;
  case Exception::IllegalState:
    last_esr = kEcIllegal << 26 | kIL;
    return;
  default:
    last_esr = kEcUnknown << 26 | kIL;
    return;
  }
}

void Core::raise_data_abort(uint64_t va, uint8_t dfsc, bool write, bool cm, bool s1ptw) {
  EXC = static_cast<uint8_t>(Exception::DataAbort);
  fault_address = va;
  pending_ret_ = PC;
  pending_far_ = va;
  pending_far_valid_ = true;
  uint32_t ec = kEcDataAbortLower + (el_ == 1 ? 1 : 0);
  // ISV = 0 (no instruction syndrome), FnV = 0 (FAR valid), EA = 0.
  last_esr = ec << 26 | kIL | uint32_t(cm || write) << 6 | uint32_t(cm) << 8 | uint32_t(s1ptw) << 7 | dfsc;
}

void Core::raise_trap(uint32_t ec, uint32_t iss) {
  EXC = static_cast<uint8_t>(Exception::Trap);
  pending_ret_ = PC;
  pending_far_valid_ = false;
  last_esr = ec << 26 | kIL | iss;
}

void Core::take_exception(uint32_t esr, uint64_t far, bool far_valid, uint64_t ret, unsigned offset,
                          bool write_esr) {
  uint32_t spsr = pstate();
  unsigned base = el_ == 0 ? 0x400 : (spsel_ ? 0x200 : 0);
  sys.spsr = spsr;
  sys.elr = ret;
  if (write_esr) sys.esr = esr;
  if (far_valid) sys.far = far;
  set_sp_sel(1, 1);
  daif_ = 0x3c0;
  il_ = false;
  // Exception entry may clear the local monitor; clearing it makes a store-exclusive interrupted by an
  // exception fail, which software must tolerate anyway.
  EXCL_VALID = 0;
  PC = sys.vbar + base + offset;
  update_cached();
}

bool Core::deliver_sync() {
  if (!EXC) return false;
  EXC = 0;
  take_exception(last_esr, pending_far_, pending_far_valid_, pending_ret_, 0, true);
  return true;
}

void Core::eret() {
  if (el_ == 0) {
    raise_undefined();
    return;
  }
  uint64_t spsr = sys.spsr;
  unsigned m = spsr & 0x1f;
  unsigned target = (m >> 2) & 3;
  // Illegal exception return (Arm ARM D1.11.5): AArch32, a higher or unimplemented EL, a reserved mode,
  // EL0 with SP_ELx.
  bool illegal = (m & 0x10) || target > el_ || (m & 2) || (target == 0 && (m & 1));
  NF = spsr >> 31 & 1;
  ZF = spsr >> 30 & 1;
  CF = spsr >> 29 & 1;
  VF = spsr >> 28 & 1;
  daif_ = spsr & 0x3c0;
  if (illegal) {
    il_ = true;
  } else {
    il_ = spsr >> 20 & 1;
    set_sp_sel(target, m & 1);
  }
  EXCL_VALID = 0; // exception return clears the local monitor
  NPC = sys.elr;
  update_cached();
}

// ---------------------------------------------------------------------------------------- memory

Translation Core::walk(uint64_t va, Access kind, unsigned el) {
  auto reader = [this](uint64_t pa, uint64_t& v) {
    if (uint8_t* p = mem.ram_pointer(pa & ~0xfffull)) {
      std::memcpy(&v, p + (pa & 0xfff), 8);
      return true;
    }
    return mem.read(pa, 8, v);
  };
  return translate(translation_regs(), va, kind, el, reader);
}

void Core::displace(unsigned el, TlbEntry& e, uint64_t page) {
  const uint64_t tag = e.read != ~0ull ? e.read : e.write;
  if (tag == ~0ull || (tag & ~0xfffull) == page) return;
  victims_[el][victim_slot(tag)] = e;
  victims_used_ = true;
}

bool Core::translate_fill(uint64_t va, Access kind, unsigned el, TlbEntry*& entry, uint8_t& fault) {
  const bool fetch = kind == Access::Fetch;
  TlbEntry& e = (fetch ? itlb_ : tlb_)[el][(va >> 12) & (kTlbSize - 1)];
  uint64_t page = va & ~0xfffull;
  if (!fetch) {
    TlbEntry& v = victims_[el][victim_slot(va)];
    const uint64_t tag = kind == Access::Write ? v.write : v.read;
    if ((tag & ~TlbEntry::kSlowPath) == page) {
      const TlbEntry found = v;
      v = TlbEntry{};
      displace(el, e, page);
      note_filled(e);
      e = found;
      entry = &e;
      return true;
    }
  }
  Translation t = walk(va, kind, el);
  if (!t.ok) {
    fault = t.fault;
    return false;
  }
  if (t.page_mask > 0xfff && block_count_ <= kBlocksListed) {
    const uint64_t base = va & kBlockVaBits & ~t.page_mask;
    bool listed = false;
    for (size_t i = 0; i < block_count_; ++i)
      listed |= blocks_[i].base == base && blocks_[i].mask == t.page_mask;
    if (!listed) {
      if (block_count_ < kBlocksListed) blocks_[block_count_] = {base, t.page_mask};
      ++block_count_;
    }
  }
  if (!fetch) displace(el, e, page);
  note_filled(e);
  e.pa = t.pa & ~0xfffull;
  uint8_t* const host = mem.ram_pointer(e.pa);
  e.host_delta = host ? reinterpret_cast<uintptr_t>(host) - page : 0;
  const uint64_t data_page = page | (e.host_delta && !align_mask_ ? 0 : TlbEntry::kSlowPath);
  if (fetch) {
    e.fetch = permits(t, Access::Fetch, el) ? page : ~0ull;
    e.write = ~0ull;
  } else {
    e.read = permits(t, Access::Read, el) ? data_page : ~0ull;
    e.write = permits(t, Access::Write, el) ? data_page : ~0ull;
  }
  // Stores to translated code take the slow path, which drops the translations (page_write).
  if (jit_ && jit_->is_code_page(e.pa)) e.write = ~0ull;
  entry = &e;
  return true;
}

namespace {
inline Core::TlbEntry* hit(Core::TlbEntry& e, uint64_t Core::TlbEntry::*tag, uint64_t va) {
  return (e.*tag & ~Core::TlbEntry::kSlowPath) == (va & ~0xfffull) ? &e : nullptr;
}
} // namespace

// The TLB entry for a data access to `va`, walking the tables on a miss; nullptr (with the abort raised)
// when the translation faults.
static Core::TlbEntry* data_entry(Core& c, uint64_t va, Access kind) {
  const bool write = kind == Access::Write;
  auto& slot = c.tlb_[c.access_el_][(va >> 12) & (Core::kTlbSize - 1)];
  Core::TlbEntry* e = hit(slot, write ? &Core::TlbEntry::write : &Core::TlbEntry::read, va);
  uint8_t fault = 0;
  if (!e && !c.translate_fill(va, kind, c.access_el_, e, fault)) {
    c.raise_data_abort(va, fault, write);
    return nullptr;
  }
  return e;
}

// One access that does not cross a page; raises the abort on failure.
static bool page_read(Core& c, uint64_t va, unsigned size, uint64_t& v) {
  Core::TlbEntry* e = data_entry(c, va, Access::Read);
  if (!e) return false;
  v = 0;
  if (e->host_delta) {
    std::memcpy(&v, e->host(va), size);
    return true;
  }
  if (!c.mem.read(e->pa | (va & 0xfff), size, v)) {
    c.raise_data_abort(va, 0x10, false); // synchronous external abort
    return false;
  }
  return true;
}

static bool page_write(Core& c, uint64_t va, unsigned size, uint64_t v) {
  Core::TlbEntry* e = data_entry(c, va, Access::Write);
  if (!e) return false;
  uint64_t pa = e->pa | (va & 0xfff);
  if (*c.monitors_active_) c.group->store_to(c, pa, size);
  c.note_store(e->pa);
  if (e->host_delta) {
    std::memcpy(e->host(va), &v, size);
    return true;
  }
  if (!c.mem.write(pa, size, v)) {
    c.raise_data_abort(va, 0x10, true);
    return false;
  }
  return true;
}

// Both pages of a page-crossing access must translate before any byte moves, so that a fault on the
// second page leaves no partial write and reports the right address.
static bool check_pages(Core& c, uint64_t va, unsigned size, Access kind) {
  uint64_t second = (va + size - 1) & ~0xfffull;
  for (uint64_t a : {va, second}) {
    auto& slot = c.tlb_[c.access_el_][(a >> 12) & (Core::kTlbSize - 1)];
    if (hit(slot, kind == Access::Write ? &Core::TlbEntry::write : &Core::TlbEntry::read, a)) continue;
    Core::TlbEntry* e;
    uint8_t fault = 0;
    if (!c.translate_fill(a, kind, c.access_el_, e, fault)) {
      c.raise_data_abort(a, fault, kind == Access::Write);
      return false;
    }
  }
  return true;
}

uint64_t Core::read_slow(uint64_t va, unsigned size) {
  if (va & (size - 1) & align_mask_) {
    raise_data_abort(va, fsc::kAlignment, false);
    return 0;
  }
  uint64_t v = 0;
  if ((va & 0xfff) + size <= 0x1000) {
    page_read(*this, va, size, v);
    return v;
  }
  if (!check_pages(*this, va, size, Access::Read)) return 0;
  for (unsigned i = 0; i < size; ++i) {
    uint64_t b;
    if (!page_read(*this, va + i, 1, b)) return 0;
    v |= b << (8 * i);
  }
  return v;
}

void Core::write_slow(uint64_t va, unsigned size, uint64_t value) {
  if (va & (size - 1) & align_mask_) {
    raise_data_abort(va, fsc::kAlignment, true);
    return;
  }
  if ((va & 0xfff) + size <= 0x1000) {
    page_write(*this, va, size, value);
    return;
  }
  if (!check_pages(*this, va, size, Access::Write)) return;
  for (unsigned i = 0; i < size; ++i)
    if (!page_write(*this, va + i, 1, value >> (8 * i) & 0xff)) return;
}

void Core::zero_block(uint64_t va) {
  uint64_t base = va & ~63ull;
  auto& slot = tlb_[access_el_][(base >> 12) & (kTlbSize - 1)];
  TlbEntry* e = hit(slot, &TlbEntry::write, base);
  uint8_t fault = 0;
  if (!e && !translate_fill(base, Access::Write, access_el_, e, fault)) {
    raise_data_abort(va, fault, true);
    return;
  }
  uint64_t pa = e->pa | (base & 0xfff);
  if (*monitors_active_) group->store_to(*this, pa, 64);
  note_store(e->pa);
  if (e->host_delta) {
    std::memset(e->host(base), 0, 64);
    return;
  }
  for (unsigned i = 0; i < 64; i += 8)
    if (!mem.write(pa + i, 8, 0)) {
      raise_data_abort(va, 0x10, true);
      return;
    }
}

bool Core::fetch(uint32_t& insn) {
  if (PC & 3) {
    raise(Exception::PcAlignment, PC);
    return false;
  }
  auto& slot = itlb_[el_][(PC >> 12) & (kTlbSize - 1)];
  TlbEntry* e = hit(slot, &TlbEntry::fetch, PC);
  uint8_t fault = 0;
  if (!e && !translate_fill(PC, Access::Fetch, el_, e, fault)) {
    raise(Exception::InstructionAbort, PC);
    last_esr = (kEcInsnAbortLower + (el_ == 1 ? 1 : 0)) << 26 | kIL | fault;
    pending_far_valid_ = true;
    return false;
  }
  if (e->host_delta) {
    std::memcpy(&insn, e->host(PC), 4);
    fetch_page_ = PC & ~0xfffull;
    fetch_host_ = e->host(PC & ~0xfffull);
    return true;
  }
  uint64_t v;
  if (!mem.read(e->pa | (PC & 0xfff), 4, v)) {
    raise(Exception::InstructionAbort, PC);
    last_esr = (kEcInsnAbortLower + (el_ == 1 ? 1 : 0)) << 26 | kIL | 0x10;
    pending_far_valid_ = true;
    return false;
  }
  insn = static_cast<uint32_t>(v);
  return true;
}

// ---------------------------------------------------------------------------------------- run loop

uint32_t Core::decoded_info(int id) {
  return static_cast<uint32_t>(id) << 8 | kFlags[id] | (kEndsBlock[id] ? kFlagEndsBlock : 0);
}

void Core::make_decode_cache() {
  decoded_ = std::make_unique<DecodedInsn[]>(kDecodedSize);
  // Every entry must hold a word together with what it decodes to; NOP is allocated.
  constexpr uint32_t kNop = 0xd503201f;
  const int nop_id = a64::decode(kNop);
  const DecodedInsn nop{kNop, decoded_info(nop_id), a64::exec_for(nop_id, kNop)};
  for (size_t i = 0; i < kDecodedSize; ++i) decoded_[i] = nop;
}

// The flags that need work around an instruction stay only where that work can do something: the SP
// alignment check where the base is SP (Rn == 31), EL0 permissions for the unprivileged forms. So
// run_predecoded's common path tests one mask, and most instructions take their own threaded handler.
// VPLAT_JIT_THREADED=0: none do (run_predecoded then loops), for comparisons.
Core::PredecodedInsn Core::predecode(uint32_t insn) {
  static const bool threaded_handlers = [] {
    const char* v = std::getenv("VPLAT_JIT_THREADED");
    return !v || std::strcmp(v, "0") != 0;
  }();
  const int id = a64::decode(insn);
  uint32_t info = decoded_info(id);
  if ((info & kFlagSpBase) && ((insn >> 5) & 31) != 31) info &= ~uint32_t{kFlagSpBase};
  if ((info & kFlagUnpriv) && !unprivileged(insn)) info &= ~uint32_t{kFlagUnpriv};
  const a64::ExecFn exec = a64::exec_for(id, insn);
  threaded::Handler handler = nullptr;
  if (threaded_handlers && threaded::kFlagged) {
    handler = threaded::kFlagged;
    threaded::Handler own = nullptr;
    if (!(info & kAroundFlags))
      own = threaded::handler_for(exec, insn);
    else if ((info & kAroundFlags) == kFlagSpBase)
      own = threaded::sp_base_handler_for(exec, insn);
    if (own) handler = own;
  }
  return PredecodedInsn{exec, insn, info, handler};
}

// One turn of run_predecoded_loop for the threaded handler of instructions with kAroundFlags (and of those
// without a handler of their own): threaded::kGoOn if the run goes on to the next instruction.
extern "C" uint64_t threaded::vplat_threaded_flagged_step(a64::State* s, const threaded::Insn* d, uint64_t n,
                                                          uint32_t attention) {
  return Core::flagged_step(s, d, n, attention);
}

extern "C" uint64_t threaded::vplat_threaded_sp_fault(a64::State* s, const threaded::Insn* d, uint64_t n) {
  [[maybe_unused]] const bool ok = core_of(*s).before_flagged_insn(d->insn, d->info); // raises the fault
  return n | threaded::kFaulted;
}

uint64_t Core::flagged_step(a64::State* s, const threaded::Insn* d, uint64_t n, uint32_t attention) {
  Core& c = core_of(*s);
  const uint32_t insn = d->insn, info = d->info;
  const uint64_t next = c.PC + 4;
  if (!c.before_flagged_insn(insn, info)) return n | threaded::kFaulted;
  c.cur_insn = insn;
  c.block_done_ = n;
  c.NPC = next;
  d->exec(c, insn);
  if (info & kFlagUnpriv) c.set_access_el(c.el_);
  if (c.EXC) return n | threaded::kFaulted;
  if (info & kFlagExclLoad) c.note_exclusive_load();
  c.PC = c.NPC;
  if (c.PC != next || c.attention_.load(std::memory_order_relaxed) != attention) return n + 1;
  return threaded::kGoOn;
}

// The run loop's work per instruction, less what a block's instructions cannot need: JitEngine only
// pre-decodes instructions a translated block may hold (no WFI/WFE/SEV, nothing that changes the EL, DAIF or
// the FP trap), and declines blocks with FP instructions while they trap. The common path tests one mask
// for the work a few instructions need around them (predecode keeps those flags only where it applies), and
// counting instructions (--cpu-stats) is a loop of its own.
template <bool kCounting>
uint32_t Core::run_predecoded_loop(const PredecodedInsn* insns, uint32_t count, uint64_t done,
                                   uint32_t attention, bool& faulted, bool& at_boundary) {
  constexpr uint32_t kAround = kAroundFlags;
  uint32_t info = 0;
  for (uint32_t i = 0; i < count; ++i) {
    // Read before the call: a store of this instruction to its own page releases the block's list (at the
    // next safe point, not now; the attention test below then ends the run).
    const PredecodedInsn& d = insns[i];
    const uint32_t insn = d.insn;
    info = d.info;
    const uint64_t next = PC + 4;
    if (info & kAround) [[unlikely]] {
      if (!before_flagged_insn(insn, info)) {
        faulted = true;
        return i;
      }
      cur_insn = insn;
      block_done_ = done + i;
      NPC = next;
      d.exec(*this, insn);
      if (info & kFlagUnpriv) set_access_el(el_);
      if (EXC) {
        faulted = true;
        return i;
      }
      if (info & kFlagExclLoad) note_exclusive_load();
    } else {
      cur_insn = insn;
      block_done_ = done + i;
      NPC = next;
      d.exec(*this, insn);
      if (EXC) [[unlikely]] {
        faulted = true;
        return i;
      }
    }
    PC = NPC;
    if constexpr (kCounting) ++insn_counts[(info & ((1u << threaded::Insn::kToEndShift) - 1)) >> 8];
    if (PC != next || attention_.load(std::memory_order_relaxed) != attention) [[unlikely]] {
      at_boundary = (info & kFlagEndsBlock) || !(PC & (JitEngine::kRegionBytes - 1));
      return i + 1;
    }
  }
  at_boundary = (info & kFlagEndsBlock) || !(PC & (JitEngine::kRegionBytes - 1));
  return count;
}

uint32_t Core::run_predecoded_looped(const PredecodedInsn* insns, uint32_t count, uint64_t done,
                                     uint32_t attention, bool& faulted, bool& at_boundary) {
  return insn_counts ? run_predecoded_loop<true>(insns, count, done, attention, faulted, at_boundary)
                     : run_predecoded_loop<false>(insns, count, done, attention, faulted, at_boundary);
}

bool Core::before_flagged(a64::State& s, uint32_t insn, uint32_t info) {
  return core_of(s).before_flagged_insn(insn, info);
}

void Core::after_exclusive_load(a64::State& s) {
  core_of(s).note_exclusive_load();
}

// After a load-exclusive: record the physical address it marked (its TLB entry was just filled).
void Core::note_exclusive_load() {
  auto& slot = tlb_[el_][(EXCL_ADDR >> 12) & (kTlbSize - 1)];
  if ((slot.read & ~TlbEntry::kSlowPath) == (EXCL_ADDR & ~0xfffull))
    excl_pa = slot.pa | (EXCL_ADDR & 0xfff);
  else
    excl_pa = EXCL_ADDR;
  if (group) *monitors_active_ = true;
}

// The loop runs once per instruction, so its common path is kept short: one attention test, the fetch from
// the last fetched page, a decoded-instruction cache hit, one test of the flags that need work before the
// instruction, the call, and one test each for a fault and for what needs work after it.
RunResult Core::run(uint64_t budget, RunEnd end) {
  EXC = 0;
  const uint64_t start = retired; // instructions retired by this run() are retired - start
  if (!decoded_) make_decode_cache();
  // Flags that need a look before the instruction runs (kFlagExclLoad and kFlagEndsBlock act around it).
  constexpr uint32_t kCheckedFlags = kFlagFp | kFlagHint | kFlagSpBase | kFlagUnpriv;
  // A translated block may start here: at entry, after a branch, an exception, an instruction that ends
  // blocks or a translated block that ended at such a point; or (tested apart) at a region start.
  bool block_start = true;
  const bool to_boundary = end == RunEnd::AtBlockBoundary;
  run_to_boundary_ = to_boundary;
  jit_declined_ = false;
  // Budget left, counting instructions run and exceptions taken; negative once a run to a block boundary
  // goes on past its budget.
  const int64_t budget_left = static_cast<int64_t>(std::min<uint64_t>(budget, INT64_MAX));
  for (int64_t left = budget_left;
       left > 0 || (to_boundary && !block_start && (PC & (JitEngine::kRegionBytes - 1)) != 0); --left) {
    uint32_t a = attention_.load(std::memory_order_relaxed);
    if (a) [[unlikely]] {
      if (a & kAttnOff) return {Exit::Off, retired - start};
      if (a & kAttnJit) {
        attention_.fetch_and(~kAttnJit, std::memory_order_relaxed);
        a &= ~kAttnJit;
      }
      if (a & kAttnExit) {
        attention_.fetch_and(~kAttnExit, std::memory_order_relaxed);
        return {Exit::Request, retired - start};
      }
      if ((a & kAttnDebug) && left != budget_left &&
          std::find(breakpoints_.begin(), breakpoints_.end(), PC) != breakpoints_.end())
        return {Exit::Breakpoint, retired - start};
      if ((a & kAttnIrq) && !(daif_ & 0x80) && config.system) {
        take_exception(0, 0, false, PC, 0x80, false);
        block_start = true;
        continue;
      }
    }
    // Translated blocks also end at region boundaries: straight-line code longer than a region is a
    // chain of blocks, whichever instruction the interpreter entered it at.
    if (jit_ && (block_start || !(PC & (JitEngine::kRegionBytes - 1))) && !(a & kAttnDebug) &&
        !jit_declined_ && (left == budget_left || jit_->worth_a_try(PC, el_))) {
      uint32_t k = 0;
      bool faulted = false, at_boundary = true;
      if (jit_->try_run(*this, static_cast<uint64_t>(left), a, k, faulted, at_boundary)) {
        retired += k;
        left -= k;
        block_start = at_boundary;
        if (faulted) goto fault; // taken even where the block used up the budget
        ++left;                  // the loop counts one
        continue;
      }
    }
    uint32_t insn;
    // The page-and-alignment compare fails for a misaligned PC, which fetch() then faults.
    if ((PC & ~0xffcull) == fetch_page_) [[likely]]
      std::memcpy(&insn, fetch_host_ + (PC & 0xfff), 4);
    else if (!fetch(insn))
      goto fault;
    {
      cur_insn = insn;
      DecodedInsn& d = decoded_[(PC >> 2) & (kDecodedSize - 1)];
      if (d.insn != insn) [[unlikely]] {
        const int id = a64::decode(insn);
        if (id < 0) {
          exception_syndrome = insn;
          raise(Exception::Undefined);
          goto fault;
        }
        d = DecodedInsn{insn, decoded_info(id), a64::exec_for(id, insn)};
      }
      const uint32_t info = d.info;
      const uint32_t id = info >> 8;
      block_start = info & kFlagEndsBlock;
      if ((info & kCheckedFlags) | il_) [[unlikely]] {
        if (il_) {
          raise(Exception::IllegalState);
          goto fault;
        }
        if ((info & kFlagFp) && fp_trap_) {
          raise_trap(0x07, 0);
          goto fault;
        }
        if ((info & kFlagSpBase) && sp_misaligned(insn)) {
          raise(Exception::SpAlignment);
          goto fault;
        }
        if ((info & kFlagUnpriv) && unprivileged(insn)) set_access_el(0);
        if ((info & kFlagHint) && config.system) {
          unsigned op = (insn >> 5) & 0x7f;
          if (op == 3 || op == 2) { // WFI, WFE
            bool wfe = op == 2;
            if (el_ == 0 && !(sys.sctlr >> (wfe ? 18 : 16) & 1)) {
              raise_trap(0x01, 1u << 24 | 0xeu << 20 | (wfe ? 1 : 0)); // CV = 1, COND = AL, TI
              goto fault;
            }
            bool irq = irq_line();
            bool wake = wfe ? (event_ || (irq && !(daif_ & 0x80))) : irq;
            if (wfe) event_ = false;
            PC += 4;
            ++retired;
            if (insn_counts) ++insn_counts[id];
            if (!wake) return {wfe ? Exit::Yield : Exit::Idle, retired - start};
            continue;
          }
          if (op == 4) {
            if (group) group->send_event(*this);
            event_ = true;
          } else if (op == 5) {
            event_ = true;
          }
        }
      }
      NPC = PC + 4;
      d.exec(*this, insn);
      // Only LDTR/STTR change access_el_ (above); exception entry and return set it with the EL.
      if (info & kFlagUnpriv) [[unlikely]]
        set_access_el(el_);
      if (EXC) [[unlikely]]
        goto fault;
      if (info & kFlagExclLoad) [[unlikely]]
        note_exclusive_load();
      PC = NPC;
      ++retired;
      // Counted once retired, as translated blocks count: a faulting instruction is not (it runs again).
      if (insn_counts) ++insn_counts[id];
      continue;
    }
  fault:
    set_access_el(el_);
    block_start = true;
    if (!config.system) return {Exit::Exception, retired - start};
    deliver_sync();
  }
  return {Exit::Budget, retired - start};
}

// ---------------------------------------------------------------------------------------- debugger

bool Core::debug_translate(uint64_t va, uint64_t& pa) {
  Translation t = walk(va, Access::Read, 1);
  if (!t.ok) return false;
  pa = t.pa;
  return true;
}

bool Core::debug_read(uint64_t va, void* buf, size_t len) {
  auto* out = static_cast<uint8_t*>(buf);
  while (len) {
    uint64_t pa;
    if (!debug_translate(va, pa)) return false;
    uint8_t* p = mem.ram_pointer(pa & ~0xfffull);
    if (!p) return false;
    size_t n = std::min<size_t>(len, 0x1000 - (va & 0xfff));
    std::memcpy(out, p + (pa & 0xfff), n);
    out += n;
    va += n;
    len -= n;
  }
  return true;
}

bool Core::debug_write(uint64_t va, const void* buf, size_t len) {
  auto* in = static_cast<const uint8_t*>(buf);
  while (len) {
    uint64_t pa;
    if (!debug_translate(va, pa)) return false;
    uint8_t* p = mem.ram_pointer(pa & ~0xfffull);
    if (!p) return false;
    size_t n = std::min<size_t>(len, 0x1000 - (va & 0xfff));
    std::memcpy(p + (pa & 0xfff), in, n);
    icache_invalidate();
    in += n;
    va += n;
    len -= n;
  }
  return true;
}

void Core::add_breakpoint(uint64_t va) {
  if (std::find(breakpoints_.begin(), breakpoints_.end(), va) == breakpoints_.end())
    breakpoints_.push_back(va);
  attention_.fetch_or(kAttnDebug, std::memory_order_relaxed);
}

void Core::remove_breakpoint(uint64_t va) {
  breakpoints_.erase(std::remove(breakpoints_.begin(), breakpoints_.end(), va), breakpoints_.end());
  if (breakpoints_.empty()) attention_.fetch_and(~kAttnDebug, std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------------- core group

void CoreGroup::add(Core& core) {
  cores_.push_back(&core);
  core.group = this;
  core.monitors_active_ = &monitors_active;
  if (core.engine() != Engine::Interp) core.set_engine(core.engine());
}

void Core::set_insn_counts(uint64_t* table) {
  flush_insn_counts(); // what blocks counted so far belongs to the table before
  insn_counts = table;
  if (table && jit_) jit_->count_instructions();
}

void Core::set_engine(Engine e) {
  flush_insn_counts(); // the engine may go with the counts of its blocks
  engine_ = e;
  if (e == Engine::Interp) {
    jit_.reset();
    return;
  }
  std::shared_ptr<JitEngine>* shared = group ? &group->jit : nullptr;
  if (shared && *shared) {
    jit_ = *shared;
  } else {
    jit_ = std::make_shared<JitEngine>(e == Engine::Jit);
    if (shared) *shared = jit_;
  }
  jit_->add_core(*this);
}

void Core::icache_invalidate_va(uint64_t va) {
  if (!jit_) return;
  Translation t = walk(va, Access::Read, el_);
  if (t.ok)
    jit_->icache_invalidate_page(*this, t.pa & ~0xfffull);
  else
    jit_->icache_invalidate(*this); // e.g. execute-only at EL0: the page is not known, so check them all
}

void CoreGroup::store_to(Core& from, uint64_t pa, uint64_t size) {
  // Exclusives reservation granule: 64 bytes (CTR_EL0.ERG = 4).
  uint64_t first = pa >> 6, last = (pa + size - 1) >> 6;
  bool any = false;
  for (Core* c : cores_) {
    if (!c->EXCL_VALID) continue;
    if (c != &from && first <= (c->excl_pa + c->EXCL_SIZE - 1) >> 6 && last >= c->excl_pa >> 6) {
      c->EXCL_VALID = 0;
      c->signal_event(); // clearing the global monitor is a WFE wake-up event
      continue;
    }
    any = true;
  }
  monitors_active = any;
}

void CoreGroup::flush_tlbs(Core&) {
  for (Core* c : cores_) c->flush_tlb();
}

void CoreGroup::flush_tlbs_va(Core&, uint64_t va) {
  for (Core* c : cores_) c->flush_tlb_va(va);
}

void CoreGroup::send_event(Core&) {
  for (Core* c : cores_) c->signal_event();
}

} // namespace vplat::cpu
