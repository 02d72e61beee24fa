// AArch64 stage-1 translation for the EL1&0 regime: 4 KiB granule, up to 48-bit virtual and physical
// addresses, TTBR0/TTBR1 split, hierarchical permissions, software-managed access flag. This model
// advertises only the 4 KiB granule (ID_AA64MMFR0_EL1.TGran16/TGran64 say "not supported"), and no
// hardware access-flag or dirty-state updates, PAN or hierarchical-permission disables.
// Facts: Arm ARM (DDI 0487) D5 (The AArch64 Virtual Memory System Architecture).
#pragma once
#include <cstdint>
#include <functional>

namespace vplat::cpu {

enum class Access : uint8_t { Read, Write, Fetch };

// What translation needs from the system registers.
struct TranslationRegs {
  uint64_t sctlr = 0; // SCTLR_EL1: M (bit 0), WXN (19)
  uint64_t tcr = 0;   // TCR_EL1
  uint64_t ttbr0 = 0, ttbr1 = 0;
  unsigned pa_bits = 40; // from ID_AA64MMFR0_EL1.PARange
};

// Fault status codes (the low 6 bits of ESR.ISS DFSC/IFSC).
namespace fsc {
constexpr uint8_t kAddressSize = 0x00;  // + level
constexpr uint8_t kTranslation = 0x04;  // + level
constexpr uint8_t kAccessFlag = 0x08;   // + level
constexpr uint8_t kPermission = 0x0c;   // + level
constexpr uint8_t kExternalWalk = 0x14; // + level: the walk itself hit nothing
constexpr uint8_t kAlignment = 0x21;
} // namespace fsc

struct Translation {
  bool ok = false;
  uint8_t fault = 0;       // fault status code when !ok
  uint64_t pa = 0;
  // What the final mapping permits, for a TLB to check later accesses without walking again.
  bool el0_read = false, el0_write = false, el0_exec = false;
  bool el1_read = false, el1_write = false, el1_exec = false;
  bool global = true;
  uint16_t asid = 0;
  uint64_t page_mask = 0xfff; // bits of VA that pass through unchanged (block sizes)
  uint8_t attr_index = 0;
};

// Reads 8 bytes of physical memory for a descriptor; returns false if nothing answers.
using PhysRead64 = std::function<bool(uint64_t pa, uint64_t& value)>;

// Translates `va` for an access of `kind` at exception level `el` (0 or 1). A fault result says which
// fault (and level) the architecture reports; permission is checked for the requested access.
Translation translate(const TranslationRegs& regs, uint64_t va, Access kind, unsigned el, const PhysRead64& read);

// Whether a successful translation allows a given access (used by TLB hits).
bool permits(const Translation& t, Access kind, unsigned el);

} // namespace vplat::cpu
