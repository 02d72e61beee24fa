#include "checker.h"
#include <functional>

namespace adl {

bool is_pure(const FuncDecl& f) {
  if (f.is_extern) return f.pure_extern || f.ret.kind == Type::Str;
  return f.reads.empty() && f.writes.empty() && f.helpers.empty() && !f.may_fault;
}

const FuncDecl* find_builtin(const std::string& name) {
  static const std::vector<std::unique_ptr<FuncDecl>> builtins = [] {
    std::vector<std::unique_ptr<FuncDecl>> v;
    for (const char* n : {"clz64", "bitreverse64", "bswap64", "popcount64"}) {
      auto f = std::make_unique<FuncDecl>();
      f->name = n;
      f->loc = Loc{"<builtin>", 0, 0};
      f->ret = Type::u(64);
      f->params.push_back(Param{"x", Type::u(64), f->loc});
      f->is_extern = f->pure_extern = f->builtin = f->checked = true;
      v.push_back(std::move(f));
    }
    return v;
  }();
  for (const auto& f : builtins)
    if (f->name == name) return f.get();
  return nullptr;
}

Type common_type(const Expr& e, const Type& a, const Type& b) {
    if (a.kind == Type::Str || b.kind == Type::Str || a.kind == Type::Void || b.kind == Type::Void)
      fail(e.loc, "operator '" + e.name + "' needs numbers, not " + a.str_name() + " and " + b.str_name());
    if (a.kind == Type::Literal && b.kind == Type::Literal) return Type::literal();
    if (a.kind == Type::Literal) return b;
    if (b.kind == Type::Literal) return a;
    if (a.kind == Type::U128 || b.kind == Type::U128) return Type::u128();
    if (a.width != b.width) return a.width > b.width ? a : b;
    return Type{Type::Int, a.width, a.is_signed && b.is_signed};
}

namespace {

struct Var {
  Type type;
  bool is_const = false;
  Expr::RefKind kind = Expr::Local;
};

enum class Context { Semantics, Function, Guard, Asm };

class Checker {
public:
  explicit Checker(Description& d) : d_(d) {}

  void run() {
    if (d_.isa_name.empty()) fail(Loc{d_.files.empty() ? "<input>" : d_.files[0], 1, 1}, "missing 'isa' declaration");
    for (const char* what : {"fault_flag", "next_pc"}) {
      const std::string& n = std::string(what) == "fault_flag" ? d_.fault_flag : d_.next_pc;
      if (!n.empty() && !d_.find_state(n))
        fail(Loc{d_.files.empty() ? "<input>" : d_.files[0], 1, 1}, std::string(what) + " names unknown state '" + n + "'");
    }
    for (auto& f : d_.funcs)
      if (f->inline_extern && d_.inline_helpers.empty())
        fail(f->loc, "'" + f->name + "' is declared inline, but the isa block names no inline_helpers header");
    for (auto& f : d_.funcs) check_func(*f);
    int id = 0;
    for (auto& in : d_.insns) {
      in->id = id++;
      check_insn(*in);
    }
    check_overlaps();
    // A class name no instruction has is a typo: its instructions would silently keep the shared functions.
    for (const std::string& cls : d_.interp_variant_classes) {
      bool used = false;
      for (auto& in : d_.insns) used = used || in->cls == cls;
      if (!used) fail(d_.interp_variants_loc, "interp_variants names class '" + cls + "', which no instruction has");
    }
  }

private:
  Description& d_;
  std::vector<std::map<std::string, Var>> scopes_;
  const Insn* insn_ = nullptr;
  FuncDecl* func_ = nullptr;
  Context ctx_ = Context::Semantics;
  std::set<std::string>* reads_ = nullptr;
  std::set<std::string>* writes_ = nullptr;
  std::set<std::string>* helpers_ = nullptr;
  bool* may_fault_ = nullptr;
  std::set<std::string> reassigned_;
  int conditional_depth_ = 0; // inside ?: branches or the right side of && / ||

  // ---------------------------------------------------------------- scopes
  Var* lookup(const std::string& n) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  void declare(const Loc& l, const std::string& n, Var v) {
    if (lookup(n)) fail(l, "'" + n + "' is already declared in this scope");
    if (d_.find_state(n)) fail(l, "'" + n + "' hides a state variable of the same name");
    if (d_.func_by_name.count(n)) fail(l, "'" + n + "' hides a function of the same name");
    if (d_.find_table(n)) fail(l, "'" + n + "' hides a table of the same name");
    scopes_.back()[n] = v;
  }

