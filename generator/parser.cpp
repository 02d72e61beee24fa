#include "parser.h"
#include "checker.h"
#include "lexer.h"
#include <fstream>
#include <sstream>

namespace adl {

std::optional<Type> type_from_name(const std::string& n) {
  if (n == "bool") return Type::u(1);
  if (n == "void") return Type::void_();
  if (n == "str") return Type::str();
  if (n == "u128") return Type::u128();
  if (n.size() >= 2 && (n[0] == 'u' || n[0] == 's')) {
    for (size_t i = 1; i < n.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(n[i]))) return std::nullopt;
    if (n.size() > 3) return std::nullopt;
    int w = std::stoi(n.substr(1));
    if (w < 1 || w > 64) return std::nullopt;
    return n[0] == 'u' ? Type::u(w) : Type::s(w);
  }
  return std::nullopt;
}

namespace {

class Parser {
public:
  Parser(std::vector<Token> toks, Description& d) : t_(std::move(toks)), d_(d) {}

  void parse_top() {
    while (!at_end()) {
      const Token& k = peek();
      if (is_ident("isa")) parse_isa();
      else if (is_ident("state")) parse_state();
      else if (is_ident("extern")) parse_extern();
      else if (is_ident("func")) parse_func(false);
      else if (is_ident("export")) {
        next();
        if (!is_ident("func")) fail(peek().loc, "expected 'func' after 'export'");
        parse_func(true);
      } else if (is_ident("table")) parse_table();
      else if (is_ident("unit")) parse_unit();
      else if (is_ident("format")) parse_format();
      else if (is_ident("insn")) parse_insn(-1);
      else if (is_ident("overlap")) parse_overlap();
      else fail(k.loc, "expected a declaration (isa, state, extern, func, export, table, unit, format, insn, overlap), "
                       "found '" + k.text + "'");
    }
  }

  ExprP parse_expression_only() {
    ExprP e = expr();
    if (!at_end()) fail(peek().loc, "unexpected '" + peek().text + "' in expression");
    return e;
  }

private:
  std::vector<Token> t_;
  size_t p_ = 0;
  Description& d_;
  std::string unit_; // the unit block being parsed, or "" at top level

  int cur_width() const { return d_.unit_width(unit_); }
  std::string format_key(const std::string& n) const { return unit_.empty() ? n : unit_ + "::" + n; }
  void check_global_name(const Loc& l, const std::string& n) {
    if (d_.find_state(n)) fail(l, "'" + n + "' is already a state variable");
    if (d_.func_by_name.count(n)) fail(l, "'" + n + "' is already a function");
    if (d_.find_table(n)) fail(l, "'" + n + "' is already a table");
  }

  const Token& peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Tok::End; }
  bool is_ident(const char* s, size_t k = 0) const { return peek(k).kind == Tok::Ident && peek(k).text == s; }
  bool is_punct(const char* s, size_t k = 0) const { return peek(k).kind == Tok::Punct && peek(k).text == s; }
  Token next() { return t_[p_ < t_.size() - 1 ? p_++ : p_]; }
  void expect(const char* s) {
    if (!is_punct(s)) fail(peek().loc, std::string("expected '") + s + "', found '" + describe(peek()) + "'");
    next();
  }
  bool accept(const char* s) {
    if (is_punct(s)) {
      next();
      return true;
    }
    return false;
  }
  static std::string describe(const Token& t) { return t.kind == Tok::End ? "end of file" : t.text; }
  Token ident(const char* what) {
    if (peek().kind != Tok::Ident) fail(peek().loc, std::string("expected ") + what + ", found '" + describe(peek()) + "'");
    return next();
  }
  uint64_t number(const char* what) {
    if (peek().kind != Tok::Number) fail(peek().loc, std::string("expected ") + what);
    return next().value;
  }
  Type type(const char* what = "a type") {
    Token n = ident(what);
    auto ty = type_from_name(n.text);
    if (!ty) fail(n.loc, "unknown type '" + n.text + "' (types are uN or sN with N in 1..64, u128, bool, str, void)");
    return *ty;
  }

