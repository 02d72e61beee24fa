// a64-diff: differential tests of the A64 description.
//   decode: our generated decoder and disassembler against LLVM 16's MC disassembler
//   exec:   our generated interpreter against Unicorn (QEMU) on random instruction streams
// Expected values come only from the reference tools; see tests/ref/reference.h for their known behaviour.
#include "cpu-dbt/a64_core.h"
#include "tests/ref/reference.h"
#include <unicorn/unicorn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace g = vplat::gen::aarch64;
using vplat::cpu::Core;
using vplat::cpu::Exception;
using u128 = unsigned __int128;

struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool chance(unsigned percent) { return below(100) < percent; }
};

std::string normalise(const std::string& s) {
  std::string o;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n') {
      space = !o.empty();
      continue;
    }
    if (space) o += ' ';
    space = false;
    o += c;
  }
  return o;
}

std::string hex32(uint32_t w) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", w);
  return b;
}

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

// Encodings where LLVM 16 is wrong per the Arm ARM and the description keeps the Arm behaviour; they are
// counted, not failed. LDTR/LDTRB/LDTRH/LDTRSB/LDTRSH (W) with Rt == Rn: LLVM's SoftFail check for
// writeback loads tests bits 11:10 != 0, which includes the unprivileged forms (10), but those have no
// writeback, so the Arm ARM has no constraint on Rt == Rn (and Linux's uaccess code can produce them).
bool llvm_known_wrong(uint32_t w) {
  bool unpriv_load = (w & 0x3f200c00u) == 0x38000800u && (w >> 22 & 1) == 1;
  unsigned rn = w >> 5 & 31, rt = w & 31;
  return unpriv_load && rn == rt && rn != 31;
}

struct Options {
  std::string mode;
  std::set<std::string> insns;
  std::string class_prefix;
  uint64_t per_insn = 2000;
  uint64_t random = 0;
  uint64_t count = 100000;
  unsigned stream = 8;
  uint64_t seed = 1;
  unsigned max_report = 20;
  bool strict = false;
  std::string coverage_file;
  vplat::cpu::Engine engine = vplat::cpu::Engine::Interp;
};

void usage() {
  std::cout
      << "usage: a64-diff decode [--insn A,B] [--class PREFIX] [--per-insn N] [--random N] [--strict] "
         "[--seed S]\n"
         "       a64-diff exec   [--insn A,B] [--class PREFIX] [--count N] [--stream K] [--seed S] "
         "[--coverage FILE]\n"
         "                       [--engine interp|jit|auto]\n"
         "\n"
         "decode  For each selected instruction, N random encodings of its pattern are disassembled by vplat "
         "and by\n"
         "        LLVM 16 (Armv8.0 + FP + AdvSIMD + CRC); verdicts and text must agree. --random N also "
         "checks N\n"
         "        uniformly random words: any word vplat decodes must match LLVM; with --strict, a word "
         "LLVM\n"
         "        decodes but vplat leaves unallocated is also a failure (otherwise it is counted as "
         "missing).\n"
         "exec    Random instruction streams (K instructions, single instructions for branches) run in "
         "vplat's\n"
         "        interpreter and in Unicorn from the same random state; X0-X30, SP, PC, NZCV, V0-V31, FPSR\n"
         "        and every byte either side wrote must agree. --count is the number of instructions.\n"
         "common  --insn restricts to named instructions, --class to those whose class starts with PREFIX,\n"
         "        --max-report K limits printed mismatches (default 20). Exit status 1 on any mismatch.\n";
}

std::vector<int> select_insns(const Options& o) {
  std::vector<int> ids;
  for (int i = 0; i < g::kNumInsns; ++i) {
    const auto& info = g::kInsnInfo[i];
    if (!o.insns.empty() && !o.insns.count(info.name)) continue;
    if (!o.class_prefix.empty() && !starts_with(info.cls, o.class_prefix.c_str())) continue;
    ids.push_back(i);
  }
  for (auto& n : o.insns) {
    bool found = false;
    for (int i = 0; i < g::kNumInsns; ++i) found |= n == g::kInsnInfo[i].name;
    if (!found) {
      std::cerr << "a64-diff: no instruction named '" << n << "' in the description\n";
      std::exit(2);
    }
  }
  return ids;
}

