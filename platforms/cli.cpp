#include "platforms/cli.h"
#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace vplat {

std::optional<uint64_t> parse_size(const std::string& t) {
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0]))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(t.c_str(), &end, 10);
  if (errno) return std::nullopt;
  std::string suffix(end);
  unsigned shift = 0;
  if (suffix == "" || suffix == "B")
    shift = 0;
  else if (suffix == "K" || suffix == "KiB" || suffix == "k")
    shift = 10;
  else if (suffix == "M" || suffix == "MiB")
    shift = 20;
  else if (suffix == "G" || suffix == "GiB")
    shift = 30;
  else
    return std::nullopt;
  if (shift && v > (~0ull >> shift)) return std::nullopt;
  return v << shift;
}

std::string help_text() {
  return "usage: vplat [--platform juno] [options]\n"
         "vplat emulates an Arm Juno-like board (AArch64 CPUs, Mali-G71 GPU).\n"
         "\n"
         "Platform:\n"
         "  --platform NAME     board to emulate (default juno; available: juno)\n"
         "  --smp N             number of CPUs (1..6, default 1)\n"
         "  --memory SIZE       guest RAM, e.g. 2G or 512M (default 2G)\n"
         "  --gpu-cores N       Mali-G71 shader cores (1..32, default 8)\n"
         "  --gpu-threads N     host threads that run GPU compute workgroups (1..64; default 2,\n"
         "                      or 1 on a single-thread host); results do not depend on N\n"
         "  --no-gpu            no Mali-G71 (no device, no device-tree node)\n"
         "  --gpu-timing MODE   GPU timing models: off (default), on (estimate every compute job and\n"
         "                      print it and each new shader's static estimate on stderr), complete\n"
         "                      (also let the estimate decide when jobs complete in virtual time)\n"
         "  --gpu-clock MHZ     GPU clock the estimates use (1..4000, default 1037, a Kirin 960's G71)\n"
         "  --cpu-engine E      how CPUs run guest code: interp (interpreter only), jit (translate every\n"
         "                      block before it runs), auto (interpret, compile hot blocks in the\n"
         "                      background; default). Results are the same in every mode.\n"
         "  --cpu-mips N        CPU speed in virtual time: millions of instructions each CPU retires per\n"
         "                      virtual second (50..2500, a multiple of 50; default 1000: a 1 GHz core\n"
         "                      retiring one instruction per cycle; 50 is one 50 MHz timer tick per\n"
         "                      instruction)\n"
         "  --rng-seed S        seed for the guest kernel's random number generator, passed as the device\n"
         "                      tree's /chosen/rng-seed as boot firmware does: a number (default 0: the\n"
         "                      same 32 bytes every boot, so runs repeat), random (from the host) or none\n"
         "Guest images:\n"
         "  --kernel FILE       Linux arm64 Image (raw or gzip)\n"
         "  --initrd FILE       initial ramdisk\n"
         "  --disk FILE         raw disk image for virtio-blk\n"
         "  --append \"ARGS\"     kernel command line\n"
         "  --dump-dtb FILE     write the generated device tree and exit\n"
         "Statistics (instrumentation/README.md):\n"
         "  --stats FILE        write run statistics as JSON at exit (GPU jobs, shader instruction/clause/\n"
         "                      data-access counts, divergence graphs, GPU registers, IRQs, CPU "
         "instructions)\n"
         "  --stats-summary     print a readable summary of the statistics on stderr at exit\n"
         "  --stats-csv DIR     write the statistics as CSV files into DIR\n"
         "  --trace-timeline F  GPU jobs, GPU interrupts and CPU idle (WFI) in virtual time, as Chrome\n"
         "                      trace-event JSON (chrome://tracing, ui.perfetto.dev)\n"
         "  --cpu-stats         also count CPU instructions by instruction and class (counted per\n"
         "                      translated block in the JIT tiers)\n"
         "  --stats-host-time   add each compute job's host seconds in the GPU model to the statistics\n"
         "                      (not reproducible, so off by default)\n"
         "  --console-log FILE  copy the guest's console output to FILE, each line prefixed with its "
         "virtual\n"
         "                      time in 50 MHz ticks\n"
         "  --dump-shaders DIR  write our disassembly of every shader the GPU runs into DIR (one file each)\n"
         "Debugging:\n"
         "  --trace LIST        trace events: gpu-regs[=FILE] (every GPU register access by name, and every "
         "job)\n"
         "  --trace-file FILE   write traces to FILE (default: stderr)\n"
         "  --gdb PORT          GDB remote stub on 127.0.0.1:PORT\n"
         "  --gdb-wait          wait for GDB to attach before starting\n"
         "General:\n"
         "  -h, --help          this text\n"
         "  --version           version and build information\n"
         "\n"
         "With no --kernel, vplat boots the default image that 'make image' builds next to the binary.\n"
         "Console: the guest's serial port on stdin/stdout; Ctrl-A x quits, Ctrl-A h lists the keys.\n"
         "Exit status: 0 when the guest powers off (or Ctrl-A x), 2 on bad options or images.\n";
}

