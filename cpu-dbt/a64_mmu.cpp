#include "cpu-dbt/a64_mmu.h"

namespace vplat::cpu {

namespace {

constexpr uint64_t bits(uint64_t v, int hi, int lo) { return (v >> lo) & ((hi - lo == 63) ? ~0ull : ((1ull << (hi - lo + 1)) - 1)); }

Translation fault(uint8_t code, int level) {
  Translation t;
  t.fault = static_cast<uint8_t>(code + (level < 0 ? 0 : level));
  return t;
}

} // namespace

bool permits(const Translation& t, Access kind, unsigned el) {
  switch (kind) {
  case Access::Read: return el == 0 ? t.el0_read : t.el1_read;
  case Access::Write: return el == 0 ? t.el0_write : t.el1_write;
  case Access::Fetch: return el == 0 ? t.el0_exec : t.el1_exec;
  }
  return false;
}

Translation translate(const TranslationRegs& r, uint64_t va, Access kind, unsigned el, const PhysRead64& read) {
  const uint64_t pa_limit = r.pa_bits >= 64 ? ~0ull : (1ull << r.pa_bits);
  if (!(r.sctlr & 1)) {
    // MMU off: flat mapping; accesses beyond the physical address size are address-size faults.
    if (va >= pa_limit) return fault(fsc::kAddressSize, 0);
    Translation t;
    t.ok = true;
    t.pa = va;
    t.el0_read = t.el0_write = t.el0_exec = t.el1_read = t.el1_write = t.el1_exec = true;
    t.page_mask = 0xfff;
    return t;
  }
  // Top byte ignore applies to data accesses only.
  bool upper = (va >> 55) & 1;
  bool tbi = upper ? bits(r.tcr, 38, 38) : bits(r.tcr, 37, 37);
  uint64_t addr = va;
  if (tbi && kind != Access::Fetch) addr = upper ? (va | 0xff00000000000000ull) : (va & 0x00ffffffffffffffull);
  unsigned txsz = static_cast<unsigned>(upper ? bits(r.tcr, 21, 16) : bits(r.tcr, 5, 0));
  if (txsz < 16) txsz = 16; // sizes outside 16..39 are treated as the nearest allowed value
  if (txsz > 39) txsz = 39;
  bool epd = upper ? bits(r.tcr, 23, 23) : bits(r.tcr, 7, 7);
  unsigned input_bits = 64 - txsz;
  // All bits above the input size must equal bit 55's side: zeros for TTBR0, ones for TTBR1.
  uint64_t top = addr >> input_bits;
  uint64_t want = upper ? (~0ull >> input_bits) : 0;
  if (top != want || epd) return fault(fsc::kTranslation, 0);

  uint64_t ttbr = upper ? r.ttbr1 : r.ttbr0;
  bool a1 = bits(r.tcr, 22, 22);
  uint16_t asid = static_cast<uint16_t>(bits(a1 ? r.ttbr1 : r.ttbr0, 63, 48));
  if (!bits(r.tcr, 36, 36)) asid &= 0xff; // AS = 0: 8-bit ASIDs

  const int start = 4 - static_cast<int>((input_bits - 12 + 8) / 9); // 48 bits -> level 0, 39 -> level 1
  int level = start;
  uint64_t table = bits(ttbr, 47, 1) << 1;
  // The table at the starting level may be smaller than 4 KiB; its base is aligned to its size.
  unsigned first_bits = input_bits - 12 - 9 * (3 - level);
  table &= ~((1ull << (first_bits + 3)) - 1) & 0x0000ffffffffffffull;
  if (table >= pa_limit) return fault(fsc::kAddressSize, level);

  bool ap_table_no_el0 = false, ap_table_ro = false, pxn_table = false, uxn_table = false;
  for (;; ++level) {
    int shift = 12 + 9 * (3 - level);
    unsigned width = level == start ? first_bits : 9;
    uint64_t index = (addr >> shift) & ((1ull << width) - 1);
    uint64_t desc = 0;
    if (!read(table + index * 8, desc)) return fault(fsc::kExternalWalk, level);
    if (!(desc & 1)) return fault(fsc::kTranslation, level);
    bool is_table = (desc & 2) && level < 3;
    if (!(desc & 2) && (level == 3 || level == 0)) return fault(fsc::kTranslation, level); // reserved encodings
    uint64_t out = desc & 0x0000fffffffff000ull;
    if (is_table) {
      if (out >= pa_limit) return fault(fsc::kAddressSize, level);
      ap_table_no_el0 |= bits(desc, 61, 61);
      ap_table_ro |= bits(desc, 62, 62);
      pxn_table |= bits(desc, 59, 59);
      uxn_table |= bits(desc, 60, 60);
      table = out;
      continue;
    }
    // Block or page.
    uint64_t block_mask = (1ull << shift) - 1;
    uint64_t oa = (out & ~block_mask) | (addr & block_mask);
    if ((out & ~block_mask) >= pa_limit) return fault(fsc::kAddressSize, level);
    if (!bits(desc, 10, 10)) return fault(fsc::kAccessFlag, level);
    unsigned ap = static_cast<unsigned>(bits(desc, 7, 6));
    Translation t;
    t.pa = oa;
    t.page_mask = block_mask;
    t.global = !bits(desc, 11, 11);
    t.asid = asid;
    t.attr_index = static_cast<uint8_t>(bits(desc, 4, 2));
    bool el0_access = (ap & 1) && !ap_table_no_el0;
    bool read_only = (ap & 2) || ap_table_ro;
    t.el1_read = true;
    t.el1_write = !read_only;
    t.el0_read = el0_access;
    t.el0_write = el0_access && !read_only;
    bool wxn = r.sctlr >> 19 & 1;
    t.el0_exec = el0_access && !bits(desc, 54, 54) && !uxn_table && !(wxn && t.el0_write);
    // Memory writable at EL0 is never executable at EL1.
    t.el1_exec = !bits(desc, 53, 53) && !pxn_table && !t.el0_write && !(wxn && t.el1_write);
    if (!permits(t, kind, el)) return fault(fsc::kPermission, level);
    t.ok = true;
    return t;
  }
}

} // namespace vplat::cpu