// A random encoding that decodes to `id` (its pattern may admit words that a guard or a higher-priority
// overlap member takes), or nullopt if none turns up.
std::optional<uint32_t> random_encoding(int id, Rng& rng) {
  const auto& info = g::kInsnInfo[id];
  for (int tries = 0; tries < 400; ++tries) {
    uint32_t w = static_cast<uint32_t>((rng.next() & ~info.mask) | info.value);
    if (g::decode(w) == id) return w;
  }
  return std::nullopt;
}

// ------------------------------------------------------------------------------------------ decode
int run_decode(const Options& o) {
  vplat::testref::LlvmA64Disassembler llvm;
  Rng rng(o.seed);
  uint64_t checked = 0, failures = 0, reported = 0, no_encoding = 0, known_wrong = 0;
  auto report = [&](const std::string& line) {
    ++failures;
    if (reported++ < o.max_report) std::cout << "  MISMATCH " << line << "\n";
  };
  std::vector<int> ids = select_insns(o);
  for (int id : ids) {
    const auto& info = g::kInsnInfo[id];
    for (uint64_t k = 0; k < o.per_insn; ++k) {
      auto w = random_encoding(id, rng);
      if (!w) {
        ++no_encoding;
        break;
      }
      ++checked;
      std::string ours = normalise(g::disassemble(id, *w));
      auto ref = llvm.disassemble(*w);
      if (!ref && llvm_known_wrong(*w))
        ++known_wrong;
      else if (!ref)
        report(hex32(*w) + " " + info.name + ": vplat \"" + ours + "\", LLVM: invalid");
      else if (*ref != ours)
        report(hex32(*w) + " " + info.name + ": vplat \"" + ours + "\", LLVM \"" + *ref + "\"");
    }
  }
  uint64_t missing = 0, random_checked = 0;
  std::map<std::string, uint64_t> missing_by_mnemonic;
  std::map<std::string, uint32_t> missing_example;
  for (uint64_t k = 0; k < o.random; ++k) {
    uint32_t w = static_cast<uint32_t>(rng.next());
    int id = g::decode(w);
    if (id >= 0 && !o.insns.empty() && !o.insns.count(g::kInsnInfo[id].name)) continue;
    auto ref = llvm.disassemble(w);
    ++random_checked;
    if (id < 0) {
      if (ref) {
        ++missing;
        std::string m = ref->substr(0, ref->find(' '));
        if (!missing_by_mnemonic[m]++) missing_example[m] = w;
        if (o.strict) report(hex32(w) + ": vplat unallocated, LLVM \"" + *ref + "\"");
      }
      continue;
    }
    std::string ours = normalise(g::disassemble(id, w));
    if (!ref && llvm_known_wrong(w))
      ++known_wrong;
    else if (!ref)
      report(hex32(w) + " " + g::kInsnInfo[id].name + ": vplat \"" + ours + "\", LLVM: invalid");
    else if (*ref != ours)
      report(hex32(w) + " " + g::kInsnInfo[id].name + ": vplat \"" + ours + "\", LLVM \"" + *ref + "\"");
  }
  std::cout << "decode: " << ids.size() << " instructions, " << checked << " pattern encodings";
  if (o.random)
    std::cout << ", " << random_checked << " random words (" << missing
              << " that LLVM decodes and vplat does not)";
  std::cout << "\n";
  if (known_wrong)
    std::cout << "  " << known_wrong << " encodings where LLVM is known to be wrong (not failures)\n";
  if (no_encoding) std::cout << "  " << no_encoding << " instructions had no reachable encoding (shadowed)\n";
  if (!missing_by_mnemonic.empty()) {
    std::vector<std::pair<uint64_t, std::string>> v;
    for (auto& [m, n] : missing_by_mnemonic) v.push_back({n, m});
    std::sort(v.rbegin(), v.rend());
    std::cout << "  not yet described (LLVM mnemonic: random words, example):";
    for (size_t i = 0; i < v.size() && i < 40; ++i)
      std::cout << (i % 4 ? "  " : "\n    ") << v[i].second << ": " << v[i].first << " "
                << hex32(missing_example[v[i].second]);
    std::cout << "\n";
  }
  std::cout << (checked + random_checked - failures) << " passed, " << failures << " failed\n";
  return failures ? 1 : 0;
}

