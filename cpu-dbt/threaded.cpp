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

Handler sp_base_handler_for(a64::ExecFn exec) {
  const Entry* e = entry_of(exec);
  return e ? e->sp_base : nullptr;
}

Handler handler_for(a64::ExecFn exec, uint32_t word) {
  const Entry* found = entry_of(exec);
  if (!found) return nullptr;
  const Entry& e = *found;
  if (!e.not31) return e.handler;
  for (uint32_t lsbs = e.lsbs; lsbs; lsbs &= lsbs - 1)
    if (((word >> __builtin_ctz(lsbs)) & 31) == 31) return e.handler;
  return e.not31;
}

} // namespace vplat::cpu::threaded
