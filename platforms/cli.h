// Command-line parsing for vplat. Errors are one line on stderr and exit status 2.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vplat {

struct Options {
  std::string platform = "juno";
  std::string kernel, initrd, disk, append, dump_dtb;
  unsigned smp = 1;
  uint64_t memory = 2ull << 30;
  std::optional<uint16_t> gdb_port;
  bool gdb_wait = false;
  bool gpu = true;                 // --no-gpu: no Mali-G71 device and no device-tree node
  unsigned gpu_cores = 8;          // --gpu-cores N: shader cores (SHADER_PRESENT = (1 << N) - 1)
  unsigned gpu_threads = 0;        // --gpu-threads N: host threads compute workgroups run on (0: the default)
  std::string gpu_timing = "off";  // --gpu-timing off|on|complete (instrumentation/models)
  unsigned gpu_clock_mhz = 0;      // --gpu-clock MHz for the timing models (0: the parameter file's, 1037)
  bool trace_gpu_regs = false;     // --trace gpu-regs
  std::string trace_file;          // --trace-file FILE (default: stderr)
  std::string cpu_engine = "auto"; // --cpu-engine interp|jit|auto (cpu-dbt/a64_jit.h)
  // --cpu-mips N: instructions per second of virtual time each CPU retires, in millions (a multiple of 50:
  // a whole number of instructions per tick of the 50 MHz generic timer).
  unsigned cpu_mips = 1000;
  // --rng-seed N|random|none: the seed the board's boot firmware hands the kernel (/chosen/rng-seed, 32
  // bytes). Linux credits it to its random pool, so its CRNG is ready from the first instruction instead of
  // hashing its pool again at every request for random bytes while it gathers entropy from interrupts. A
  // number gives the same bytes every boot (runs repeat); `random` takes them from the host.
  enum class RngSeed { Number, Random, None };
  RngSeed rng_seed = RngSeed::Number;
  uint64_t rng_seed_number = 0;
  // Statistics (instrumentation/README.md): --stats FILE.json, --stats-summary (text on stderr at exit),
  // --stats-csv DIR, --trace-timeline FILE (Chrome trace events), --cpu-stats (per-mnemonic CPU histogram).
  std::string stats_file, stats_csv, trace_timeline;
  bool stats_summary = false, cpu_stats = false;
  // --stats-host-time: each compute job's host seconds in the shader cores go into the statistics (they
  // differ from run to run, so they are left out unless asked for).
  bool stats_host_time = false;
  // --console-log FILE: the guest's console output, each line prefixed with the virtual time (ticks) at which
  // its first byte was written, so host tools can place console lines and GPU jobs on one time axis.
  std::string console_log;
  // --dump-shaders DIR: our disassembly of every shader the GPU ran, one file per shader.
  std::string dump_shaders;
  bool stats_enabled() const {
    return !stats_file.empty() || !stats_csv.empty() || !trace_timeline.empty() || stats_summary ||
           cpu_stats || stats_host_time;
  }
  bool help = false, version = false;
};

// Parses argv. On a usage error returns nullopt and sets `error` to a one-line message.
std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error);

// Parses sizes such as 512M, 2G, 1048576.
std::optional<uint64_t> parse_size(const std::string& text);

std::string help_text();
std::string version_text();

} // namespace vplat
