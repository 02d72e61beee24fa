#include "gpu-bifrost/clause_stats.h"
#include "bifrost_isa.h"
#include <cctype>
#include <cstring>
#include <vector>

namespace vplat::gpu::bifrost {

namespace gen = vplat::gen::bifrost;

namespace {

bool has_helper(const char* helpers, const char* name) {
  return std::strstr(helpers, name) != nullptr;
}

InsnStatic make_static(int id) {
  const gen::InsnInfo& info = gen::kInsnInfo[id];
  InsnStatic s;
  s.name = info.name;
  std::string cls = info.cls;
  std::string unit = info.unit;
  s.class_key = unit + "." + cls;
  s.nop = cls == "nop";
  std::string staging = gen::insn_attr(id, "staging");
  if (staging.size() > 1) {
    unsigned n = static_cast<unsigned>(std::stoul(staging.substr(1)));
    (staging[0] == 'r' ? s.staging_reads : s.staging_writes) = static_cast<uint8_t>(n);
  }
  for (int f = 0; f < info.num_fields; ++f) {
    const gen::FieldInfo& fi = info.fields[f];
    std::string n = fi.name;
    if (fi.bound >= 0) continue;
    if (n == "seg" && fi.width == 3) s.seg_lsb = fi.lsb;
    if (n == "wls" && fi.width == 1) s.wls_lsb = fi.lsb;
    if (n.size() == 4 && n.compare(0, 3, "src") == 0 && n[3] >= '0' && n[3] <= '3' && fi.width == 3 &&
        s.srcs < 4)
      s.src_lsb[s.srcs++] = static_cast<int8_t>(fi.lsb);
  }
  // Memory messages: the runtime helper the semantics call says what the access is; the size is in the name
  // (LOAD.i8 ... STORE.i128; the atomics are i32).
  const char* helpers = info.helpers;
  if (has_helper(helpers, "seg_load"))
    s.mem = MemOp::Load;
  else if (has_helper(helpers, "seg_store"))
    s.mem = MemOp::Store;
  else if (has_helper(helpers, "seg_atomic"))
    s.mem = MemOp::Atomic;
  else if (has_helper(helpers, "cvt_load"))
    s.mem = MemOp::Load, s.fixed_seg = MemSeg::Image;
  else if (has_helper(helpers, "cvt_store"))
    s.mem = MemOp::Store, s.fixed_seg = MemSeg::Image;
  if (s.mem != MemOp::None && s.fixed_seg != MemSeg::Image) {
    s.mem_bytes = 4;
    for (size_t at = s.name.find("_i"); at != std::string::npos; at = s.name.find("_i", at + 1))
      if (at + 2 < s.name.size() && std::isdigit(static_cast<unsigned char>(s.name[at + 2]))) {
        s.mem_bytes = static_cast<uint8_t>(std::stoul(s.name.substr(at + 2)) / 8);
        break;
      }
  }
  std::string message = gen::insn_attr(id, "message");
  if (s.nop)
    s.category = "nop";
  else if (!message.empty() || cls == "atomic")
    s.category = "message." + (message.empty() ? std::string("atomic") : message);
  else if (cls == "branch" || cls == "branch_cond")
    s.category = "control";
  else if (cls == "cvt" || cls == "fp_cvt")
    s.category = unit + ".conversion";
  else
    s.category = unit + ".arith";
  return s;
}

const char* seg_name(MemSeg s) {
  switch (s) {
  case MemSeg::Global:
    return "global";
  case MemSeg::Wls:
    return "wls";
  case MemSeg::Tls:
    return "tls";
  case MemSeg::Ubo:
    return "ubo";
  default:
    return "image";
  }
}
const char* op_name(MemOp o) {
  return o == MemOp::Load ? "load" : o == MemOp::Store ? "store" : "atomic";
}

} // namespace

const InsnStatic& insn_static(int id) {
  static const std::vector<InsnStatic> table = [] {
    std::vector<InsnStatic> t;
    for (int i = 0; i < gen::kNumInsns; ++i) t.push_back(make_static(i));
    return t;
  }();
  static const InsnStatic unknown{};
  return id >= 0 && id < gen::kNumInsns ? table[static_cast<size_t>(id)] : unknown;
}

void ClauseCounters::count_branch(uint8_t active, uint8_t taken_lanes, uint8_t ended,
                                  const std::array<uint64_t, 4>& npc) {
  ++branch_warps;
  uint8_t fall = active & static_cast<uint8_t>(~(taken_lanes | ended));
  if (!fall) ++all_left_warps;
  unsigned ways = (fall != 0) + (ended != 0);
  if (ended) {
    ++end_warps;
    end_lanes += std::popcount(ended);
  }
  // Lanes that branched, grouped by target (at most 4 lanes, so at most 4 targets).
  uint8_t left = taken_lanes;
  while (left) {
    unsigned first = static_cast<unsigned>(std::countr_zero(left));
    uint8_t group = 0;
    for (unsigned i = first; i < 4; ++i)
      if ((left >> i & 1) && npc[i] == npc[first]) group |= static_cast<uint8_t>(1u << i);
    left &= static_cast<uint8_t>(~group);
    ++ways;
    Target* t = nullptr;
    for (auto& k : taken)
      if (k.warps && k.pc == npc[first]) t = &k;
    if (!t)
      for (auto& k : taken)
        if (!k.warps && !t) {
          k.pc = npc[first];
          t = &k;
        }
    if (t) {
      ++t->warps;
      t->lanes += std::popcount(group);
    } else {
      ++other_warps;
      other_lanes += std::popcount(group);
    }
  }
  if (ways > 1) {
    ++divergent;
    ++taken_masks[taken_lanes & 15];
  }
}

void ClauseCounters::add(const ClauseCounters& o) {
  for (size_t i = 0; i < 4; ++i) by_lanes[i] += o.by_lanes[i];
  branch_warps += o.branch_warps;
  all_left_warps += o.all_left_warps;
  end_warps += o.end_warps;
  end_lanes += o.end_lanes;
  for (const Target& t : o.taken) {
    if (!t.warps) continue;
    Target* d = nullptr;
    for (auto& k : taken)
      if (k.warps && k.pc == t.pc) d = &k;
    if (!d)
      for (auto& k : taken)
        if (!k.warps && !d) {
          k.pc = t.pc;
          d = &k;
        }
    if (d) {
      d->warps += t.warps;
      d->lanes += t.lanes;
    } else {
      other_warps += t.warps;
      other_lanes += t.lanes;
    }
  }
  other_warps += o.other_warps;
  other_lanes += o.other_lanes;
  divergent += o.divergent;
  for (size_t i = 0; i < 16; ++i) taken_masks[i] += o.taken_masks[i];
}

void ClauseTally::add(unsigned as, uint64_t address, const std::shared_ptr<const DecodedClause>& clause,
                      const ClauseCounters& n) {
  Item& it = items[{as, address}];
  if (!it.clause) it.clause = clause;
  it.counts.add(n);
}

void ClauseTally::merge(const ClauseTally& o) {
  for (const auto& [key, item] : o.items) add(key.first, key.second, item.clause, item.counts);
  for (size_t i = 0; i < image_bytes.size(); ++i) image_bytes[i] += o.image_bytes[i];
}

stats::ShaderCounters derive_counters(const ClauseTally& tally) {
  stats::ShaderCounters s;
  for (const auto& [key, item] : tally.items) {
    const DecodedClause& c = *item.clause;
    const ClauseCounters& n = item.counts;
    const ClauseMetrics& m = c.metrics;
    uint64_t warps = n.executions(), lanes = n.lanes();
    if (!warps) continue;
    unsigned tuples = std::min(c.tuple_count, kMaxTuples);
    s.warp_clauses += warps;
    s.thread_clauses += lanes;
    s.warp_tuples += warps * tuples;
    s.thread_tuples += lanes * tuples;
    s.warp_instructions += 2 * warps * tuples;
    s.thread_instructions += 2 * lanes * tuples;
    s.warp_nops += warps * m.nops;
    s.thread_nops += lanes * m.nops;
    s.clause_size_dynamic[tuples] += warps;
    s.clause_size_static[tuples] += 1;
    for (unsigned k = 0; k < 4; ++k) s.active_lanes[k + 1] += n.by_lanes[k];
    for (unsigned i = 0; i < tuples; ++i)
      for (int id : {c.tuples[i].fma_id, c.tuples[i].add_id}) {
        const InsnStatic& st = insn_static(id);
        s.by_opcode[st.name] += lanes;
        s.by_class[st.class_key] += lanes;
        s.by_category[st.category] += lanes;
      }
    s.reg_reads += lanes * m.reg_reads;
    s.reg_writes += lanes * m.reg_writes;
    s.staging_reads += lanes * m.staging_reads;
    s.staging_writes += lanes * m.staging_writes;
    s.temp_reads += lanes * m.temp_reads;
    s.fau_uniform += lanes * m.fau_uniform;
    s.fau_constant += lanes * m.fau_constant;
    s.fau_special += lanes * m.fau_special;
    for (unsigned a = 0; a < m.access_count; ++a) {
      const auto& acc = m.accesses[a];
      stats::MemTraffic& t = s.memory[std::string(seg_name(acc.seg)) + "." + op_name(acc.op)];
      t.accesses += lanes;
      t.bytes += lanes * acc.bytes;
    }
    s.divergent_branches += n.divergent;
  }
  // Image messages: their accesses come from the clauses above, their bytes from the texels' formats.
  const MemOp kinds[2] = {MemOp::Load, MemOp::Store};
  for (size_t i = 0; i < 2; ++i)
    if (tally.image_bytes[i])
      s.memory[std::string(seg_name(MemSeg::Image)) + "." + op_name(kinds[i])].bytes += tally.image_bytes[i];
  return s;
}

stats::ShaderCfg derive_cfg(const ClauseTally& tally, unsigned as, uint64_t entry) {
  stats::ShaderCfg g;
  g.as = as;
  g.entry = entry;
  for (const auto& [key, item] : tally.items) {
    if (key.first != as) continue;
    const DecodedClause& c = *item.clause;
    const ClauseCounters& n = item.counts;
    stats::CfgNode& node = g.nodes[key.second];
    node.tuples = c.tuple_count;
    node.warp_executions = n.executions();
    node.thread_executions = n.lanes();
    // The clause's instructions without the empty slots (the header line and braces dropped).
    std::string text = disassemble_clause(c);
    size_t a = text.find("{\n");
    for (size_t at = a == std::string::npos ? text.size() : a + 2; at < text.size();) {
      size_t end = text.find('\n', at);
      std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
      at = end == std::string::npos ? text.size() : end + 1;
      if (line == "}" || line.rfind("*NOP", 0) == 0 || line.rfind("+NOP", 0) == 0) continue;
      node.text += line + "\n";
    }
    uint64_t taken_lanes = n.other_lanes;
    for (const auto& t : n.taken)
      if (t.warps) {
        node.successors[t.pc].warps += t.warps;
        node.successors[t.pc].lanes += t.lanes;
        taken_lanes += t.lanes;
      }
    if (n.end_warps) node.successors[stats::ShaderCfg::kEnd] = {n.end_warps, n.end_lanes};
    uint64_t fall_lanes = n.lanes() - taken_lanes - n.end_lanes;
    uint64_t fall_warps = n.executions() - n.all_left_warps;
    if (fall_lanes) {
      node.successors[c.next()].warps += fall_warps;
      node.successors[c.next()].lanes += fall_lanes;
    }
    node.divergent = n.divergent;
    node.taken_masks = n.taken_masks;
  }
  return g;
}

} // namespace vplat::gpu::bifrost
