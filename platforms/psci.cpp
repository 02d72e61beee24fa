#include "platforms/psci.h"

namespace vplat {

Psci::Psci(std::vector<uint64_t> mpidrs, Hooks hooks)
    : mpidrs_(std::move(mpidrs)), states_(mpidrs_.size(), CpuState::Off), hooks_(std::move(hooks)) {
  if (!states_.empty()) states_[0] = CpuState::On; // the boot CPU
}

int Psci::index_of(uint64_t mpidr) const {
  for (size_t i = 0; i < mpidrs_.size(); ++i)
    if ((mpidrs_[i] & 0xff00ffffffull) == (mpidr & 0xff00ffffffull)) return static_cast<int>(i);
  return -1;
}

uint64_t Psci::call(unsigned caller, uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3) {
  auto ret = [](int64_t v) { return static_cast<uint64_t>(v); };
  uint32_t fn = static_cast<uint32_t>(x0);
  bool smc32 = (fn & 0x40000000) == 0;
  if (smc32) { // SMC32 arguments are the low 32 bits
    x1 &= 0xffffffff;
    x2 &= 0xffffffff;
    x3 &= 0xffffffff;
  }
  switch (fn) {
  case kVersion: return 0x00010000; // PSCI 1.0
  case kCpuOn32:
  case kCpuOn64: {
    int t = index_of(x1);
    if (t < 0) return ret(kInvalidParameters);
    if (states_[t] == CpuState::On) return ret(kAlreadyOn);
    if (states_[t] == CpuState::OnPending) return ret(kOnPending);
    states_[t] = CpuState::OnPending;
    if (hooks_.cpu_on) hooks_.cpu_on(static_cast<unsigned>(t), x2, x3);
    return ret(kSuccess);
  }
  case kCpuOff:
    states_[caller] = CpuState::Off;
    if (hooks_.cpu_off) hooks_.cpu_off(caller);
    return ret(kSuccess); // not seen by the caller, which is now off
  case kAffinityInfo32:
  case kAffinityInfo64: {
    if (x2 != 0) return ret(kInvalidParameters); // only affinity level 0 is described
    int t = index_of(x1);
    if (t < 0) return ret(kInvalidParameters);
    return states_[t] == CpuState::On ? 0 : states_[t] == CpuState::Off ? 1 : 2;
  }
  case kMigrateInfoType: return 2; // no Trusted OS: migration not required
  case kSystemOff:
    if (hooks_.system_off) hooks_.system_off();
    return ret(kSuccess);
  case kSystemReset:
    if (hooks_.system_reset) hooks_.system_reset();
    return ret(kSuccess);
  case kFeatures: {
    switch (static_cast<uint32_t>(x1)) {
    case kVersion: case kCpuOff: case kCpuOn32: case kCpuOn64: case kAffinityInfo32: case kAffinityInfo64:
    case kMigrateInfoType: case kSystemOff: case kSystemReset: case kFeatures:
      return ret(kSuccess);
    default: return ret(kNotSupported);
    }
  }
  default: return ret(kNotSupported);
  }
}

} // namespace vplat
