#include "bifrost_asm.h"
#include "bifrost_isa.h"
#include <algorithm>
#include <sstream>

namespace bifrost_asm {

namespace gen = vplat::gen::bifrost;
using u128 = vplat::adlrt::u128;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  std::string x;
  while (in >> x) w.push_back(x);
  return w;
}

uint64_t number(const std::string& s) {
  try {
    size_t used = 0;
    uint64_t v = std::stoull(s, &used, 0);
    if (used != s.size()) throw Error("bad number '" + s + "'");
    return v;
  } catch (const std::logic_error&) {
    throw Error("bad number '" + s + "'");
  }
}

int find_insn(const std::string& name) {
  for (int i = 0; i < gen::kNumInsns; ++i)
    if (name == gen::kInsnInfo[i].name) return i;
  return -1;
}

Op parse_op(const std::string& text, bool fma_unit) {
  auto w = words(text);
  if (w.empty()) throw Error("missing instruction");
  Op op;
  op.name = adl_name(w[0], fma_unit);
  for (size_t i = 1; i < w.size(); ++i) {
    auto eq = w[i].find('=');
    if (eq == std::string::npos) throw Error("expected field=value, got '" + w[i] + "'");
    op.fields[w[i].substr(0, eq)] = number(w[i].substr(eq + 1));
  }
  return op;
}

int reg_number(const std::string& s) {
  std::string v = s[0] == 'r' ? s.substr(1) : s;
  uint64_t r = number(v);
  if (r > 63) throw Error("register out of range: " + s);
  return static_cast<int>(r);
}

// ---- register block (inverse of base.adl's regs_* functions; verified against them)

uint64_t encode_regs(const Tuple& now, const Tuple& prev, bool first) {
  unsigned s2 = 0, s3 = 0, fma3 = 0, reg2 = 0, reg3 = 0;
  if (prev.write_add >= 0) {
    s3 = 2;
    reg3 = static_cast<unsigned>(prev.write_add);
  }
  if (prev.write_fma >= 0) {
    if (s3) {
      if (now.port[2] >= 0) throw Error("slot 2 cannot both read r" + std::to_string(now.port[2]) + " and write");
      s2 = 2;
      reg2 = static_cast<unsigned>(prev.write_fma);
    } else {
      s3 = 2;
      fma3 = 1;
      reg3 = static_cast<unsigned>(prev.write_fma);
    }
  }
  if (now.port[2] >= 0) {
    s2 = 1;
    reg2 = static_cast<unsigned>(now.port[2]);
  }
  int mode = -1;
  if (!s2 && !s3) mode = first ? 16 : 27;
  else
    for (int m = 0; m < 32; ++m)
      if (gen::kTable_REG_SLOT2[m] == s2 && gen::kTable_REG_SLOT3[m] == s3 && gen::kTable_REG_SLOT3_FMA[m] == fma3) {
        mode = m;
        break;
      }
  if (mode < 0) throw Error("no register mode reads/writes that combination");
  unsigned ctrl;
  bool r2_eq_r3;
  if (first) {
    if (mode & 8) throw Error("the first tuple's block cannot encode mode " + std::to_string(mode));
    ctrl = (mode & 7) | ((mode & 16) >> 1);
    r2_eq_r3 = !(s2 && s3);
  } else {
    ctrl = mode & 15;
    r2_eq_r3 = (mode & 16) != 0;
  }
  int p0 = now.port[0], p1 = now.port[1];
  unsigned reg0 = 0, reg1 = 0, ctrl_field = 0;
  if (p1 >= 0) {
    if (p0 < 0 || p0 >= p1) throw Error("port 1 needs port 0 and p0 < p1");
    if (p0 > 31) {
      p0 = 63 - p0;
      p1 = 63 - p1;
    }
    reg0 = static_cast<unsigned>(p0);
    reg1 = static_cast<unsigned>(p1);
    ctrl_field = ctrl;
  } else {
    reg1 = ctrl << 2;
    if (p0 >= 0) {
      reg1 |= static_cast<unsigned>(p0) >> 5;
      reg0 = static_cast<unsigned>(p0) & 31;
    } else {
      reg1 |= 2;
    }
  }
  if (r2_eq_r3) {
    if (s2) reg3 = reg2;
    else reg2 = reg3;
  } else if (reg2 == reg3) {
    if (!s2) reg2 = (reg3 + 1) & 63;
    else if (!s3) reg3 = (reg2 + 1) & 63;
    else throw Error("slots 2 and 3 need different registers in this mode");
  }
  uint64_t r = uint64_t(now.fau & 0xff) | uint64_t(reg3) << 8 | uint64_t(reg2) << 14 | uint64_t(reg0) << 20 |
               uint64_t(reg1) << 25 | uint64_t(ctrl_field) << 31;
  // Decode it back with the description's rules.
  if (gen::regs_mode(r, first) != static_cast<unsigned>(mode)) throw Error("register block does not round-trip");
  if (now.port[0] >= 0 && (!gen::regs_read0(r) || gen::regs_port0(r) != static_cast<unsigned>(now.port[0])))
    throw Error("port 0 does not round-trip");
  if (now.port[1] >= 0 && (!gen::regs_read1(r) || gen::regs_port1(r) != static_cast<unsigned>(now.port[1])))
    throw Error("port 1 does not round-trip");
  if (now.port[0] < 0 && gen::regs_read0(r)) throw Error("port 0 unexpectedly enabled");
  return r;
}