  void parse_isa() {
    next();
    d_.isa_name = ident("the ISA name").text;
    expect("{");
    while (!accept("}")) {
      Token k = ident("an ISA property (width, fault_flag, next_pc, inline_helpers, interp_variants, attr)");
      if (k.text == "attr") {
        Token a = ident("an attribute name");
        if (!d_.attr_keys.insert(a.text).second) fail(a.loc, "attribute '" + a.text + "' declared twice");
      } else if (k.text == "width") {
        uint64_t w = number("a width");
        if (w < 8 || w > 64) fail(k.loc, "instruction width must be 8..64 bits");
        d_.width = static_cast<int>(w);
      } else if (k.text == "fault_flag") {
        d_.fault_flag = ident("a state variable").text;
      } else if (k.text == "next_pc") {
        d_.next_pc = ident("a state variable").text;
      } else if (k.text == "inline_helpers") {
        if (peek().kind != Tok::String) fail(peek().loc, "expected a header path string");
        d_.inline_helpers = next().text;
      } else if (k.text == "interp_variants") {
        uint64_t bits = number("a number of bits");
        if (bits < 1 || bits > 6) fail(k.loc, "interp_variants: 1..6 bits");
        d_.interp_variant_bits = static_cast<int>(bits);
        d_.interp_variants_loc = k.loc;
        if (peek().kind != Tok::String) fail(peek().loc, "expected a string of comma-separated instruction classes");
        std::string list = next().text;
        for (size_t at = 0; at <= list.size();) {
          size_t comma = std::min(list.find(',', at), list.size());
          if (comma == at) fail(k.loc, "interp_variants: empty class name");
          d_.interp_variant_classes.insert(list.substr(at, comma - at));
          at = comma + 1;
        }
      } else {
        fail(k.loc, "unknown ISA property '" + k.text + "'");
      }
      expect(";");
    }
  }

  void parse_state() {
    next();
    expect("{");
    while (!accept("}")) {
      StateVar v;
      v.loc = peek().loc;
      v.type = type();
      if (v.type.kind == Type::Str || v.type.kind == Type::Void) fail(v.loc, "state cannot have type " + v.type.str_name());
      v.name = ident("a state variable name").text;
      if (accept("[")) {
        v.count = static_cast<int>(number("an array size"));
        if (v.count < 1) fail(v.loc, "array size must be positive");
        expect("]");
      }
      expect(";");
      if (d_.find_state(v.name)) fail(v.loc, "state variable '" + v.name + "' declared twice");
      if (d_.find_table(v.name)) fail(v.loc, "'" + v.name + "' is already a table");
      d_.state.push_back(v);
    }
  }

  std::vector<Param> params() {
    std::vector<Param> ps;
    expect("(");
    if (!accept(")")) {
      do {
        Param p;
        p.loc = peek().loc;
        p.type = type();
        p.name = ident("a parameter name").text;
        ps.push_back(p);
      } while (accept(","));
      expect(")");
    }
    return ps;
  }

  void add_func(std::unique_ptr<FuncDecl> f) {
    if (d_.func_by_name.count(f->name)) fail(f->loc, "function '" + f->name + "' declared twice");
    if (find_builtin(f->name)) fail(f->loc, "'" + f->name + "' is a builtin function");
    if (d_.find_table(f->name)) fail(f->loc, "'" + f->name + "' is already a table");
    d_.func_by_name[f->name] = f.get();
    d_.funcs.push_back(std::move(f));
  }

  void parse_extern() {
    next();
    auto f = std::make_unique<FuncDecl>();
    f->is_extern = true;
    if (is_ident("inline")) {
      next();
      f->inline_extern = true;
    }
    if (is_ident("fault")) {
      next();
      f->may_fault = true;
    } else if (is_ident("pure")) {
      next();
      f->pure_extern = true;
    }
    f->ret = type();
    Token n = ident("a function name");
    f->name = n.text;
    f->loc = n.loc;
    f->params = params();
    expect(";");
    add_func(std::move(f));
  }

  void parse_func(bool exported) {
    next();
    auto f = std::make_unique<FuncDecl>();
    f->exported = exported;
    f->ret = type();
    Token n = ident("a function name");
    f->name = n.text;
    f->loc = n.loc;
    f->params = params();
    f->body = block();
    add_func(std::move(f));
  }

