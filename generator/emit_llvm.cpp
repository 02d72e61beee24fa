#include "emit_llvm.h"
#include "checker.h"
#include "emit_cpp.h"
#include <functional>
#include <sstream>
#include <stdexcept>

namespace adl {

namespace {

// An instruction the emitter cannot translate; its block calls the interpreter function instead.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int storage_bits(const Type& t) {
  if (t.kind == Type::U128) return 128;
  return t.width <= 8 ? 8 : t.width <= 16 ? 16 : t.width <= 32 ? 32 : 64;
}

std::string ll_type(const Type& t) { return t.kind == Type::U128 ? "c.i128" : "c.i64"; }

bool has_effects(const Expr& e) {
  if (e.kind == Expr::Call) {
    const FuncDecl& f = *e.func;
    if (!is_pure(f) && (f.is_extern || !f.writes.empty() || !f.helpers.empty())) return true;
  }
  for (auto& a : e.args)
    if (has_effects(*a)) return true;
  return false;
}

bool contains_return(const std::vector<StmtP>& body) {
  for (auto& s : body) {
    if (s->kind == Stmt::Return) return true;
    if (contains_return(s->body) || contains_return(s->else_body)) return true;
  }
  return false;
}

void collect_assigned(const std::vector<StmtP>& body, std::set<std::string>& out) {
  for (auto& s : body) {
    if (s->kind == Stmt::Assign && !s->state) out.insert(s->name);
    collect_assigned(s->body, out);
    collect_assigned(s->else_body, out);
  }
}

class JitEmitter {
public:
  explicit JitEmitter(const Description& d) : d_(d) {}

  std::set<std::string> assigned; // variables of the current body that live in allocas
  std::vector<std::string>* pre = nullptr;

  std::string tmp() { return "t" + std::to_string(tmp_++); }

  std::string hoist(const std::string& code) {
    std::string t = tmp();
    pre->push_back("[[maybe_unused]] llvm::Value* " + t + " = " + code + ";");
    return t;
  }

  std::string canon(const Type& t, const std::string& x) {
    if (t.kind != Type::Int) return x;
    if (t.is_signed) return t.width >= 64 ? x : "c.cs(" + std::to_string(t.width) + ", " + x + ")";
    return t.width >= 64 ? x : "c.cu(" + std::to_string(t.width) + ", " + x + ")";
  }

  // Mirrors emit_cpp's conv_code on the i64/i128 representation.
  std::string conv_code(const std::string& x, const Type& from, const Type& to) {
    if (from == to) return x;
    if (to.kind == Type::Str || from.kind == Type::Str) throw Unsupported("string value in semantics");
    if (to.kind == Type::Int) {
      if (from.kind == Type::Int) {
        if (!from.is_signed && !to.is_signed && from.width <= to.width) return x;
        if (from.is_signed && to.is_signed && from.width <= to.width) return x;
        if (!from.is_signed && to.is_signed && from.width < to.width) return x;
      }
      return canon(to, from.kind == Type::U128 ? "c.to64(" + x + ")" : x);
    }
    if (to.kind == Type::U128) return std::string("c.to128(") + x + (from.kind == Type::Int && from.is_signed ? ", true)" : ", false)");
    if (to.kind == Type::Literal) return from.kind == Type::U128 ? "c.to64(" + x + ")" : x;
    return x;
  }

  std::string conv(const Expr& e, const Type& to) { return conv_code(expr(e), e.type, to); }

  std::string state_off(const std::string& name) { return "offsetof(State, " + name + ")"; }

  std::string local_ref(const std::string& name) {
    if (assigned.count(name)) return "c.load(a_" + name + ")";
    return "l_" + name;
  }

  // A constant the interpreter's C++ computes now, at translation time.
  std::string constant(const Expr& e) {
    if (e.kind == Expr::Num) return "c.k64(" + std::to_string(e.value) + "ull)";
    std::string v = cpp_expr(d_, e);
    if (e.type.kind == Type::U128) return "c.k128(" + v + ")";
    return "c.k64(uint64_t(" + v + "))";
  }

