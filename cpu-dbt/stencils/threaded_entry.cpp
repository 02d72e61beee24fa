// The way into a list of threaded handlers from C++, and the handler of the instructions that need the Core's
// work around them (threaded.h). Compiled as the handlers are (clang, then the GHC convention for the names
// stencils.py threaded-ghc rewrites: vplat_th_* and calls through handler pointers).
#include "cpu-dbt/threaded.h"

#include "cpu-dbt/a64_core.h"

namespace vplat::cpu::threaded {

extern "C" uint64_t vplat_threaded_enter(a64::State* s, const Insn* d, uint64_t n, uint64_t end,
                                         uint32_t attention) {
  return d->handler(s, d, n, end, attention, s->PC);
}

// The Core's step reads and sets PC in the state: it is there before, and after it unless the run goes on.
extern "C" uint64_t vplat_th_flagged(a64::State* s, const Insn* d, uint64_t n, uint64_t end,
                                     uint32_t attention, uint64_t pc) {
  s->PC = pc;
  const uint64_t r = vplat_threaded_flagged_step(s, d, n, attention);
  if (r != kGoOn) return r;
  if (n + 1 == end) return n + 1;
  [[clang::musttail]] return d[1].handler(s, d + 1, n + 1, end, attention, pc + 4);
}

namespace {
template <typename T> T& at(a64::State* s, int32_t off) {
  return *reinterpret_cast<T*>(reinterpret_cast<char*>(s) + off);
}
} // namespace

// The memory helpers' slow paths as the handlers of loads and stores call them (stencils.py threaded-ghc
// sends their calls here, with the handler's pc, d and n): what helpers read is stored on the slow path only.
extern "C" uint64_t vplat_thw_read_slow(Core* c, uint64_t addr, uint32_t size, uint64_t pc, const Insn* d,
                                        uint64_t n) {
  CoreLayout::store_before_call(c, pc, d->insn, n);
  return c->read_slow(addr, size);
}
extern "C" void vplat_thw_write_slow(Core* c, uint64_t addr, uint32_t size, uint64_t value, uint64_t pc,
                                     const Insn* d, uint64_t n) {
  CoreLayout::store_before_call(c, pc, d->insn, n);
  c->write_slow(addr, size, value);
}
extern "C" void vplat_thw_store_to(CoreGroup* g, Core* c, uint64_t pa, uint64_t size, uint64_t pc,
                                   const Insn* d, uint64_t n) {
  CoreLayout::store_before_call(c, pc, d->insn, n);
  g->store_to(*c, pa, size);
}

// The end entry (threaded.h). The tests are the run loop's known-successor path's, in its order; `n < end`
// here, as an instruction that used up the budget returned. `pc` is the next block's start: stored when the
// run ends here.
extern "C" uint64_t vplat_th_end(a64::State* s, const Insn* d, uint64_t n, uint64_t end, uint32_t attention,
                                 uint64_t pc) {
  constexpr Layout l = CoreLayout::kThreaded;
  ChainState& cs = at<ChainState>(s, l.chain);
  const BlockHead* b = d->block;
  BlockHead* next = b->next;
  const auto leave = [&] {
    s->PC = pc;
    return n;
  };
  if (!cs.runs_limit) return leave(); // (off)
  if (!next || b->next_va != pc || b->next_gen != *cs.block_gen || !next->list) return leave();
  const uint32_t runs = next->runs + 1;
  if (runs >= cs.runs_limit || (next->fp && at<bool>(s, l.fp_trap))) return leave();
  if ((pc ^ b->va) >> 12) {
    // Another page: entered only where the fetch TLB maps it as when the block was read.
    if (next->el != at<uint32_t>(s, l.el)) return leave();
    const char* e =
        reinterpret_cast<const char*>(s) + l.itlb +
        (uint64_t{next->el} * l.tlb_entries + ((pc >> 12) & (l.tlb_entries - 1))) * l.tlb_entry_bytes;
    if (*reinterpret_cast<const uint64_t*>(e + l.tlb_fetch) != (pc & ~uint64_t{0xfff}) ||
        *reinterpret_cast<const uint64_t*>(e + l.tlb_pa) != next->pa_page)
      return leave();
  }
  next->runs = runs;
  // The block after it is likely to be entered from here in turn: its head and list are fetched from memory
  // meanwhile (each was a cache miss of this function's otherwise).
  __builtin_prefetch(next->next);
  __builtin_prefetch(next->next_list);
  cs.block = next;
  cs.list = next->list;
  cs.base = n;
  ++cs.entered;
  [[clang::musttail]] return next->list->handler(s, next->list, n, end, attention, pc);
}

} // namespace vplat::cpu::threaded