// ------------------------------------------------------------------------------------------ exec
// The code page sits far from the data window and from the small pointer values the streams use, so no
// random store can rewrite the stream under test.
constexpr uint64_t kCodeBase = 0x40000000, kCodeSize = 0x1000;
// Random data within reach of PC-relative literal loads (+-1 MiB), with the code page in its middle.
constexpr uint64_t kNearBase = kCodeBase - 0x100000, kNearSize = 0x200000;
constexpr uint64_t kDataBase = 0x100000, kDataSize = 16ull << 20;

class FlatMemory : public vplat::cpu::MemoryPort {
public:
  FlatMemory() : near(kNearSize), data(kDataSize) {}
  std::vector<uint8_t> near, data; // near holds the code page
  uint8_t* code() { return &near[kCodeBase - kNearBase]; }
  std::vector<std::pair<uint64_t, unsigned>> writes;

  uint8_t* at(uint64_t addr, unsigned size) {
    if (addr >= kNearBase && addr + size <= kNearBase + kNearSize && addr + size > addr)
      return &near[addr - kNearBase];
    if (addr >= kDataBase && addr + size <= kDataBase + kDataSize && addr + size > addr)
      return &data[addr - kDataBase];
    return nullptr;
  }
  bool read(uint64_t addr, unsigned size, uint64_t& v) override {
    uint8_t* p = at(addr, size);
    if (!p) return false;
    v = 0;
    std::memcpy(&v, p, size);
    return true;
  }
  bool write(uint64_t addr, unsigned size, uint64_t v) override {
    uint8_t* p = at(addr, size);
    if (!p) return false;
    std::memcpy(p, &v, size);
    writes.push_back({addr, size});
    return true;
  }
};

struct WriteLog {
  std::vector<std::pair<uint64_t, unsigned>> writes;
};

void on_unicorn_write(uc_engine*, uc_mem_type, uint64_t address, int size, int64_t, void* user) {
  static_cast<WriteLog*>(user)->writes.push_back({address, static_cast<unsigned>(size)});
}

uint64_t interesting_x(Rng& r) {
  static const uint64_t edges[] = {0,
                                   1,
                                   2,
                                   ~0ull,
                                   0x7fffffffffffffffull,
                                   0x8000000000000000ull,
                                   0xffffffffull,
                                   0x7fffffffull,
                                   0x80000000ull,
                                   0xffffffff80000000ull,
                                   0x100000000ull,
                                   0xffff,
                                   0x8000};
  switch (r.below(4)) {
  case 0:
    return r.below(33);
  case 1:
    return edges[r.below(sizeof edges / sizeof edges[0])];
  case 2:
    return r.next() >> r.below(64);
  default:
    return r.next();
  }
}

uint64_t interesting_lane64(Rng& r) {
  static const uint64_t d[] = {0,
                               0x8000000000000000ull,
                               0x3ff0000000000000ull,
                               0xbff0000000000000ull,
                               0x7ff0000000000000ull,
                               0xfff0000000000000ull,
                               0x7ff8000000000000ull,
                               0x7ff0000000000001ull,
                               0x0000000000000001ull,
                               0x000fffffffffffffull,
                               0x7fefffffffffffffull,
                               0x0010000000000000ull,
                               0x4340000000000000ull,
                               0x3fe0000000000000ull};
  static const uint32_t f[] = {0,          0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
                               0xff800000, 0x7fc00000, 0x7f800001, 0x00000001, 0x007fffff,
                               0x7f7fffff, 0x00800000, 0x4b000000, 0x3f000000};
  switch (r.below(6)) {
  case 0:
    return d[r.below(14)];
  case 1:
    return f[r.below(14)] | (uint64_t(f[r.below(14)]) << 32);
  case 2: { // nearby exponents so that adds cancel and round
    uint64_t e = 0x3f0 + r.below(32);
    return (r.next() & 0x800fffffffffffffull) | (e << 52);
  }
  case 3: {
    uint32_t a = (r.next() & 0x807fffff) | (uint32_t(0x70 + r.below(32)) << 23);
    uint32_t b = (r.next() & 0x807fffff) | (uint32_t(0x70 + r.below(32)) << 23);
    return a | (uint64_t(b) << 32);
  }
  case 4:
    return interesting_x(r);
  default:
    return r.next();
  }
}