  std::string index(const Expr& idx, const StateVar& sv) {
    std::string i = conv(idx, Type::u(64));
    bool pow2 = (sv.count & (sv.count - 1)) == 0;
    bool fits = idx.type.kind == Type::Int && idx.type.width < 63 &&
                (uint64_t(1) << idx.type.width) <= static_cast<uint64_t>(sv.count);
    if (pow2 && !fits) i = "c.b.CreateAnd(" + i + ", c.k64(" + std::to_string(sv.count - 1) + "))";
    return i;
  }

  // An arm of a conditional evaluated only when taken: a lambda with its own hoisted statements.
  std::string lazy(const Expr& e, const Type& to) {
    std::vector<std::string> arm;
    auto* saved = pre;
    pre = &arm;
    std::string v = conv(e, to);
    pre = saved;
    std::string o = "[&]() -> llvm::Value* { ";
    for (auto& l : arm) o += l + " ";
    return o + "return " + v + "; }";
  }

  std::string call(const Expr& e) {
    const FuncDecl& f = *e.func;
    std::vector<std::string> args;
    for (size_t i = 0; i < e.args.size(); ++i) args.push_back(conv(*e.args[i], f.params[i].type));
    if (f.builtin) return hoist("c." + f.name + "(" + args[0] + ")");
    if (f.is_extern) {
      for (auto& p : f.params)
        if (p.type.kind == Type::U128) throw Unsupported("helper '" + f.name + "' takes a u128");
      if (f.ret.kind == Type::U128) throw Unsupported("helper '" + f.name + "' returns a u128");
      if (f.ret.kind == Type::Str) throw Unsupported("string helper '" + f.name + "'");
      std::string c = "c.call_helper(reinterpret_cast<void*>(&" + f.name + "), adljit::Ctx::Ret::" +
                      (f.ret.kind == Type::Void ? "Void" : "I64") + ", " + (is_pure(f) ? "false" : "true") + ", {";
      for (size_t i = 0; i < args.size(); ++i) c += (i ? ", " : "") + args[i];
      c += "}, " + std::string(f.may_fault ? "true" : "false") + ")";
      std::string t = hoist(c);
      if (f.ret.kind == Type::Int && (f.ret.width < 64 || f.ret.is_signed)) return canon(f.ret, t);
      return t;
    }
    std::string c = "jf_" + f.name + "(c";
    for (auto& a : args) c += ", " + a;
    return hoist(c + ")");
  }

