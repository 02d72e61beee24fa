// Builds a decision tree over instruction bits from (mask, value) patterns and emits it as C++.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace adl {

struct DecodeCandidate {
  int id;
  uint64_t mask, value;
  int group;         // ordered overlap group, or -1
  std::string guard; // name of a C++ predicate on the encoding, or empty
};

// Emits the body of `int decode(uint64_t insn)`. Candidates must already be checked for overlaps; within an
// overlap group, lower ids take priority. A candidate whose guard fails falls through to the next one.
std::string emit_decode_tree(const std::vector<DecodeCandidate>& cands, int width, int indent);

} // namespace adl
