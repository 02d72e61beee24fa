// bifrost-estimate: the timing models' static view of a Bifrost (G71) shader. For each clause from the entry
// to the first end-of-shader clause: its disassembly header, tuples, message, the pipeline graph's best-case
// latency (issue + body), the issue cycles the pair analysis hides behind the previous clause, when its
// message completes, and its resource usage; then the straight-line total and the Mali-offline-compiler style
// estimate.
//
//   bifrost-estimate [--entry OFFSET] SHADER.bin      a raw shader binary (clauses from byte OFFSET, default
//   0) bifrost-estimate --asm FILE                       clauses in the test assembler's text
//   (tests/bifrost/bifrost_asm.h),
//                                                     one after another, separated by lines holding only
//                                                     "---"
#include "bifrost_asm.h"
#include "bifrost_isa.h"
#include "gpu-bifrost/clause_timing.h"
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace vplat;

int usage() {
  std::fprintf(stderr, "usage: bifrost-estimate [--entry OFFSET] SHADER.bin | bifrost-estimate --asm FILE\n");
  return 2;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

} // namespace

int main(int argc, char** argv) {
  std::string path;
  bool assembly = false;
  uint64_t entry = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--asm")
      assembly = true;
    else if (a == "--entry" && i + 1 < argc)
      entry = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "-h" || a == "--help")
      return usage(), 0;
    else if (path.empty() && !a.empty() && a[0] != '-')
      path = a;
    else
      return usage();
  }
  if (path.empty()) return usage();
  std::string bytes;
  if (!read_file(path, bytes)) {
    std::fprintf(stderr, "bifrost-estimate: cannot read %s\n", path.c_str());
    return 2;
  }
  if (assembly) {
    std::string text = bytes, clause;
    bytes.clear();
    std::istringstream in(text + "\n---\n");
    std::string line;
    try {
      while (std::getline(in, line)) {
        if (line == "---") {
          if (clause.find("header") != std::string::npos) {
            auto words = bifrost_asm::assemble(clause);
            bytes.append(reinterpret_cast<const char*>(words.data()), words.size() * 8);
          }
          clause.clear();
        } else {
          clause += line + "\n";
        }
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bifrost-estimate: %s\n", e.what());
      return 2;
    }
  }
  auto read = [&](uint64_t a, uint64_t& lo, uint64_t& hi) {
    if (a + 16 > bytes.size()) return false;
    std::memcpy(&lo, bytes.data() + a, 8);
    std::memcpy(&hi, bytes.data() + a + 8, 8);
    return true;
  };
  std::vector<gpu::bifrost::DecodedClause> clauses;
  bool complete = gpu::bifrost::shader_clauses(entry, read, clauses);
  if (clauses.empty()) {
    std::fprintf(stderr, "bifrost-estimate: no clause at offset 0x%llx\n",
                 static_cast<unsigned long long>(entry));
    return 1;
  }
  const models::Params& p = models::g71();
  std::vector<models::ClauseShape> shapes;
  uint64_t straight = 0;
  std::printf("%-6s %-6s %-7s %-9s %-8s %-6s %-6s %-8s  usage (engine fma add ls varying tex)\n", "clause",
              "qword", "tuples", "message", "latency", "body", "hidden", "msg_done");
  for (size_t i = 0; i < clauses.size(); ++i) {
    const auto& c = clauses[i];
    if (c.exception) {
      std::printf("%-6zu %-6llu invalid: %s\n", i, static_cast<unsigned long long>((c.address - entry) / 16),
                  c.error.c_str());
      complete = false;
      break;
    }
    models::ClauseShape s = gpu::bifrost::clause_shape(c);
    shapes.push_back(s);
    const models::ClauseCost& k = c.cost;
    straight += i == 0 ? k.latency : k.latency - k.hidden;
    std::printf("%-6zu %-6llu %-7u %-9s %-8u %-6u %-6u %-8u  %u %u %u %u %u %u\n", i,
                static_cast<unsigned long long>((c.address - entry) / 16), c.tuple_count,
                gen::bifrost::kTable_MESSAGE_NAMES[s.message_type & 31][0]
                    ? gen::bifrost::kTable_MESSAGE_NAMES[s.message_type & 31]
                    : "-",
                k.latency, k.body, k.hidden, k.message_done, k.usage[models::kEngine], k.usage[models::kFma],
                k.usage[models::kAdd], k.usage[models::kLoadStore], k.usage[models::kVarying],
                k.usage[models::kTexture]);
  }
  std::printf("straight-line latency of one warp (no dependency waits): %llu cycles\n",
              static_cast<unsigned long long>(straight));
  std::printf("static estimate: %s\n", models::estimate_shader(shapes, p).text().c_str());
  if (!complete) std::printf("(incomplete: the shader does not decode to an end-of-shader clause)\n");
  return complete ? 0 : 1;
}
