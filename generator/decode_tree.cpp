#include "decode_tree.h"
#include <algorithm>
#include <bit>
#include <map>
#include <sstream>

namespace adl {

namespace {

class TreeEmitter {
public:
  TreeEmitter(const std::vector<DecodeCandidate>& c, int width) : c_(c), width_(width) {}

  void node(const std::vector<int>& s, uint64_t tested, int ind) {
    std::string pad(ind * 2, ' ');
    if (s.empty()) {
      o_ << pad << "return -1;\n";
      return;
    }
    uint64_t all = width_ >= 64 ? ~uint64_t(0) : (uint64_t(1) << width_) - 1;
    uint64_t common = all & ~tested;
    bool some_done = false;
    for (int i : s) {
      common &= c_[i].mask;
      if ((c_[i].mask & ~tested) == 0) some_done = true;
    }
    if (some_done || (common == 0 && !any_untested(s, tested))) {
      leaf(s, ind);
      return;
    }
    if (common != 0) {
      std::map<uint64_t, std::vector<int>> parts;
      for (int i : s) parts[c_[i].value & common].push_back(i);
      if (parts.size() == 1) {
        // Every candidate agrees on these bits: test them once.
        o_ << pad << "if ((insn & 0x" << std::hex << common << "ull) != 0x" << parts.begin()->first << std::dec
           << "ull) return -1;\n";
        node(s, tested | common, ind);
        return;
      }
      o_ << pad << "switch (" << extract(common) << ") {\n";
      for (auto& [v, sub] : parts) {
        o_ << pad << "case 0x" << std::hex << compress(v, common) << std::dec << ": {\n";
        node(sub, tested | common, ind + 1);
        o_ << pad << "}\n";
      }
      o_ << pad << "default:\n" << pad << "  return -1;\n" << pad << "}\n";
      return;
    }
    // No bit is fixed by every candidate: split on the bit most of them fix; the others go both ways.
    int best = -1, best_count = 0;
    for (int b = 0; b < width_; ++b) {
      if (tested >> b & 1) continue;
      int n = 0;
      for (int i : s) n += c_[i].mask >> b & 1;
      if (n > best_count) {
        best_count = n;
        best = b;
      }
    }
    std::vector<int> zero, one;
    for (int i : s) {
      bool fixed = c_[i].mask >> best & 1;
      bool v = c_[i].value >> best & 1;
      if (!fixed || !v) zero.push_back(i);
      if (!fixed || v) one.push_back(i);
    }
    uint64_t bit = uint64_t(1) << best;
    o_ << pad << "if (insn & 0x" << std::hex << bit << std::dec << "ull) {\n";
    node(one, tested | bit, ind + 1);
    o_ << pad << "} else {\n";
    node(zero, tested | bit, ind + 1);
    o_ << pad << "}\n";
  }

  std::string str() const { return o_.str(); }

private:
  const std::vector<DecodeCandidate>& c_;
  int width_;
  std::ostringstream o_;

  bool any_untested(const std::vector<int>& s, uint64_t tested) const {
    for (int i : s)
      if (c_[i].mask & ~tested) return true;
    return false;
  }

  // Candidates left here overlap (the checker allowed it only inside one group): try them in priority order.
  void leaf(std::vector<int> s, int ind) {
    std::string pad(ind * 2, ' ');
    std::sort(s.begin(), s.end(), [&](int a, int b) { return c_[a].id < c_[b].id; });
    for (int i : s) {
      const auto& c = c_[i];
      std::string cond = "(insn & 0x" + hex(c.mask) + "ull) == 0x" + hex(c.value) + "ull";
      if (!c.guard.empty()) cond += " && " + c.guard + "(insn)";
      o_ << pad << "if (" << cond << ") return " << c.id << ";\n";
    }
    o_ << pad << "return -1;\n";
  }

  static std::string hex(uint64_t v) {
    std::ostringstream s;
    s << std::hex << v;
    return s.str();
  }

  // Packs the bits of `v` selected by `mask` into the low bits, keeping their order.
  static uint64_t compress(uint64_t v, uint64_t mask) {
    uint64_t out = 0;
    int k = 0;
    for (int b = 0; b < 64; ++b)
      if (mask >> b & 1) out |= (v >> b & 1) << k++;
    return out;
  }

  static std::string extract(uint64_t mask) {
    // One term per contiguous run of mask bits.
    std::string e;
    int k = 0;
    for (int b = 0; b < 64;) {
      if (!(mask >> b & 1)) {
        ++b;
        continue;
      }
      int lo = b;
      while (b < 64 && (mask >> b & 1)) ++b;
      int len = b - lo;
      uint64_t m = len == 64 ? ~uint64_t(0) : (uint64_t(1) << len) - 1;
      std::string term = "((insn >> " + std::to_string(lo) + ") & 0x" + hex(m) + "ull)";
      if (k) term = "(" + term + " << " + std::to_string(k) + ")";
      e += (e.empty() ? "" : " | ") + term;
      k += len;
    }
    return e;
  }
};

} // namespace

std::string emit_decode_tree(const std::vector<DecodeCandidate>& cands, int width, int indent) {
  TreeEmitter t(cands, width);
  std::vector<int> all(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) all[i] = static_cast<int>(i);
  t.node(all, 0, indent);
  return t.str();
}

} // namespace adl
