// C++ backend: emits the state struct, helper declarations, decoder, interpreter, disassembler and
// per-instruction metadata for a checked Description.
#pragma once
#include "ast.h"
#include <string>

namespace adl {

struct CppOptions {
  std::string out_dir;
  int interp_chunks = 4; // the interpreter is split over this many .cpp files, so builds parallelise
};

void emit_cpp(const Description& desc, const CppOptions& opts);

// The files emit_cpp writes for `isa`, for build systems.
std::vector<std::string> cpp_outputs(const std::string& isa, const CppOptions& opts);

} // namespace adl
