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

// The type both operands of a binary operator are converted to before it applies (see README: typing).
Type common_type(const Expr& e, const Type& a, const Type& b);

} // namespace adl