  static void collect_assigned(const std::vector<StmtP>& body, std::set<std::string>& out) {
    for (auto& s : body) {
      if (s->kind == Stmt::Assign) out.insert(s->name);
      collect_assigned(s->body, out);
      collect_assigned(s->else_body, out);
    }
  }

  // ---------------------------------------------------------------- declarations
  void check_func(FuncDecl& f) {
    if (f.checked || f.is_extern) {
      f.checked = true;
      return;
    }
    if (f.checking) fail(f.loc, "function '" + f.name + "' is recursive; descriptions must not recurse");
    f.checking = true;
    // Save the enclosing context: checking a call may check its callee first.
    auto saved_scopes = std::move(scopes_);
    auto saved = std::make_tuple(insn_, func_, ctx_, reads_, writes_, helpers_, may_fault_, reassigned_,
                                 conditional_depth_);
    scopes_.clear();
    scopes_.emplace_back();
    insn_ = nullptr;
    func_ = &f;
    ctx_ = Context::Function;
    reads_ = &f.reads;
    writes_ = &f.writes;
    helpers_ = &f.helpers;
    may_fault_ = &f.may_fault;
    conditional_depth_ = 0;
    reassigned_.clear();
    collect_assigned(f.body, reassigned_);
    for (auto& p : f.params) {
      if (p.type.kind == Type::Void) fail(p.loc, "a parameter cannot be void");
      declare(p.loc, p.name, Var{p.type, false, Expr::Param});
    }
    bool returns = check_block(f.body);
    if (f.ret.kind != Type::Void && !returns)
      fail(f.loc, "function '" + f.name + "' can reach its end without returning a value");
    scopes_ = std::move(saved_scopes);
    std::tie(insn_, func_, ctx_, reads_, writes_, helpers_, may_fault_, reassigned_, conditional_depth_) = saved;
    f.checking = false;
    f.checked = true;
  }

  void declare_fields(const Insn& in) {
    for (auto& fl : in.pattern.fields) declare(in.pattern.loc, fl.name, Var{Type::u(fl.width), true, Expr::Field});
  }

  void check_insn(Insn& in) {
    insn_ = &in;
    func_ = nullptr;
    for (auto& a : in.attrs)
      if (!d_.attr_keys.empty() && !d_.attr_keys.count(a.key))
        fail(a.loc, "unknown attribute '" + a.key + "' (declare it in the isa block: attr " + a.key + ";)");
    std::set<std::string> dummy_r, dummy_w, dummy_h;
    bool dummy_f = false;
    if (in.guard) {
      scopes_.assign(1, {});
      declare_fields(in);
      ctx_ = Context::Guard;
      reads_ = &dummy_r;
      writes_ = &dummy_w;
      helpers_ = &dummy_h;
      may_fault_ = &dummy_f;
      Type t = check_expr(*in.guard);
      if (!(t == Type::u(1))) fail(in.guard->loc, "a 'when' guard must be a condition (u1), not " + t.str_name());
      if (!in.guard->is_const) fail(in.guard->loc, "a 'when' guard may use only encoding fields and constants");
    }
    scopes_.assign(1, {});
    declare_fields(in);
    ctx_ = Context::Semantics;
    reads_ = &in.reads;
    writes_ = &in.writes;
    helpers_ = &in.helpers;
    may_fault_ = &in.may_fault;
    reassigned_.clear();
    collect_assigned(in.body, reassigned_);
    check_block(in.body);
    if (!d_.next_pc.empty() && in.writes.count(d_.next_pc)) in.is_branch = true;

    scopes_.assign(1, {});
    declare_fields(in);
    ctx_ = Context::Asm;
    reads_ = &dummy_r;
    writes_ = &dummy_w;
    helpers_ = &dummy_h;
    may_fault_ = &dummy_f;
    reassigned_.clear();
    if (in.asm_template) {
      Type t = check_expr(*in.asm_template);
      if (t.kind != Type::Str) fail(in.asm_template->loc, "asm must be a string");
    } else {
      collect_assigned(in.asm_body, reassigned_);
      if (!check_block(in.asm_body)) fail(in.loc, "the asm block of '" + in.name + "' can end without returning a string");
    }
    if (!dummy_r.empty() || !dummy_w.empty())
      fail(in.loc, "the asm of '" + in.name + "' touches state; disassembly may use only fields");
  }

