// vplat_testref_probe: measurement tool for the numbers quoted in reference.h.
//
//   vplat_testref_probe words HEX...        print LLVM / Capstone text for words
//   vplat_testref_probe verdicts [N] [SEED] LLVM-vs-Capstone validity over N random words
//   vplat_testref_probe bench [N]           Unicorn run() throughput
//   vplat_testref_probe fpcr                FPCR/FPSR writable bits
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/ref/reference.h"

using namespace vplat::testref;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int cmd_words(int argc, char** argv) {
  LlvmA64Disassembler llvm;
  CapstoneA64Disassembler cs;
  for (int i = 2; i < argc; ++i) {
    uint32_t w = static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 16));
    auto a = llvm.disassemble(w, 0x1000);
    auto b = cs.disassemble(w, 0x1000);
    std::printf("%08x  llvm: %-40s cs: %s\n", w, a ? a->c_str() : "<invalid>",
                b ? b->c_str() : "<invalid>");
  }
  return 0;
}

int cmd_verdicts(int argc, char** argv) {
  uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 2000000;
  uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  std::mt19937_64 rng(seed);
  LlvmA64Disassembler llvm;
  LlvmA64Disassembler llvm_all("+v8.5a,+fp-armv8,+neon,+crc,+aes,+sha2,+sha3,+sm4,+fullfp16,+fp16fml,+dotprod,+rcpc,+rdm,+lse,+pauth,+jsconv,+complxnum,+bti,+mte,+rand,+predres,+sb,+ssbs,+flagm,+altnzcv", "generic");
  CapstoneA64Disassembler cs;
  uint64_t lv = 0, cv = 0, both = 0, only_l = 0, only_c = 0, only_c_but_llvm_all = 0, text_eq = 0;
  std::vector<uint32_t> ex_l, ex_c, ex_c_all;
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t w = static_cast<uint32_t>(rng());
    auto a = llvm.disassemble(w, 0x1000);
    auto b = cs.disassemble(w, 0x1000);
    lv += a.has_value();
    cv += b.has_value();
    if (a && b) {
      ++both;
      if (*a == *b) ++text_eq;
    } else if (a) {
      ++only_l;
      if (ex_l.size() < 12) ex_l.push_back(w);
    } else if (b) {
      ++only_c;
      if (llvm_all.disassemble(w, 0x1000)) {
        ++only_c_but_llvm_all;
        if (ex_c_all.size() < 12) ex_c_all.push_back(w);
      } else if (ex_c.size() < 12) {
        ex_c.push_back(w);
      }
    }
  }
  std::printf("words=%" PRIu64 " seed=%" PRIu64 "\n", n, seed);
  std::printf("llvm(v8.0) valid=%" PRIu64 " capstone valid=%" PRIu64 " both=%" PRIu64
              " (identical text %" PRIu64 ")\n",
              lv, cv, both, text_eq);
  std::printf("llvm-only=%" PRIu64 " capstone-only=%" PRIu64 " (of which valid in llvm v8.5+ext: %" PRIu64
              ")\n",
              only_l, only_c, only_c_but_llvm_all);
  auto show = [&](const char* title, const std::vector<uint32_t>& v) {
    std::printf("%s\n", title);
    for (uint32_t w : v) {
      auto a = llvm.disassemble(w, 0x1000);
      auto a2 = llvm_all.disassemble(w, 0x1000);
      auto b = cs.disassemble(w, 0x1000);
      std::printf("  %08x llvm: %-36s llvm-all: %-36s cs: %s\n", w, a ? a->c_str() : "<invalid>",
                  a2 ? a2->c_str() : "<invalid>", b ? b->c_str() : "<invalid>");
    }
  };
  show("examples llvm-only:", ex_l);
  show("examples capstone-only (llvm-all also invalid):", ex_c);
  show("examples capstone-only (valid in later extensions):", ex_c_all);
  return 0;
}