  std::string expr(const Expr& e) {
    const Type& t = e.type;
    if (e.is_const && t.kind != Type::Str && e.kind != Expr::Call) return constant(e);
    if (e.is_const && e.kind == Expr::Call && is_pure(*e.func) && t.kind != Type::Str) return constant(e);
    switch (e.kind) {
    case Expr::Num: return constant(e);
    case Expr::Str:
    case Expr::Template: throw Unsupported("string in semantics");
    case Expr::Ref:
      switch (e.ref_kind) {
      case Expr::Field: return "c.k64(f_" + e.name + ")";
      case Expr::Local:
      case Expr::Param: return local_ref(e.name);
      case Expr::StateScalar:
        return "c.load_state(" + state_off(e.name) + ", " + std::to_string(storage_bits(t)) + ", " +
               (t.kind == Type::Int && t.is_signed ? "true" : "false") + ")";
      default: throw Unsupported("array used as a value");
      }
    case Expr::Index:
      return "c.load_elem(" + state_off(e.name) + ", " + std::to_string(storage_bits(t)) + ", " +
             (t.kind == Type::Int && t.is_signed ? "true" : "false") + ", " + index(*e.args[0], *e.state) + ")";
    case Expr::Slice: {
      const Expr& a = *e.args[0];
      int w = e.hi - e.lo + 1;
      std::string lo = "c.k64(" + std::to_string(e.lo) + ")";
      if (a.type.kind == Type::U128) return canon(Type::u(w), "c.to64(c.lshr128(" + expr(a) + ", " + lo + "))");
      return canon(Type::u(w), "c.lshr64(" + expr(a) + ", " + lo + ")");
    }
    case Expr::Bit: {
      const Expr& a = *e.args[0];
      std::string i = conv(*e.args[1], Type::u(64));
      if (a.type.kind == Type::U128) return "c.bit128(" + expr(a) + ", " + i + ")";
      Type ut = a.type.kind == Type::Int ? Type::u(a.type.width) : Type::u(64);
      return "c.bit64(" + conv(a, ut) + ", " + i + ")";
    }
    case Expr::Cast: return conv(*e.args[0], e.cast_to);
    case Expr::Cat: {
      if (t.kind != Type::Int) throw Unsupported("cat wider than 64 bits");
      int shift = t.width;
      std::string o = "c.k64(0)";
      for (auto& ap : e.args) {
        const Expr& a = *ap;
        shift -= a.type.width;
        o = "c.b.CreateOr(" + o + ", c.b.CreateShl(" + conv(a, Type::u(a.type.width)) + ", c.k64(" +
            std::to_string(shift) + ")))";
      }
      return o;
    }
    case Expr::Lane:
    case Expr::WithLane: {
      std::string o = e.kind == Expr::Lane ? "c.lane(" : "c.with_lane(";
      for (size_t i = 0; i < e.args.size(); ++i)
        o += (i ? ", " : "") + conv(*e.args[i], i == 0 ? Type::u128() : Type::u(64));
      return o + ")";
    }
    case Expr::Unary: {
      std::string a = expr(*e.args[0]);
      if (e.name == "!") return "c.bool64(c.icmp(llvm::CmpInst::ICMP_EQ, " + a + ", c.k64(0)))";
      if (t.kind == Type::U128) return e.name == "-" ? "c.b.CreateNeg(" + a + ")" : "c.b.CreateNot(" + a + ")";
      if (e.name == "-") return canon(t, "c.b.CreateSub(c.k64(0), " + a + ")");
      if (t.kind == Type::Int && t.is_signed) return "c.b.CreateNot(" + a + ")";
      return canon(t, "c.b.CreateNot(" + a + ")");
    }
    case Expr::Binary: return binary(e);
    case Expr::Cond: {
      std::string cnd = expr(*e.args[0]);
      if (has_effects(*e.args[1]) || has_effects(*e.args[2]))
        return "c.select_lazy(" + cnd + ", " + lazy(*e.args[1], t) + ", " + lazy(*e.args[2], t) + ")";
      return "c.select_pure(" + cnd + ", " + lazy(*e.args[1], t) + ", " + lazy(*e.args[2], t) + ")";
    }
    case Expr::Call: return call(e);
    }
    throw Unsupported("unknown expression");
  }

  std::string binary(const Expr& e) {
    const std::string& op = e.name;
    const Expr &l = *e.args[0], &r = *e.args[1];
    const Type& t = e.type;
    if (op == "&&" || op == "||") {
      std::string a = expr(l);
      if (has_effects(r)) {
        if (op == "&&") return "c.select_lazy(" + a + ", " + lazy(r, Type::u(1)) + ", [&]() -> llvm::Value* { return c.k64(0); })";
        return "c.select_lazy(" + a + ", [&]() -> llvm::Value* { return c.k64(1); }, " + lazy(r, Type::u(1)) + ")";
      }
      std::string b = expr(r);
      return "c.bool64(c.b.Create" + std::string(op == "&&" ? "And" : "Or") + "(c.truth(" + a + "), c.truth(" + b + ")))";
    }
    if (t.kind == Type::Str) throw Unsupported("string operator");
    if (op == "<<" || op == ">>") {
      std::string a = conv(l, t);
      std::string n = (r.type.kind == Type::Int && r.type.is_signed) ? expr(r) : conv(r, Type::u(64));
      if (t.kind == Type::U128) return std::string(op == "<<" ? "c.shl128(" : "c.lshr128(") + a + ", " + n + ")";
      if (op == "<<") return canon(t, "c.shl64(" + a + ", " + n + ")");
      if (t.kind == Type::Int && t.is_signed) return "c.ashr64(" + a + ", " + n + ")";
      return "c.lshr64(" + a + ", " + n + ")";
    }
    Type c = common_type(e, l.type, r.type);
    std::string a = conv(l, c), b = conv(r, c);
    bool sgn = c.kind == Type::Int && c.is_signed;
    static const std::map<std::string, std::pair<const char*, const char*>> cmp = {
        {"==", {"EQ", "EQ"}}, {"!=", {"NE", "NE"}}, {"<", {"ULT", "SLT"}},
        {"<=", {"ULE", "SLE"}}, {">", {"UGT", "SGT"}}, {">=", {"UGE", "SGE"}}};
    if (auto it = cmp.find(op); it != cmp.end())
      return "c.bool64(c.icmp(llvm::CmpInst::ICMP_" + std::string(sgn ? it->second.second : it->second.first) + ", " + a + ", " + b + "))";
    std::string ab = "(" + a + ", " + b + ")";
    if (c.kind == Type::U128) {
      if (op == "/") return "c.udiv" + ab;
      if (op == "%") return "c.urem" + ab;
    }
    if (op == "+") return canon(c, "c.b.CreateAdd" + ab);
    if (op == "-") return canon(c, "c.b.CreateSub" + ab);
    if (op == "*") return canon(c, "c.b.CreateMul" + ab);
    if (op == "&") return "c.band" + ab;
    if (op == "|") return "c.b.CreateOr" + ab;
    if (op == "^") return "c.b.CreateXor" + ab;
    if (op == "/") return canon(c, std::string(sgn ? "c.sdiv" : "c.udiv") + ab);
    if (op == "%") return canon(c, std::string(sgn ? "c.srem" : "c.urem") + ab);
    throw Unsupported("operator " + op);
  }

