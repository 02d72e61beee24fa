#include "emit_cpp.h"
#include "checker.h"
#include "decode_tree.h"
#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>

namespace adl {

namespace {

std::string cpp_string_literal(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string value_ctype(const Type& t) {
  switch (t.kind) {
  case Type::Int: return t.is_signed ? "int64_t" : "uint64_t";
  case Type::Literal: return "uint64_t";
  case Type::U128: return "adlrt::u128";
  case Type::Str: return "std::string";
  case Type::Void: return "void";
  }
  return "?";
}

std::string storage_ctype(const Type& t) {
  if (t.kind == Type::U128) return "adlrt::u128";
  int w = t.width <= 8 ? 8 : t.width <= 16 ? 16 : t.width <= 32 ? 32 : 64;
  return std::string(t.is_signed ? "int" : "uint") + std::to_string(w) + "_t";
}

// Wraps a uint64_t-valued C++ expression so that it is canonical for type t.
std::string canon(const Type& t, const std::string& code) {
  switch (t.kind) {
  case Type::Int:
    if (t.is_signed) return "adlrt::cs<" + std::to_string(t.width) + ">(" + code + ")";
    if (t.width == 64) return "uint64_t(" + code + ")";
    return "adlrt::cu<" + std::to_string(t.width) + ">(" + code + ")";
  case Type::Literal: return "uint64_t(" + code + ")";
  case Type::U128: return "adlrt::u128(" + code + ")";
  default: return code;
  }
}

class Emitter {
public:
  explicit Emitter(const Description& d) : d_(d) {}

  std::string fault_return;               // what a hoisted fault check returns with
  std::vector<std::string>* pre = nullptr; // statements emitted before the current one

  std::string conv(const Expr& e, const Type& to) { return conv_code(expr(e), e.type, to); }

  std::string conv_code(const std::string& x, const Type& from, const Type& to) {
    if (from == to) return x;
    if (to.kind == Type::Str) {
      if (from.kind == Type::Str) return x;
      return "adlrt::to_text(" + std::string(from.kind == Type::Int && from.is_signed ? "int64_t(" : "uint64_t(") + x + "))";
    }
    if (to.kind == Type::Int) {
      if (from.kind == Type::Int) {
        if (!from.is_signed && !to.is_signed && from.width <= to.width) return x;
        if (from.is_signed && to.is_signed && from.width <= to.width) return x;
        if (!from.is_signed && to.is_signed && from.width < to.width) return "int64_t(" + x + ")";
      }
      return canon(to, "uint64_t(" + x + ")");
    }
    if (to.kind == Type::U128) {
      if (from.kind == Type::Int && from.is_signed) return "adlrt::u128(__int128(int64_t(" + x + ")))";
      return "adlrt::u128(uint64_t(" + x + "))";
    }
    if (to.kind == Type::Literal) return "uint64_t(" + x + ")";
    return x;
  }

  std::string name_of(const Expr& e) {
    switch (e.ref_kind) {
    case Expr::Field: return "f_" + e.name;
    case Expr::Local:
    case Expr::Param: return "v_" + e.name;
    case Expr::StateScalar: return value_ctype(e.type) + "(s." + e.name + ")";
    default: return "?";
    }
  }

  std::string index_code(const Expr& idx, const StateVar& sv) { return index_code(idx, sv.count); }
  std::string index_code(const Expr& idx, int count) {
    if (idx.kind == Expr::Num) return std::to_string(idx.value);
    std::string i = conv(idx, Type::u(64));
    bool pow2 = (count & (count - 1)) == 0;
    bool fits = idx.type.kind == Type::Int && idx.type.width < 63 &&
                (uint64_t(1) << idx.type.width) <= static_cast<uint64_t>(count);
    if (pow2 && !fits) i = "(" + i + " & " + std::to_string(count - 1) + ")";
    return i;
  }

  std::string call(const Expr& e) {
    const FuncDecl& f = *e.func;
    std::string c = f.builtin ? "adlrt::" + f.name : f.is_extern ? f.name : "fn_" + f.name;
    c += "(";
    bool first = true;
    if (!is_pure(f)) {
      c += "s";
      first = false;
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (!first) c += ", ";
      first = false;
      c += conv(*e.args[i], f.params[i].type);
    }
    c += ")";
    if (f.is_extern && f.ret.kind == Type::Int && (f.ret.width < 64 || f.ret.is_signed))
      c = canon(f.ret, "uint64_t(" + c + ")");
    if (f.may_fault && pre) {
      std::string t = "t" + std::to_string(tmp_++);
      if (f.ret.kind == Type::Void) pre->push_back(c + ";");
      else pre->push_back("const " + value_ctype(f.ret) + " " + t + " = " + c + ";");
      pre->push_back("if (s." + d_.fault_flag + ") return" + fault_return + ";");
      return f.ret.kind == Type::Void ? "(void)0" : t;
    }
    return c;
  }

  std::string expr(const Expr& e) {
    const Type& t = e.type;
    switch (e.kind) {
    case Expr::Num: return "uint64_t(" + std::to_string(e.value) + "ull)";
    case Expr::Str: return "std::string(" + cpp_string_literal(e.name) + ")";
    case Expr::Template: {
      std::string o = "(std::string(" + cpp_string_literal(e.text_parts[0]) + ")";
      for (size_t i = 0; i < e.args.size(); ++i) {
        o += " + " + conv(*e.args[i], Type::str());
        if (!e.text_parts[i + 1].empty()) o += " + " + cpp_string_literal(e.text_parts[i + 1]);
      }
      return o + ")";
    }
    case Expr::Ref: return name_of(e);
    case Expr::Index:
      if (e.table) {
        std::string el = "kTable_" + e.name + "[" + index_code(*e.args[0], e.table->count) + "]";
        return t.kind == Type::Str ? "std::string(" + el + ")" : value_ctype(t) + "(" + el + ")";
      }
      return value_ctype(t) + "(s." + e.name + "[" + index_code(*e.args[0], *e.state) + "])";
    case Expr::Slice: {
      const Expr& a = *e.args[0];
      int w = e.hi - e.lo + 1;
      std::string src = a.type.kind == Type::U128 ? "uint64_t(" + expr(a) + " >> " + std::to_string(e.lo) + ")"
                                                  : "(uint64_t(" + expr(a) + ") >> " + std::to_string(e.lo) + ")";
      return canon(Type::u(w), src);
    }
    case Expr::Bit: {
      const Expr& a = *e.args[0];
      std::string i = conv(*e.args[1], Type::u(64));
      if (a.type.kind == Type::U128) return "adlrt::bit128(" + expr(a) + ", " + i + ")";
      Type ut = a.type.kind == Type::Int ? Type::u(a.type.width) : Type::u(64);
      return "adlrt::bit(" + conv(a, ut) + ", " + i + ")";
    }
    case Expr::Cast: return conv(*e.args[0], e.cast_to);
    case Expr::Cat: {
      int shift = t.width;
      std::string o = "(";
      for (size_t i = 0; i < e.args.size(); ++i) {
        const Expr& a = *e.args[i];
        shift -= a.type.width;
        if (i) o += " | ";
        o += "(" + conv(a, Type::u(a.type.width)) + " << " + std::to_string(shift) + ")";
      }
      return o + ")";
    }
    case Expr::Lane:
    case Expr::WithLane: {
      std::string o = e.kind == Expr::Lane ? "adlrt::lane(" : "adlrt::with_lane(";
      for (size_t i = 0; i < e.args.size(); ++i)
        o += (i ? ", " : "") + conv(*e.args[i], i == 0 ? Type::u128() : Type::u(64));
      return o + ")";
    }
    case Expr::Unary: {
      std::string a = expr(*e.args[0]);
      if (e.name == "!") return "uint64_t(!(" + a + "))";
      if (t.kind == Type::U128) return "(" + e.name + a + ")";
      if (e.name == "-") return canon(t, "uint64_t(0) - uint64_t(" + a + ")");
      if (t.kind == Type::Int && t.is_signed) return "(~int64_t(" + a + "))";
      return canon(t, "~uint64_t(" + a + ")");
    }
    case Expr::Binary: return binary(e);
    case Expr::Cond: {
      std::string c = expr(*e.args[0]);
      return "(" + c + " ? " + conv(*e.args[1], t) + " : " + conv(*e.args[2], t) + ")";
    }
    case Expr::Call: return call(e);
    }
    return "?";
  }

  std::string binary(const Expr& e) {
    const std::string& op = e.name;
    const Expr &l = *e.args[0], &r = *e.args[1];
    const Type& t = e.type;
    if (op == "&&" || op == "||") return "uint64_t(" + expr(l) + " " + op + " " + expr(r) + ")";
    if (t.kind == Type::Str) return "(" + expr(l) + " + " + expr(r) + ")";
    if (op == "<<" || op == ">>") {
      std::string a = conv(l, t), n = conv(r, Type::u(64));
      if (r.type.kind == Type::Int && r.type.is_signed) n = "uint64_t(" + expr(r) + ")";
      if (t.kind == Type::U128) return std::string(op == "<<" ? "adlrt::shl128(" : "adlrt::lshr128(") + a + ", " + n + ")";
      if (op == "<<") return canon(t, "adlrt::shl<64>(uint64_t(" + a + "), " + n + ")");
      if (t.kind == Type::Int && t.is_signed) return "adlrt::ashr(" + a + ", " + n + ")";
      return "adlrt::lshr(" + a + ", " + n + ")";
    }
    Type c = common_type(e, l.type, r.type);
    std::string a = conv(l, c), b = conv(r, c);
    bool sgn = c.kind == Type::Int && c.is_signed;
    if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=")
      return "uint64_t(" + a + " " + op + " " + b + ")";
    if (c.kind == Type::U128) {
      if (op == "/") return "(" + b + " == 0 ? adlrt::u128(0) : " + a + " / " + b + ")";
      if (op == "%") return "(" + b + " == 0 ? " + a + " : " + a + " % " + b + ")";
      return "(" + a + " " + op + " " + b + ")";
    }
    if (op == "+" || op == "-" || op == "*") return canon(c, "uint64_t(" + a + ") " + op + " uint64_t(" + b + ")");
    if (op == "&" || op == "|" || op == "^") {
      if (sgn) return "(int64_t(" + a + ") " + op + " int64_t(" + b + "))";
      return "(uint64_t(" + a + ") " + op + " uint64_t(" + b + "))";
    }
    if (op == "/" || op == "%") {
      if (sgn) return canon(c, "uint64_t(adlrt::" + std::string(op == "/" ? "sdiv" : "srem") + "(" + a + ", " + b + "))");
      return canon(c, "adlrt::" + std::string(op == "/" ? "udiv" : "urem") + "(" + a + ", " + b + ")");
    }
    return "?";
  }

  // ---------------------------------------------------------------- statements
  void block(const std::vector<StmtP>& body, std::ostringstream& o, int ind) {
    for (auto& s : body) stmt(*s, o, ind);
  }

  void stmt(const Stmt& s, std::ostringstream& o, int ind) {
    std::string pad(ind * 2, ' ');
    std::vector<std::string> hoisted;
    auto* saved = pre;
    pre = &hoisted;
    std::string line;
    switch (s.kind) {
    case Stmt::Block: {
      pre = saved;
      o << pad << "{\n";
      block(s.body, o, ind + 1);
      o << pad << "}\n";
      return;
    }
    case Stmt::Let: line = value_ctype(s.var_type) + " v_" + s.name + " = " + conv(*s.a, s.var_type) + ";"; break;
    case Stmt::Assign:
      if (s.state) line = "s." + s.name + " = " + storage_ctype(s.var_type) + "(" + conv(*s.a, s.var_type) + ");";
      else line = "v_" + s.name + " = " + conv(*s.a, s.var_type) + ";";
      break;
    case Stmt::AssignIndex: {
      std::string i = index_code(*s.a, *s.state);
      line = "s." + s.name + "[" + i + "] = " + storage_ctype(s.var_type) + "(" + conv(*s.b, s.var_type) + ");";
      break;
    }
    case Stmt::If: {
      std::string c = expr(*s.a);
      pre = saved;
      for (auto& h : hoisted) o << pad << h << "\n";
      o << pad << "if (" << c << ") {\n";
      block(s.body, o, ind + 1);
      if (s.has_else) {
        o << pad << "} else {\n";
        block(s.else_body, o, ind + 1);
      }
      o << pad << "}\n";
      return;
    }
    case Stmt::For: {
      std::string a = conv(*s.a, Type::u(64)), b = conv(*s.b, Type::u(64));
      pre = saved;
      o << pad << "for (uint64_t v_" << s.name << " = " << a << "; v_" << s.name << " < " << b << "; ++v_" << s.name
        << ") {\n";
      block(s.body, o, ind + 1);
      o << pad << "}\n";
      return;
    }
    case Stmt::Return:
      line = s.a ? "return " + conv(*s.a, s.var_type) + ";" : "return;";
      break;
    case Stmt::ExprStmt: line = expr(*s.a) + ";"; break;
    }
    pre = saved;
    for (auto& h : hoisted) o << pad << h << "\n";
    if (line != "(void)0;") o << pad << line << "\n";
  }

  std::string fields(const Insn& in, int ind) {
    std::ostringstream o;
    std::string pad(ind * 2, ' ');
    for (auto& f : in.pattern.fields) {
      if (f.bound) o << pad << "[[maybe_unused]] constexpr uint64_t f_" << f.name << " = " << *f.bound << "ull;\n";
      else
        o << pad << "[[maybe_unused]] const uint64_t f_" << f.name << " = adlrt::field(insn, " << f.lsb << ", "
          << f.width << ");\n";
    }
    return o.str();
  }

private:
  const Description& d_;
  int tmp_ = 0;
};

std::string banner(const Description& d) {
  std::string s = "// Generated by vplat's ADL compiler from";
  for (auto& f : d.files) s += " " + f.substr(f.rfind('/') + 1);
  return s + ". Do not edit.\n";
}

std::string func_signature(const FuncDecl& f, bool with_state) {
  std::string s = value_ctype(f.ret) + " " + (f.is_extern ? f.name : "fn_" + f.name) + "(";
  bool first = true;
  if (with_state) {
    s += "State& s";
    first = false;
  }
  for (auto& p : f.params) {
    if (!first) s += ", ";
    first = false;
    s += value_ctype(p.type) + " v_" + p.name;
  }
  return s + ")";
}

// The C++ name and signature an exported function has in <isa>_isa.h (no fn_ prefix).
std::string func_signature_public(const FuncDecl& f) {
  std::string s = value_ctype(f.ret) + " " + f.name + "(";
  bool first = true;
  if (!is_pure(f)) {
    s += "State& s";
    first = false;
  }
  for (auto& p : f.params) {
    if (!first) s += ", ";
    first = false;
    s += value_ctype(p.type) + " v_" + p.name;
  }
  return s + ")";
}

// The ISA's own instruction word has a decoder when instructions use it, or when there are no units at all.
bool has_default_unit(const Description& d) {
  if (d.units.empty()) return true;
  for (auto& in : d.insns)
    if (in->unit.empty()) return true;
  return false;
}

} // namespace

// The fields an instruction's interpreter function is specialised on (`interp_variants`): a shared function
// branches on its small fields (operand size, operation, flag setting, condition) with every instance that
// runs, and those branches mispredict; a function per combination of their values folds them away. Fields
// of at most 4 bits, taken from the most significant while the budget lasts; none for other classes.
struct Variants {
  std::vector<const Field*> fields; // most significant first; empty: the shared function only
  int bits = 0;                     // their widths' sum: 2^bits variants
  uint64_t mask = 0;                // their bits in the instruction word
  // The bits variant v fixes: the fields' values concatenated, the most significant field first.
  uint64_t fixed(uint64_t v) const {
    uint64_t out = 0;
    int at = bits;
    for (const Field* f : fields) {
      at -= f->width;
      out |= ((v >> at) & ((uint64_t(1) << f->width) - 1)) << f->lsb;
    }
    return out;
  }
};

Variants variant_fields(const Description& d, const Insn& in) {
  Variants out;
  if (!in.unit.empty() || !d.interp_variant_classes.count(in.cls)) return out;
  std::vector<const Field*> all;
  for (auto& f : in.pattern.fields)
    if (!f.bound && f.width <= 4) all.push_back(&f);
  std::sort(all.begin(), all.end(), [](const Field* a, const Field* b) { return a->lsb > b->lsb; });
  for (const Field* f : all)
    if (out.bits + f->width <= d.interp_variant_bits) {
      out.fields.push_back(f);
      out.bits += f->width;
      out.mask |= ((uint64_t(1) << f->width) - 1) << f->lsb;
    }
  return out;
}

std::vector<std::string> cpp_outputs(const std::string& isa, const CppOptions& opts) {
  std::vector<std::string> v = {isa + "_isa.h", isa + "_state.h", isa + "_helpers.h", isa + "_internal.h",
                                isa + "_decode.cpp", isa + "_disasm.cpp", isa + "_meta.cpp"};
  for (int i = 0; i < opts.interp_chunks; ++i) v.push_back(isa + "_interp_" + std::to_string(i) + ".cpp");
  return v;
}

std::string cpp_expr(const Description& d, const Expr& e, const Type* to) {
  Emitter em(d);
  return to ? em.conv(e, *to) : em.expr(e);
}

void emit_cpp(const Description& d, const CppOptions& opts) {
  const std::string& isa = d.isa_name;
  const std::string dir = opts.out_dir + "/";
  const std::string ns = "vplat::gen::" + isa;
  const std::string head = banner(d);
  Emitter em(d);

  // ---- state
  {
    std::ostringstream o;
    o << head << "#pragma once\n#include \"generator/runtime/adl_runtime.h\"\n#include <cstdint>\n\nnamespace " << ns
      << " {\nnamespace adlrt = vplat::adlrt;\n\n// Architectural state: one plain struct, addressable by offset.\n"
         "struct State {\n";
    for (auto& v : d.state) {
      o << "  " << storage_ctype(v.type) << " " << v.name;
      if (v.count) o << "[" << v.count << "]";
      o << "{};\n";
    }
    o << "};\n\n} // namespace " << ns << "\n";
    write_file(dir + isa + "_state.h", o.str());
  }

  // ---- helpers implemented in C++
  {
    std::ostringstream o;
    o << head << "// Helpers the description declares `extern`; the runtime implements each once.\n#pragma once\n"
      << "#include \"" << isa << "_state.h\"\n#include <string>\n\nnamespace " << ns << " {\n\n";
    for (auto& f : d.funcs)
      if (f->is_extern) o << (f->inline_extern ? "inline " : "") << func_signature(*f, !is_pure(*f)) << ";\n";
    o << "\n} // namespace " << ns << "\n";
    // The runtime's inline definitions (called on every memory access: inlined into the interpreter).
    if (!d.inline_helpers.empty()) o << "\n#include \"" << d.inline_helpers << "\"\n";
    write_file(dir + isa + "_helpers.h", o.str());
  }

  // ---- public interface
  {
    std::ostringstream o;
    o << head << "#pragma once\n#include \"" << isa << "_state.h\"\n#include <string>\n\nnamespace " << ns << " {\n\n";
    o << "constexpr int kInsnWidth = " << d.width << ";\nconstexpr int kNumInsns = " << d.insns.size() << ";\n\n";
    for (auto& u : d.units)
      o << "constexpr int kUnitWidth_" << u.name << " = " << u.width << "; // bits of a `" << u.name << "` word\n";
    if (!d.units.empty()) o << "\n";
    if (!d.tables.empty()) o << "// Constant tables of the description (`table`), one source of truth for C++ users too.\n";
    for (auto& tb : d.tables) {
      if (tb->elem.kind == Type::Str) {
        o << "inline constexpr const char* kTable_" << tb->name << "[" << tb->count << "] = {";
        for (size_t i = 0; i < tb->strs.size(); ++i) o << (i ? ", " : "") << cpp_string_literal(tb->strs[i]);
      } else {
        o << "inline constexpr " << storage_ctype(tb->elem) << " kTable_" << tb->name << "[" << tb->count << "] = {";
        for (size_t i = 0; i < tb->values.size(); ++i) {
          o << (i ? ", " : "");
          if (tb->elem.is_signed) o << static_cast<int64_t>(tb->values[i]) << (tb->elem.width > 32 ? "ll" : "");
          else o << "0x" << std::hex << tb->values[i] << std::dec << "u" << (tb->elem.width > 32 ? "ll" : "");
        }
      }
      o << "};\n";
    }
    if (!d.tables.empty()) o << "\n";
    o << "enum InsnId : int {\n";
    for (auto& in : d.insns) o << "  I_" << in->name << " = " << in->id << ",\n";
    o << "};\n\n";
    if (has_default_unit(d))
      o << "// Identifies the instruction an encoding belongs to, or returns -1 when it is unallocated.\n"
           "int decode(uint64_t insn);\n\n";
    for (auto& u : d.units)
      o << "// Identifies the `" << u.name << "` instruction a " << u.width
        << "-bit word encodes (an id shared by all units), or -1 when it is unallocated.\nint decode_" << u.name
        << "(uint64_t insn);\n\n";
    bool any_export = false;
    for (auto& f : d.funcs)
      if (f->exported) {
        if (!any_export) o << "// Functions the description exports (`export func`).\n";
        any_export = true;
        o << func_signature_public(*f) << ";\n";
      }
    if (any_export) o << "\n";
    o << "// Executes one decoded instruction. The caller has set the next-PC state to the fall-through address.\n"
         "using ExecFn = void (*)(State& s, uint64_t insn);\nextern const ExecFn kExec[kNumInsns];\n"
         "// kExec[id], or a function specialised on some of the fields of `insn` (interp_variants): same effect.\n"
         "ExecFn exec_for(int id, uint64_t insn);\n\n"
         "// Assembly text of an allocated encoding (id from decode()).\n"
         "std::string disassemble(int id, uint64_t insn);\n\n"
         "// An encoding field: bits [lsb, lsb+width) of the instruction word; `bound` >= 0 when a format binding\n"
         "// fixes it.\nstruct FieldInfo {\n  const char* name;\n  int lsb, width;\n  int64_t bound;\n};\n\n"
         "struct InsnInfo {\n  const char* name;\n  const char* cls;\n  uint64_t mask, value;\n"
         "  const char* reads;   // state read, comma-separated\n  const char* writes;  // state written\n"
         "  const char* helpers; // runtime helpers called\n  bool may_fault;\n  bool is_branch;\n"
         "  const char* file;\n  int line;\n"
         "  const char* unit;    // decode unit, \"\" for the ISA's own instruction word\n"
         "  int width;           // bits of the instruction word\n"
         "  const char* attrs;   // `attr` metadata: \"key=value,key=value\"\n"
         "  const FieldInfo* fields;\n  int num_fields;\n"
         "};\nextern const InsnInfo kInsnInfo[kNumInsns];\n\n"
         "// The value of attribute `key` of instruction `id`, or \"\" when it has none.\n"
         "std::string insn_attr(int id, const std::string& key);\n\n} // namespace "
      << ns << "\n";
    write_file(dir + isa + "_isa.h", o.str());
  }

  // ---- internal header: ADL functions, inline in every chunk
  {
    std::ostringstream o;
    o << head << "#pragma once\n#include \"" << isa << "_helpers.h\"\n#include \"" << isa
      << "_isa.h\"\n#include <string>\n\nnamespace " << ns
      << " {\n\n#if defined(__GNUC__)\n#pragma GCC diagnostic ignored \"-Wunused-function\"\n#endif\n\n";
    for (auto& f : d.funcs)
      if (!f->is_extern) o << "static inline " << func_signature(*f, !is_pure(*f)) << ";\n";
    o << "\n";
    for (auto& f : d.funcs) {
      if (f->is_extern) continue;
      o << "// " << f->loc.str() << "\nstatic inline " << func_signature(*f, !is_pure(*f)) << " {\n";
      em.fault_return = f->ret.kind == Type::Void ? "" : " {}";
      std::ostringstream b;
      em.block(f->body, b, 1);
      o << b.str() << "}\n\n";
    }
    o << "} // namespace " << ns << "\n";
    write_file(dir + isa + "_internal.h", o.str());
  }

  // ---- interpreter chunks
  {
    int n = std::max(1, opts.interp_chunks);
    std::vector<std::ostringstream> chunks(n);
    for (int c = 0; c < n; ++c)
      chunks[c] << head << "#include \"" << isa << "_internal.h\"\n\nnamespace " << ns << " {\n\n";
    for (auto& in : d.insns) {
      auto& o = chunks[in->id % n];
      const Variants vf = variant_fields(d, *in);
      em.fault_return = "";
      std::ostringstream b;
      em.block(in->body, b, 1);
      if (vf.fields.empty()) {
        o << "// " << in->loc.str() << "\nvoid exec_" << in->name << "(State& s, [[maybe_unused]] uint64_t insn) {\n";
        o << em.fields(*in, 1) << b.str() << "}\n\n";
        continue;
      }
      // One body; each variant fixes the bits of its fields, so the compiler folds what depends on them.
      o << "// " << in->loc.str() << "\ntemplate <uint64_t kFixedMask, uint64_t kFixedBits>\n"
        << "static inline void body_" << in->name << "(State& s, uint64_t word) {\n"
        << "  [[maybe_unused]] const uint64_t insn = (word & ~kFixedMask) | kFixedBits;\n"
        << em.fields(*in, 1) << b.str() << "}\n\n";
      o << "void exec_" << in->name << "(State& s, uint64_t insn) {\n  body_" << in->name << "<0, 0>(s, insn);\n}\n";
      for (uint64_t v = 0; v < (uint64_t(1) << vf.bits); ++v)
        o << "void exec_" << in->name << "_v" << v << "(State& s, uint64_t insn) {\n  body_" << in->name << "<0x"
          << std::hex << vf.mask << "ull, 0x" << vf.fixed(v) << std::dec << "ull>(s, insn);\n}\n";
      o << "\n";
    }
    for (int c = 0; c < n; ++c) {
      chunks[c] << "} // namespace " << ns << "\n";
      write_file(dir + isa + "_interp_" + std::to_string(c) + ".cpp", chunks[c].str());
    }
  }

  // ---- decoder and exec table
  {
    std::ostringstream o;
    o << head << "#include \"" << isa << "_internal.h\"\n\nnamespace " << ns << " {\n\n";
    for (auto& in : d.insns) o << "void exec_" << in->name << "(State& s, uint64_t insn);\n";
    o << "\nconst ExecFn kExec[kNumInsns] = {\n";
    for (auto& in : d.insns) o << "    exec_" << in->name << ",\n";
    o << "};\n\n";
    // The specialised functions (interp_variants) and exec_for(), which picks one.
    std::ostringstream pick;
    for (auto& in : d.insns) {
      const Variants vf = variant_fields(d, *in);
      if (vf.fields.empty()) continue;
      const uint64_t n = uint64_t(1) << vf.bits;
      for (uint64_t v = 0; v < n; ++v) o << "void exec_" << in->name << "_v" << v << "(State& s, uint64_t insn);\n";
      o << "static const ExecFn kVariants_" << in->name << "[" << n << "] = {";
      for (uint64_t v = 0; v < n; ++v) o << (v ? ", " : "") << "exec_" << in->name << "_v" << v;
      o << "};\n";
      pick << "  case " << in->id << ":\n    return kVariants_" << in->name << "[";
      int at = vf.bits;
      bool first = true;
      for (const Field* f : vf.fields) {
        at -= f->width;
        pick << (first ? "" : " | ") << "(adlrt::field(insn, " << f->lsb << ", " << f->width << ") << " << at << ")";
        first = false;
      }
      pick << "];\n";
    }
    o << "\nExecFn exec_for(int id, uint64_t insn) {\n";
    if (pick.str().empty()) o << "  (void)insn;\n  return kExec[id];\n}\n\n";
    else o << "  switch (id) {\n" << pick.str() << "  default:\n    return kExec[id];\n  }\n}\n\n";
    o << "namespace {\n";
    for (auto& in : d.insns) {
      if (!in->guard) continue;
      o << "// " << in->loc.str() << "\ninline bool guard_" << in->name << "([[maybe_unused]] uint64_t insn) {\n"
        << em.fields(*in, 1);
      std::vector<std::string> hoisted;
      em.pre = &hoisted;
      o << "  return " << em.expr(*in->guard) << " != 0;\n}\n\n";
      em.pre = nullptr;
    }
    o << "} // namespace\n\n";
    auto decoder = [&](const std::string& unit, const std::string& fname, int width) {
      o << "int " << fname << "(uint64_t insn) {\n";
      if (!unit.empty() && width < 64) o << "  insn &= 0x" << std::hex << ((uint64_t(1) << width) - 1) << std::dec << "ull;\n";
      std::vector<DecodeCandidate> cands;
      for (auto& in : d.insns)
        if (in->unit == unit)
          cands.push_back({in->id, in->pattern.mask, in->pattern.value, in->group, in->guard ? "guard_" + in->name : ""});
      o << emit_decode_tree(cands, width, 1);
      o << "}\n\n";
    };
    if (has_default_unit(d)) decoder("", "decode", d.width);
    for (auto& u : d.units) decoder(u.name, "decode_" + u.name, u.width);
    for (auto& f : d.funcs) {
      if (!f->exported) continue;
      o << func_signature_public(*f) << " {\n  return fn_" << f->name << "(";
      bool first = true;
      if (!is_pure(*f)) {
        o << "s";
        first = false;
      }
      for (auto& p : f->params) {
        o << (first ? "" : ", ") << "v_" << p.name;
        first = false;
      }
      o << ");\n}\n\n";
    }
    o << "} // namespace " << ns << "\n";
    write_file(dir + isa + "_decode.cpp", o.str());
  }

  // ---- disassembler
  {
    std::ostringstream o;
    o << head << "#include \"" << isa << "_internal.h\"\n\nnamespace " << ns << " {\n\nnamespace {\n";
    for (auto& in : d.insns) {
      o << "// " << in->loc.str() << "\nstd::string asm_" << in->name << "([[maybe_unused]] uint64_t insn) {\n"
        << em.fields(*in, 1);
      std::vector<std::string> hoisted;
      em.pre = &hoisted;
      if (in->asm_template) {
        o << "  return " << em.expr(*in->asm_template) << ";\n";
      } else {
        std::ostringstream b;
        em.block(in->asm_body, b, 1);
        o << b.str();
      }
      em.pre = nullptr;
      o << "}\n\n";
    }
    o << "using AsmFn = std::string (*)(uint64_t);\nconst AsmFn kAsm[kNumInsns] = {\n";
    for (auto& in : d.insns) o << "    asm_" << in->name << ",\n";
    o << "};\n} // namespace\n\nstd::string disassemble(int id, uint64_t insn) {\n"
         "  if (id < 0 || id >= kNumInsns) return {};\n  return kAsm[id](insn);\n}\n\n} // namespace "
      << ns << "\n";
    write_file(dir + isa + "_disasm.cpp", o.str());
  }

  // ---- metadata
  {
    auto join = [](const std::set<std::string>& s) {
      std::string o;
      for (auto& x : s) o += (o.empty() ? "" : ",") + x;
      return cpp_string_literal(o);
    };
    std::ostringstream o;
    o << head << "#include \"" << isa << "_isa.h\"\n\nnamespace " << ns << " {\n\nnamespace {\n";
    for (auto& in : d.insns) {
      if (in->pattern.fields.empty()) continue;
      o << "const FieldInfo kFields_" << in->name << "[] = {";
      for (auto& f : in->pattern.fields)
        o << "{" << cpp_string_literal(f.name) << ", " << f.lsb << ", " << f.width << ", "
          << (f.bound ? std::to_string(*f.bound) + "ll" : std::string("-1")) << "}, ";
      o << "};\n";
    }
    o << "} // namespace\n\nconst InsnInfo kInsnInfo[kNumInsns] = {\n";
    for (auto& in : d.insns) {
      std::string file = in->loc.file.substr(in->loc.file.rfind('/') + 1);
      o << "    {" << cpp_string_literal(in->name) << ", " << cpp_string_literal(in->cls) << ", 0x" << std::hex
        << in->pattern.mask << "ull, 0x" << in->pattern.value << std::dec << "ull, " << join(in->reads) << ", "
        << join(in->writes) << ", " << join(in->helpers) << ", " << (in->may_fault ? "true" : "false") << ", "
        << (in->is_branch ? "true" : "false") << ", " << cpp_string_literal(file) << ", " << in->loc.line << ", ";
      std::string attrs;
      for (auto& a : in->attrs) attrs += (attrs.empty() ? "" : ",") + a.key + "=" + a.value;
      o << cpp_string_literal(in->unit) << ", " << d.unit_width(in->unit) << ", " << cpp_string_literal(attrs) << ", "
        << (in->pattern.fields.empty() ? std::string("nullptr") : "kFields_" + in->name) << ", "
        << in->pattern.fields.size() << "},\n";
    }
    o << "};\n\nstd::string insn_attr(int id, const std::string& key) {\n"
         "  if (id < 0 || id >= kNumInsns) return {};\n"
         "  std::string a = kInsnInfo[id].attrs;\n"
         "  for (size_t p = 0; p < a.size();) {\n"
         "    size_t end = a.find(',', p);\n    if (end == std::string::npos) end = a.size();\n"
         "    size_t eq = a.find('=', p);\n"
         "    if (eq < end && a.compare(p, eq - p, key) == 0 && eq - p == key.size()) return a.substr(eq + 1, end - eq - 1);\n"
         "    p = end + 1;\n  }\n  return {};\n}\n\n} // namespace " << ns << "\n";
    write_file(dir + isa + "_meta.cpp", o.str());
  }
}

void write_file(const std::string& path, const std::string& text) {
  // Leave an unchanged file untouched so the build does not recompile it.
  {
    std::ifstream in(path);
    if (in) {
      std::stringstream ss;
      ss << in.rdbuf();
      if (ss.str() == text) return;
    }
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": error: cannot write");
  out << text;
}

} // namespace adl