// ---- container (inverse of qword_tuple_bits and friends; decode_clause checks the result in the tests)

uint64_t bits(u128 v, unsigned lo, unsigned n) { return static_cast<uint64_t>(v >> lo) & ((uint64_t(1) << n) - 1); }

unsigned upper(const std::vector<u128>& t, unsigned i) {
  if (i >= t.size()) throw Error("format refers to a missing tuple");
  return static_cast<unsigned>(bits(t[i], 75, 3));
}

uint64_t tuple_piece(const std::vector<u128>& t, unsigned code, unsigned lo, unsigned n) {
  unsigned i = code - 8;
  if (i >= t.size()) throw Error("format refers to a missing tuple");
  return bits(t[i], lo, n);
}

unsigned tag_part(unsigned code, const std::vector<u128>& t) {
  if (code < 8) return code;
  if (code >= 32 && code < 40) return upper(t, code - 32);
  throw Error("bad tag code");
}

} // namespace

std::string adl_name(const std::string& text, bool fma_unit) {
  if (find_insn(text) >= 0) return text;
  std::string n = text;
  bool fma = fma_unit;
  if (!n.empty() && (n[0] == '*' || n[0] == '+')) {
    fma = n[0] == '*';
    n = n.substr(1);
  }
  std::replace(n.begin(), n.end(), '.', '_');
  std::string full = (fma ? "FMA_" : "ADD_") + n;
  if (find_insn(full) < 0) throw Error("unknown instruction '" + text + "'");
  return full;
}

uint32_t encode_op(const Op& op, bool fma_unit) {
  int id = find_insn(op.name);
  if (id < 0) throw Error("unknown instruction '" + op.name + "'");
  const auto& info = gen::kInsnInfo[id];
  if (std::string(info.unit) != (fma_unit ? "fma" : "add"))
    throw Error(op.name + " is not an " + (fma_unit ? "FMA" : "ADD") + " instruction");
  uint64_t w = info.value;
  for (auto& [name, v] : op.fields) {
    const vplat::gen::bifrost::FieldInfo* f = nullptr;
    for (int i = 0; i < info.num_fields; ++i)
      if (name == info.fields[i].name) f = &info.fields[i];
    if (!f || f->bound >= 0) throw Error(op.name + " has no settable field '" + name + "'");
    if (f->width < 64 && (v >> f->width)) throw Error("value too wide for field '" + name + "'");
    w |= v << f->lsb;
  }
  int back = fma_unit ? gen::decode_fma(w) : gen::decode_add(w);
  if (back != id) throw Error(op.name + " with these fields is not that instruction (guard)");
  return static_cast<uint32_t>(w);
}