  // ---------------------------------------------------------------- statements
  void block(const std::vector<StmtP>& body, std::ostringstream& o, int ind) {
    for (auto& s : body) {
      stmt(*s, o, ind);
      // A return on this path ends the enclosing lambda: the rest of the body is not emitted.
      bool returns = s->kind == Stmt::Return ||
                     ((s->kind == Stmt::If || s->kind == Stmt::For || s->kind == Stmt::Block) &&
                      (contains_return(s->body) || contains_return(s->else_body)));
      if (returns) o << std::string(ind * 2, ' ') << "if (c.frame->done) return;\n";
    }
  }

  void lambda_block(const std::vector<StmtP>& body, std::ostringstream& o, int ind) {
    o << "[&] {\n";
    block(body, o, ind + 1);
    o << std::string(ind * 2, ' ') << "}";
  }

  void stmt(const Stmt& s, std::ostringstream& o, int ind) {
    std::string pad(ind * 2, ' ');
    std::vector<std::string> hoisted;
    auto* saved = pre;
    pre = &hoisted;
    std::ostringstream line;
    switch (s.kind) {
    case Stmt::Block:
      pre = saved;
      o << pad << "{\n";
      block(s.body, o, ind + 1);
      o << pad << "}\n";
      return;
    case Stmt::Let: {
      bool is_var = assigned.count(s.name);
      if (s.a->is_const && !is_var && s.var_type.kind != Type::Str) {
        std::string ct = s.var_type.kind == Type::U128 ? "adlrt::u128"
                         : (s.var_type.kind == Type::Int && s.var_type.is_signed) ? "int64_t" : "uint64_t";
        line << pad << "[[maybe_unused]] const " << ct << " v_" << s.name << " = " << cpp_expr(d_, *s.a, &s.var_type)
             << ";\n";
      }
      std::string v = conv(*s.a, s.var_type);
      if (is_var)
        line << pad << "llvm::AllocaInst* a_" << s.name << " = c.local(" << ll_type(s.var_type) << ");\n"
             << pad << "c.store(a_" << s.name << ", " << v << ");\n";
      else
        line << pad << "[[maybe_unused]] llvm::Value* l_" << s.name << " = " << v << ";\n";
      break;
    }
    case Stmt::Assign:
      if (s.state)
        line << pad << "c.store_state(" << state_off(s.name) << ", " << storage_bits(s.var_type) << ", "
             << conv(*s.a, s.var_type) << ");\n";
      else
        line << pad << "c.store(a_" << s.name << ", " << conv(*s.a, s.var_type) << ");\n";
      break;
    case Stmt::AssignIndex: {
      std::string i = index(*s.a, *s.state);
      line << pad << "c.store_elem(" << state_off(s.name) << ", " << storage_bits(s.var_type) << ", " << i << ", "
           << conv(*s.b, s.var_type) << ");\n";
      break;
    }
    case Stmt::If: {
      std::string cnd = expr(*s.a);
      pre = saved;
      for (auto& h : hoisted) o << pad << h << "\n";
      o << pad << "c.emit_if(" << cnd << ", ";
      lambda_block(s.body, o, ind);
      o << ", ";
      if (s.has_else) lambda_block(s.else_body, o, ind);
      else o << "nullptr";
      o << ");\n";
      return;
    }
    case Stmt::For: {
      std::string a = cpp_expr(d_, *s.a, nullptr), b = cpp_expr(d_, *s.b, nullptr);
      pre = saved;
      o << pad << "for (uint64_t v_" << s.name << " = uint64_t(" << a << "); v_" << s.name << " < uint64_t(" << b
        << "); ++v_" << s.name << ") {\n"
        << pad << "  [[maybe_unused]] llvm::Value* l_" << s.name << " = c.k64(v_" << s.name << ");\n";
      // The body is a lambda so that a return inside it leaves only the current iteration's emission;
      // `done` then stops the loop.
      o << pad << "  ";
      lambda_block(s.body, o, ind + 1);
      o << "();\n" << pad << "  if (c.frame->done) break;\n" << pad << "}\n";
      return;
    }
    case Stmt::Return:
      line << pad << "c.ret(" << (s.a ? conv(*s.a, s.var_type) : std::string("nullptr")) << ");\n";
      break;
    case Stmt::ExprStmt: line << pad << "(void)" << expr(*s.a) << ";\n"; break;
    }
    pre = saved;
    for (auto& h : hoisted) o << pad << h << "\n";
    o << line.str();
  }

