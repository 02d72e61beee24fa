#include "lexer.h"
#include <cctype>

namespace adl {

// Scans the string literal starting at src[i] (a quote); returns the index just past its closing quote.
// Escapes are resolved into *out (when given); text inside {...} template parts is kept verbatim.
static size_t scan_string(const std::string& src, size_t i, const Loc& loc, std::string* out) {
  size_t j = i + 1;
  while (j < src.size() && src[j] != '"') {
    if (src[j] == '\n') fail(loc, "unterminated string");
    if (src[j] == '\\' && j + 1 < src.size()) {
      char e = src[j + 1];
      if (out) *out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      j += 2;
    } else if (src[j] == '{' && j + 1 < src.size() && src[j + 1] == '{') {
      if (out) *out += "{{";
      j += 2;
    } else if (src[j] == '{') {
      size_t start = j;
      int depth = 0;
      for (; j < src.size(); ++j) {
        if (src[j] == '\n') fail(loc, "unterminated template expression in string");
        if (src[j] == '"') {
          j = scan_string(src, j, loc, nullptr) - 1;
          continue;
        }
        if (src[j] == '{') ++depth;
        if (src[j] == '}' && --depth == 0) break;
      }
      if (j >= src.size()) fail(loc, "unterminated template expression in string");
      ++j;
      if (out) *out += src.substr(start, j - start);
    } else {
      if (out) *out += src[j];
      ++j;
    }
  }
  if (j >= src.size()) fail(loc, "unterminated string");
  return j + 1;
}

std::vector<Token> tokenize(const std::string& src, const std::string& file, int first_line, int first_col) {
  std::vector<Token> out;
  size_t i = 0;
  int line = first_line, col = first_col;
  auto loc = [&] { return Loc{file, line, col}; };
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < src.size(); ++k, ++i) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  static const char* puncts[] = {"..", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "::", "{", "}", "(", ")",
                                 "[",  "]",  ";",  ",",  ":",  "=",  "<",  ">",  "+",  "-",  "*", "/", "%", "&",
                                 "|",  "^",  "~",  "!",  "?",  "."};
  while (i < src.size()) {
    char c = src[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      while (i < src.size() && src[i] != '\n') advance(1);
      continue;
    }
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      Loc start = loc();
      advance(2);
      while (i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/')) advance(1);
      if (i + 1 >= src.size()) fail(start, "unterminated comment");
      advance(2);
      continue;
    }
    Token t;
    t.loc = loc();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      t.kind = Tok::Ident;
      t.text = src.substr(i, j - i);
      advance(j - i);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      int base = 10;
      if (c == '0' && j + 1 < src.size() && (src[j + 1] == 'x' || src[j + 1] == 'X')) {
        base = 16;
        j += 2;
      } else if (c == '0' && j + 1 < src.size() && (src[j + 1] == 'b' || src[j + 1] == 'B')) {
        base = 2;
        j += 2;
      }
      size_t digits_start = j;
      unsigned __int128 v = 0;
      for (; j < src.size(); ++j) {
        char d = src[j];
        if (d == '_') continue;
        int dv;
        if (std::isdigit(static_cast<unsigned char>(d))) dv = d - '0';
        else if (base == 16 && std::isxdigit(static_cast<unsigned char>(d))) dv = std::tolower(d) - 'a' + 10;
        else if (std::isalpha(static_cast<unsigned char>(d))) fail(t.loc, "malformed number");
        else break;
        if (dv >= base) fail(t.loc, "digit out of range for base " + std::to_string(base));
        v = v * base + dv;
        if (v > UINT64_MAX) fail(t.loc, "number does not fit in 64 bits");
      }
      if (j == digits_start) fail(t.loc, "malformed number");
      t.kind = Tok::Number;
      t.value = static_cast<uint64_t>(v);
      t.text = src.substr(i, j - i);
      advance(j - i);
    } else if (c == '"') {
      // A string may embed template expressions in braces, and those may hold strings of their own.
      std::string s;
      size_t j = scan_string(src, i, t.loc, &s);
      t.kind = Tok::String;
      t.text = s;
      advance(j - i);
    } else {
      bool matched = false;
      for (const char* p : puncts) {
        size_t n = std::char_traits<char>::length(p);
        if (src.compare(i, n, p) == 0) {
          t.kind = Tok::Punct;
          t.text = p;
          advance(n);
          matched = true;
          break;
        }
      }
      if (!matched) fail(t.loc, std::string("unexpected character '") + c + "'");
    }
    out.push_back(std::move(t));
  }
  out.push_back(Token{Tok::End, "", 0, loc()});
  return out;
}

} // namespace adl