int cmd_bench(int argc, char** argv) {
  uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 200000;
  UnicornA64 u;
  const uint64_t code = 0x10000, data = 0x20000;
  u.map(code, 0x10000);
  u.map(data, 0x10000);
  // Layout A: 4096 straight-line "add x0, x0, #1".
  std::vector<uint32_t> prog(4096, 0x91000400u);
  u.write(code, prog.data(), prog.size() * 4);
  // Layout B at code+0x8000: 1024 slots of { add x0, x0, #1 ; b . } (short TBs).
  std::vector<uint32_t> slots;
  for (int i = 0; i < 1024; ++i) {
    slots.push_back(0x91000400u);
    slots.push_back(0x14000000u);
  }
  u.write(code + 0x8000, slots.data(), slots.size() * 4);
  A64State s{};
  s.pc = code;
  s.sp = data + 0x8000;
  u.set_state(s);
  double t0, t1;
  auto fail = [](const UnicornA64::RunResult& r) {
    std::printf("error %s\n", r.error.c_str());
    return 1;
  };

  // 1. cold single steps through fresh straight-line code: every new pc
  //    translates a block running to the end of the straight line.
  t0 = now_s();
  for (int i = 0; i < 4000; ++i) {
    auto r = u.run(~0ull, 1);
    if (!r.ok) return fail(r);
  }
  t1 = now_s();
  std::printf("cold run(1) through 4000 straight-line insns: %.0f runs/s\n", 4000 / (t1 - t0));
  // 2. cold single steps, slots terminated by a branch
  t0 = now_s();
  for (int i = 0; i < 1024; ++i) {
    s.pc = code + 0x8000 + 8 * i;
    u.set_state(s);
    auto r = u.run(~0ull, 1);
    if (!r.ok) return fail(r);
  }
  t1 = now_s();
  std::printf("cold set_state+run(1) over 1024 {insn; b .} slots: %.0f runs/s\n", 1024 / (t1 - t0));

  // 3. warm single-instruction runs, state untouched
  s.pc = code;
  u.set_state(s);
  t0 = now_s();
  for (uint64_t i = 0; i < n; ++i) {
    if (i % 4000 == 0) {
      s.pc = code;
      u.set_state(s);
    }
    auto r = u.run(~0ull, 1);
    if (!r.ok) return fail(r);
  }
  t1 = now_s();
  std::printf("warm run(1), no state sync:                   %.0f runs/s\n", n / (t1 - t0));

  // 4. warm single-instruction runs with set_state before and state() after
  t0 = now_s();
  for (uint64_t i = 0; i < n; ++i) {
    s.pc = code + 0x8000 + 8 * (i % 1024);
    u.set_state(s);
    auto r = u.run(~0ull, 1);
    if (!r.ok) return fail(r);
    s = u.state();
  }
  t1 = now_s();
  std::printf("warm set_state + run(1) + state():            %.0f runs/s\n", n / (t1 - t0));

  // 5. just set_state + state()
  t0 = now_s();
  for (uint64_t i = 0; i < n; ++i) {
    u.set_state(s);
    s = u.state();
  }
  t1 = now_s();
  std::printf("set_state + state() only:                     %.0f pairs/s\n", n / (t1 - t0));

  // 6. long runs (count-limited), per instruction
  uint32_t loop = 0x17ffffff;  // b .-4 at the end of layout A: loops over its last 2 insns
  u.write(code + 4 * 4095, &loop, 4);
  s.pc = code;
  u.set_state(s);
  uint64_t big = n * 50;
  t0 = now_s();
  auto r = u.run(~0ull, big);
  t1 = now_s();
  std::printf("run(count=%" PRIu64 "):                        %.0f insns/s (%s)\n", big, big / (t1 - t0),
              r.ok ? "ok" : r.error.c_str());

  // 7. switching from count>0 to count=0 (until only) flushes all translations
  s.pc = code;
  u.set_state(s);
  t0 = now_s();
  r = u.run(code + 4 * 4000, 0);
  t1 = now_s();
  std::printf("first run(until, count=0) after count runs:   %.1f ms (%s)\n", 1e3 * (t1 - t0),
              r.ok ? "ok" : r.error.c_str());
  t0 = now_s();
  for (int k = 0; k < 200; ++k) {
    s.pc = code;
    u.set_state(s);
    r = u.run(code + 4 * 4000, 0);
  }
  t1 = now_s();
  std::printf("run(until, count=0) over 4000 insns:          %.0f insns/s\n", 200 * 4000 / (t1 - t0));
  t0 = now_s();
  for (uint64_t i = 0; i < n / 10; ++i) {
    s.pc = code + 0x8000 + 8 * (i % 1024);
    u.set_state(s);
    r = u.run(s.pc + 4, 0);
    if (!r.ok) return fail(r);
  }
  t1 = now_s();
  std::printf("set_state + run(until=pc+4, count=0):         %.0f runs/s\n", (n / 10) / (t1 - t0));

  // 8. rewriting one code slot between runs (invalidates its translation)
  uint64_t m = n / 10;
  t0 = now_s();
  for (uint64_t i = 0; i < m; ++i) {
    uint32_t insn = 0x91000400u | (static_cast<uint32_t>(i & 0xfff) << 10);
    u.write(code + 0x8000, &insn, 4);
    s.pc = code + 0x8000;
    u.set_state(s);
    r = u.run(~0ull, 1);
    if (!r.ok) return fail(r);
  }
  t1 = now_s();
  std::printf("write insn + set_state + run(1):              %.0f runs/s\n", m / (t1 - t0));
  return 0;
}

int cmd_fpcr() {
  UnicornA64 u;
  u.map(0x10000, 0x1000);
  A64State s{};
  s.pc = 0x10000;
  s.fpcr = 0xffffffffu;
  s.fpsr = 0xffffffffu;
  s.nzcv = 0xffffffffu;
  u.set_state(s);
  A64State t = u.state();
  std::printf("fpcr written 0xffffffff read 0x%08x\nfpsr written 0xffffffff read 0x%08x\nnzcv read 0x%08x\n",
              t.fpcr, t.fpsr, t.nzcv);
  for (int b = 0; b < 32; ++b) {
    s.fpcr = 1u << b;
    u.set_state(s);
    t = u.state();
    if (t.fpcr) std::printf("  fpcr bit %d sticks\n", b);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s words HEX... | verdicts [N] [SEED] | bench [N] | fpcr\n", argv[0]);
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "words") return cmd_words(argc, argv);
  if (cmd == "verdicts") return cmd_verdicts(argc, argv);
  if (cmd == "bench") return cmd_bench(argc, argv);
  if (cmd == "fpcr") return cmd_fpcr();
  std::fprintf(stderr, "unknown command %s\n", argv[1]);
  return 2;
}