Clause parse(const std::string& text) {
  Clause c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    auto w = words(line);
    if (w.empty()) continue;
    if (w[0] == "header") {
      for (size_t i = 1; i < w.size(); ++i) {
        auto eq = w[i].find('=');
        std::string k = w[i].substr(0, eq);
        uint64_t v = eq == std::string::npos ? 1 : number(w[i].substr(eq + 1));
        auto put = [&](unsigned lo, unsigned n) {
          if (v >> n) throw Error("header field too wide: " + k);
          c.header |= v << lo;
        };
        if (k == "flow") put(11, 3);
        else if (k == "sr") put(18, 6);
        else if (k == "wait") put(24, 8);
        else if (k == "ds") put(32, 3);
        else if (k == "msg") put(35, 5);
        else if (k == "next_msg") put(40, 5);
        else if (k == "ncph") put(16, 1);
        else if (k == "td") put(15, 1);
        else if (k == "osrb") put(17, 1);
        else throw Error("unknown header field '" + k + "'");
      }
    } else if (w[0] == "tuple") {
      auto segs = split(line.substr(line.find("tuple") + 5), ';');
      Tuple t;
      for (auto& opt : words(segs[0])) {
        auto eq = opt.find('=');
        if (eq == std::string::npos) throw Error("bad tuple option '" + opt + "'");
        std::string k = opt.substr(0, eq), v = opt.substr(eq + 1);
        if (k == "p0" || k == "p1" || k == "p2") t.port[k[1] - '0'] = reg_number(v);
        else if (k == "fau") {
          if (v[0] == 'u') t.fau = 0x80 | static_cast<int>(number(v.substr(1)) & 0x7f);
          else if (v[0] == 'c') t.fau_const = static_cast<int>(number(v.substr(1)));
          else if (v == "lane_id") t.fau = 1;
          else t.fau = static_cast<int>(number(v) & 0xff);
        } else {
          throw Error("unknown tuple option '" + k + "'");
        }
      }
      if (segs.size() > 1 && !words(segs[1]).empty()) t.fma = parse_op(segs[1], true);
      if (segs.size() > 2 && !words(segs[2]).empty()) t.add = parse_op(segs[2], false);
      if (segs.size() > 3)
        for (auto& wr : words(segs[3])) {
          auto arrow = wr.find("->");
          if (arrow == std::string::npos) throw Error("bad write '" + wr + "'");
          std::string unit = wr.substr(0, arrow);
          int r = reg_number(wr.substr(arrow + 2));
          if (unit == "fma") t.write_fma = r;
          else if (unit == "add") t.write_add = r;
          else throw Error("bad write '" + wr + "'");
        }
      c.tuples.push_back(t);
    } else if (w[0] == "const") {
      if (w.size() == 3 && w[1] == "pchi") {
        if (c.pc_relative >= 0) throw Error("one PC-relative constant per clause");
        c.pc_relative = static_cast<int>(c.constants.size());
        c.constants.push_back((number(w[2]) & 0x0fffffffull) << 32);
      } else if (w.size() == 2) {
        c.constants.push_back(number(w[1]));
      } else {
        throw Error("bad const line");
      }
    } else {
      throw Error("unknown directive '" + w[0] + "'");
    }
  }
  return c;
}