  // ---------------------------------------------------------------- statements
  // Returns true when the block always ends in a return.
  bool check_block(std::vector<StmtP>& body) {
    scopes_.emplace_back();
    bool returns = false;
    for (auto& s : body) {
      if (returns) fail(s->loc, "unreachable statement after return");
      returns = check_stmt(*s);
    }
    scopes_.pop_back();
    return returns;
  }

  Type return_type() const {
    if (ctx_ == Context::Asm) return Type::str();
    if (func_) return func_->ret;
    return Type::void_();
  }

  bool check_stmt(Stmt& s) {
    switch (s.kind) {
    case Stmt::Block: return check_block(s.body);
    case Stmt::Let: {
      Type t = check_expr(*s.a);
      if (t.kind == Type::Void) fail(s.a->loc, "cannot bind a void value");
      if (s.declared) {
        require_convertible(*s.a, t, *s.declared, "initialise '" + s.name + "'");
        t = *s.declared;
      } else if (t.kind == Type::Literal) {
        t = Type::u(64);
      }
      s.var_type = t;
      bool is_const = s.a->is_const && !reassigned_.count(s.name);
      declare(s.loc, s.name, Var{t, is_const, Expr::Local});
      return false;
    }
    case Stmt::Assign: {
      Type t = check_expr(*s.a);
      if (Var* v = lookup(s.name)) {
        if (v->kind == Expr::Field) fail(s.loc, "cannot assign to encoding field '" + s.name + "'");
        require_convertible(*s.a, t, v->type, "assign to '" + s.name + "'");
        s.var_type = v->type;
        return false;
      }
      const StateVar* sv = d_.find_state(s.name);
      if (!sv) fail(s.loc, "assignment to undeclared '" + s.name + "'");
      if (sv->count) fail(s.loc, "'" + s.name + "' is an array; assign to an element");
      if (ctx_ == Context::Asm || ctx_ == Context::Guard) fail(s.loc, "state cannot be written here");
      require_convertible(*s.a, t, sv->type, "assign to '" + s.name + "'");
      s.state = sv;
      s.var_type = sv->type;
      writes_->insert(sv->name);
      return false;
    }
    case Stmt::AssignIndex: {
      const StateVar* sv = d_.find_state(s.name);
      if (!sv || !sv->count) fail(s.loc, "'" + s.name + "' is not a state array");
      if (ctx_ == Context::Asm || ctx_ == Context::Guard) fail(s.loc, "state cannot be written here");
      check_index(*s.a, *sv);
      Type t = check_expr(*s.b);
      require_convertible(*s.b, t, sv->type, "assign to an element of '" + s.name + "'");
      s.state = sv;
      s.var_type = sv->type;
      writes_->insert(sv->name);
      return false;
    }
    case Stmt::If: {
      Type c = check_expr(*s.a);
      if (!(c == Type::u(1))) fail(s.a->loc, "an if condition must be u1 (a comparison), not " + c.str_name());
      bool r1 = check_block(s.body);
      bool r2 = s.has_else ? check_block(s.else_body) : false;
      return r1 && r2;
    }
    case Stmt::For: {
      Type a = check_expr(*s.a), b = check_expr(*s.b);
      if (!a.is_int() || !b.is_int()) fail(s.loc, "loop bounds must be integers");
      if (!s.a->is_const || !s.b->is_const)
        fail(s.loc, "loop bounds must be known at decode time (encoding fields and constants only)");
      scopes_.emplace_back();
      s.var_type = Type::u(64);
      declare(s.loc, s.name, Var{Type::u(64), true, Expr::Local});
      check_block(s.body);
      scopes_.pop_back();
      return false;
    }
    case Stmt::Return: {
      Type want = return_type();
      if (ctx_ == Context::Semantics) {
        if (s.a) fail(s.loc, "instruction semantics return no value");
        return true;
      }
      if (!s.a) {
        if (want.kind != Type::Void) fail(s.loc, "missing return value");
        return true;
      }
      Type t = check_expr(*s.a);
      require_convertible(*s.a, t, want, "return");
      s.var_type = want;
      return true;
    }
    case Stmt::ExprStmt: {
      if (s.a->kind != Expr::Call) fail(s.loc, "an expression statement must be a call");
      check_expr(*s.a);
      return false;
    }
    }
    return false;
  }

