// The names of run-time code for perf (cpu-dbt/jit_perf_map.h): the perf map's lines and the jitdump file,
// read back by the layout of Linux's jitdump specification
// (tools/perf/Documentation/jitdump-specification.txt).
#include "cpu-dbt/jit_perf_map.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using vplat::cpu::PerfMap;

namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename T> T field(const std::vector<uint8_t>& bytes, size_t at) {
  T v{};
  EXPECT_LE(at + sizeof v, bytes.size());
  if (at + sizeof v <= bytes.size()) std::memcpy(&v, &bytes[at], sizeof v);
  return v;
}

struct TempDir {
  std::string path;
  TempDir() {
    char name[] = "/tmp/vplat-perf-map-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
};

} // namespace

TEST(PerfMap, WritesAMapLineAndAJitdumpRecordWithTheCodeOfEachFunction) {
  TempDir dir;
  const std::string map_path = dir.path + "/perf.map", dump_path = dir.path + "/jit.dump";
  const uint8_t first[] = {0x48, 0x89, 0xf8, 0xc3}; // bytes standing in for code: the dump copies them
  const uint8_t second[] = {0x90, 0x90, 0xc3};
  {
    PerfMap map(map_path, dump_path);
    ASSERT_TRUE(map.ok());
    map.add(first, sizeof first, "blk_400000_el0");
    map.add(second, sizeof second, "base_401000");
  }
  std::ostringstream want;
  want << std::hex << reinterpret_cast<uintptr_t>(first) << " 4 blk_400000_el0\n"
       << reinterpret_cast<uintptr_t>(second) << " 3 base_401000\n";
  const std::vector<uint8_t> text = read_file(map_path);
  EXPECT_EQ(std::string(text.begin(), text.end()), want.str());

  const std::vector<uint8_t> d = read_file(dump_path);
  // File header: magic "JiTD", version 1, its own size (40), ELF machine x86-64 (62), pad, pid,
  // timestamp, flags (0: CLOCK_MONOTONIC timestamps).
  ASSERT_GE(d.size(), 40u);
  EXPECT_EQ(field<uint32_t>(d, 0), 0x4A695444u);
  EXPECT_EQ(field<uint32_t>(d, 4), 1u);
  EXPECT_EQ(field<uint32_t>(d, 8), 40u);
  EXPECT_EQ(field<uint32_t>(d, 12), 62u);
  EXPECT_EQ(field<uint32_t>(d, 20), static_cast<uint32_t>(getpid()));
  EXPECT_EQ(field<uint64_t>(d, 32), 0u);
  // Two JIT_CODE_LOAD records (id 0): header {id, total size, timestamp}, then pid, tid, vma, code address,
  // code size, code index, the name with its NUL, the code; then JIT_CODE_CLOSE (id 3), a bare header.
  size_t at = 40;
  uint64_t last_time = field<uint64_t>(d, 24);
  const struct {
    const uint8_t* code;
    size_t size;
    const char* name;
  } want_loads[] = {{first, sizeof first, "blk_400000_el0"}, {second, sizeof second, "base_401000"}};
  for (unsigned i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const auto& w = want_loads[i];
    const size_t name_size = std::strlen(w.name) + 1;
    EXPECT_EQ(field<uint32_t>(d, at), 0u);
    ASSERT_EQ(field<uint32_t>(d, at + 4), 16 + 40 + name_size + w.size);
    EXPECT_GE(field<uint64_t>(d, at + 8), last_time);
    last_time = field<uint64_t>(d, at + 8);
    EXPECT_EQ(field<uint32_t>(d, at + 16), static_cast<uint32_t>(getpid()));
    EXPECT_EQ(field<uint64_t>(d, at + 24), reinterpret_cast<uintptr_t>(w.code));
    EXPECT_EQ(field<uint64_t>(d, at + 32), reinterpret_cast<uintptr_t>(w.code));
    EXPECT_EQ(field<uint64_t>(d, at + 40), w.size);
    EXPECT_EQ(field<uint64_t>(d, at + 48), i);
    ASSERT_LE(at + 56 + name_size + w.size, d.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(&d[at + 56])), w.name);
    EXPECT_EQ(std::vector<uint8_t>(&d[at + 56 + name_size], &d[at + 56 + name_size + w.size]),
              std::vector<uint8_t>(w.code, w.code + w.size));
    at += field<uint32_t>(d, at + 4);
  }
  EXPECT_EQ(field<uint32_t>(d, at), 3u);
  EXPECT_EQ(field<uint32_t>(d, at + 4), 16u);
  EXPECT_EQ(at + 16, d.size());
}

TEST(PerfMap, OnlyTheMapWithoutADumpPath) {
  TempDir dir;
  const uint8_t code[] = {0xc3};
  {
    PerfMap map(dir.path + "/perf.map", "");
    ASSERT_TRUE(map.ok());
    map.add(code, 1, "vplat_enter");
  }
  EXPECT_FALSE(read_file(dir.path + "/perf.map").empty());
}

TEST(PerfMap, AMapThatCannotBeWrittenIsNotOk) {
  PerfMap map("/nonexistent-dir/perf.map", "");
  EXPECT_FALSE(map.ok());
}
