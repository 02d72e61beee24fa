#include "platforms/cli.h"
#include <iostream>

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
  std::cerr << "vplat: running a guest on platform '" << opts->platform
            << "' is not implemented yet (system emulation is the next milestone)\n";
  return 2;
}
