// The way into a list of threaded handlers from C++, and the handler of the instructions that need the Core's
// work around them (threaded.h). Compiled as the handlers are (clang, then the GHC convention for the names
// stencils.py threaded-ghc rewrites: vplat_th_* and calls through handler pointers).
#include "cpu-dbt/threaded.h"

namespace vplat::cpu::threaded {

extern "C" uint64_t vplat_threaded_enter(a64::State* s, const Insn* d, uint64_t n, uint64_t end,
                                         uint32_t attention) {
  return d->handler(s, d, n, end, attention);
}

extern "C" uint64_t vplat_th_flagged(a64::State* s, const Insn* d, uint64_t n, uint64_t end,
                                     uint32_t attention) {
  const uint64_t r = vplat_threaded_flagged_step(s, d, n, attention);
  if (r != kGoOn) return r;
  if (n + 1 == end) return n + 1;
  [[clang::musttail]] return d[1].handler(s, d + 1, n + 1, end, attention);
}

} // namespace vplat::cpu::threaded
