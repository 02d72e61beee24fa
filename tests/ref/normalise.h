// Internal helper of vplat_testref: shared text normalisation.
#pragma once

#include <string>
#include <string_view>

namespace vplat::testref::detail {

// Collapses every run of whitespace (space, tab, newline) to one space and
// strips leading/trailing whitespace.
inline std::string normalise_text(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  bool pending_space = false;
  for (char c : in) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace vplat::testref::detail
