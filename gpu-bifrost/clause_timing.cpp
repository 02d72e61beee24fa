#include "gpu-bifrost/clause_timing.h"
#include "bifrost_isa.h"
#include <array>
#include <cstring>

namespace vplat::gpu::bifrost {

namespace gen = vplat::gen::bifrost;

namespace {

// Per generated instruction id, once: NOPs, messages (an ISA.xml `message` attribute), branches, the rest
// arithmetic (which includes conversions, moves and lane ops: they use the same pipes).
const std::array<models::OpKind, gen::kNumInsns>& op_kinds() {
  static const auto kinds = [] {
    std::array<models::OpKind, gen::kNumInsns> k{};
    for (int id = 0; id < gen::kNumInsns; ++id) {
      const char* cls = gen::kInsnInfo[id].cls ? gen::kInsnInfo[id].cls : "";
      if (!std::strcmp(cls, "nop"))
        k[id] = models::OpKind::Nop;
      else if (!gen::insn_attr(id, "message").empty())
        k[id] = models::OpKind::Message;
      else if (!std::strcmp(cls, "branch") || !std::strcmp(cls, "branch_cond"))
        k[id] = models::OpKind::Branch;
      else
        k[id] = models::OpKind::Arith;
    }
    return k;
  }();
  return kinds;
}

models::OpKind kind_of(int id) {
  return id >= 0 && id < gen::kNumInsns ? op_kinds()[id] : models::OpKind::Nop;
}

} // namespace

models::ClauseShape clause_shape(const DecodedClause& c) {
  models::ClauseShape s;
  s.tuples = c.tuple_count;
  for (unsigned i = 0; i < c.tuple_count && i < kMaxTuples; ++i) {
    s.fma[i] = kind_of(c.tuples[i].fma_id);
    s.add[i] = kind_of(c.tuples[i].add_id);
    if (s.message_tuple < 0 && (s.add[i] == models::OpKind::Message || s.fma[i] == models::OpKind::Message))
      s.message_tuple = static_cast<int>(i);
  }
  s.message_type = static_cast<unsigned>(gen::header_message_type(c.header));
  // A header that names a message with no message instruction (or the reverse) still issues at the last
  // tuple.
  if (s.message_type != models::kMsgNone && s.message_tuple < 0 && c.tuple_count)
    s.message_tuple = static_cast<int>(c.tuple_count - 1);
  if (s.message_type == models::kMsgNone) s.message_tuple = -1;
  s.wait_mask = static_cast<uint8_t>(gen::header_dependency_wait(c.header));
  s.slot = static_cast<uint8_t>(gen::header_dependency_slot(c.header));
  return s;
}

bool shader_clauses(uint64_t entry, const QwordReader& read, std::vector<DecodedClause>& out,
                    unsigned max_clauses) {
  uint64_t at = entry;
  for (unsigned n = 0; n < max_clauses; ++n) {
    DecodedClause c;
    if (!decode_clause(at, read, c)) return false;
    bool end = c.flow() == 0 || (c.exception && c.tuple_count == 0);
    at = c.next();
    out.push_back(std::move(c));
    if (end) break;
  }
  return true;
}

std::string shader_estimate_text(uint64_t entry, const QwordReader& read) {
  std::vector<DecodedClause> clauses;
  if (!shader_clauses(entry, read, clauses)) return "";
  std::vector<models::ClauseShape> shapes;
  for (const auto& c : clauses) shapes.push_back(clause_shape(c));
  return models::estimate_shader(shapes, models::g71()).text();
}

} // namespace vplat::gpu::bifrost
