// Diagnostics for the ADL compiler: every message names file, line and column, and the first error
// stops generation (the build then fails, because the generator exits non-zero).
#pragma once
#include <stdexcept>
#include <string>

namespace adl {

struct Loc {
  std::string file;
  int line = 0;
  int col = 0;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

struct Error : std::runtime_error {
  Error(const Loc& loc, const std::string& msg) : std::runtime_error(loc.str() + ": error: " + msg) {}
};

[[noreturn]] inline void fail(const Loc& loc, const std::string& msg) { throw Error(loc, msg); }

} // namespace adl