  std::string fields(const Insn& in) {
    std::ostringstream o;
    for (auto& f : in.pattern.fields) {
      if (f.bound) o << "  [[maybe_unused]] constexpr uint64_t f_" << f.name << " = " << *f.bound << "ull;\n";
      else
        o << "  [[maybe_unused]] const uint64_t f_" << f.name << " = adlrt::field(insn, " << f.lsb << ", " << f.width
          << ");\n";
    }
    return o.str();
  }

  std::string func_signature(const FuncDecl& f) {
    std::string s = "static llvm::Value* jf_" + f.name + "(adljit::Ctx& c";
    for (auto& p : f.params) s += ", llvm::Value* l_" + p.name;
    return s + ")";
  }

  // The emitter of one ADL function (inlined at every call).
  std::string func(const FuncDecl& f) {
    assigned.clear();
    collect_assigned(f.body, assigned);
    std::ostringstream o;
    o << "// " << f.loc.str() << "\n" << func_signature(f) << " {\n";
    o << "  adljit::FrameScope fs(c, " << (f.ret.kind == Type::Void ? "nullptr" : ll_type(f.ret)) << ");\n";
    for (auto& p : f.params)
      if (assigned.count(p.name))
        o << "  llvm::AllocaInst* a_" << p.name << " = c.local(" << ll_type(p.type) << ");\n  c.store(a_" << p.name
          << ", l_" << p.name << ");\n";
    o << "  ";
    lambda_block(f.body, o, 1);
    o << "();\n  return c.finish_frame();\n}\n\n";
    return o.str();
  }

  // The emitter of one instruction, or a stub returning false (with the reason) when it cannot be built.
  std::string insn(const Insn& in, std::string& reason) {
    assigned.clear();
    collect_assigned(in.body, assigned);
    std::ostringstream o;
    try {
      std::ostringstream b;
      b << fields(in) << "  adljit::FrameScope fs(c, nullptr);\n  ";
      lambda_block(in.body, b, 1);
      b << "();\n  c.finish_frame();\n  return !c.unsupported;\n";
      o << "// " << in.loc.str() << "\nbool je_" << in.name << "(adljit::Ctx& c, [[maybe_unused]] uint64_t insn) {\n"
        << b.str() << "}\n\n";
    } catch (const Unsupported& u) {
      reason = u.what();
      o.str("");
      o << "// " << in.loc.str() << ": not translated (" << u.what() << "); blocks call the interpreter\n"
        << "bool je_" << in.name << "(adljit::Ctx&, uint64_t) { return false; }\n\n";
    }
    return o.str();
  }

private:
  const Description& d_;
  int tmp_ = 0;
};

} // namespace

std::vector<std::string> llvm_outputs(const std::string& isa, const LlvmOptions& opts) {
  std::vector<std::string> v = {isa + "_jit.h", isa + "_jit_funcs.h", isa + "_jit_table.cpp"};
  for (int i = 0; i < opts.chunks; ++i) v.push_back(isa + "_jit_" + std::to_string(i) + ".cpp");
  return v;
}

