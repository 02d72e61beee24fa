// The AArch64 core: architectural state (generated from archdesc/aarch64) plus what the runtime needs to
// execute it. The interpreter tier lives here; the system-level parts (exception levels, MMU, system
// registers) and the JIT tier arrive with the BOOT and DBT issues.
#pragma once
#include "aarch64_isa.h"
#include <cstdint>
#include <string>

namespace vplat::cpu {

namespace a64 = vplat::gen::aarch64;

// Values of State::EXC: why the last instruction did not complete.
enum class Exception : uint8_t {
  None = 0,
  Undefined = 1,        // unallocated encoding, or an instruction this model does not execute
  DataAbort = 2,        // a load or store found no memory
  InstructionAbort = 3, // instruction fetch found no memory
  Alignment = 4,        // an access that must be aligned was not
  SupervisorCall = 5,
  HypervisorCall = 6,
  SecureMonitorCall = 7,
  Breakpoint = 8,       // BRK
  Halt = 9,             // HLT
  System = 10,          // a system instruction whose effect needs the system model (ERET, MSR, ...)
};

const char* exception_name(Exception e);

// The memory a core sees. User-level tests back it with a flat buffer; the platform with its bus.
class MemoryPort {
public:
  virtual ~MemoryPort() = default;
  // size is 1, 2, 4 or 8 bytes, little-endian. Return false when nothing answers at addr.
  virtual bool read(uint64_t addr, unsigned size, uint64_t& value) = 0;
  virtual bool write(uint64_t addr, unsigned size, uint64_t value) = 0;
  virtual bool fetch(uint64_t addr, uint32_t& insn) {
    uint64_t v;
    if (!read(addr, 4, v)) return false;
    insn = static_cast<uint32_t>(v);
    return true;
  }
};

class Core : public a64::State {
public:
  explicit Core(MemoryPort& memory) : mem(memory) {}

  // Executes up to `count` instructions and returns how many completed. Stops early, with EXC set and
  // PC at the instruction that raised it, on the first exception (exceptions are precise).
  uint64_t run(uint64_t count);

  Exception exception() const { return static_cast<Exception>(EXC); }
  uint64_t fault_address = 0; // for DataAbort / InstructionAbort / Alignment
  uint32_t exception_syndrome = 0; // immediate of SVC/HVC/SMC/BRK/HLT, or the encoding for Undefined/System

  void raise(Exception e, uint64_t address = 0) {
    EXC = static_cast<uint8_t>(e);
    fault_address = address;
  }

  // User-visible system registers kept outside the generated state (see a64_system_helpers.cpp).
  uint64_t tpidr_el0 = 0;

  MemoryPort& mem;
  uint64_t retired = 0;
};

inline Core& core_of(a64::State& s) { return static_cast<Core&>(s); }

} // namespace vplat::cpu
