// a64-run: runs a raw A64 binary on the interpreter with flat memory, for benchmarks.
// The program starts at its load address with SP at the top of memory and stops at BRK. With --cpu-stats the
// instruction histogram is counted as vplat's --cpu-stats counts it (bench/cpu-stats-overhead.sh); the line
// then also gives the instructions it counted, which must equal those retired.
#include "cpu-dbt/a64_core.h"
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

class FlatMemory : public vplat::cpu::MemoryPort {
public:
  explicit FlatMemory(size_t size) : bytes(size) {}
  std::vector<uint8_t> bytes;
  // RAM pages are accessed directly through the core's soft TLB.
  uint8_t* ram_pointer(uint64_t page) override { return page + 0x1000 <= bytes.size() ? &bytes[page] : nullptr; }
  bool read(uint64_t addr, unsigned size, uint64_t& v) override {
    if (addr > bytes.size() || bytes.size() - addr < size) return false;
    v = 0;
    std::memcpy(&v, &bytes[addr], size);
    return true;
  }
  bool write(uint64_t addr, unsigned size, uint64_t v) override {
    if (addr > bytes.size() || bytes.size() - addr < size) return false;
    std::memcpy(&bytes[addr], &v, size);
    return true;
  }
};

} // namespace

int main(int argc, char** argv) {
  vplat::cpu::Engine engine = vplat::cpu::Engine::Interp;
  bool cpu_stats = false;
  for (;;) {
    if (argc > 2 && std::string(argv[1]) == "--engine") {
      if (!vplat::cpu::parse_engine(argv[2], engine)) {
        std::cerr << "a64-run: --engine takes interp, jit or auto, not '" << argv[2] << "'\n";
        return 2;
      }
      argc -= 2;
      argv += 2;
    } else if (argc > 1 && std::string(argv[1]) == "--cpu-stats") {
      cpu_stats = true;
      argc -= 1;
      argv += 1;
    } else {
      break;
    }
  }
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::cout
        << "usage: a64-run [--engine interp|jit|auto] [--cpu-stats] FILE.bin [MAX_INSTRUCTIONS]\n"
           "Loads FILE at 0x10000 in 64 MiB of flat memory, runs until BRK (or MAX_INSTRUCTIONS), prints\n"
           "instructions and time.\n";
    return argc < 2 ? 2 : 0;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "a64-run: cannot open " << argv[1] << "\n";
    return 2;
  }
  std::vector<char> code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t max = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 10'000'000'000ull;
  constexpr uint64_t kBase = 0x10000;
  FlatMemory mem(64ull << 20);
  if (code.size() > mem.bytes.size() - kBase) {
    std::cerr << "a64-run: program too large\n";
    return 2;
  }
  std::memcpy(&mem.bytes[kBase], code.data(), code.size());
  vplat::cpu::Core core(mem);
  core.set_engine(engine);
  std::vector<uint64_t> counts(cpu_stats ? vplat::gen::aarch64::kNumInsns : 0);
  if (cpu_stats) core.set_insn_counts(counts.data());
  core.PC = kBase;
  core.X[31] = mem.bytes.size() - 16;
  auto t0 = std::chrono::steady_clock::now();
  uint64_t done = 0;
  while (done < max) {
    done += core.run(std::min<uint64_t>(max - done, 1 << 20)).retired;
    if (core.exception() != vplat::cpu::Exception::None) break;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto e = core.exception();
  if (e != vplat::cpu::Exception::Breakpoint && done < max) { // reaching MAX_INSTRUCTIONS is a normal end
    std::cerr << "a64-run: stopped by " << vplat::cpu::exception_name(e) << " at pc 0x" << std::hex << core.PC << "\n";
    return 1;
  }
  std::printf("instructions %llu seconds %.3f mips %.1f x0 0x%llx", static_cast<unsigned long long>(done), s,
              done / s / 1e6, static_cast<unsigned long long>(core.X[0]));
  if (cpu_stats) {
    core.flush_insn_counts();
    uint64_t counted = 0;
    for (uint64_t n : counts) counted += n;
    std::printf(" counted %llu\n", static_cast<unsigned long long>(counted));
    if (counted != done) {
      std::cerr << "a64-run: the histogram counts " << counted << " instructions, " << done << " retired\n";
      return 1;
    }
    return 0;
  }
  std::printf("\n");
  return 0;
}