void emit_llvm(const Description& d, const LlvmOptions& opts) {
  const std::string& isa = d.isa_name;
  const std::string dir = opts.out_dir + "/";
  const std::string ns = "vplat::gen::" + isa;
  std::string head = "// Generated by vplat's ADL compiler (JIT backend) from";
  for (auto& f : d.files) head += " " + f.substr(f.rfind('/') + 1);
  head += ". Do not edit.\n";
  JitEmitter em(d);

  {
    std::ostringstream o;
    o << head << "#pragma once\n#include \"" << isa << "_isa.h\"\n#include \"generator/runtime/adl_jit.h\"\n\n"
      << "namespace " << ns << " {\n\n"
      << "// Emits the IR of one instruction (id from decode()) at the Ctx's insertion point. Returns false when\n"
      << "// the instruction has no emitter (kJitFallback says why): the caller then calls kExec[id].\n"
      << "using JitEmitFn = bool (*)(vplat::adljit::Ctx& c, uint64_t insn);\n"
      << "extern const JitEmitFn kJitEmit[kNumInsns];\n"
      << "extern const char* const kJitFallback[kNumInsns]; // nullptr, or why the interpreter runs it\n\n"
      << "} // namespace " << ns << "\n";
    write_file(dir + isa + "_jit.h", o.str());
  }

  {
    std::ostringstream o;
    o << head << "#pragma once\n#include \"" << isa << "_internal.h\"\n#include \"" << isa << "_jit.h\"\n#include <cstddef>\n\n"
      << "namespace " << ns << " {\nnamespace adljit = vplat::adljit;\n\n#if defined(__GNUC__)\n"
      << "#pragma GCC diagnostic ignored \"-Wunused-function\"\n#pragma GCC diagnostic ignored \"-Winvalid-offsetof\"\n#endif\n\n";
    for (auto& f : d.funcs)
      if (!f->is_extern) o << em.func_signature(*f) << ";\n";
    o << "\n";
    for (auto& f : d.funcs) {
      if (f->is_extern) continue;
      try {
        o << em.func(*f);
      } catch (const Unsupported& u) {
        // Functions that only disassembly uses (strings): instructions never reach them.
        o << "// " << f->loc.str() << ": no emitter (" << u.what() << ")\n"
          << em.func_signature(*f) << " {\n  c.unsupported = true;\n  return c.k64(0);\n}\n\n";
      }
    }
    o << "} // namespace " << ns << "\n";
    write_file(dir + isa + "_jit_funcs.h", o.str());
  }

  std::vector<std::string> reasons(d.insns.size());
  {
    int n = std::max(1, opts.chunks);
    std::vector<std::ostringstream> chunks(n);
    for (int c = 0; c < n; ++c)
      chunks[c] << head << "#include \"" << isa << "_jit_funcs.h\"\n\nnamespace " << ns << " {\n\n";
    for (auto& in : d.insns) chunks[in->id % n] << em.insn(*in, reasons[in->id]);
    for (int c = 0; c < n; ++c) {
      chunks[c] << "} // namespace " << ns << "\n";
      write_file(dir + isa + "_jit_" + std::to_string(c) + ".cpp", chunks[c].str());
    }
  }

  {
    std::ostringstream o;
    o << head << "#include \"" << isa << "_jit.h\"\n\nnamespace " << ns << " {\n\n";
    for (auto& in : d.insns) o << "bool je_" << in->name << "(vplat::adljit::Ctx& c, uint64_t insn);\n";
    o << "\nconst JitEmitFn kJitEmit[kNumInsns] = {\n";
    for (auto& in : d.insns) o << "    je_" << in->name << ",\n";
    o << "};\n\nconst char* const kJitFallback[kNumInsns] = {\n";
    for (auto& in : d.insns) {
      if (reasons[in->id].empty()) o << "    nullptr,\n";
      else o << "    \"" << reasons[in->id] << "\",\n";
    }
    o << "};\n\n} // namespace " << ns << "\n";
    write_file(dir + isa + "_jit_table.cpp", o.str());
  }
}

} // namespace adl
