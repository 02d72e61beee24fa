#include "cpu-dbt/threaded.h"

#include <unordered_map>

namespace vplat::cpu::threaded {

namespace {
const Entry* entry_of(a64::ExecFn exec) {
  static const auto* const by_exec = [] {
    auto* m = new std::unordered_map<a64::ExecFn, const Entry*>;
    for (size_t i = 0; i < kNumEntries; ++i) (*m)[kEntries[i].exec] = &kEntries[i];
    return m;
  }();
  auto it = by_exec->find(exec);
  return it == by_exec->end() ? nullptr : it->second;
}
} // namespace

Handler sp_base_handler_for(a64::ExecFn exec, uint32_t word) {
  const Entry* e = entry_of(exec);
  if (!e) return nullptr;
  return fields_at_31(e->lsbs, word) == 1u << 5 && e->sp_rn31 ? e->sp_rn31 : e->sp_base;
}

Handler handler_for(a64::ExecFn exec, uint32_t word) {
  const Entry* found = entry_of(exec);
  if (!found) return nullptr;
  const Entry& e = *found;
  if (!e.not31) return e.handler;
  const uint32_t at31 = fields_at_31(e.lsbs, word);
  if (!at31) return e.not31;
  if (at31 == 1u << 0 && e.one31[0]) return e.one31[0];
  if (at31 == 1u << 5 && e.one31[1]) return e.one31[1];
  return e.handler;
}

} // namespace vplat::cpu::threaded
