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

// The interpreter's C++ for one expression (converted to `to` when given), for backends that evaluate
// decode-time constants with the interpreter's own code (emit_llvm). Fields are named f_<name>, locals
// and parameters v_<name>; fault-capable calls are not allowed here.
std::string cpp_expr(const Description& desc, const Expr& e, const Type* to = nullptr);

// Writes a generated file, leaving it untouched when its text is unchanged (so the build does not recompile it).
void write_file(const std::string& path, const std::string& text);

// The files emit_cpp writes for `isa`, for build systems.
std::vector<std::string> cpp_outputs(const std::string& isa, const CppOptions& opts);

} // namespace adl