  void check_index(Expr& idx, const StateVar& sv) {
    Type t = check_expr(idx);
    if (!t.is_int()) fail(idx.loc, "an index must be an integer");
    check_index_range(idx, t, sv.count, sv.name);
  }

  // State arrays and tables share one rule: a constant index must be in range; any other index must be
  // unable to exceed the array (its type is narrow enough), unless the size is a power of two (it wraps).
  void check_index_range(const Expr& idx, const Type& t, int count, const std::string& name) {
    if (idx.kind == Expr::Num) {
      if (idx.value >= static_cast<uint64_t>(count)) fail(idx.loc, "index out of range for '" + name + "'");
      return;
    }
    bool pow2 = (count & (count - 1)) == 0;
    bool fits = t.kind == Type::Int && t.width < 63 && (uint64_t(1) << t.width) <= static_cast<uint64_t>(count);
    if (!pow2 && !fits)
      fail(idx.loc, "an index of type " + t.str_name() + " can exceed '" + name + "[" + std::to_string(count) +
                        "]'; narrow it first");
  }

  // Implicit conversions: literals to any integer type, widening between integers, integers to u128.
  // Narrowing needs an explicit cast or slice, so that no bits are lost silently.
  void require_convertible(const Expr& e, const Type& from, const Type& to, const std::string& what) {
    if (from == to) return;
    if (to.kind == Type::Str || from.kind == Type::Str || to.kind == Type::Void || from.kind == Type::Void)
      fail(e.loc, "cannot " + what + ": " + from.str_name() + " is not " + to.str_name());
    if (from.kind == Type::Literal && to.is_numeric()) return;
    if (from.kind == Type::Int && to.kind == Type::Int && from.width <= to.width) return;
    if (from.kind == Type::Int && to.kind == Type::U128) return;
    fail(e.loc, "cannot " + what + ": converting " + from.str_name() + " to " + to.str_name() +
                    " may lose bits; use an explicit cast or slice");
  }

  // ---------------------------------------------------------------- expressions
  static Type common(const Expr& e, const Type& a, const Type& b) { return common_type(e, a, b); }

  Type check_expr(Expr& e) {
    e.type = check_expr_inner(e);
    return e.type;
  }

  bool all_const(const Expr& e) {
    for (auto& a : e.args)
      if (!a->is_const) return false;
    return true;
  }

