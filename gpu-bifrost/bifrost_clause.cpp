#include "gpu-bifrost/bifrost_clause.h"
#include "bifrost_isa.h"
#include "gpu-bifrost/clause_stats.h"
#include "gpu-bifrost/clause_timing.h"
#include <algorithm>
#include <cstdio>
#include <cstring>

namespace vplat::gpu::bifrost {

namespace gen = vplat::gen::bifrost;
using u128 = vplat::adlrt::u128;

unsigned DecodedClause::flow() const {
  return gen::header_flow(header);
}
unsigned DecodedClause::staging_register() const {
  return gen::header_staging_register(header);
}

namespace {

bool invalid(DecodedClause& c, const std::string& why) {
  c.exception = kInstrInvalidEnc;
  c.error = why;
  return true;
}

// Which tuple count a sequence of table rows is the packing of (CLAUSE_ROWS), or 0.
unsigned tuple_count_of(const std::array<uint8_t, kMaxClauseQwords>& rows, unsigned n) {
  for (unsigned t = 1; t <= kMaxTuples; ++t) {
    if (gen::kTable_CLAUSE_QWORDS[t - 1] != n) continue;
    bool same = true;
    for (unsigned i = 0; i < n && same; ++i) same = gen::kTable_CLAUSE_ROWS[(t - 1) * 6 + i] == rows[i];
    if (same) return t;
  }
  return 0;
}

void decode_writes(DecodedTuple& t, uint64_t next_regs, bool next_is_first) {
  unsigned mode = gen::regs_mode(next_regs, next_is_first);
  t.write2 = static_cast<SlotOp>(gen::mode_slot2(mode));
  t.write3 = static_cast<SlotOp>(gen::mode_slot3(mode));
  if (t.write2 == SlotOp::Read) t.write2 = SlotOp::Idle; // a read of the next tuple, not a write of this one
  t.write3_fma = gen::mode_slot3_fma(mode);
  t.write2_reg = static_cast<uint8_t>(gen::regs_reg2(next_regs));
  t.write3_reg = static_cast<uint8_t>(gen::regs_reg3(next_regs));
}

ClauseMetrics clause_metrics(const DecodedClause& c) {
  ClauseMetrics m;
  for (unsigned i = 0; i < c.tuple_count; ++i) {
    const DecodedTuple& t = c.tuples[i];
    for (bool p : t.port_read) m.reg_reads += p;
    m.reg_writes += (t.write2 != SlotOp::Idle) + (t.write3 != SlotOp::Idle);
    for (bool fma : {true, false}) {
      int id = fma ? t.fma_id : t.add_id;
      uint32_t word = fma ? t.fma_word : t.add_word;
      const InsnStatic& s = insn_static(id);
      m.nops += s.nop;
      m.staging_reads += s.staging_reads;
      m.staging_writes += s.staging_writes;
      for (unsigned k = 0; k < s.srcs; ++k) {
        unsigned sel = (word >> s.src_lsb[k]) & 7;
        // Source 3 is the constant #0 on the FMA unit and the FMA result (t) on the ADD unit.
        if (sel == 6 || sel == 7 || (sel == 3 && !fma))
          ++m.temp_reads;
        else if (sel == 4 || sel == 5) {
          if (t.fau_kind == FauKind::Uniform)
            ++m.fau_uniform;
          else if (t.fau_kind == FauKind::Constant)
            ++m.fau_constant;
          else
            ++m.fau_special;
        }
      }
      if (s.mem != MemOp::None && m.access_count < m.accesses.size()) {
        ClauseMetrics::Access& a = m.accesses[m.access_count++];
        a.op = s.mem;
        a.bytes = s.mem_bytes;
        a.seg = s.fixed_seg;
        if (s.seg_lsb >= 0) {
          unsigned seg = (word >> s.seg_lsb) & 7; // ISA.xml: 1 none, 2 wls, 3 stream, 4 ubo, 7 tl
          a.seg = seg == 2 ? MemSeg::Wls : seg == 4 ? MemSeg::Ubo : seg == 7 ? MemSeg::Tls : MemSeg::Global;
        } else if (s.wls_lsb >= 0 && ((word >> s.wls_lsb) & 1))
          a.seg = MemSeg::Wls;
      }
    }
  }
  return m;
}

} // namespace

bool decode_clause(uint64_t address, const QwordReader& read, DecodedClause& c) {
  c = DecodedClause{};
  c.address = address;
  if (address & 15) return invalid(c, "clause address not 16-byte aligned");
  std::array<u128, kMaxTuples> tuple_bits{};
  std::array<uint8_t, kMaxClauseQwords> rows{};
  unsigned tuple_qwords = 0;
  uint64_t ec0 = 0;
  unsigned m0 = 8;
  bool tuples_done = false, done = false;
  for (unsigned i = 0; !done; ++i) {
    if (i >= kMaxClauseQwords) return invalid(c, "clause does not end");
    uint64_t lo = 0, hi = 0;
    if (!read(address + 16ull * i, lo, hi)) return false;
    c.qwords = i + 1;
    u128 q = (u128(hi) << 64) | lo;
    unsigned row = gen::qword_row(q);
    if (row == 15) return invalid(c, "quadword " + std::to_string(i) + ": invalid tag");
    if (row == 14) { // constant quadword
      if (!tuples_done) return invalid(c, "constant quadword before the clause's tuples end");
      unsigned pos = gen::cqword_pos(q);
      if (gen::kTable_CONST_POS_TUPLES[pos] != c.tuple_count)
        return invalid(c, "constant quadword position " + std::to_string(pos) + " does not fit " +
                              std::to_string(c.tuple_count) + " tuples");
      unsigned idx = gen::kTable_CONST_POS_INDEX[pos];
      unsigned m1 = gen::cqword_m1(q), m2 = gen::cqword_m2(q);
      for (unsigned k = 0; k < 2; ++k) {
        unsigned mod = gen::const_mod(m1, m2, k);
        if (mod == 4) return invalid(c, "reserved constant modifier");
        c.constants[idx + k] = gen::cqword_imm(q, k);
        c.const_mods[idx + k] = static_cast<uint8_t>(mod);
      }
      c.constant_count = std::max(c.constant_count, idx + 2);
      done = gen::cqword_final(q);
      continue;
    }
    if (tuples_done) return invalid(c, "tuple quadword after the clause's tuples ended");
    rows[tuple_qwords++] = static_cast<uint8_t>(row);
    for (unsigned t = 0; t < kMaxTuples; ++t) tuple_bits[t] |= gen::qword_tuple_bits(q, row, t);
    if (gen::kTable_FMT_S56[row] == 16) c.header = gen::qword_header(q);
    ec0 |= gen::qword_ec0_bits(q, row);
    if (gen::qword_m0(q, row) != 8) m0 = gen::qword_m0(q, row);
    if (gen::kTable_FMT_TAG1[row] == 20) { // the Z bit: the last tuple quadword
      tuples_done = true;
      c.tuple_count = tuple_count_of(rows, tuple_qwords);
      if (c.tuple_count == 0) return invalid(c, "quadword formats do not form a clause");
      done = (lo >> 6) & 1;
      if (gen::kTable_CLAUSE_EC0[c.tuple_count - 1]) {
        unsigned mod = gen::const_mod(m0 & 15, m0 >> 4, 0);
        if (mod == 4) return invalid(c, "reserved constant modifier");
        c.constants[0] = ec0;
        c.const_mods[0] = static_cast<uint8_t>(mod);
        c.constant_count = std::max(c.constant_count, 1u);
      }
    }
  }
  if (gen::header_reserved_bits_set(c.header)) return invalid(c, "reserved header bits set");

  unsigned n = c.tuple_count;
  for (unsigned i = 0; i < n; ++i) {
    DecodedTuple& t = c.tuples[i];
    u128 bits = tuple_bits[i];
    t.regs = gen::tuple_regs(bits);
    t.fma_word = static_cast<uint32_t>(gen::tuple_fma(bits));
    t.add_word = static_cast<uint32_t>(gen::tuple_add(bits));
    t.fma_id = gen::decode_fma(t.fma_word);
    t.add_id = gen::decode_add(t.add_word);
    bool first = i == 0;
    unsigned mode = gen::regs_mode(t.regs, first);
    if (!gen::mode_valid(mode)) return invalid(c, "tuple " + std::to_string(i) + ": reserved register mode");
    // The first block must repeat reg2 in reg3 unless both slots are busy (bi_pack.c: otherwise the hardware
    // raises INSTR_INVALID_ENC).
    if (first && !(gen::mode_slot2(mode) && gen::mode_slot3(mode)) &&
        gen::regs_reg2(t.regs) != gen::regs_reg3(t.regs))
      return invalid(c, "first tuple: reg2 != reg3 with a slot idle");
    t.port_read[0] = gen::regs_read0(t.regs);
    t.port_read[1] = gen::regs_read1(t.regs);
    t.port_read[2] = gen::mode_slot2(mode) == static_cast<unsigned>(SlotOp::Read);
    t.port_reg[0] = static_cast<uint8_t>(gen::regs_port0(t.regs));
    t.port_reg[1] = static_cast<uint8_t>(gen::regs_port1(t.regs));
    t.port_reg[2] = static_cast<uint8_t>(gen::regs_reg2(t.regs));
    t.fau_idx = static_cast<uint8_t>(gen::regs_fau(t.regs));
    t.fau_kind = static_cast<FauKind>(gen::fau_kind(t.fau_idx));
    if (t.fau_kind == FauKind::Constant) {
      unsigned slot = gen::fau_const_slot(t.fau_idx);
      t.fau_const = gen::const_value(c.constants[slot], t.fau_idx, c.const_mods[slot], address);
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    unsigned next = (i + 1) % n;
    decode_writes(c.tuples[i], c.tuples[next].regs, next == 0);
  }
  // Unallocated FMA/ADD words are recorded per tuple; executing the clause raises INSTR_INVALID_ENC.
  for (unsigned i = 0; i < n; ++i)
    if (c.tuples[i].fma_id < 0 || c.tuples[i].add_id < 0) {
      char w[96];
      std::snprintf(w, sizeof w, "tuple %u: unknown %s word 0x%x", i, c.tuples[i].fma_id < 0 ? "FMA" : "ADD",
                    c.tuples[i].fma_id < 0 ? c.tuples[i].fma_word : c.tuples[i].add_word);
      invalid(c, w);
      break;
    }
  if (!c.exception) c.metrics = clause_metrics(c);
  if (!c.exception) c.cost = models::analyse_clause(clause_shape(c), models::g71());
  return true;
}

// ---------------------------------------------------------------- disassembly

namespace {

std::string hex32(uint32_t v) {
  // "%f" of a large float has up to 39 integer digits (FLT_MAX).
  char b[96];
  float f;
  std::memcpy(&f, &v, 4);
  std::snprintf(b, sizeof b, "0x%08x /* %f */", v, static_cast<double>(f));
  return b;
}

// The byte offset from the clause's address that a PC-relative FAU constant reads as (Mesa's dump_pc_imm), or
// false when the constant is not PC-relative in this half.
bool pc_offset(const DecodedClause& c, const DecodedTuple& t, bool high, int64_t& off) {
  if (t.fau_kind != FauKind::Constant) return false;
  unsigned slot = gen::fau_const_slot(t.fau_idx);
  unsigned mod = c.const_mods[slot];
  uint64_t imm = (c.constants[slot] << 4) | (t.fau_idx & 0xf);
  if (mod == 0 || (mod == 2 && !high)) return false;
  if (mod == 1)
    off = static_cast<int64_t>(imm << 4) >> 4;
  else if (mod == 2 || (mod == 3 && high))
    off = static_cast<int32_t>(static_cast<uint32_t>(imm >> 32) << 4) >> 4;
  else
    off = static_cast<int32_t>(static_cast<uint32_t>(imm) << 4) >> 4;
  return true;
}

// clause_index < 0: the clause alone, so a PC-relative constant prints as "(pc + offset)"; otherwise the
// clause's place in its program (quadwords from the start), and the constant names its target's label as
// Mesa's disassembler does (current label + offset / 16).
std::string fau_text(const DecodedClause& c, const DecodedTuple& t, bool high, int64_t clause_index) {
  char b[96];
  switch (t.fau_kind) {
  case FauKind::Uniform:
    std::snprintf(b, sizeof b, "u%u.w%u", t.fau_idx & 0x7f, high ? 1u : 0u);
    return b;
  case FauKind::Constant: {
    unsigned slot = gen::fau_const_slot(t.fau_idx);
    uint64_t imm = (c.constants[slot] << 4) | (t.fau_idx & 0xf);
    int64_t off = 0;
    if (!pc_offset(c, t, high, off)) return hex32(static_cast<uint32_t>(high ? imm >> 32 : imm));
    const char* shift = c.const_mods[slot] == 1 && high ? " >> 32" : "";
    if (clause_index < 0) {
      std::snprintf(b, sizeof b, "(pc + %lld)%s", static_cast<long long>(off), shift);
      return b;
    }
    // Mesa divides the byte offset by 16 (branch targets are clause addresses, 16-byte aligned) and flags a
    // branch to the clause itself.
    std::snprintf(b, sizeof b, "clause_%lld%s%s", static_cast<long long>(clause_index + off / 16), shift,
                  off == 0 ? " /* XXX: likely an infinite loop */" : "");
    return b;
  }
  case FauKind::Special:
  default:
    if (t.fau_idx >= 16) return "XXX - reserved" + std::to_string(t.fau_idx) + (high ? ".y" : ".x");
    return std::string(gen::kTable_FAU_SPECIAL_NAMES[t.fau_idx & 15]) + (high ? ".y" : ".x");
  }
}

std::string src_text(const DecodedClause& c, const DecodedTuple& t, unsigned sel, bool fma,
                     int64_t clause_index) {
  switch (sel) {
  case 0:
    return "r" + std::to_string(t.port_reg[0]);
  case 1:
    return "r" + std::to_string(t.port_reg[1]);
  case 2:
    return "r" + std::to_string(t.port_reg[2]);
  case 3:
    return fma ? "#0" : "t";
  case 4:
    return fau_text(c, t, false, clause_index);
  case 5:
    return fau_text(c, t, true, clause_index);
  case 6:
    return "t0";
  default:
    return "t1";
  }
}

std::string dest_mask(SlotOp op) {
  return op == SlotOp::WriteLo ? ".h0" : op == SlotOp::WriteHi ? ".h1" : "";
}

std::string dest_text(const DecodedTuple& t, bool fma) {
  if (fma) {
    if (t.write2 != SlotOp::Idle) return "r" + std::to_string(t.write2_reg) + ":t0" + dest_mask(t.write2);
    if (t.write3 != SlotOp::Idle && t.write3_fma)
      return "r" + std::to_string(t.write3_reg) + ":t0" + dest_mask(t.write3);
    return "t0";
  }
  if (t.write3 != SlotOp::Idle && !t.write3_fma)
    return "r" + std::to_string(t.write3_reg) + ":t1" + dest_mask(t.write3);
  return "t1";
}

// Replaces the operand markers the description's asm strings leave (base.adl: @0..@7, @D, @R).
std::string resolve(const std::string& text, const DecodedClause& c, const DecodedTuple& t, bool fma,
                    int64_t clause_index) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '@' && i + 1 < text.size()) {
      char k = text[i + 1];
      if (k >= '0' && k <= '7') {
        out += src_text(c, t, static_cast<unsigned>(k - '0'), fma, clause_index);
        ++i;
        continue;
      }
      if (k == 'D') {
        out += dest_text(t, fma);
        ++i;
        continue;
      }
      if (k == 'R') {
        out += "@r" + std::to_string(c.staging_register());
        ++i;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

} // namespace

std::string disassemble_clause(const DecodedClause& c, int64_t clause_index) {
  std::string s = gen::header_text(c.header) + "\n{\n";
  for (unsigned i = 0; i < c.tuple_count; ++i) {
    const DecodedTuple& t = c.tuples[i];
    char w[48];
    if (t.fma_id >= 0)
      s += resolve(gen::disassemble(t.fma_id, t.fma_word), c, t, true, clause_index) + "\n";
    else {
      std::snprintf(w, sizeof w, "INSTR_INVALID_ENC fma %X\n", t.fma_word);
      s += w;
    }
    if (t.add_id >= 0)
      s += resolve(gen::disassemble(t.add_id, t.add_word), c, t, false, clause_index) + "\n";
    else {
      std::snprintf(w, sizeof w, "INSTR_INVALID_ENC add %X\n", t.add_word);
      s += w;
    }
  }
  return s + "}\n";
}

std::string disassemble_program(uint64_t address, const QwordReader& read, unsigned max_clauses) {
  std::string s;
  uint64_t at = address;
  // The furthest clause a PC-relative constant (a branch target) has pointed at so far: code after an
  // end-of-shader clause belongs to the shader when an earlier branch reaches it (an early return in the
  // middle of a shader), as Mesa, which knows the binary's size, prints it.
  uint64_t reach = address;
  for (unsigned n = 0; n < max_clauses; ++n) {
    // Mesa pads a shader with zero bytes and its disassembler stops at a clause whose first word is zero; a
    // shader whose last clause is a loop's back edge (not an end-of-shader clause) ends there too.
    uint64_t lo = 0, hi = 0;
    if (n > 0 && read(at, lo, hi) && static_cast<uint32_t>(lo) == 0) break;
    DecodedClause c;
    int64_t index = static_cast<int64_t>((at - address) / 16);
    s += "clause_" + std::to_string(index) + ":\n";
    if (!decode_clause(at, read, c)) return s + "<unreadable>\n";
    if (c.exception && c.tuple_count == 0) return s + "<" + c.error + ">\n";
    s += disassemble_clause(c, index) + "\n";
    for (unsigned i = 0; i < c.tuple_count; ++i)
      for (bool high : {false, true}) {
        int64_t off = 0;
        if (pc_offset(c, c.tuples[i], high, off) && off > 0)
          reach = std::max(reach, c.address + uint64_t(off));
      }
    if (c.flow() == 0 && reach < c.next()) break;
    at = c.next();
  }
  return s;
}

} // namespace vplat::gpu::bifrost
