#include "cpu-dbt/a64_core.h"

namespace vplat::cpu {

const char* exception_name(Exception e) {
  switch (e) {
  case Exception::None: return "none";
  case Exception::Undefined: return "undefined instruction";
  case Exception::DataAbort: return "data abort";
  case Exception::InstructionAbort: return "instruction abort";
  case Exception::Alignment: return "alignment fault";
  case Exception::SupervisorCall: return "supervisor call";
  case Exception::HypervisorCall: return "hypervisor call";
  case Exception::SecureMonitorCall: return "secure monitor call";
  case Exception::Breakpoint: return "breakpoint";
  case Exception::Halt: return "halt";
  case Exception::System: return "system instruction";
  }
  return "?";
}

uint64_t Core::run(uint64_t count) {
  EXC = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t insn;
    if (!mem.fetch(PC, insn)) {
      raise(Exception::InstructionAbort, PC);
      return i;
    }
    int id = a64::decode(insn);
    if (id < 0) {
      exception_syndrome = insn;
      raise(Exception::Undefined);
      return i;
    }
    NPC = PC + 4;
    a64::kExec[id](*this, insn);
    if (EXC) {
      if (exception() == Exception::Undefined) exception_syndrome = insn;
      return i;
    }
    PC = NPC;
    ++retired;
  }
  return count;
}

} // namespace vplat::cpu