  Type check_expr_inner(Expr& e) {
    switch (e.kind) {
    case Expr::Num:
      e.is_const = true;
      return e.cast_to.kind == Type::Int ? e.cast_to : Type::literal();
    case Expr::Str:
      e.is_const = true;
      if (ctx_ == Context::Semantics || ctx_ == Context::Guard) fail(e.loc, "strings are allowed only in asm and functions");
      return Type::str();
    case Expr::Template: {
      if (ctx_ == Context::Semantics || ctx_ == Context::Guard) fail(e.loc, "strings are allowed only in asm and functions");
      for (auto& a : e.args) {
        Type t = check_expr(*a);
        if (!(t.kind == Type::Str || t.is_int())) fail(a->loc, "a template part must be a string or an integer");
      }
      e.is_const = true;
      return Type::str();
    }
    case Expr::Ref: {
      if (Var* v = lookup(e.name)) {
        e.ref_kind = v->kind;
        e.is_const = v->is_const;
        return v->type;
      }
      if (const StateVar* sv = d_.find_state(e.name)) {
        if (sv->count) fail(e.loc, "'" + e.name + "' is an array; index it");
        if (ctx_ == Context::Asm || ctx_ == Context::Guard) fail(e.loc, "state cannot be read here");
        e.ref_kind = Expr::StateScalar;
        e.state = sv;
        reads_->insert(sv->name);
        return sv->type;
      }
      fail(e.loc, "undeclared name '" + e.name + "'");
    }
    case Expr::Index: {
      if (lookup(e.name)) {
        // A bit of a local value: rewrite as Bit.
        auto base = std::make_unique<Expr>();
        base->kind = Expr::Ref;
        base->loc = e.loc;
        base->name = e.name;
        e.args.insert(e.args.begin(), std::move(base));
        e.kind = Expr::Bit;
        return check_expr_inner(e);
      }
      if (const Table* tb = d_.find_table(e.name)) {
        Type it = check_expr(*e.args[0]);
        if (!it.is_int()) fail(e.args[0]->loc, "an index must be an integer");
        check_index_range(*e.args[0], it, tb->count, tb->name);
        e.table = tb;
        e.ref_kind = Expr::TableElem;
        e.is_const = e.args[0]->is_const;
        return tb->elem;
      }
      const StateVar* sv = d_.find_state(e.name);
      if (!sv) fail(e.loc, "undeclared name '" + e.name + "'");
      if (!sv->count) {
        auto base = std::make_unique<Expr>();
        base->kind = Expr::Ref;
        base->loc = e.loc;
        base->name = e.name;
        e.args.insert(e.args.begin(), std::move(base));
        e.kind = Expr::Bit;
        return check_expr_inner(e);
      }
      if (ctx_ == Context::Asm || ctx_ == Context::Guard) fail(e.loc, "state cannot be read here");
      check_index(*e.args[0], *sv);
      e.state = sv;
      e.ref_kind = Expr::StateArray;
      reads_->insert(sv->name);
      return sv->type;
    }
    case Expr::Slice: {
      Type t = check_expr(*e.args[0]);
      if (t.kind == Type::Literal) t = Type::u(64);
      if (!(t.kind == Type::Int || t.kind == Type::U128)) fail(e.loc, "only numbers can be sliced");
      if (e.hi < e.lo || e.hi >= t.width) fail(e.loc, "slice [" + std::to_string(e.hi) + ":" + std::to_string(e.lo) +
                                                          "] is outside a " + t.str_name());
      if (e.hi - e.lo + 1 > 64) fail(e.loc, "a slice is at most 64 bits wide");
      e.is_const = e.args[0]->is_const;
      return Type::u(e.hi - e.lo + 1);
    }
    case Expr::Bit: {
      Type t = check_expr(*e.args[0]);
      Type i = check_expr(*e.args[1]);
      if (!t.is_numeric() || !i.is_int()) fail(e.loc, "bit selection needs a number and an integer index");
      e.is_const = all_const(e);
      return Type::u(1);
    }
    case Expr::Cast: {
      Type t = check_expr(*e.args[0]);
      if (!t.is_numeric() || !e.cast_to.is_numeric()) fail(e.loc, "only numbers can be cast");
      e.is_const = e.args[0]->is_const;
      return e.cast_to;
    }
    case Expr::Cat: {
      int w = 0;
      for (auto& a : e.args) {
        Type t = check_expr(*a);
        if (t.kind != Type::Int) fail(a->loc, "cat() operands must have sized integer types (cast literals)");
        w += t.width;
      }
      if (e.args.empty() || w > 64) fail(e.loc, "cat() result must be 1..64 bits");
      e.is_const = all_const(e);
      return Type::u(w);
    }
    case Expr::Lane:
    case Expr::WithLane: {
      // Parameters as if declared lane(u128 v, u64 esize, u64 i) -> u64 and
      // with_lane(u128 v, u64 esize, u64 i, u64 x) -> u128.
      const bool with = e.kind == Expr::WithLane;
      const char* name = with ? "with_lane" : "lane";
      if (e.args.size() != (with ? 4u : 3u))
        fail(e.loc, std::string(name) + "() takes " + (with ? "4" : "3") + " arguments, not " +
                        std::to_string(e.args.size()));
      for (size_t i = 0; i < e.args.size(); ++i) {
        Type t = check_expr(*e.args[i]);
        require_convertible(*e.args[i], t, i == 0 ? Type::u128() : Type::u(64),
                            "pass argument " + std::to_string(i + 1) + " of '" + name + "'");
      }
      e.is_const = all_const(e);
      return with ? Type::u128() : Type::u(64);
    }
    case Expr::Unary: {
      Type t = check_expr(*e.args[0]);
      e.is_const = e.args[0]->is_const;
      if (e.name == "!") {
        if (!(t == Type::u(1))) fail(e.loc, "'!' needs a u1 operand");
        return t;
      }
      if (!t.is_numeric()) fail(e.loc, "'" + e.name + "' needs a number");
      return t;
    }
    case Expr::Binary: {
      Type a = check_expr(*e.args[0]);
      if (e.name == "&&" || e.name == "||") ++conditional_depth_;
      Type b = check_expr(*e.args[1]);
      if (e.name == "&&" || e.name == "||") --conditional_depth_;
      e.is_const = all_const(e);
      const std::string& op = e.name;
      if (op == "&&" || op == "||") {
        if (!(a == Type::u(1)) || !(b == Type::u(1))) fail(e.loc, "'" + op + "' needs u1 operands");
        return Type::u(1);
      }
      if (op == "+" && (a.kind == Type::Str || b.kind == Type::Str)) {
        if (a.kind != Type::Str || b.kind != Type::Str) fail(e.loc, "'+' on strings needs two strings");
        return Type::str();
      }
      if (op == "<<" || op == ">>") {
        if (!a.is_numeric() || !b.is_int()) fail(e.loc, "shift needs a number and an integer amount");
        return a.kind == Type::Literal && b.kind != Type::Literal ? Type::u(64) : a;
      }
      Type c = common(e, a, b);
      if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") return Type::u(1);
      return c;
    }
    case Expr::Cond: {
      Type c = check_expr(*e.args[0]);
      if (!(c == Type::u(1))) fail(e.loc, "a ?: condition must be u1");
      ++conditional_depth_;
      Type a = check_expr(*e.args[1]);
      Type b = check_expr(*e.args[2]);
      --conditional_depth_;
      e.is_const = all_const(e);
      if (a.kind == Type::Str || b.kind == Type::Str) {
        if (a.kind != b.kind) fail(e.loc, "both ?: branches must be strings");
        return a;
      }
      Type t = common(e, a, b);
      return t;
    }
    case Expr::Call: {
      auto it = d_.func_by_name.find(e.name);
      const FuncDecl* builtin = it == d_.func_by_name.end() ? find_builtin(e.name) : nullptr;
      if (it == d_.func_by_name.end() && !builtin)
        fail(e.loc, "call to undeclared function '" + e.name + "'");
      const FuncDecl& f = builtin ? *builtin : *it->second;
      if (!f.is_extern) check_func(*it->second);
      e.func = &f;
      if (e.args.size() != f.params.size())
        fail(e.loc, "'" + f.name + "' takes " + std::to_string(f.params.size()) + " arguments, not " +
                        std::to_string(e.args.size()));
      for (size_t i = 0; i < e.args.size(); ++i) {
        Type t = check_expr(*e.args[i]);
        require_convertible(*e.args[i], t, f.params[i].type, "pass argument " + std::to_string(i + 1) + " of '" + f.name + "'");
      }
      bool pure = is_pure(f);
      if ((ctx_ == Context::Guard || ctx_ == Context::Asm) && !pure)
        fail(e.loc, "'" + f.name + "' touches state or may fault; it cannot be used here");
      if (f.may_fault && conditional_depth_ > 0)
        fail(e.loc, "'" + f.name + "' may fault, so it cannot be evaluated conditionally (inside ?:, && or ||); use if");
      if (f.is_extern) {
        if (!pure) helpers_->insert(f.name);
      } else {
        reads_->insert(f.reads.begin(), f.reads.end());
        writes_->insert(f.writes.begin(), f.writes.end());
        helpers_->insert(f.helpers.begin(), f.helpers.end());
      }
      if (f.may_fault) *may_fault_ = true;
      e.is_const = pure && all_const(e);
      return f.ret;
    }
    }
    fail(e.loc, "internal: unknown expression");
  }

  // ---------------------------------------------------------------- encodings
  void check_overlaps() {
    const auto& v = d_.insns;
    for (size_t i = 0; i < v.size(); ++i)
      for (size_t j = i + 1; j < v.size(); ++j) {
        const Pattern &a = v[i]->pattern, &b = v[j]->pattern;
        if (v[i]->unit != v[j]->unit) continue;
        if (((a.value ^ b.value) & a.mask & b.mask) != 0) continue;
        if (v[i]->group >= 0 && v[i]->group == v[j]->group) continue;
        fail(v[j]->loc, "encoding of '" + v[j]->name + "' overlaps '" + v[i]->name + "' (" + v[i]->loc.str() +
                            "); declare both in one overlap group, in priority order");
      }
  }
};

} // namespace

void check(Description& desc) { Checker(desc).run(); }

} // namespace adl
