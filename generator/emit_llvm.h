// JIT backend: emits C++ "IR emitters", one per instruction. Given the instruction word at translation
// time, an emitter evaluates what depends only on the encoding in C++ (fields are constants; IRBuilder
// folds constant operations; ifs on folded conditions are decided during emission) and emits LLVM IR for
// the rest, with state accessed by offset into the generated State struct and `extern` helpers called
// through their addresses. It walks the same checked tree as the interpreter backend (emit_cpp).
#pragma once
#include "ast.h"
#include <string>
#include <vector>

namespace adl {

struct LlvmOptions {
  std::string out_dir;
  int chunks = 4;
};

void emit_llvm(const Description& desc, const LlvmOptions& opts);
std::vector<std::string> llvm_outputs(const std::string& isa, const LlvmOptions& opts);

} // namespace adl
