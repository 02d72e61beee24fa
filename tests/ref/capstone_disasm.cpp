// CapstoneA64Disassembler: Capstone 4 CS_ARCH_ARM64.
#include <capstone/capstone.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "tests/ref/normalise.h"
#include "tests/ref/reference.h"

namespace vplat::testref {

static_assert(sizeof(csh) <= sizeof(std::size_t));

CapstoneA64Disassembler::CapstoneA64Disassembler() {
  csh h = 0;
  cs_err err = cs_open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN, &h);
  if (err != CS_ERR_OK) {
    std::fprintf(stderr, "vplat_testref: cs_open(ARM64) failed: %s\n", cs_strerror(err));
    std::abort();
  }
  // Detail off (default), syntax default; nothing else is configurable for ARM64 in Capstone 4.
  handle_ = h;
}

CapstoneA64Disassembler::~CapstoneA64Disassembler() {
  if (handle_ != 0) {
    csh h = handle_;
    cs_close(&h);
  }
}

CapstoneA64Disassembler::CapstoneA64Disassembler(CapstoneA64Disassembler&& other) noexcept
    : handle_(std::exchange(other.handle_, 0)) {}

CapstoneA64Disassembler& CapstoneA64Disassembler::operator=(CapstoneA64Disassembler&& other) noexcept {
  if (this != &other) {
    if (handle_ != 0) {
      csh h = handle_;
      cs_close(&h);
    }
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

std::optional<std::string> CapstoneA64Disassembler::disassemble(uint32_t insn, uint64_t pc) {
  uint8_t bytes[4] = {static_cast<uint8_t>(insn), static_cast<uint8_t>(insn >> 8),
                      static_cast<uint8_t>(insn >> 16), static_cast<uint8_t>(insn >> 24)};
  cs_insn* out = nullptr;
  size_t n = cs_disasm(handle_, bytes, sizeof bytes, pc, 1, &out);
  if (n == 0) return std::nullopt;
  std::string text = out[0].mnemonic;
  if (out[0].op_str[0] != '\0') {
    text += ' ';
    text += out[0].op_str;
  }
  cs_free(out, n);
  return detail::normalise_text(text);
}

}  // namespace vplat::testref
