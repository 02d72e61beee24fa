// gdbstub_target: a GDB server over vplat's real A64 interpreter, for the end-to-end test with gdb-multiarch.
//
//   gdbstub_target PROGRAM.bin [--cpus N] [--port P] [--port-file FILE]
//
// Memory: PROGRAM at 0x10000 in 1 MiB of RAM at 0, and a 4 GiB read-only "sled" ROM at 0x100000000 in which
// every word is `add x11, x11, #1` (0x9100056b), so code running there counts its own instructions in X11 and
// never ends in practice: it stands in for the loops the guest cannot have while the interpreter lacks
// branches, and it is memory GDB cannot write a BRK into. Everything else is unmapped. CPU 0 starts at
// 0x10000, CPU n > 0 in the sled at 0x100000000 + n * 0x40000000; X0 = the CPU number, SP at the top of a
// private 4 KiB stack. HLT #0 (0xd4400000) stands for powering off. One GDB session is served; how it ended
// is printed ("session: killed|detached|disconnected|exited"). The chosen port is written to FILE
// (atomically, so a script can poll for it).
#include "cpu-dbt/a64_core.h"
#include "platforms/gdbstub.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kBase = 0x10000;
constexpr uint64_t kMemSize = 0x100000;
constexpr uint64_t kSledBase = 0x100000000ull;
constexpr uint64_t kSledSize = 0x100000000ull;
constexpr uint32_t kSledWord = 0x9100056b; // add x11, x11, #1
constexpr uint32_t kHlt0 = 0xd4400000;

class FlatMemory : public vplat::cpu::MemoryPort {
public:
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kMemSize);
  bool in_range(uint64_t addr, uint64_t n) const { return addr <= bytes.size() && bytes.size() - addr >= n; }
  static bool in_sled(uint64_t addr, uint64_t n) {
    return addr >= kSledBase && addr - kSledBase <= kSledSize && kSledSize - (addr - kSledBase) >= n;
  }
  // Reads RAM or the sled; false for anything else.
  bool read_bytes(uint64_t addr, void* buf, size_t n) {
    if (in_range(addr, n)) {
      std::memcpy(buf, &bytes[addr], n);
      return true;
    }
    if (!in_sled(addr, n)) return false;
    auto* out = static_cast<uint8_t*>(buf);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(kSledWord >> (8 * ((addr + i) & 3)));
    return true;
  }
  bool read(uint64_t addr, unsigned size, uint64_t& v) override {
    v = 0;
    return read_bytes(addr, &v, size);
  }
  bool write(uint64_t addr, unsigned size, uint64_t v) override {
    if (!in_range(addr, size)) return false;
    std::memcpy(&bytes[addr], &v, size);
    return true;
  }
};

class InterpreterTarget : public vplat::gdb::Target {
public:
  explicit InterpreterTarget(int n) {
    for (int i = 0; i < n; ++i) {
      cores.push_back(std::make_unique<vplat::cpu::Core>(mem));
      cores.back()->PC = i == 0 ? kBase : kSledBase + 0x40000000ull * static_cast<uint64_t>(i);
      cores.back()->X[0] = static_cast<uint64_t>(i);
      cores.back()->X[31] = kMemSize - 0x1000 * static_cast<uint64_t>(i) - 16;
    }
  }
  FlatMemory mem;
  std::vector<std::unique_ptr<vplat::cpu::Core>> cores;

  int num_cpus() override { return static_cast<int>(cores.size()); }

  vplat::gdb::Registers read_registers(int cpu) override {
    auto& c = *cores.at(static_cast<size_t>(cpu));
    vplat::gdb::Registers r{};
    std::copy(c.X, c.X + 31, r.x);
    r.sp = c.X[31];
    r.pc = c.PC;
    // This bare core has no PSTATE beyond NZCV; report EL0t (M = 0) with the flags.
    r.cpsr = static_cast<uint32_t>(c.NF) << 31 | static_cast<uint32_t>(c.ZF) << 30 |
             static_cast<uint32_t>(c.CF) << 29 | static_cast<uint32_t>(c.VF) << 28;
    std::copy(c.V, c.V + 32, r.v);
    r.fpsr = c.FPSR;
    r.fpcr = c.FPCR;
    return r;
  }