  // table TYPE NAME[N] = { v, v, ... };   (TYPE is an integer type or str)
  void parse_table() {
    next();
    auto t = std::make_unique<Table>();
    t->loc = peek().loc;
    t->elem = type("the element type");
    if (!(t->elem.kind == Type::Int || t->elem.kind == Type::Str))
      fail(t->loc, "a table holds integers or strings, not " + t->elem.str_name());
    Token n = ident("a table name");
    t->name = n.text;
    t->loc = n.loc;
    check_global_name(n.loc, n.text);
    expect("[");
    uint64_t count = number("the table size");
    if (count < 1 || count > 65536) fail(n.loc, "table size must be 1..65536");
    t->count = static_cast<int>(count);
    expect("]");
    expect("=");
    expect("{");
    if (!accept("}")) {
      do {
        if (is_punct("}")) break; // a trailing comma
        Loc l = peek().loc;
        if (t->elem.kind == Type::Str) {
          if (peek().kind != Tok::String) fail(l, "expected a string in table '" + t->name + "'");
          t->strs.push_back(next().text);
          continue;
        }
        bool neg = accept("-");
        uint64_t v = number("a number");
        if (neg) {
          if (!t->elem.is_signed) fail(l, "negative value in unsigned table '" + t->name + "'");
          v = 0 - v;
        }
        int w = t->elem.width;
        if (w < 64) {
          bool fits = t->elem.is_signed ? (static_cast<int64_t>(v) >= -(int64_t(1) << (w - 1)) &&
                                           static_cast<int64_t>(v) < (int64_t(1) << (w - 1)))
                                        : (v >> w) == 0;
          if (!fits) fail(l, "value does not fit the element type " + t->elem.str_name() + " of table '" + t->name + "'");
          if (!t->elem.is_signed) v &= (uint64_t(1) << w) - 1;
        }
        t->values.push_back(v);
      } while (accept(","));
      expect("}");
    }
    expect(";");
    size_t got = t->elem.kind == Type::Str ? t->strs.size() : t->values.size();
    if (got != count)
      fail(n.loc, "table '" + t->name + "' declares " + std::to_string(count) + " elements but lists " +
                      std::to_string(got));
    d_.tables.push_back(std::move(t));
  }

  // unit NAME { width N; format/insn/overlap... }   A unit may be reopened without `width`.
  void parse_unit() {
    Loc l = next().loc;
    if (!unit_.empty()) fail(l, "units do not nest");
    Token n = ident("a unit name");
    expect("{");
    const Unit* u = d_.find_unit(n.text);
    if (is_ident("width")) {
      Loc wl = next().loc;
      uint64_t w = number("a width");
      expect(";");
      if (w < 1 || w > 64) fail(wl, "unit width must be 1..64 bits");
      if (u && u->width != static_cast<int>(w))
        fail(wl, "unit '" + n.text + "' was declared with width " + std::to_string(u->width));
      if (!u) d_.units.push_back(Unit{n.text, static_cast<int>(w), n.loc});
    } else if (!u) {
      fail(n.loc, "unit '" + n.text + "' needs 'width N;' where it is first declared");
    }
    unit_ = n.text;
    while (!accept("}")) {
      if (is_ident("format")) parse_format();
      else if (is_ident("insn")) parse_insn(-1);
      else if (is_ident("overlap")) parse_overlap();
      else fail(peek().loc, "a unit holds format, insn and overlap declarations, not '" + describe(peek()) + "'");
    }
    unit_.clear();
  }

  Pattern pattern(const Token& s) {
    Pattern pat;
    pat.loc = s.loc;
    pat.width = cur_width();
    std::istringstream in(s.text);
    std::string piece;
    int pos = cur_width();
    while (in >> piece) {
      auto colon = piece.find(':');
      if (colon != std::string::npos) {
        Field f;
        f.name = piece.substr(0, colon);
        std::string w = piece.substr(colon + 1);
        if (f.name.empty() || w.empty() || w.find_first_not_of("0123456789") != std::string::npos)
          fail(s.loc, "malformed field '" + piece + "' in pattern (write name:width)");
        f.width = std::stoi(w);
        if (f.width < 1 || f.width > 64) fail(s.loc, "field '" + f.name + "' has an invalid width");
        pos -= f.width;
        f.lsb = pos;
        for (auto& o : pat.fields)
          if (o.name == f.name) fail(s.loc, "field '" + f.name + "' appears twice in the pattern");
        pat.fields.push_back(f);
      } else {
        for (char c : piece) {
          --pos;
          if (pos < 0) break;
          if (c == '0' || c == '1') {
            pat.mask |= uint64_t(1) << pos;
            if (c == '1') pat.value |= uint64_t(1) << pos;
          } else if (c != '.' && c != 'x' && c != '-') {
            fail(s.loc, std::string("unexpected '") + c + "' in pattern (use 0, 1, . or name:width)");
          }
        }
      }
      if (pos < 0) break;
    }
    if (pos != 0)
      fail(s.loc, "pattern covers " + std::to_string(cur_width() - pos) + " bits; the " +
                      (unit_.empty() ? std::string("instruction word") : "word of unit '" + unit_ + "'") + " has " +
                      std::to_string(cur_width()));
    return pat;
  }

