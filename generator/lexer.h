// Tokeniser for the architecture description language (see archdesc/README.md).
#pragma once
#include "diag.h"
#include <cstdint>
#include <string>
#include <vector>

namespace adl {

enum class Tok { Ident, Number, String, Punct, End };

struct Token {
  Tok kind;
  std::string text; // identifier, punctuation, or string contents (escapes resolved)
  uint64_t value = 0; // numbers
  Loc loc;
};

// Splits `source` into tokens; `file` names the source in diagnostics. `first_line`/`first_col` let a
// string template's embedded expressions report positions inside the original file.
std::vector<Token> tokenize(const std::string& source, const std::string& file, int first_line = 1,
                            int first_col = 1);

} // namespace adl