struct Mismatch {
  std::string what;
};

class ExecDiff {
public:
  explicit ExecDiff(const Options& o) : o_(o), rng_(o.seed), core_(mem_) {
    core_.set_engine(o.engine);
    uni_.map(kNearBase, kNearSize);
    uni_.map(kDataBase, kDataSize);
    for (auto& b : mem_.data) b = static_cast<uint8_t>(rng_.next());
    for (auto& b : mem_.near) b = static_cast<uint8_t>(rng_.next());
    uni_.write(kDataBase, mem_.data.data(), mem_.data.size());
    uni_.write(kNearBase, mem_.near.data(), mem_.near.size());
    uc_hook h;
    uc_hook_add(static_cast<uc_engine*>(uni_.engine()), &h, UC_HOOK_MEM_WRITE,
                reinterpret_cast<void*>(&on_unicorn_write), &ulog_, 1, 0);
  }

  int run() {
    std::vector<int> ids;
    for (int id : select_insns(o_)) {
      std::string cls = g::kInsnInfo[id].cls;
      if (starts_with(cls, "sys_") && cls != "sys_nop") continue;
      ids.push_back(id);
    }
    if (ids.empty()) {
      std::cerr << "a64-diff: no executable instructions selected\n";
      return 2;
    }
    uint64_t done = 0;
    while (done < o_.count) {
      std::vector<uint32_t> words;
      std::vector<int> wids;
      bool has_mem = false, single = false;
      unsigned k = o_.stream;
      for (unsigned i = 0; i < k; ++i) {
        int id = ids[rng_.below(ids.size())];
        std::string cls = g::kInsnInfo[id].cls;
        // A branch ends its stream: the final PC then checks where it went.
        if (starts_with(cls.c_str(), "branch")) single = true;
        auto w = random_encoding(id, rng_);
        if (!w) continue;
        has_mem |= starts_with(cls, "mem");
        words.push_back(*w);
        wids.push_back(id);
        if (single) break;
      }
      if (words.empty()) {
        if (++empty_tries_ > 1000) {
          std::cerr << "a64-diff: no encodings could be generated for the selection\n";
          return 2;
        }
        continue;
      }
      done += words.size();
      run_stream(words, wids, has_mem);
    }
    std::cout << "exec: " << ids.size() << " instructions, " << compared_ << " executed and compared, "
              << streams_ << " streams, " << stopped_ << " stopped early by an exception (same in both)\n";
    write_coverage(ids);
    if (known_deviation_)
      std::cout << "  " << known_deviation_
                << " streams not compared: known QEMU 5 deviations from the Arm ARM"
                << " (unaligned exclusive or acquire/release access, store-exclusive of another size)\n";
    if (const auto* jit = core_.jit()) {
      const auto& st = jit->stats();
      std::cout << "jit: " << st.blocks_compiled << " blocks compiled, " << st.blocks_run << " block runs, "
                << st.insns_in_blocks << " instructions retired in translated blocks, "
                << st.invalidated_pages << " page invalidations\n";
      // A JIT run that never ran translated code would compare the interpreter twice.
      if (o_.engine == vplat::cpu::Engine::Jit && compared_ > 0 && st.insns_in_blocks == 0) {
        std::cout << "FAIL: no instruction ran in a translated block\n";
        return 1;
      }
      // Likewise a run meant for the baseline tier (VPLAT_JIT_BASELINE=1 with --engine auto) that never
      // ran baseline code.
      if (std::getenv("VPLAT_JIT_BASELINE") && std::string(std::getenv("VPLAT_JIT_BASELINE")) == "1" &&
          compared_ > 0 && st.insns_baseline == 0) {
        std::cout << "FAIL: no instruction ran in baseline code\n";
        return 1;
      }
    }
    std::cout << (streams_ - failed_) << " passed, " << failed_ << " failed\n";
    return failed_ ? 1 : 0;
  }

private:
  const Options& o_;
  Rng rng_;
  FlatMemory mem_;
  Core core_;
  vplat::testref::UnicornA64 uni_;
  WriteLog ulog_;
  uint64_t known_deviation_ = 0, compared_ = 0, streams_ = 0, failed_ = 0, stopped_ = 0, reported_ = 0,
           empty_tries_ = 0;
  std::map<int, uint64_t> per_insn_;
  std::map<std::string, uint64_t> per_mnemonic_;