  void parse_format() {
    next();
    Token n = ident("a format name");
    expect("=");
    if (peek().kind != Tok::String) fail(peek().loc, "expected a pattern string");
    Pattern p = pattern(next());
    expect(";");
    if (d_.formats.count(format_key(n.text))) fail(n.loc, "format '" + n.text + "' declared twice");
    d_.formats[format_key(n.text)] = p;
  }

  void parse_overlap() {
    Loc l = next().loc;
    int g = d_.groups++;
    expect("{");
    int n = 0;
    while (!accept("}")) {
      if (!is_ident("insn")) fail(peek().loc, "an overlap group holds only insn declarations");
      parse_insn(g);
      ++n;
    }
    if (n < 2) fail(l, "an overlap group needs at least two instructions");
  }

  void parse_insn(int group) {
    next();
    auto in = std::make_unique<Insn>();
    Token n = ident("an instruction name");
    in->name = n.text;
    in->loc = n.loc;
    in->group = group;
    in->unit = unit_;
    if (peek().kind == Tok::String) {
      in->pattern = pattern(next());
    } else {
      expect("=");
      Token f = ident("a format name");
      auto it = d_.formats.find(format_key(f.text));
      if (it == d_.formats.end()) {
        if (!unit_.empty() && d_.formats.count(f.text))
          fail(f.loc, "format '" + f.text + "' belongs to the ISA's instruction word, not to unit '" + unit_ + "'");
        fail(f.loc, "unknown format '" + f.text + "'");
      }
      in->pattern = it->second;
      in->pattern.loc = f.loc;
      if (accept("(")) {
        do {
          Token fn = ident("a field name");
          expect("=");
          uint64_t v = number("a field value");
          bool found = false;
          for (auto& fld : in->pattern.fields) {
            if (fld.name != fn.text) continue;
            found = true;
            if (fld.width < 64 && v >> fld.width) fail(fn.loc, "value does not fit in field '" + fn.text + "'");
            if (fld.bound) fail(fn.loc, "field '" + fn.text + "' is bound twice");
            fld.bound = v;
            uint64_t m = (fld.width == 64 ? ~uint64_t(0) : ((uint64_t(1) << fld.width) - 1)) << fld.lsb;
            in->pattern.mask |= m;
            in->pattern.value |= (v << fld.lsb) & m;
          }
          if (!found) fail(fn.loc, "format '" + f.text + "' has no field '" + fn.text + "'");
        } while (accept(","));
        expect(")");
      }
    }
    for (;;) {
      if (is_ident("when")) {
        next();
        expect("(");
        in->guard = expr();
        expect(")");
      } else if (is_ident("class")) {
        next();
        in->cls = ident("a class name").text;
      } else if (is_ident("attr")) {
        next();
        Token k = ident("an attribute name");
        expect("=");
        const Token& v = peek();
        if (v.kind != Tok::Ident && v.kind != Tok::Number && v.kind != Tok::String)
          fail(v.loc, "expected an attribute value (a name, number or string)");
        std::string val = next().text;
        for (auto& a : in->attrs)
          if (a.key == k.text) fail(k.loc, "attribute '" + k.text + "' given twice");
        in->attrs.push_back({k.text, val, k.loc});
      } else {
        break;
      }
    }
    in->body = block();
    if (!is_ident("asm")) fail(peek().loc, "expected 'asm' after the semantics of '" + in->name + "'");
    next();
    if (peek().kind == Tok::String) {
      in->asm_template = primary();
      expect(";");
    } else {
      in->asm_body = block();
    }
    for (auto& o : d_.insns)
      if (o->name == in->name) fail(in->loc, "instruction '" + in->name + "' declared twice");
    d_.insns.push_back(std::move(in));
  }

