#include "cpu-dbt/baseline.h"

#include "cpu-dbt/baseline_stencils.h"

#include <sys/mman.h>

#include <cstring>

namespace vplat::cpu::baseline {

namespace st = stencils;

bool available() {
#if defined(__x86_64__)
  return st::kNumStencils > 0;
#else
  return false;
#endif
}

namespace {

constexpr size_t class_bytes(unsigned c) {
  return size_t{256} << c;
}
// In front of a block's code: its size class (byte 0) and the number of times that memory's code was retired
// (bytes 8-15; the memory is never unmapped while the compiler lives, so a stale link may read it).
constexpr size_t kHeader = 16;
// A linkable exit's slot (Compiler::link fills it, the shared exit reads it): the target's va, its code's
// retirements when linked (gen), its linked entry (code), its block (8 bytes each), its length (2 bytes),
// whether this exit's last instruction ends a block (1 byte; make sets it, and this exit's instruction
// count, 4 bytes), the target's runs counter and physical page (8 bytes each).
constexpr size_t kSlotBytes = 64;
enum SlotField : uint8_t {
  kSlotVa = 0,
  kSlotGen = 8,
  kSlotCode = 16,
  kSlotBlock = 24,
  kSlotLen = 32,
  kSlotEnds = 34,
  kSlotCount = 36,
  kSlotRuns = 40,
  kSlotPage = 48
};
// The Chain's fields as the shared exits address them (8-bit displacements).
constexpr uint8_t kChainBefore = offsetof(Chain, before), kChainBlock = offsetof(Chain, block),
                  kChainLeft = offsetof(Chain, left), kChainExit = offsetof(Chain, exit);
static_assert(sizeof(Chain) < 128);
// Where a linked block is entered: after its entry (which saves registers and makes the frame) and epilogue.
constexpr size_t kLinkedEntry = 25 + 15;

bool fits_i32(int64_t v) {
  return v == static_cast<int32_t>(v);
}

// The bytes of stencil section `s` a block copies: without a final jump to the next stencil, which follows.
size_t kept_bytes(const st::Section& s) {
  if (s.size < 5 || st::kBytes[s.offset + s.size - 5] != 0xe9) return s.size;
  for (uint32_t k = 0; k < s.relocs; ++k) {
    const st::Reloc& r = st::kRelocs[s.first_reloc + k];
    if (r.offset == s.size - 4 && r.kind == st::kContinuation && r.index == st::kNext) return s.size - 5;
  }
  return s.size;
}

// The calls in the part of a stencil that is copied (every reference to a helper or to support code is a
// call: stencils.py table's stencils hold no other), if each goes to a helper whose arguments hold the State
// (st::kExternalStateArg), so that a thunk can store what helpers read; 0 if any does not.
size_t thunked_calls_in(const st::Section& s) {
  const size_t kept = kept_bytes(s);
  size_t n = 0;
  for (uint32_t k = 0; k < s.relocs; ++k) {
    const st::Reloc& r = st::kRelocs[s.first_reloc + k];
    if (r.offset >= kept) continue;
    if (r.kind == st::kSection) return 0;
    if (r.kind != st::kExternal) continue;
    if (r.index >= st::kNumExternals || !st::kExternalStateArg[r.index]) return 0;
    ++n;
  }
  return n;
}

// Little writers of the glue between stencils (x86-64 encodings).
struct Out {
  uint8_t* p;
  void b(std::initializer_list<uint8_t> bs) {
    for (uint8_t x : bs) *p++ = x;
  }
  void u32(uint32_t v) {
    std::memcpy(p, &v, 4);
    p += 4;
  }
  void u64(uint64_t v) {
    std::memcpy(p, &v, 8);
    p += 8;
  }
  void rel32(const uint8_t* target) { u32(static_cast<uint32_t>(static_cast<int32_t>(target - (p + 4)))); }
  void movabs_rax(uint64_t v) {
    b({0x48, 0xb8});
    u64(v);
  }
  void mov_eax(uint32_t v) {
    b({0xb8});
    u32(v);
  }
  void ret() { b({0xc3}); }
  // The end of the frame every linked block runs in (see make): 15 bytes.
  void frame_epilogue() {
    b({0x48, 0x83, 0xc4, 0x10});                                           // add rsp, 16
    b({0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5b, 0x5d, 0xc3}); // pop r15 .. rbp; ret
  }
};

} // namespace

Compiler::Compiler(const Layout& layout) : layout_(layout) {
  if (!available()) return;
  for (size_t i = 0; i < st::kNumStencils; ++i) {
    const st::Stencil& sten = st::kStencils[i];
    Choice& c = by_exec_[reinterpret_cast<const void*>(sten.exec)];
    const auto k = static_cast<int32_t>(i);
    if (!sten.not31)
      c.any = k;
    else if (sten.is31 < 0)
      c.not31 = k;
    else
      c.one31[sten.is31 == 5] = k;
    if (sten.not31) c.lsbs = sten.not31;
  }
  ok_ = place_support() && place_shared_exits();
}

Compiler::~Compiler() {
  for (uint8_t* c : chunks_) munmap(c, kChunkBytes);
}

// Executable memory below the program's code, within a rel32's reach of it (the stencils call the program's
// helpers directly) where that is free, else anywhere (calls then go through thunks).
uint8_t* Compiler::map_chunk() {
  // Written by the thread that runs the code, before it runs: one mapping both writable and executable.
  constexpr int kProt = PROT_READ | PROT_WRITE | PROT_EXEC;
  if (!next_hint_)
    next_hint_ = (reinterpret_cast<uintptr_t>(&available) & ~uintptr_t{kChunkBytes - 1}) - (64u << 20);
  void* m = MAP_FAILED;
  for (int tries = 0; tries < 64 && m == MAP_FAILED && next_hint_ > kChunkBytes; ++tries) {
    m = mmap(reinterpret_cast<void*>(next_hint_), kChunkBytes, kProt,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    next_hint_ -= kChunkBytes;
  }
  if (m == MAP_FAILED) m = mmap(nullptr, kChunkBytes, kProt, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  chunks_.push_back(static_cast<uint8_t*>(m));
  mapped_ += kChunkBytes;
  return static_cast<uint8_t*>(m);
}

uint8_t* Compiler::allocate(size_t bytes) {
  unsigned c = 0;
  while (c < kClasses && class_bytes(c) < bytes + kHeader) ++c;
  if (c == kClasses) return nullptr;
  uint8_t* at;
  if (!free_[c].empty()) {
    at = free_[c].back();
    free_[c].pop_back();
  } else {
    if (left_ < class_bytes(c)) {
      uint8_t* m = map_chunk();
      if (!m) return nullptr;
      // What was left of the last chunk goes to the free lists.
      for (unsigned k = kClasses; k-- > 0;)
        while (left_ >= class_bytes(k)) {
          free_[k].push_back(bump_);
          bump_ += class_bytes(k);
          left_ -= class_bytes(k);
        }
      bump_ = m;
      left_ = kChunkBytes;
    }
    at = bump_;
    bump_ += class_bytes(c);
    left_ -= class_bytes(c);
  }
  at[0] = static_cast<uint8_t>(c);
  return at + kHeader;
}

void Compiler::release(Fn fn) {
  if (!fn) return;
  uint8_t* at = reinterpret_cast<uint8_t*>(fn) - kHeader;
  free_[at[0]].push_back(at);
}

// The functions and constants stencils refer to, each once, with a thunk and an address slot per external.
bool Compiler::place_support() {
  std::vector<bool> is_stencil(st::kNumSections);
  for (size_t i = 0; i < st::kNumStencils; ++i) is_stencil[st::kStencils[i].section] = true;
  uint8_t* at = nullptr;
  size_t left = 0;
  auto take = [&](size_t bytes, size_t align) -> uint8_t* {
    auto pad = [&] { return (align - reinterpret_cast<uintptr_t>(at) % align) % align; };
    if (!at || left < bytes + pad()) {
      if (bytes + align > kChunkBytes) return nullptr;
      at = map_chunk();
      left = kChunkBytes;
      if (!at) return nullptr;
    }
    const size_t p = pad();
    uint8_t* r = at + p;
    at += p + bytes;
    left -= p + bytes;
    return r;
  };
  thunk_.resize(st::kNumExternals);
  got_.resize(st::kNumExternals);
  for (size_t e = 0; e < st::kNumExternals; ++e) {
    const auto target = reinterpret_cast<uint64_t>(st::kExternals[e]);
    got_[e] = take(8, 8);
    if (!got_[e]) return false;
    std::memcpy(got_[e], &target, 8);
    thunk_[e] = take(16, 16);
    if (!thunk_[e]) return false;
    Out o{thunk_[e]};
    o.b({0xff, 0x25}); // jmp [rip + 0]
    o.u32(0);
    o.u64(target);
  }
  section_at_.assign(st::kNumSections, nullptr);
  for (size_t i = 0; i < st::kNumSections; ++i) {
    if (is_stencil[i]) continue;
    const st::Section& s = st::kSections[i];
    section_at_[i] = take(s.size, s.align);
    if (!section_at_[i]) return false;
    std::memcpy(section_at_[i], st::kBytes + s.offset, s.size);
  }
  for (size_t i = 0; i < st::kNumSections; ++i)
    if (!is_stencil[i] &&
        !relocate(section_at_[i], static_cast<uint32_t>(i), 0, 0, nullptr, nullptr, nullptr))
      return false;
  return true;
}

// The code of the blocks' linkable exits, one per EL (the fetch TLB bank differs), which every exit jumps to
// with its slot's address in rax: block code stays small, and hot in the host's caches. With the slot of the
// exit that was taken it either goes on into the block the slot names (see linkable exits in make) or
// returns that exit's instruction count through the frame every linked block runs in.
bool Compiler::place_shared_exits() {
  const auto pc_off = static_cast<uint32_t>(offsetof(a64::State, PC));
  for (unsigned el = 0; el < 4; ++el) {
    uint8_t* const at = allocate(256);
    if (!at) return false;
    Out w{at};
    std::vector<uint8_t*> to_ret; // rel32 fields of the jumps to the return
    auto jcc_ret = [&](uint8_t cc) {
      w.b({0x0f, cc});
      to_ret.push_back(w.p);
      w.u32(0);
    };
    static_assert(sizeof(Core::TlbEntry) == 32 && (Core::kTlbSize & (Core::kTlbSize - 1)) == 0);
    const auto itlb_el = static_cast<uint32_t>(layout_.itlb + el * Core::kTlbSize * sizeof(Core::TlbEntry));
    w.b({0x48, 0x8b, 0x08}); // mov rcx, [rax + va]
    w.b({0x49, 0x3b, 0x8d}); // cmp rcx, [r13 + PC]
    w.u32(pc_off);
    jcc_ret(0x85);
    // Where the target is on another page (the slot's physical page is not kSamePage): the fetch TLB entry
    // of the PC at this EL must have its fetch tag and the target's physical page.
    w.b({0x48, 0x8b, 0x50, kSlotPage}); // mov rdx, [rax + pa_page]
    w.b({0x48, 0x83, 0xfa, 0xff});      // cmp rdx, -1
    w.b({0x74, 0x00});                  // je over the test
    uint8_t* const tlb_test = w.p;
    w.b({0x49, 0x89, 0xc8});       // mov r8, rcx
    w.b({0x49, 0xc1, 0xe8, 0x0c}); // shr r8, 12
    w.b({0x41, 0x81, 0xe0});       // and r8d, kTlbSize - 1
    w.u32(Core::kTlbSize - 1);
    w.b({0x49, 0xc1, 0xe0, 0x05});                   // shl r8, 5
    w.b({0x48, 0x81, 0xe1, 0x00, 0xf0, 0xff, 0xff}); // and rcx, ~0xfff
    w.b({0x4b, 0x3b, 0x8c, 0x05});                   // cmp rcx, [r13 + r8 + fetch tag]
    w.u32(itlb_el + static_cast<uint32_t>(offsetof(Core::TlbEntry, fetch)));
    jcc_ret(0x85);
    w.b({0x4b, 0x3b, 0x94, 0x05}); // cmp rdx, [r13 + r8 + physical page]
    w.u32(itlb_el + static_cast<uint32_t>(offsetof(Core::TlbEntry, pa)));
    jcc_ret(0x85);
    tlb_test[-1] = static_cast<uint8_t>(w.p - tlb_test);
    w.b({0x48, 0x8b, 0x48, kSlotCode}); // mov rcx, [rax + code]
    w.b({0x48, 0x8b, 0x49, static_cast<uint8_t>(-static_cast<int>(kLinkedEntry + 8))}); // its retirements
    w.b({0x48, 0x3b, 0x48, kSlotGen}); // cmp rcx, [rax + gen]
    jcc_ret(0x85);
    w.b({0x41, 0x39, 0xad}); // cmp [r13 + attention], ebp
    w.u32(static_cast<uint32_t>(layout_.attention));
    jcc_ret(0x85);
    w.b({0x48, 0x8b, 0x4c, 0x24, 0x08}); // mov rcx, [rsp + 8]: the Chain
    w.b({0x8b, 0x50, kSlotCount});       // mov edx, [rax + count]
    w.b({0x4c, 0x8b, 0x41, kChainLeft}); // mov r8, [rcx + left]
    w.b({0x49, 0x29, 0xd0});             // sub r8, rdx
    w.b({0x44, 0x0f, 0xb7, 0x48, kSlotLen}); // movzx r9d, word [rax + len]
    w.b({0x4d, 0x39, 0xc8});                 // cmp r8, r9
    jcc_ret(0x8c);                           // jl
    w.b({0x4c, 0x8b, 0x48, kSlotRuns});      // mov r9, [rax + runs]
    w.b({0x45, 0x8b, 0x11});             // mov r10d, [r9]
    w.b({0x41, 0xff, 0xc2});             // inc r10d
    w.b({0x41, 0x81, 0xfa});             // cmp r10d, hot_runs
    w.u32(layout_.hot_runs);
    jcc_ret(0x83);                                         // jae
    w.b({0x45, 0x89, 0x11});                               // mov [r9], r10d
    w.b({0x4c, 0x89, 0x41, kChainLeft});                   // mov [rcx + left], r8
    w.b({0x48, 0x01, 0x51, kChainBefore});                 // add [rcx + before], rdx
    w.b({0x49, 0x01, 0xd4});                               // add r12, rdx
    w.b({0x4c, 0x8b, 0x40, kSlotBlock});                   // mov r8, [rax + block]
    w.b({0x4c, 0x89, 0x41, kChainBlock});                  // mov [rcx + block], r8
    w.b({0x48, 0xc7, 0x41, kChainExit, 0, 0, 0, 0});       // mov qword [rcx + exit], 0
    w.b({0xff, 0x60, kSlotCode});                          // jmp [rax + code]
    for (uint8_t* f : to_ret) Out{f}.rel32(w.p);
    w.b({0x48, 0x8b, 0x4c, 0x24, 0x08}); // mov rcx, [rsp + 8]
    w.b({0x48, 0x89, 0x41, kChainExit}); // mov [rcx + exit], rax
    w.b({0x0f, 0xb6, 0x50, kSlotEnds});  // movzx edx, byte [rax + ends]
    w.b({0x48, 0xc1, 0xe2, 0x3e});       // shl rdx, 62: kEndsBlockBit
    w.b({0x8b, 0x40, kSlotCount});       // mov eax, [rax + count]
    w.b({0x48, 0x09, 0xd0});             // or rax, rdx
    w.frame_epilogue();
    if (w.p > at + 256) std::abort();
    shared_exit_[el] = at;
  }
  return true;
}

// Applies section `section`'s relocations to its copy at `code`: holes get this instruction's values,
// continuations the block's places (nullptr in support code, which has none).
bool Compiler::relocate(uint8_t* code, uint32_t section, uint64_t pc, uint32_t word, uint8_t* next,
                        uint8_t* fault, uint8_t* exit, uint8_t* const* calls_to) {
  const st::Section& s = st::kSections[section];
  const size_t kept = next ? kept_bytes(s) : s.size;
  for (uint32_t k = 0; k < s.relocs; ++k) {
    const st::Reloc& r = st::kRelocs[s.first_reloc + k];
    if (r.offset >= kept) continue; // the dropped jump to the next stencil
    uint8_t* const p = code + r.offset;
    uint64_t target = 0;
    switch (r.kind) {
    case st::kHole:
      switch (r.index) {
      case st::kHolePc:
        target = pc;
        break;
      case st::kHoleWord:
        target = word;
        break;
      case st::kHoleAttentionOffset:
        target = static_cast<uint32_t>(layout_.attention);
        break;
      default:
        return false;
      }
      if (!next) return false;
      break;
    case st::kField: {
      const uint32_t lsb = (r.index >> 8) & 0xff, width = r.index & 0xff, shift = (r.index >> 16) & 0xf;
      const bool sign_extended = (r.index >> 20) & 1;
      if (!next || lsb + width > 32 || width == 0 || shift > 8) return false;
      target = (word >> lsb) & ((uint64_t{1} << width) - 1);
      if (sign_extended && (target >> (width - 1)) & 1) target |= ~uint64_t{0} << width;
      target <<= shift;
      break;
    }
    case st::kContinuation: {
      uint8_t* const to[] = {next, fault, exit};
      if (r.index > 2 || !to[r.index]) return false;
      target = reinterpret_cast<uint64_t>(to[r.index]);
      break;
    }
    case st::kExternal:
      if (r.index >= st::kNumExternals) return false;
      target = r.type == st::kGotPc32 ? reinterpret_cast<uint64_t>(got_[r.index])
                                      : reinterpret_cast<uint64_t>(st::kExternals[r.index]);
      if (r.type == st::kPc32 &&
          !fits_i32(static_cast<int64_t>(target + r.addend - reinterpret_cast<uint64_t>(p))))
        target = reinterpret_cast<uint64_t>(thunk_[r.index]);
      break;
    case st::kSection:
      if (r.index >= st::kNumSections || !section_at_[r.index] || r.type == st::kGotPc32) return false;
      target = reinterpret_cast<uint64_t>(section_at_[r.index]);
      break;
    default:
      return false;
    }
    if (calls_to && calls_to[k]) {
      if (r.type != st::kPc32) return false;
      target = reinterpret_cast<uint64_t>(calls_to[k]);
    }
    const uint64_t v = target + static_cast<uint64_t>(r.addend);
    switch (r.type) {
    case st::kAbs64:
      std::memcpy(p, &v, 8);
      break;
    case st::kAbs32: {
      if (v > UINT32_MAX) return false;
      const auto w = static_cast<uint32_t>(v);
      std::memcpy(p, &w, 4);
      break;
    }
    case st::kAbs32S: {
      if (!fits_i32(static_cast<int64_t>(v))) return false;
      const auto w = static_cast<int32_t>(v);
      std::memcpy(p, &w, 4);
      break;
    }
    case st::kPc32:
    case st::kGotPc32: {
      const auto rel = static_cast<int64_t>(v - reinterpret_cast<uint64_t>(p));
      if (!fits_i32(rel)) return false;
      const auto w = static_cast<int32_t>(rel);
      std::memcpy(p, &w, 4);
      break;
    }
    default:
      return false;
    }
  }
  return true;
}

// A block's code: an entry that saves the C convention's callee-saved registers and moves the arguments to
// where the stencils' GHC convention has them (r13 the state, ebp the attention flags, r12 `done`), then per
// instruction [glue before] stencil [glue after], then the exits, which return through one epilogue.
Fn Compiler::make(const Core::PredecodedInsn* insns, uint32_t n, uint64_t va, unsigned el) {
  if (!ok_ || n == 0) return nullptr;
  const auto pc_off = static_cast<uint32_t>(offsetof(a64::State, PC));
  const auto sp_off = static_cast<uint32_t>(offsetof(a64::State, X) + 31 * 8);
  if (el > 3) return nullptr;
  struct Piece {
    const st::Stencil* stencil;
    bool sp_check, exclusive;
    size_t thunks; // calls that go through a thunk (thunked_calls_in), 0: the glue stores before it
    std::vector<uint8_t*> calls_to;            // per relocation of such a stencil: its call's thunk
    size_t code, after, fault, exit, sp_fault; // offsets in the block's code
  };
  std::vector<Piece> pieces(n);
  // Sizes: entry 25 (+7 keeping `done`), epilogue 15; glue before: PC 17, word and block_done_ 26 (where no
  // thunks store them), SP test 24; after: attention test 13, load-exclusive 23; stubs: fault 15, exit 15
  // (+22 storing PC; a branch's exit is a linkable one), SP fault 48 + 43 (PC, the word, block_done_), a
  // call's thunk at most 59; a linkable exit at most 19 and its slot 64 (+63 alignment, once).
  constexpr size_t kLinkable = 19 + kSlotBytes, kThunk = 59;
  size_t size = 25 + 7 + 15;
  for (uint32_t i = 0; i < n; ++i) {
    const Core::PredecodedInsn& d = insns[i];
    auto it = by_exec_.find(reinterpret_cast<const void*>(d.exec));
    if (it == by_exec_.end()) return nullptr;
    Piece& p = pieces[i];
    const Choice& c = it->second;
    const uint32_t at31 = threaded::fields_at_31(c.lsbs, d.insn);
    int32_t k = c.any;
    if (c.not31 >= 0 && !at31)
      k = c.not31;
    else if ((at31 == 1u << 0 || at31 == 1u << 5) && c.one31[at31 == 1u << 5] >= 0)
      k = c.one31[at31 == 1u << 5];
    if (k < 0) return nullptr;
    p.stencil = &st::kStencils[k];
    if ((d.info & kFlagUnpriv) && ((d.insn >> 10) & 3) == 2) return nullptr; // EL0 permissions: not here
    p.sp_check = (d.info & kFlagSpBase) && ((d.insn >> 5) & 31) == 31;
    p.exclusive = (d.info & kFlagExclLoad) != 0;
    p.thunks = p.stencil->calls ? thunked_calls_in(st::kSections[p.stencil->section]) : 0;
    if (!p.stencil->reads_pc && p.stencil->calls && !p.thunks) size += 17;
    if (p.stencil->calls) size += p.thunks ? kThunk * p.thunks : 26;
    if (p.sp_check) size += 24;
    size += kept_bytes(st::kSections[p.stencil->section]);
    if (p.stencil->calls && !p.stencil->branching) size += 13;
    if (p.exclusive) size += 23;
    size += 15 + 15 + 22 + (p.sp_check ? 48 + 43 : 0) + (p.stencil->branching ? kLinkable : 0);
  }
  size += 17 + kLinkable + 63; // the end: PC after the last instruction, a linkable exit; slot alignment
  uint8_t* const code = allocate(size);
  if (!code) return nullptr;
  Out o{code};
  // The frame every linked block runs in: the C convention's callee-saved registers, then Chain* at rsp + 8
  // (the stack stays as at a function's entry, 8 off 16-byte alignment, for the calls glue and stencils
  // make).
  o.b({0x55, 0x53, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57}); // push rbp, rbx, r12, r13, r14, r15
  o.b({0x51, 0x48, 0x83, 0xec, 0x08});                               // push rcx; sub rsp, 8
  o.b({0x49, 0x89, 0xfd});                                           // mov r13, rdi
  o.b({0x89, 0xf5});                                                 // mov ebp, esi
  o.b({0x49, 0x89, 0xd4});                                           // mov r12, rdx
  o.b({0xeb, 0x0f});                                                 // jmp over the epilogue
  uint8_t* const epilogue = o.p;
  o.frame_epilogue();
  // Where a link from another block enters (its frame is this one's). `done` is kept where the thunks of
  // the block's calls read it (r12 need not hold it inside a stencil).
  if (o.p != code + kLinkedEntry) std::abort();
  o.b({0x4d, 0x89, 0xa5}); // mov [r13 + block_base], r12
  o.u32(static_cast<uint32_t>(layout_.block_base));
  // All 64 bits, though only the low half changes inside a block: the code after the store reads PC whole
  // (a branch's stencil, at once), and a load cannot take its value from a narrower store still queued; it
  // waits for the store to complete (with 32-bit stores ~17% of a small block's time).
  auto store_pc = [&](Out& w, uint64_t pc) {
    w.movabs_rax(pc);
    w.b({0x49, 0x89, 0x85}); // mov [r13 + PC], rax
    w.u32(pc_off);
  };
  auto jmp = [](Out& w, const uint8_t* to) {
    w.b({0xe9});
    w.rel32(to);
  };
  // An exit after `k` instructions with PC set (the end, or a branch taken): its slot's address in rax, then
  // the shared exit of the block's EL, which jumps to the block the slot names when that is still there
  // (generation), where the PC is, the attention flags are unchanged, the run may retire its instructions
  // too and its runs stay below the first tier's threshold (try_run counts them otherwise); else records
  // the exit in the Chain (try_run may link it) and returns.
  std::vector<std::pair<uint8_t*, size_t>> slot_refs; // rel32 fields of RIP-relative slot addresses
  std::vector<std::pair<uint8_t*, uint32_t>> slots;   // and the slots, with their exits' counts
  const uint8_t* const shared_exit = shared_exit_[el];
  // Whether the point after the k-th instruction is a block boundary for its own sake (Core::RunEnd; the
  // caller adds the region boundary): what an exit after it returns in kEndsBlockBit.
  auto ends_after = [&](uint32_t k) { return (insns[k - 1].info & layout_.ends_block) != 0; };
  auto linkable_exit = [&](Out& w, uint32_t k) {
    w.b({0x48, 0x8d, 0x05}); // lea rax, [slot]
    slot_refs.emplace_back(w.p, slots.size());
    w.u32(0);
    slots.emplace_back(nullptr, k);
    if (fits_i32(reinterpret_cast<intptr_t>(shared_exit) - reinterpret_cast<intptr_t>(w.p + 5))) {
      jmp(w, shared_exit);
    } else {
      w.b({0x48, 0xb9}); // movabs rcx, shared exit
      w.u64(reinterpret_cast<uint64_t>(shared_exit));
      w.b({0xff, 0xe1}); // jmp rcx
    }
  };
  // Each stencil's code, then (after all of them) its stubs: their places are known once the code is laid.
  std::vector<std::vector<std::pair<uint8_t*, int>>> to_stub(n); // rel32 fields: 1 exit, 2 SP fault
  for (uint32_t i = 0; i < n; ++i) {
    const Core::PredecodedInsn& d = insns[i];
    Piece& p = pieces[i];
    const st::Stencil& sten = *p.stencil;
    const uint64_t pc = va + 4ull * i;
    // What helpers read is stored by the thunks of the stencil's calls where it has them (below: on its slow
    // paths only), else here (PC by the stencil itself where its function reads it).
    if (!sten.reads_pc && sten.calls && !p.thunks) store_pc(o, pc);
    if (sten.calls && !p.thunks) {
      o.b({0x41, 0xc7, 0x85}); // mov dword [r13 + cur_insn], word
      o.u32(static_cast<uint32_t>(layout_.cur_insn));
      o.u32(d.insn);
      o.b({0x49, 0x8d, 0x84, 0x24}); // lea rax, [r12 + i]
      o.u32(i);
      o.b({0x49, 0x89, 0x85}); // mov [r13 + block_done], rax
      o.u32(static_cast<uint32_t>(layout_.block_done));
    }
    if (p.sp_check) {
      // run_predecoded's sp_misaligned: SCTLR.SA checking on and SP not 16-byte aligned.
      o.b({0x41, 0x80, 0xbd}); // cmp byte [r13 + sp_check], 0
      o.u32(static_cast<uint32_t>(layout_.sp_check));
      o.b({0x00, 0x74, 0x0e}); // je over the test and the jump
      o.b({0x41, 0xf6, 0x85}); // test byte [r13 + X[31]], 15
      o.u32(sp_off);
      o.b({0x0f, 0x0f, 0x85}); // jne SP fault
      to_stub[i].emplace_back(o.p, 2);
      o.u32(0);
    }
    p.code = static_cast<size_t>(o.p - code);
    const size_t kept = kept_bytes(st::kSections[sten.section]);
    std::memcpy(o.p, st::kBytes + st::kSections[sten.section].offset, kept);
    o.p += kept;
    p.after = static_cast<size_t>(o.p - code);
    if (sten.calls && !sten.branching) {
      // (A stencil tests for a fault itself, where its code can have raised one.)
      o.b({0x41, 0x39, 0xad}); // cmp [r13 + attention], ebp
      o.u32(static_cast<uint32_t>(layout_.attention));
      o.b({0x0f, 0x85}); // jne exit (storing PC)
      to_stub[i].emplace_back(o.p, 1);
      o.u32(0);
    }
    if (p.exclusive) {
      o.b({0x4c, 0x89, 0xef});       // mov rdi, r13
      o.b({0x48, 0x83, 0xec, 0x08}); // sub rsp, 8 (the call's alignment)
      o.movabs_rax(reinterpret_cast<uint64_t>(layout_.exclusive_loaded));
      o.b({0xff, 0xd0});             // call rax
      o.b({0x48, 0x83, 0xc4, 0x08}); // add rsp, 8
    }
  }
  // The end: PC after the last instruction.
  store_pc(o, va + 4ull * n);
  linkable_exit(o, n);
  for (uint32_t i = 0; i < n; ++i) {
    const Core::PredecodedInsn& d = insns[i];
    Piece& p = pieces[i];
    // A thunk per helper the stencil calls, which its calls go to: PC, the word and block_done_ (`done` +
    // i), stored off the register the helper takes the State in (rdi or rsi; r13 need not hold it inside
    // a stencil), then a jump to the helper (rax is no argument of a call).
    if (p.thunks) {
      const st::Section& s = st::kSections[p.stencil->section];
      const size_t kept = kept_bytes(s);
      p.calls_to.assign(s.relocs, nullptr);
      std::vector<std::pair<uint32_t, uint8_t*>> made; // external, its thunk
      for (uint32_t k = 0; k < s.relocs; ++k) {
        const st::Reloc& r = st::kRelocs[s.first_reloc + k];
        if (r.offset >= kept || r.kind != st::kExternal) continue;
        for (auto [e, t] : made)
          if (e == r.index) p.calls_to[k] = t;
        if (p.calls_to[k]) continue;
        p.calls_to[k] = o.p;
        made.emplace_back(r.index, o.p);
        // ModRM of [rdi + disp32] / [rsi + disp32] with reg field 0 (rax, or an immediate's /0).
        const uint8_t base = st::kExternalStateArg[r.index] == 2 ? 0x86 : 0x87;
        const uint64_t pc_i = va + 4ull * i;
        if ((pc_i >> 32) == (va >> 32)) {
          o.b({0xc7, base}); // mov dword [state + PC], pc (as store_pc)
          o.u32(pc_off);
          o.u32(static_cast<uint32_t>(pc_i));
        } else {
          o.movabs_rax(pc_i);
          o.b({0x48, 0x89, base}); // mov [state + PC], rax
          o.u32(pc_off);
        }
        o.b({0xc7, base}); // mov dword [state + cur_insn], word
        o.u32(static_cast<uint32_t>(layout_.cur_insn));
        o.u32(d.insn);
        o.b({0x48, 0x8b, base}); // mov rax, [state + block_base]
        o.u32(static_cast<uint32_t>(layout_.block_base));
        o.b({0x48, 0x05}); // add rax, i
        o.u32(i);
        o.b({0x48, 0x89, base}); // mov [state + block_done], rax
        o.u32(static_cast<uint32_t>(layout_.block_done));
        const auto* helper = static_cast<const uint8_t*>(st::kExternals[r.index]);
        if (fits_i32(static_cast<int64_t>(reinterpret_cast<uintptr_t>(helper) -
                                          reinterpret_cast<uintptr_t>(o.p + 5)))) {
          jmp(o, helper);
        } else {
          o.movabs_rax(reinterpret_cast<uint64_t>(helper));
          o.b({0xff, 0xe0}); // jmp rax
        }
      }
    }
    p.fault = static_cast<size_t>(o.p - code);
    o.movabs_rax(kFaultedBit | i);
    jmp(o, epilogue);
    p.exit = static_cast<size_t>(o.p - code); // after a branching stencil: PC is set
    if (p.stencil->branching) {
      linkable_exit(o, i + 1);
    } else {
      o.movabs_rax((i + 1) | (ends_after(i + 1) ? kEndsBlockBit : 0));
      jmp(o, epilogue);
    }
    const size_t exit_storing_pc = static_cast<size_t>(o.p - code);
    store_pc(o, va + 4ull * (i + 1));
    jmp(o, code + p.exit);
    if (p.sp_check) {
      p.sp_fault = static_cast<size_t>(o.p - code);
      // (Where thunks store them, nothing has stored PC, the word and block_done_ yet.)
      store_pc(o, va + 4ull * i);
      o.b({0x41, 0xc7, 0x85}); // mov dword [r13 + cur_insn], word
      o.u32(static_cast<uint32_t>(layout_.cur_insn));
      o.u32(d.insn);
      o.b({0x49, 0x8d, 0x84, 0x24}); // lea rax, [r12 + i] (the glue's r12 is `done`)
      o.u32(i);
      o.b({0x49, 0x89, 0x85}); // mov [r13 + block_done], rax
      o.u32(static_cast<uint32_t>(layout_.block_done));
      o.b({0x4c, 0x89, 0xef}); // mov rdi, r13
      o.b({0xbe});
      o.u32(d.insn);
      o.b({0xba});
      o.u32(d.info);
      o.b({0x48, 0x83, 0xec, 0x08}); // sub rsp, 8
      o.movabs_rax(reinterpret_cast<uint64_t>(layout_.before));
      o.b({0xff, 0xd0});             // call rax (raises the exception)
      o.b({0x48, 0x83, 0xc4, 0x08}); // add rsp, 8
      o.movabs_rax(kFaultedBit | i);
      jmp(o, epilogue);
    }
    for (auto [field, which] : to_stub[i]) {
      Out f{field};
      f.rel32(code + (which == 1 ? exit_storing_pc : p.sp_fault));
    }
  }
  // The exits' slots, empty: a branch may set any PC (misaligned ones fault at the fetch), so what keeps an
  // empty slot from being followed is its generation, which no code reaches (its code field names this
  // block's, whose retirements it then reads). In cache lines of their own: link() writes them, and a store
  // to a line the host has fetched code from costs as much as a branch mispredicted many times over.
  while (reinterpret_cast<uintptr_t>(o.p) % 64) o.b({0xcc});
  for (auto& [slot, count] : slots) {
    slot = o.p;
    o.u64(~0ull);
    o.u64(~0ull);
    o.u64(reinterpret_cast<uint64_t>(code) + kLinkedEntry);
    o.u64(0);
    o.b({0, 0, static_cast<uint8_t>(ends_after(count)), 0});
    o.u32(count);
    o.u64(0);
    o.u64(~0ull);
    o.u64(0);
  }
  for (auto [field, index] : slot_refs) Out{field}.rel32(slots[index].first);
  if (static_cast<size_t>(o.p - code) > size) std::abort(); // the sizes above are wrong
  for (uint32_t i = 0; i < n; ++i) {
    const Piece& p = pieces[i];
    // A stencil's "next" is the code after it: its glue, the following instruction's, or the end.
    if (!relocate(code + p.code, p.stencil->section, va + 4ull * i, insns[i].insn, code + p.after,
                  code + p.fault, code + p.exit, p.calls_to.empty() ? nullptr : p.calls_to.data())) {
      release(reinterpret_cast<Fn>(code));
      return nullptr;
    }
  }
  last_size_ = static_cast<size_t>(o.p - code);
  return reinterpret_cast<Fn>(code);
}

void Compiler::retire(Fn fn) {
  ++*reinterpret_cast<uint64_t*>(reinterpret_cast<uint8_t*>(fn) - 8);
}

void Compiler::link(void* exit, uint64_t va, uint64_t pa_page, Fn to, void* block, uint32_t len,
                    uint32_t* runs) {
  static_assert(kSamePage == ~0ull);
  uint64_t gen;
  std::memcpy(&gen, reinterpret_cast<uint8_t*>(to) - 8, 8);
  auto* slot = static_cast<uint8_t*>(exit);
  auto put = [slot](SlotField f, auto v) { std::memcpy(slot + f, &v, sizeof v); };
  put(kSlotVa, va);
  put(kSlotGen, gen);
  put(kSlotCode, reinterpret_cast<uint64_t>(to) + kLinkedEntry);
  put(kSlotBlock, reinterpret_cast<uint64_t>(block));
  put(kSlotLen, static_cast<uint16_t>(len)); // (what follows, of the exit, stays)
  put(kSlotRuns, reinterpret_cast<uint64_t>(runs));
  put(kSlotPage, pa_page);
}

std::vector<std::pair<const void*, size_t>> Compiler::support() const {
  std::vector<std::pair<const void*, size_t>> r;
  for (size_t i = 0; i < section_at_.size(); ++i)
    if (section_at_[i]) r.emplace_back(section_at_[i], st::kSections[i].size);
  for (const uint8_t* at : shared_exit_) r.emplace_back(at, 256);
  return r;
}

} // namespace vplat::cpu::baseline