  vplat::testref::A64State random_state(bool pointers) {
    vplat::testref::A64State s{};
    for (int i = 0; i < 31; ++i) {
      if (pointers && rng_.chance(85)) {
        uint64_t p = kDataBase + 0x10000 + rng_.below(0x70000);
        if (rng_.chance(85)) p &= ~uint64_t(15);
        s.x[i] = p;
      } else if (pointers) {
        s.x[i] = rng_.below(0x1000);
      } else {
        s.x[i] = interesting_x(rng_);
      }
    }
    s.sp = pointers ? ((kDataBase + 0x10000 + rng_.below(0x70000)) & ~uint64_t(15))
                    : (interesting_x(rng_) & ~uint64_t(15));
    s.pc = kCodeBase;
    s.nzcv = static_cast<uint32_t>(rng_.below(16)) << 28;
    for (auto& v : s.v) v = (u128(interesting_lane64(rng_)) << 64) | interesting_lane64(rng_);
    s.fpcr = static_cast<uint32_t>(rng_.below(4)) << 22;
    if (rng_.chance(20)) s.fpcr |= 1u << 24; // FZ
    if (rng_.chance(20)) s.fpcr |= 1u << 25; // DN
    if (rng_.chance(10)) s.fpcr |= 1u << 26; // AHP
    s.fpsr = rng_.chance(20) ? static_cast<uint32_t>(rng_.next() & 0x0800009f) : 0;
    return s;
  }

  void load_core(const vplat::testref::A64State& s) {
    for (int i = 0; i < 31; ++i) core_.X[i] = s.x[i];
    core_.X[31] = s.sp;
    core_.PC = s.pc;
    core_.NF = s.nzcv >> 31 & 1;
    core_.ZF = s.nzcv >> 30 & 1;
    core_.CF = s.nzcv >> 29 & 1;
    core_.VF = s.nzcv >> 28 & 1;
    for (int i = 0; i < 32; ++i) core_.V[i] = s.v[i];
    core_.FPCR = s.fpcr;
    core_.FPSR = s.fpsr;
    core_.EXCL_VALID = 0;
  }

  std::string listing(const std::vector<uint32_t>& words, const std::vector<int>& ids) {
    std::ostringstream o;
    for (size_t i = 0; i < words.size(); ++i)
      o << "      " << hex32(words[i]) << "  " << g::disassemble(ids[i], words[i]) << "  ("
        << g::kInsnInfo[ids[i]].name << ")\n";
    return o.str();
  }

  static std::string hex64(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
    return b;
  }
  static std::string hex128(u128 v) {
    return hex64(static_cast<uint64_t>(v >> 64)) + ":" + hex64(static_cast<uint64_t>(v)).substr(2);
  }