  // ---- statements
  std::vector<StmtP> block() {
    expect("{");
    std::vector<StmtP> out;
    while (!accept("}")) {
      if (at_end()) fail(peek().loc, "unexpected end of file in a block");
      out.push_back(stmt());
    }
    return out;
  }

  StmtP stmt() {
    auto s = std::make_unique<Stmt>();
    s->loc = peek().loc;
    if (is_punct("{")) {
      s->kind = Stmt::Block;
      s->body = block();
    } else if (is_ident("let")) {
      next();
      s->kind = Stmt::Let;
      s->name = ident("a variable name").text;
      if (accept(":")) s->declared = type();
      expect("=");
      s->a = expr();
      expect(";");
    } else if (is_ident("if")) {
      next();
      s->kind = Stmt::If;
      expect("(");
      s->a = expr();
      expect(")");
      s->body = block();
      if (is_ident("else")) {
        next();
        s->has_else = true;
        if (is_ident("if")) s->else_body.push_back(stmt());
        else s->else_body = block();
      }
    } else if (is_ident("for")) {
      next();
      s->kind = Stmt::For;
      s->name = ident("a loop variable").text;
      if (!is_ident("in")) fail(peek().loc, "expected 'in'");
      next();
      s->a = expr();
      expect("..");
      s->b = expr();
      s->body = block();
    } else if (is_ident("return")) {
      next();
      s->kind = Stmt::Return;
      if (!is_punct(";")) s->a = expr();
      expect(";");
    } else if (peek().kind == Tok::Ident && is_punct("=", 1)) {
      s->kind = Stmt::Assign;
      s->name = next().text;
      next();
      s->a = expr();
      expect(";");
    } else if (peek().kind == Tok::Ident && is_punct("[", 1) && assignment_to_index_ahead()) {
      s->kind = Stmt::AssignIndex;
      s->name = next().text;
      expect("[");
      s->a = expr();
      expect("]");
      expect("=");
      s->b = expr();
      expect(";");
    } else {
      s->kind = Stmt::ExprStmt;
      s->a = expr();
      expect(";");
    }
    return s;
  }

  // True if the tokens ahead read NAME [ ... ] = (not ==), i.e. an indexed assignment.
  bool assignment_to_index_ahead() const {
    int depth = 0;
    for (size_t k = 1; peek(k).kind != Tok::End; ++k) {
      if (is_punct("[", k)) ++depth;
      else if (is_punct("]", k)) {
        if (--depth == 0) return is_punct("=", k + 1);
      }
    }
    return false;
  }

  // ---- expressions
  ExprP mk(Expr::Kind k, const Loc& l) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = l;
    return e;
  }

public:
  ExprP expr() {
    ExprP c = binary(0);
    if (is_punct("?")) {
      auto e = mk(Expr::Cond, next().loc);
      e->args.push_back(std::move(c));
      e->args.push_back(expr());
      expect(":");
      e->args.push_back(expr());
      return e;
    }
    return c;
  }

