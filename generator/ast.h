// The typed syntax tree of an architecture description. Every backend (C++ interpreter, disassembler,
// metadata, and later the LLVM IR emitter) walks this same tree; nothing about an instruction is kept
// anywhere else.
#pragma once
#include "diag.h"
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace adl {

struct Type {
  enum Kind { Int, U128, Str, Void, Literal } kind = Void;
  int width = 0;        // Int: 1..64; U128: 128
  bool is_signed = false;

  static Type u(int w) { return {Int, w, false}; }
  static Type s(int w) { return {Int, w, true}; }
  static Type u128() { return {U128, 128, false}; }
  static Type str() { return {Str, 0, false}; }
  static Type void_() { return {Void, 0, false}; }
  static Type literal() { return {Literal, 64, false}; } // an integer literal before it meets a sized type
  bool is_int() const { return kind == Int || kind == Literal; }
  bool is_numeric() const { return kind == Int || kind == Literal || kind == U128; }
  bool operator==(const Type& o) const { return kind == o.kind && width == o.width && is_signed == o.is_signed; }
  std::string str_name() const {
    switch (kind) {
    case Int: return (is_signed ? "s" : "u") + std::to_string(width);
    case U128: return "u128";
    case Str: return "str";
    case Void: return "void";
    case Literal: return "integer literal";
    }
    return "?";
  }
};

struct FuncDecl;
struct StateVar;
struct Table;

struct Expr {
  enum Kind {
    Num,      // value
    Ref,      // name: local, parameter, field, or state scalar
    Index,    // state array[a0]
    Slice,    // a0[hi:lo]  (hi, lo are constant)
    Bit,      // a0[a1]
    Call,     // callee(args)
    Cast,     // cast_to(a0)
    Unary,    // op a0
    Binary,   // a0 op a1
    Cond,     // a0 ? a1 : a2
    Cat,      // cat(a...)
    Lane,     // lane(a0, a1, a2): element a2 of a1 bits of the u128 a0 (vector registers)
    WithLane, // with_lane(a0, a1, a2, a3): the u128 a0 with element a2 of a1 bits replaced by a3
    Str,      // string literal (asm only)
    Template, // string template: parts alternate text / expression (asm only)
  } kind;
  Loc loc;
  uint64_t value = 0;
  std::string name; // Ref / Index / Call name, operator for Unary/Binary, text for Str
  std::vector<std::unique_ptr<Expr>> args;
  int hi = 0, lo = 0;
  Type cast_to;
  std::vector<std::string> text_parts; // Template: text before each arg, plus trailing text

  // Filled by the checker.
  Type type;
  bool is_const = false; // depends only on decode-time fields and literals
  enum RefKind { Local, Param, Field, StateScalar, StateArray, TableElem } ref_kind = Local;
  const FuncDecl* func = nullptr; // Call: ADL function or extern
  const StateVar* state = nullptr;
  const Table* table = nullptr; // Index into a constant table
};
using ExprP = std::unique_ptr<Expr>;

struct Stmt {
  enum Kind { Let, Assign, AssignIndex, If, For, Return, ExprStmt, Block } kind;
  Loc loc;
  std::string name;
  std::optional<Type> declared;
  ExprP a, b;           // Let: a=init; Assign: a=value; AssignIndex: a=index,b=value; If: a=cond; For: a=lo,b=hi
  std::vector<std::unique_ptr<Stmt>> body, else_body;
  Type var_type;        // checker: type of the declared/assigned variable
  const StateVar* state = nullptr;
  bool has_else = false;
};
using StmtP = std::unique_ptr<Stmt>;

struct Param {
  std::string name;
  Type type;
  Loc loc;
};

struct FuncDecl {
  std::string name;
  Loc loc;
  Type ret;
  std::vector<Param> params;
  bool is_extern = false;
  bool may_fault = false; // extern declared `fault`, or a function that calls one
  bool pure_extern = false; // extern declared `pure`: no state, no faults; usable in guards and asm
  bool inline_extern = false; // extern declared `inline`: defined in the ISA's inline_helpers header
  bool exported = false;    // `export func`: callable from C++ through <isa>_isa.h
  // A bit-counting primitive every description has (find_builtin): pure, implemented by each backend as
  // its host's instruction for it (adlrt:: in C++, an LLVM intrinsic in the JIT) rather than as ADL code
  // no code generator recognises.
  bool builtin = false;
  std::vector<StmtP> body;
  std::set<std::string> reads, writes; // state touched, transitively (checker)
  std::set<std::string> helpers;       // externs called, transitively (checker)
  bool checked = false, checking = false;
};

struct StateVar {
  std::string name;
  Type type;
  int count = 0; // 0 = scalar
  Loc loc;
};

struct Field {
  std::string name;
  int lsb = 0, width = 0;
  std::optional<uint64_t> bound; // fixed by a format binding
};

struct Pattern {
  uint64_t mask = 0, value = 0;
  int width = 0; // bits of the word the pattern describes (the ISA's or its unit's width)
  std::vector<Field> fields;
  Loc loc;
};

struct Insn {
  std::string name;
  Loc loc;
  std::string unit;     // decode unit ("" = the ISA's own instruction word)
  Pattern pattern;
  struct Attr {
    std::string key, value;
    Loc loc;
  };
  std::vector<Attr> attrs; // `attr key = value` metadata, in order
  ExprP guard;          // `when (...)`: decode-time condition, else the encoding is not this instruction
  std::string cls = "other";
  std::vector<StmtP> body;
  ExprP asm_template;   // either a template expression...
  std::vector<StmtP> asm_body; // ...or a block returning str
  int group = -1;       // ordered overlap group index, or -1
  int id = 0;
  std::set<std::string> reads, writes, helpers;
  bool may_fault = false;
  bool is_branch = false; // writes the next-PC variable
};

// A constant lookup table (`table u8 NAME[N] = {...};`): read-only, usable wherever a pure function is.
struct Table {
  std::string name;
  Type elem;                      // an integer type, or str
  int count = 0;
  std::vector<uint64_t> values;   // integer tables (canonical bits of elem)
  std::vector<std::string> strs;  // str tables
  Loc loc;
};

// A decode unit: a separately decoded instruction word of its own width (Bifrost's FMA and ADD ops).
struct Unit {
  std::string name;
  int width = 0;
  Loc loc;
};

struct Description {
  std::string isa_name;
  int width = 32;
  std::string fault_flag;  // state scalar that helpers set to raise a guest exception
  std::string next_pc;     // state scalar a branch writes
  std::string inline_helpers; // header (include path) defining the `extern inline` helpers
  // `interp_variants BITS "class,...";`: instructions of those classes get interpreter functions specialised
  // on up to BITS bits of small encoding fields (see variant_fields in emit_cpp.cpp).
  int interp_variant_bits = 0;
  std::set<std::string> interp_variant_classes;
  Loc interp_variants_loc;
  std::vector<StateVar> state;
  std::vector<std::unique_ptr<FuncDecl>> funcs;
  std::map<std::string, FuncDecl*> func_by_name;
  std::map<std::string, Pattern> formats; // key: "name" or "unit::name"
  std::vector<Unit> units;
  std::vector<std::unique_ptr<Table>> tables;
  std::set<std::string> attr_keys; // `attr KEY;` in the isa block; when non-empty, insn attrs must use them
  std::vector<std::unique_ptr<Insn>> insns;
  int groups = 0;
  std::vector<std::string> files;

  const Unit* find_unit(const std::string& n) const {
    for (auto& u : units)
      if (u.name == n) return &u;
    return nullptr;
  }
  const Table* find_table(const std::string& n) const {
    for (auto& t : tables)
      if (t->name == n) return t.get();
    return nullptr;
  }
  int unit_width(const std::string& unit) const {
    if (unit.empty()) return width;
    const Unit* u = find_unit(unit);
    return u ? u->width : width;
  }

  const StateVar* find_state(const std::string& n) const {
    for (auto& s : state)
      if (s.name == n) return &s;
    return nullptr;
  }
};

} // namespace adl