  // Runs the stream on our core one instruction at a time, noting whether a store-exclusive met a monitor
  // that marks its address with another access size (the QEMU 5 deviation described in run_stream).
  // With --engine jit the instructions between store-exclusives run in one call, so that they go
  // through translated blocks (Engine::Jit translates each block before it runs).
  uint64_t run_core(const std::vector<uint32_t>& words, const std::vector<int>& ids, bool& mixed_exclusive) {
    mixed_exclusive = false;
    uint64_t n = 0;
    auto is_store_excl = [&](uint64_t i) {
      std::string name = g::kInsnInfo[ids[i]].name;
      return name == "STXR" || name == "STXP";
    };
    while (n < words.size()) {
      if (is_store_excl(n) && core_.EXCL_VALID) {
        unsigned bytes = (g::kInsnInfo[ids[n]].name == std::string("STXP") ? 2u : 1u) << (words[n] >> 30);
        uint64_t addr = core_.X[(words[n] >> 5) & 31];
        if (addr == core_.EXCL_ADDR && bytes != core_.EXCL_SIZE) mixed_exclusive = true;
      }
      uint64_t k = 1;
      if (o_.engine != vplat::cpu::Engine::Interp && !is_store_excl(n))
        while (n + k < words.size() && !is_store_excl(n + k)) ++k;
      uint64_t r = core_.run(k).retired;
      n += r;
      if (r != k) break;
    }
    return n;
  }