std::vector<uint64_t> encode(const Clause& cin) {
  Clause c = cin;
  unsigned n = static_cast<unsigned>(c.tuples.size());
  if (n < 1 || n > 8) throw Error("a clause has 1..8 tuples");
  // FAU indices of embedded constants: FAU_CONST_SLOT code in [6:4], the constant's low nibble in [3:0].
  for (auto& t : c.tuples) {
    if (t.fau_const < 0) continue;
    if (static_cast<size_t>(t.fau_const) >= c.constants.size()) throw Error("fau=c" + std::to_string(t.fau_const) + ": no such constant");
    int code = -1;
    for (int k = 0; k < 8; ++k)
      if (gen::kTable_FAU_CONST_SLOT[k] == t.fau_const) code = k;
    if (code < 0) throw Error("constant index out of range");
    t.fau = (code << 4) | static_cast<int>(c.constants[static_cast<size_t>(t.fau_const)] & 0xf);
  }
  bool ec0 = gen::kTable_CLAUSE_EC0[n - 1] != 0;
  unsigned k = static_cast<unsigned>(c.constants.size());
  if (ec0 && k == 0) c.constants.push_back(0), k = 1;
  unsigned first_pair = ec0 ? 1 : 0;
  if ((k - first_pair) % 2) c.constants.push_back(0), ++k;
  // M bits: EC0's come from the M subword (formats 3/8) when it has one; a pair's from its top nibbles.
  unsigned m0 = 0;
  if (ec0 && c.pc_relative == 0) {
    bool has_m = false;
    for (unsigned i = 0; i < 6; ++i) {
      unsigned row = gen::kTable_CLAUSE_ROWS[(n - 1) * 6 + i];
      if (row < 14 && gen::kTable_FMT_S4[row] == 19) has_m = true;
    }
    if (!has_m) throw Error("this tuple count has no M bits for a PC-relative constant 0");
    m0 = 4; // M1 = 4: constant 0 is PC_HI
  }
  for (unsigned i = first_pair; i + 1 < k; i += 2) {
    unsigned b1 = static_cast<unsigned>(c.constants[i + 1] >> 60);
    if (c.pc_relative == static_cast<int>(i)) {
      c.constants[i] = (c.constants[i] & 0x0fffffffffffffffull) | (uint64_t((b1 + 4) & 15) << 60);
      continue;
    }
    if (c.pc_relative == static_cast<int>(i + 1)) throw Error("a PC-relative constant must be first of its pair");
    unsigned m1 = ((c.constants[i] >> 60) - b1) & 15;
    if (m1 != 0 && m1 < 8) throw Error("constants " + std::to_string(i) + " and " + std::to_string(i + 1) +
                                       " read as PC-relative in this order; swap them");
  }

  std::vector<u128> tb(n);
  for (unsigned i = 0; i < n; ++i) {
    const Tuple& t = c.tuples[i];
    const Tuple& prev = c.tuples[(i + n - 1) % n];
    uint64_t regs = encode_regs(t, prev, i == 0);
    uint64_t fma = encode_op(t.fma, true), add = encode_op(t.add, false);
    tb[i] = u128(regs) | (u128(fma) << 35) | (u128(add) << 58);
  }
  uint64_t ec = ec0 ? c.constants[0] >> 4 : 0;
  unsigned const_quads = (k - first_pair) / 2;
  std::vector<uint64_t> out;
  for (unsigned pos = 0; pos < gen::kTable_CLAUSE_QWORDS[n - 1]; ++pos) {
    unsigned row = gen::kTable_CLAUSE_ROWS[(n - 1) * 6 + pos];
    unsigned fmt = gen::kTable_FMT_NUMBER[row];
    unsigned t1 = gen::kTable_FMT_TAG1[row];
    uint64_t tag = tag_part(gen::kTable_FMT_TAG3[row], tb) | tag_part(gen::kTable_FMT_TAG2[row], tb) << 3;
    tag |= t1 == 20 ? uint64_t(const_quads == 0) << 6 : uint64_t(t1) << 6;
    auto sub = [&](unsigned code, unsigned width, unsigned tuple_lo) -> uint64_t {
      if (code == 16) return 0; // header: handled by the caller
      if (code == 17) return 0;
      if (code == 19) return m0;
      if (code >= 8 && code < 16) return tuple_piece(tb, code, tuple_lo, width);
      throw Error("internal: subword code");
    };
    uint64_t s03, s4, s56, s7;
    unsigned c03 = gen::kTable_FMT_S03[row], c4 = gen::kTable_FMT_S4[row], c56 = gen::kTable_FMT_S56[row],
             c7 = gen::kTable_FMT_S7[row];
    s03 = c03 == 18 ? ec : sub(c03, 60, 0);
    s4 = sub(c4, 15, 60);
    if (c56 == 16) s56 = c.header & ((1u << 30) - 1);
    else if (c56 == 18) s56 = (ec >> 15) & ((1u << 30) - 1);
    else s56 = sub(c56, 30, (fmt == 2 || fmt == 7) ? 0 : 45);
    if (c7 == 16) s7 = c.header >> 30;
    else if (c7 == 18) s7 = (fmt == 5 || fmt == 10) ? (ec & 0x7fff) : (ec >> 45);
    else if (c7 == 55) s7 = upper(tb, 2) << 12 | upper(tb, 3) << 9;
    else if (c7 == 88) s7 = upper(tb, 5) << 12 | upper(tb, 6) << 9;
    else if (c7 >= 32 && c7 < 40) s7 = uint64_t(upper(tb, c7 - 32)) << 12;
    else s7 = sub(c7, 15, 30);
    out.push_back(tag | (s03 & ((1ull << 56) - 1)) << 8);
    out.push_back(s03 >> 56 | s4 << 4 | s56 << 19 | (s7 & 0x7fff) << 49);
  }
  for (unsigned w = 0; w < const_quads; ++w) {
    unsigned idx = first_pair + 2 * w;
    int pos = -1;
    for (int p = 0; p < 15; ++p)
      if (gen::kTable_CONST_POS_TUPLES[p] == n && gen::kTable_CONST_POS_INDEX[p] == idx) pos = p;
    if (pos < 0) throw Error("too many constants for " + std::to_string(n) + " tuples");
    bool more = w + 1 < const_quads;
    uint64_t tag = uint64_t(pos) | uint64_t(more ? 0x3 : 0x7) << 4;
    uint64_t imm1 = c.constants[idx] >> 4, imm2 = c.constants[idx + 1] >> 4;
    out.push_back(tag | imm1 << 8);
    out.push_back(imm1 >> 56 | imm2 << 4);
  }
  return out;
}

} // namespace bifrost_asm
