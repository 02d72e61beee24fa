#include "platforms/cli.h"
#include "platforms/gdbstub.h"
#include "platforms/juno_board.h"
#include "platforms/juno_machine.h"
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <unistd.h>

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
    auto blob = vplat::juno::build_dtb(vplat::dtb_config(*opts));
    std::ofstream f(opts->dump_dtb, std::ios::binary);
    if (!f.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()))) {
      std::cerr << "vplat: cannot write '" << opts->dump_dtb << "'\n";
      return 2;
    }
    return 0;
  }
  // With no image flags, boot the default image that `make image` builds next to the binary.
  if (opts->kernel.empty() && opts->initrd.empty()) {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    auto dir = (ec ? std::filesystem::path(argv[0]) : exe).parent_path() / "guest";
    if (!std::filesystem::exists(dir / "Image")) {
      std::cerr << "vplat: no --kernel given and no default image at " << (dir / "Image").string()
                << " (build it with 'make image')\n";
      return 2;
    }
    opts->kernel = (dir / "Image").string();
    if (std::filesystem::exists(dir / "initramfs.cpio.gz")) opts->initrd = (dir / "initramfs.cpio.gz").string();
    if (opts->append.empty()) opts->append = "console=ttyAMA0";
  }
  for (;;) {
    auto machine = vplat::JunoMachine::create(*opts, error);
    if (!machine) {
      std::cerr << "vplat: " << error << "\n";
      return 2;
    }
    // The stub belongs to one boot: a guest reset ends the GDB session (it sees the exit) and the new
    // machine listens again on the same port.
    std::unique_ptr<vplat::gdb::GdbStub> stub;
    if (opts->gdb_port) {
      try {
        stub = std::make_unique<vplat::gdb::GdbStub>(*machine, *opts->gdb_port);
      } catch (const std::exception& e) {
        std::cerr << "vplat: " << e.what() << "\n";
        return 2;
      }
      std::cerr << "vplat: GDB server on 127.0.0.1:" << stub->port()
                << (opts->gdb_wait ? ", waiting for GDB to connect\n" : "\n");
    }
    auto outcome = machine->run(stub.get(), opts->gdb_wait);
    if (outcome != vplat::JunoMachine::Outcome::Reset) return 0;
  }
}