  void write_registers(int cpu, const vplat::gdb::Registers& r) override {
    auto& c = *cores.at(static_cast<size_t>(cpu));
    std::copy(r.x, r.x + 31, c.X);
    c.X[31] = r.sp;
    c.PC = r.pc;
    c.NF = r.cpsr >> 31 & 1;
    c.ZF = r.cpsr >> 30 & 1;
    c.CF = r.cpsr >> 29 & 1;
    c.VF = r.cpsr >> 28 & 1;
    std::copy(r.v, r.v + 32, c.V);
    c.FPSR = r.fpsr;
    c.FPCR = r.fpcr;
  }

  // No translation here: virtual = physical.
  bool read_memory(int, uint64_t va, void* buf, size_t n) override { return mem.read_bytes(va, buf, n); }
  bool write_memory(int, uint64_t va, const void* buf, size_t n) override {
    if (!mem.in_range(va, n)) return false;
    std::memcpy(&mem.bytes[va], buf, n);
    return true;
  }

  // One instruction on core i; returns true when it raised something, with `why` set.
  bool run_one(size_t i, Stop& why) {
    auto& c = *cores[i];
    if (c.run(1).retired == 1) return false;
    // HLT #0 is the power-off; an interpreter without the system instructions reports it as undefined.
    bool hlt = c.exception() == vplat::cpu::Exception::Halt ||
               (c.exception() == vplat::cpu::Exception::Undefined && c.exception_syndrome == kHlt0);
    why = hlt ? Stop::Exited : Stop::Fault;
    if (why == Stop::Fault)
      std::cerr << "gdbstub_target: cpu " << i << " stopped by " << vplat::cpu::exception_name(c.exception())
                << " at pc 0x" << std::hex << c.PC << std::dec << "\n";
    return true;
  }

  Stop resume(bool step, int cpu, const std::vector<uint64_t>& bps, const std::function<bool()>& should_stop,
              int& stopped) override {
    Stop why;
    stopped = cpu;
    if (step) return run_one(static_cast<size_t>(cpu), why) ? why : Stop::Step;
    // Tells the test script that GDB is now waiting for a stop, so a Ctrl-C from it goes to the running
    // target.
    std::cout << "running" << std::endl;
    std::vector<bool> first(cores.size(), true);
    for (uint64_t iter = 0;; ++iter) {
      if (iter % 4096 == 0 && should_stop()) return Stop::Interrupted;
      for (size_t i = 0; i < cores.size(); ++i) {
        // The first instruction after resuming is not checked, so a continue from a breakpoint makes
        // progress.
        if (!first[i] && std::find(bps.begin(), bps.end(), cores[i]->PC) != bps.end()) {
          stopped = static_cast<int>(i);
          return Stop::Breakpoint;
        }
        first[i] = false;
        if (run_one(i, why)) {
          stopped = static_cast<int>(i);
          return why;
        }
      }
    }
  }
};

} // namespace

int main(int argc, char** argv) {
  std::string program, port_file;
  int cpus = 2;
  long port = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--cpus" && i + 1 < argc)
      cpus = std::atoi(argv[++i]);
    else if (a == "--port" && i + 1 < argc)
      port = std::strtol(argv[++i], nullptr, 10);
    else if (a == "--port-file" && i + 1 < argc)
      port_file = argv[++i];
    else if (program.empty() && a[0] != '-')
      program = a;
    else {
      std::cerr << "usage: gdbstub_target PROGRAM.bin [--cpus N] [--port P] [--port-file FILE]\n";
      return 2;
    }
  }
  if (program.empty() || cpus < 1 || cpus > 4 || port < 0 || port > 65535) {
    std::cerr << "usage: gdbstub_target PROGRAM.bin [--cpus N (1-4)] [--port P] [--port-file FILE]\n";
    return 2;
  }
  std::ifstream in(program, std::ios::binary);
  std::vector<char> code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) {
    std::cerr << "gdbstub_target: cannot read " << program << "\n";
    return 2;
  }
  InterpreterTarget target(cpus);
  if (code.empty() || code.size() > kMemSize / 2) {
    std::cerr << "gdbstub_target: program empty or too large\n";
    return 2;
  }
  std::memcpy(&target.mem.bytes[kBase], code.data(), code.size());
  try {
    vplat::gdb::GdbStub stub(target, static_cast<uint16_t>(port));
    std::cout << "listening on 127.0.0.1:" << stub.port() << std::endl;
    if (!port_file.empty()) {
      std::string tmp = port_file + ".tmp";
      std::ofstream(tmp) << stub.port() << "\n";
      std::rename(tmp.c_str(), port_file.c_str());
    }
    stub.wait_for_connection();
    stub.serve();
    static const char* names[] = {"detached", "killed", "disconnected", "exited"};
    std::cout << "session: " << names[static_cast<int>(stub.end_reason())] << std::endl;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
