// Names of code made at run time (translated blocks, baseline code, the JIT's shared functions) for Linux
// perf, which otherwise counts samples there as unknown addresses (VPLAT_JIT_PERF_MAP).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace vplat::cpu {

// VPLAT_JIT_PERF_MAP=1: /tmp/perf-PID.map, a line per function (address, size, name). perf looks an address
// up there without regard to time, so where code memory is released and reused (blocks replaced by their
// second-tier code, dropped pages), samples may be counted for a function that was there earlier.
// VPLAT_JIT_PERF_MAP=2: that, and a jitdump file (jit-PID.dump in VPLAT_JIT_DUMP_DIR, default /tmp) with each
// function's machine code and the time it was made (CLOCK_MONOTONIC), for
//   perf record -k mono ...; perf inject --jit -i perf.data -o perf.jit.data; perf report -i perf.jit.data
// which counts each sample for the code that was at its address when it was taken, and lets perf annotate
// show the host instructions.
class PerfMap {
public:
  // The map VPLAT_JIT_PERF_MAP asks for, or nullptr (off, or its files cannot be made: said on stderr).
  static std::unique_ptr<PerfMap> from_environment();
  PerfMap(const std::string& map_path, const std::string& dump_path); // dump_path empty: no jitdump
  ~PerfMap();
  PerfMap(const PerfMap&) = delete;
  PerfMap& operator=(const PerfMap&) = delete;

  bool ok() const { return map_ != nullptr; } // without the jitdump where that could not be made
  // `size` bytes of code at `code`, made just now, called `name` (any thread).
  void add(const void* code, size_t size, const std::string& name);

private:
  void write_dump_record(uint32_t id, const void* body, size_t body_size, const void* code, size_t code_size);

  std::mutex lock_;
  std::FILE* map_ = nullptr;
  std::string dump_path_;
  std::FILE* dump_ = nullptr;
  void* dump_mapping_ = nullptr; // perf finds the dump by this mapping of it (its mmap event)
  uint64_t next_index_ = 0;
};

} // namespace vplat::cpu