std::string version_text() {
  return std::string("vplat ") + VPLAT_VERSION + "\n";
}

namespace {

std::optional<unsigned long> parse_uint(const std::string& t) {
  if (t.empty() || t.size() > 10) return std::nullopt;
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoul(t);
}

// Decimal, or hexadecimal after 0x; the whole text, at most 64 bits.
std::optional<uint64_t> parse_u64(const std::string& t) {
  const bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  const std::string digits = hex ? t.substr(2) : t;
  if (digits.empty()) return std::nullopt;
  for (char c : digits)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
      return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno) return std::nullopt;
  return v;
}

} // namespace

std::optional<Options> parse_options(const std::vector<std::string>& args, std::string& error) {
  Options o;
  bool gpu_cores_given = false, gpu_threads_given = false, gpu_timing_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      auto eq = a.find('=');
      if (eq != std::string::npos) {
        inline_value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      }
    }
    auto value = [&](std::string& out) -> bool {
      if (has_inline) {
        out = inline_value;
        return true;
      }
      if (i + 1 >= args.size()) {
        error = "option " + a + " needs a value";
        return false;
      }
      out = args[++i];
      return true;
    };
    std::string v;
    if (has_inline && (a == "--help" || a == "--version" || a == "--gdb-wait" || a == "--no-gpu" ||
                       a == "--stats-summary" || a == "--cpu-stats" || a == "--stats-host-time")) {
      error = "option " + a + " takes no value";
      return std::nullopt;
    }
    if (a == "-h" || a == "--help")
      o.help = true;
    else if (a == "--version")
      o.version = true;
    else if (a == "--gdb-wait")
      o.gdb_wait = true;
    else if (a == "--no-gpu")
      o.gpu = false;
    else if (a == "--stats-summary")
      o.stats_summary = true;
    else if (a == "--cpu-stats")
      o.cpu_stats = true;
    else if (a == "--stats-host-time")
      o.stats_host_time = true;
    else if (a == "--stats" || a == "--stats-csv" || a == "--trace-timeline" || a == "--console-log" ||
             a == "--dump-shaders") {
      if (!value(v)) return std::nullopt;
      if (v.empty()) {
        error = "option " + a + " needs a file name";
        return std::nullopt;
      }
      (a == "--stats"          ? o.stats_file
       : a == "--stats-csv"    ? o.stats_csv
       : a == "--console-log"  ? o.console_log
       : a == "--dump-shaders" ? o.dump_shaders
                               : o.trace_timeline) = v;
    } else if (a == "--platform") {
      if (!value(v)) return std::nullopt;
      if (v != "juno") {
        error = "unknown platform '" + v + "' (available: juno)";
        return std::nullopt;
      }
      o.platform = v;
    } else if (a == "--kernel" || a == "--initrd" || a == "--disk" || a == "--append" || a == "--dump-dtb") {
      if (!value(v)) return std::nullopt;
      (a == "--kernel"   ? o.kernel
       : a == "--initrd" ? o.initrd
       : a == "--disk"   ? o.disk
       : a == "--append" ? o.append
                         : o.dump_dtb) = v;
    } else if (a == "--trace") {
      if (!value(v)) return std::nullopt;
      size_t start = 0;
      while (start <= v.size()) {
        size_t comma = v.find(',', start);
        std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item == "gpu-regs") {
          o.trace_gpu_regs = true;
        } else if (item.rfind("gpu-regs=", 0) == 0 && item.size() > 9) {
          // Shorthand for --trace gpu-regs --trace-file FILE.
          if (!o.trace_file.empty() && o.trace_file != item.substr(9)) {
            error = "two trace files: '" + o.trace_file + "' and '" + item.substr(9) + "'";
            return std::nullopt;
          }
          o.trace_gpu_regs = true;
          o.trace_file = item.substr(9);
        } else {
          error = "unknown trace category '" + item + "' (available: gpu-regs)";
          return std::nullopt;
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "--trace-file") {
      if (!value(v)) return std::nullopt;
      if (!o.trace_file.empty() && o.trace_file != v) {
        error = "two trace files: '" + o.trace_file + "' and '" + v + "'";
        return std::nullopt;
      }
      o.trace_file = v;
    } else if (a == "--smp") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 1 || *n > 6) {
        error = "--smp needs a CPU count from 1 to 6, not '" + v + "'";
        return std::nullopt;
      }
      o.smp = static_cast<unsigned>(*n);
    } else if (a == "--memory") {
      if (!value(v)) return std::nullopt;
      auto n = parse_size(v);
      if (!n || *n < (16ull << 20) || *n > (8ull << 30)) {
        error = "--memory needs a size from 16M to 8G (e.g. 512M, 2G), not '" + v + "'";
        return std::nullopt;
      }
      o.memory = *n;
    } else if (a == "--cpu-engine") {
      if (!value(v)) return std::nullopt;
      if (v != "interp" && v != "jit" && v != "auto") {
        error = "--cpu-engine needs interp, jit or auto, not '" + v + "'";
        return std::nullopt;
      }
      o.cpu_engine = v;
    } else if (a == "--cpu-mips") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 50 || *n > 2500 || *n % 50) {
        error = "--cpu-mips needs a multiple of 50 from 50 to 2500, not '" + v + "'";
        return std::nullopt;
      }
      o.cpu_mips = static_cast<unsigned>(*n);
    } else if (a == "--gpu-cores") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 1 || *n > 32) {
        error = "--gpu-cores needs a shader core count from 1 to 32, not '" + v + "'";
        return std::nullopt;
      }
      o.gpu_cores = static_cast<unsigned>(*n);
      gpu_cores_given = true;
    } else if (a == "--gpu-threads") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 1 || *n > 64) {
        error = "--gpu-threads needs a host thread count from 1 to 64, not '" + v + "'";
        return std::nullopt;
      }
      o.gpu_threads = static_cast<unsigned>(*n);
      gpu_threads_given = true;
    } else if (a == "--gpu-timing") {
      if (!value(v)) return std::nullopt;
      if (v != "off" && v != "on" && v != "complete") {
        error = "--gpu-timing needs off, on or complete, not '" + v + "'";
        return std::nullopt;
      }
      o.gpu_timing = v;
      gpu_timing_given = true;
    } else if (a == "--gpu-clock") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 1 || *n > 4000) {
        error = "--gpu-clock needs a clock in MHz from 1 to 4000, not '" + v + "'";
        return std::nullopt;
      }
      o.gpu_clock_mhz = static_cast<unsigned>(*n);
      gpu_timing_given = true;
    } else if (a == "--rng-seed") {
      if (!value(v)) return std::nullopt;
      if (v == "random") {
        o.rng_seed = Options::RngSeed::Random;
      } else if (v == "none") {
        o.rng_seed = Options::RngSeed::None;
      } else {
        auto n = parse_u64(v);
        if (!n) {
          error =
              "--rng-seed needs a number (decimal or 0x hex, up to 64 bits), random or none, not '" + v + "'";
          return std::nullopt;
        }
        o.rng_seed = Options::RngSeed::Number;
        o.rng_seed_number = *n;
      }
    } else if (a == "--gdb") {
      if (!value(v)) return std::nullopt;
      auto n = parse_uint(v);
      if (!n || *n < 1 || *n > 65535) {
        error = "--gdb needs a TCP port from 1 to 65535, not '" + v + "'";
        return std::nullopt;
      }
      o.gdb_port = static_cast<uint16_t>(*n);
    } else {
      error = "unknown option '" + args[i] + "' (see vplat --help)";
      return std::nullopt;
    }
  }
  // Both together are a contradiction; saying so beats silently ignoring one of them.
  if (gpu_cores_given && !o.gpu) {
    error = "--gpu-cores and --no-gpu contradict each other";
    return std::nullopt;
  }
  if (gpu_threads_given && !o.gpu) {
    error = "--gpu-threads and --no-gpu contradict each other";
    return std::nullopt;
  }
  if (gpu_timing_given && !o.gpu) {
    error = "--gpu-timing/--gpu-clock and --no-gpu contradict each other";
    return std::nullopt;
  }
  if (o.gdb_wait && !o.gdb_port) {
    error = "--gdb-wait needs --gdb PORT";
    return std::nullopt;
  }
  return o;
}

} // namespace vplat
