// LlvmA64Disassembler: LLVM 16 MC disassembler through the llvm-c API.
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "tests/ref/normalise.h"
#include "tests/ref/reference.h"

namespace vplat::testref {

namespace {

void init_llvm_aarch64() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64Disassembler();
  });
}

std::mutex& create_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

LlvmA64Disassembler::LlvmA64Disassembler(const std::string& features, const std::string& cpu) {
  init_llvm_aarch64();
  {
    // Context creation touches LLVM's target registry; keep it serialised.
    std::lock_guard<std::mutex> lock(create_mutex());
    // No GetOpInfo / SymbolLookUp callbacks: operands are never symbolised.
    ctx_ = LLVMCreateDisasmCPUFeatures("aarch64-linux-gnu", cpu.c_str(), features.c_str(),
                                       /*DisInfo=*/nullptr, /*TagType=*/0,
                                       /*GetOpInfo=*/nullptr, /*SymbolLookUp=*/nullptr);
  }
  if (ctx_ == nullptr) {
    std::fprintf(stderr, "vplat_testref: LLVMCreateDisasmCPUFeatures(cpu=%s, features=%s) failed\n",
                 cpu.c_str(), features.c_str());
    std::abort();
  }
  // Options = 0: no markup, decimal immediates (LLVM's default), the default
  // asm variant, no instruction comments, no latency.
  LLVMSetDisasmOptions(static_cast<LLVMDisasmContextRef>(ctx_), 0);
}

LlvmA64Disassembler::~LlvmA64Disassembler() {
  if (ctx_ != nullptr) LLVMDisasmDispose(static_cast<LLVMDisasmContextRef>(ctx_));
}

LlvmA64Disassembler::LlvmA64Disassembler(LlvmA64Disassembler&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)) {}

LlvmA64Disassembler& LlvmA64Disassembler::operator=(LlvmA64Disassembler&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr) LLVMDisasmDispose(static_cast<LLVMDisasmContextRef>(ctx_));
    ctx_ = std::exchange(other.ctx_, nullptr);
  }
  return *this;
}

std::optional<std::string> LlvmA64Disassembler::disassemble(uint32_t insn, uint64_t pc) {
  uint8_t bytes[4] = {static_cast<uint8_t>(insn), static_cast<uint8_t>(insn >> 8),
                      static_cast<uint8_t>(insn >> 16), static_cast<uint8_t>(insn >> 24)};
  char buf[256];
  size_t used = LLVMDisasmInstruction(static_cast<LLVMDisasmContextRef>(ctx_), bytes, sizeof bytes,
                                      pc, buf, sizeof buf);
  if (used != 4) return std::nullopt;  // 0 => invalid encoding
  return detail::normalise_text(buf);
}

}  // namespace vplat::testref
