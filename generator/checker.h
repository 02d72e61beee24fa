// Semantic checks: name resolution, types, decode-time constness, and the static facts (state read and
// written, helpers called, may-fault) that the backends and the instrumentation metadata use.
#pragma once
#include "ast.h"

namespace adl {

// Checks `desc` in place; throws adl::Error with file and line on the first problem. Also rejects
// overlapping encodings that are not declared in one ordered overlap group.
void check(Description& desc);

// A function is pure when it touches no state and calls only pure functions; pure functions can be
// used at decode time (guards) and in disassembly.
bool is_pure(const FuncDecl& f);

// The builtin function `name` (clz64, bitreverse64, bswap64, popcount64: see README, "Builtin functions"),
// or nullptr. A description may not declare a function of one of these names.
const FuncDecl* find_builtin(const std::string& name);

// The type both operands of a binary operator are converted to before it applies (see README: typing).
Type common_type(const Expr& e, const Type& a, const Type& b);

} // namespace adl