  void run_stream(const std::vector<uint32_t>& words, const std::vector<int>& ids, bool pointers) {
    ++streams_;
    auto init = random_state(pointers);
    std::vector<uint8_t> code(words.size() * 4 + 4);
    std::memcpy(code.data(), words.data(), words.size() * 4);
    uint32_t self_branch = 0x14000000; // b . : keeps Unicorn's translation block short
    std::memcpy(code.data() + words.size() * 4, &self_branch, 4);
    std::memcpy(mem_.code(), code.data(), code.size());
    // Our core never runs past the stream; an unallocated word there (UDF #0, never translated) ends the
    // translated block exactly where the stream ends, as a budget that ends inside a block would not.
    std::memset(mem_.code() + words.size() * 4, 0, 4);
    core_.icache_invalidate(); // the stream was written behind the core's back
    uni_.write(kCodeBase, code.data(), code.size());
    uni_.set_state(init);
    // TPIDR_EL0 is user-visible (MRS/MSR) but not in A64State: start both from the same value.
    uint64_t tpidr = rng_.next();
    uc_reg_write(static_cast<uc_engine*>(uni_.engine()), UC_ARM64_REG_TPIDR_EL0, &tpidr);
    mem_.writes.clear();
    ulog_.writes.clear();
    const uint64_t end = kCodeBase + words.size() * 4;
    auto ur = uni_.run(end, words.size());
    auto us = uni_.state();
    // Unicorn ends a run at WFI (it waits for an interrupt); continue after it, since WFI may be a NOP.
    while (ur.ok && us.pc > kCodeBase && us.pc < end && words[(us.pc - kCodeBase) / 4 - 1] == 0xd503207fu) {
      ur = uni_.run(end, (end - us.pc) / 4);
      us = uni_.state();
    }
    load_core(init);
    core_.tpidr_el0 = tpidr;
    bool mixed_exclusive = false;
    uint64_t n = run_core(words, ids, mixed_exclusive);
    Exception ex = core_.exception();

    // Known Unicorn (QEMU 5) deviations, where the Arm ARM disagrees with QEMU; the stream is counted, not
    // compared, and memory resynchronised:
    //  - Exclusive and load-acquire/store-release accesses (class mem_excl) must be aligned (Alignment
    //    fault); QEMU 5 does not check LDAR/STLR, nor a store-exclusive whose address misses the monitor.
    //  - A store-exclusive of another size than the load-exclusive before it: QEMU 5 compares memory at the
    //    store's size but reports the status from a full-width compare, so it can write memory and report
    //    failure, which no Arm implementation may do (we fail such a store-exclusive without writing).
    bool uni_same_stop = !ur.ok && (us.pc - kCodeBase) / 4 == n;
    bool unaligned_excl = ex == Exception::Alignment && n < ids.size() &&
                          std::string(g::kInsnInfo[ids[n]].cls) == "mem_excl" && !uni_same_stop;
    if (unaligned_excl || mixed_exclusive) {
      ++known_deviation_;
      for (auto* log : {&mem_.writes, &ulog_.writes})
        for (auto& [a, sz] : *log)
          for (unsigned i = 0; i < sz; ++i)
            if (uint8_t* o = mem_.at(a + i, 1)) uni_.read(a + i, o, 1);
      return;
    }

    std::vector<std::string> diffs;
    bool uni_stopped = !ur.ok;
    // A taken branch to unmapped memory: Unicorn reports the fetch fault of the NEXT instruction instead of
    // stopping after the count; the branch itself completed, with the faulting address as its target.
    if (uni_stopped && ex == Exception::None && ur.error.rfind("unmapped fetch", 0) == 0 &&
        ur.fault_addr == core_.PC) {
      uni_stopped = false;
      us.pc = ur.fault_addr;
    }
    bool our_stopped = ex != Exception::None;
    uint64_t uni_index = (us.pc - kCodeBase) / 4;
    if (uni_stopped != our_stopped) {
      diffs.push_back(std::string("vplat ") +
                      (our_stopped ? "raised " + std::string(vplat::cpu::exception_name(ex)) +
                                         " at instruction " + std::to_string(n)
                                   : "completed") +
                      ", Unicorn " + (uni_stopped ? "stopped: " + ur.error : "completed"));
    } else if (our_stopped && uni_index != n) {
      diffs.push_back("both stopped, vplat at instruction " + std::to_string(n) + ", Unicorn: " + ur.error);
    }
    if (diffs.empty()) {
      if (our_stopped) ++stopped_;
      for (int i = 0; i < 31; ++i)
        if (core_.X[i] != us.x[i])
          diffs.push_back("x" + std::to_string(i) + ": vplat " + hex64(core_.X[i]) + ", Unicorn " +
                          hex64(us.x[i]));
      if (core_.X[31] != us.sp)
        diffs.push_back("sp: vplat " + hex64(core_.X[31]) + ", Unicorn " + hex64(us.sp));
      uint64_t uni_tpidr = 0;
      uc_reg_read(static_cast<uc_engine*>(uni_.engine()), UC_ARM64_REG_TPIDR_EL0, &uni_tpidr);
      if (core_.tpidr_el0 != uni_tpidr)
        diffs.push_back("tpidr_el0: vplat " + hex64(core_.tpidr_el0) + ", Unicorn " + hex64(uni_tpidr));
      uint64_t our_pc = our_stopped ? core_.PC : core_.PC;
      if (!our_stopped && our_pc != us.pc)
        diffs.push_back("pc: vplat " + hex64(our_pc) + ", Unicorn " + hex64(us.pc));
      uint32_t nzcv = (uint32_t(core_.NF) << 31) | (uint32_t(core_.ZF) << 30) | (uint32_t(core_.CF) << 29) |
                      (uint32_t(core_.VF) << 28);
      if (nzcv != us.nzcv)
        diffs.push_back("nzcv: vplat " + hex64(nzcv >> 28) + ", Unicorn " + hex64(us.nzcv >> 28));
      for (int i = 0; i < 32; ++i)
        if (core_.V[i] != us.v[i])
          diffs.push_back("v" + std::to_string(i) + ": vplat " + hex128(core_.V[i]) + ", Unicorn " +
                          hex128(us.v[i]));
      uint32_t fm = vplat::testref::kUnicornFpsrComparableMask;
      if ((core_.FPSR & fm) != (us.fpsr & fm))
        diffs.push_back("fpsr: vplat " + hex64(core_.FPSR & fm) + ", Unicorn " + hex64(us.fpsr & fm));
      uint32_t cm = vplat::testref::kUnicornFpcrComparableMask;
      if ((core_.FPCR & cm) != (us.fpcr & cm))
        diffs.push_back("fpcr: vplat " + hex64(core_.FPCR & cm) + ", Unicorn " + hex64(us.fpcr & cm));
    }
    // Memory: every byte either side wrote.
    std::set<uint64_t> bytes;
    for (auto& [a, s] : mem_.writes)
      for (unsigned i = 0; i < s; ++i) bytes.insert(a + i);
    for (auto& [a, s] : ulog_.writes)
      for (unsigned i = 0; i < s; ++i) bytes.insert(a + i);
    for (uint64_t a : bytes) {
      uint8_t theirs = 0;
      uint8_t* ours = mem_.at(a, 1);
      if (!ours) continue;
      uni_.read(a, &theirs, 1);
      if (*ours != theirs) {
        if (diffs.size() < 12)
          diffs.push_back("memory " + hex64(a) + ": vplat " + std::to_string(*ours) + ", Unicorn " +
                          std::to_string(theirs));
        *ours = theirs; // resynchronise so that later streams start equal
      }
    }
    if (!diffs.empty()) {
      ++failed_;
      if (reported_++ < o_.max_report) {
        std::cout << "  MISMATCH in stream " << streams_ << ":\n" << listing(words, ids);
        for (size_t i = 0; i < diffs.size() && i < 12; ++i) std::cout << "    " << diffs[i] << "\n";
      }
      return;
    }
    uint64_t completed = our_stopped ? n : words.size();
    for (uint64_t i = 0; i < completed; ++i) {
      ++compared_;
      ++per_insn_[ids[i]];
      std::string text = g::disassemble(ids[i], words[i]);
      ++per_mnemonic_[text.substr(0, text.find(' '))];
    }
  }

