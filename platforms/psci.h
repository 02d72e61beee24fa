// PSCI firmware (Arm DEN 0022, v1.0 subset) as the platform answers SMC calls from the kernel: there is no
// EL3 in the model, so "firmware" is this code. CPU_ON starts a core at EL1 with the MMU off at the given
// entry with x0 = context id, as the specification requires.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

namespace vplat {

class Psci {
public:
  enum class CpuState { Off, OnPending, On };
  struct Hooks {
    // Start core `index` at `entry` with x0 = context (it becomes On when it next runs).
    std::function<void(unsigned index, uint64_t entry, uint64_t context)> cpu_on;
    std::function<void(unsigned index)> cpu_off;
    std::function<void()> system_off;
    std::function<void()> system_reset;
  };

  // Function identifiers (SMC32 and SMC64 forms where both exist).
  static constexpr uint32_t kVersion = 0x84000000, kCpuOff = 0x84000002, kCpuOn32 = 0x84000003,
                            kCpuOn64 = 0xc4000003, kAffinityInfo32 = 0x84000004, kAffinityInfo64 = 0xc4000004,
                            kMigrateInfoType = 0x84000006, kSystemOff = 0x84000008, kSystemReset = 0x84000009,
                            kFeatures = 0x8400000a;
  static constexpr int64_t kSuccess = 0, kNotSupported = -1, kInvalidParameters = -2, kDenied = -3,
                           kAlreadyOn = -4, kOnPending = -5;

  Psci(std::vector<uint64_t> mpidrs, Hooks hooks);

  // Handles a call from core `caller` with x0..x3; returns the value for x0. Calls that do not return
  // (CPU_OFF, SYSTEM_OFF/RESET) still return; the hooks stop the caller.
  uint64_t call(unsigned caller, uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3);

  CpuState state(unsigned index) const { return states_[index]; }
  void mark_on(unsigned index) { states_[index] = CpuState::On; }
  void set_state(unsigned index, CpuState s) { states_[index] = s; }

private:
  std::vector<uint64_t> mpidrs_;
  std::vector<CpuState> states_;
  Hooks hooks_;
  int index_of(uint64_t mpidr) const;
};

} // namespace vplat