private:
  static int prec(const std::string& op) {
    static const std::map<std::string, int> p = {{"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},
                                                 {"==", 6}, {"!=", 6}, {"<", 7},  {"<=", 7}, {">", 7},
                                                 {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},  {"-", 9},
                                                 {"*", 10}, {"/", 10}, {"%", 10}};
    auto it = p.find(op);
    return it == p.end() ? -1 : it->second;
  }

  ExprP binary(int min_prec) {
    ExprP lhs = unary();
    for (;;) {
      if (peek().kind != Tok::Punct) return lhs;
      int pr = prec(peek().text);
      if (pr < 0 || pr <= min_prec - 1 || pr < min_prec) return lhs;
      Token op = next();
      ExprP rhs = binary(pr + 1);
      auto e = mk(Expr::Binary, op.loc);
      e->name = op.text;
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  ExprP unary() {
    if (is_punct("-") || is_punct("~") || is_punct("!")) {
      Token op = next();
      auto e = mk(Expr::Unary, op.loc);
      e->name = op.text;
      e->args.push_back(unary());
      return e;
    }
    return postfix(primary());
  }

  ExprP postfix(ExprP e) {
    while (is_punct("[")) {
      Loc l = next().loc;
      ExprP a = expr();
      if (accept(":")) {
        ExprP b = expr();
        expect("]");
        if (a->kind != Expr::Num || b->kind != Expr::Num) fail(l, "slice bounds must be number literals");
        auto s = mk(Expr::Slice, l);
        s->hi = static_cast<int>(a->value);
        s->lo = static_cast<int>(b->value);
        s->args.push_back(std::move(e));
        e = std::move(s);
      } else {
        expect("]");
        if (e->kind == Expr::Ref) {
          // NAME[i]: a state array element or a single bit; the checker decides.
          auto s = mk(Expr::Index, e->loc);
          s->name = e->name;
          s->args.push_back(std::move(a));
          e = std::move(s);
        } else {
          auto s = mk(Expr::Bit, l);
          s->args.push_back(std::move(e));
          s->args.push_back(std::move(a));
          e = std::move(s);
        }
      }
    }
    return e;
  }

  ExprP template_string(const Token& t) {
    const std::string& s = t.text;
    if (s.find('{') == std::string::npos && s.find('}') == std::string::npos) {
      auto e = mk(Expr::Str, t.loc);
      e->name = s;
      return e;
    }
    auto e = mk(Expr::Template, t.loc);
    std::string text;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') {
        text += '{';
        ++i;
      } else if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') {
        text += '}';
        ++i;
      } else if (s[i] == '{') {
        int depth = 1;
        size_t j = i + 1;
        for (; j < s.size(); ++j) {
          if (s[j] == '{') ++depth;
          if (s[j] == '}' && --depth == 0) break;
        }
        if (j >= s.size()) fail(t.loc, "unterminated '{' in string template");
        std::string inner = s.substr(i + 1, j - i - 1);
        Parser sub(tokenize(inner, t.loc.file, t.loc.line, t.loc.col), d_);
        e->text_parts.push_back(text);
        text.clear();
        e->args.push_back(sub.parse_expression_only());
        i = j;
      } else if (s[i] == '}') {
        fail(t.loc, "unmatched '}' in string template (write '}}' for a brace)");
      } else {
        text += s[i];
      }
    }
    e->text_parts.push_back(text);
    return e;
  }

  ExprP primary() {
    const Token& k = peek();
    if (k.kind == Tok::Number) {
      auto e = mk(Expr::Num, k.loc);
      e->value = next().value;
      return e;
    }
    if (k.kind == Tok::String) return template_string(next());
    if (accept("(")) {
      ExprP e = expr();
      expect(")");
      return e;
    }
    if (k.kind == Tok::Ident) {
      Token n = next();
      if (n.text == "true" || n.text == "false") {
        auto e = mk(Expr::Num, n.loc);
        e->value = n.text == "true";
        e->cast_to = Type::u(1);
        return e;
      }
      if (is_punct("(")) {
        next();
        std::vector<ExprP> args;
        if (!accept(")")) {
          do args.push_back(expr());
          while (accept(","));
          expect(")");
        }
        if (auto ty = type_from_name(n.text)) {
          if (args.size() != 1) fail(n.loc, "a cast takes one operand");
          auto e = mk(Expr::Cast, n.loc);
          e->cast_to = *ty;
          e->args = std::move(args);
          return e;
        }
        auto e = mk(n.text == "cat"         ? Expr::Cat
                    : n.text == "lane"      ? Expr::Lane
                    : n.text == "with_lane" ? Expr::WithLane
                                            : Expr::Call,
                    n.loc);
        e->name = n.text;
        e->args = std::move(args);
        return e;
      }
      auto e = mk(Expr::Ref, n.loc);
      e->name = n.text;
      return e;
    }
    fail(k.loc, "expected an expression, found '" + describe(k) + "'");
  }
};

} // namespace

void parse_source(const std::string& source, const std::string& name, Description& desc) {
  Parser p(tokenize(source, name), desc);
  p.parse_top();
}

void parse_file(const std::string& path, Description& desc) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": error: cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  desc.files.push_back(path);
  parse_source(ss.str(), path, desc);
}

} // namespace adl