  void write_coverage(const std::vector<int>& ids) {
    if (o_.coverage_file.empty()) return;
    std::ofstream f(o_.coverage_file);
    f << "# a64-diff exec coverage: instructions compared against Unicorn (seed " << o_.seed << ")\n";
    f << "# by instruction (description name, class, count)\n";
    uint64_t zero = 0;
    for (int id : ids) {
      f << g::kInsnInfo[id].name << "\t" << g::kInsnInfo[id].cls << "\t" << per_insn_[id] << "\n";
      zero += per_insn_[id] == 0;
    }
    f << "# by mnemonic (as vplat disassembles it)\n";
    for (auto& [m, n] : per_mnemonic_) f << m << "\t" << n << "\n";
    std::cout << "  coverage written to " << o_.coverage_file << " (" << per_mnemonic_.size()
              << " mnemonics; " << zero << " instructions never completed)\n";
  }
};

} // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc < 2) {
    usage();
    return 2;
  }
  o.mode = argv[1];
  if (o.mode == "-h" || o.mode == "--help") {
    usage();
    return 0;
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "a64-diff: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&]() -> uint64_t {
      std::string v = value();
      char* end = nullptr;
      uint64_t n = std::strtoull(v.c_str(), &end, 0);
      if (v.empty() || *end) {
        std::cerr << "a64-diff: " << a << " needs a number, not '" << v << "'\n";
        std::exit(2);
      }
      return n;
    };
    if (a == "--insn") {
      std::stringstream ss(value());
      std::string n;
      while (std::getline(ss, n, ','))
        if (!n.empty()) o.insns.insert(n);
    } else if (a == "--class")
      o.class_prefix = value();
    else if (a == "--per-insn")
      o.per_insn = number();
    else if (a == "--random")
      o.random = number();
    else if (a == "--count")
      o.count = number();
    else if (a == "--stream")
      o.stream = static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(64, number())));
    else if (a == "--seed")
      o.seed = number();
    else if (a == "--max-report")
      o.max_report = static_cast<unsigned>(number());
    else if (a == "--strict")
      o.strict = true;
    else if (a == "--coverage")
      o.coverage_file = value();
    else if (a == "--engine") {
      std::string v = value();
      if (!vplat::cpu::parse_engine(v, o.engine)) {
        std::cerr << "a64-diff: --engine takes interp, jit or auto, not '" << v << "'\n";
        return 2;
      }
    } else {
      std::cerr << "a64-diff: unknown option '" << a << "' (see --help)\n";
      return 2;
    }
  }
  if (o.mode == "decode") return run_decode(o);
  if (o.mode == "exec") return ExecDiff(o).run();
  std::cerr << "a64-diff: unknown mode '" << o.mode << "' (decode or exec)\n";
  return 2;
}
