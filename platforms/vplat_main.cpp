#include "platforms/cli.h"
#include "platforms/juno_board.h"
#include <fstream>
#include <iostream>

namespace {

vplat::juno::DtbConfig dtb_config(const vplat::Options& o) {
  vplat::juno::DtbConfig c;
  c.cpus = o.smp;
  c.ram_size = o.memory;
  c.bootargs = o.append;
  c.virtio_disk = !o.disk.empty();
  return c;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string error;
  auto opts = vplat::parse_options(args, error);
  if (!opts) {
    std::cerr << "vplat: " << error << "\n";
    return 2;
  }
  if (opts->help) {
    std::cout << vplat::help_text();
    return 0;
  }
  if (opts->version) {
    std::cout << vplat::version_text();
    return 0;
  }
  if (!opts->dump_dtb.empty()) {
    auto blob = vplat::juno::build_dtb(dtb_config(*opts));
    std::ofstream f(opts->dump_dtb, std::ios::binary);
    if (!f.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()))) {
      std::cerr << "vplat: cannot write '" << opts->dump_dtb << "'\n";
      return 2;
    }
    return 0;
  }
  std::cerr << "vplat: running a guest on platform '" << opts->platform
            << "' is not implemented yet (system emulation is the next milestone)\n";
  return 2;
}
