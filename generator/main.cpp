// adlc: compiles architecture descriptions (archdesc/<isa>/*.adl) into C++ for the emulator.
#include "checker.h"
#include "emit_cpp.h"
#include "emit_llvm.h"
#include "parser.h"
#include <cstring>
#include <iostream>

namespace {

void usage(std::ostream& o) {
  o << "usage: adlc [options] FILE.adl...\n"
       "Compiles one architecture description (all its files) into C++.\n\n"
       "  -o DIR           write generated files into DIR (required unless --check)\n"
       "  --chunks N       split the interpreter over N .cpp files (default 4)\n"
       "  --check          parse and check only; write nothing\n"
       "  --jit            write the JIT's IR emitters (LLVM) instead of the interpreter and decoder\n"
       "  --list-outputs   print the names of the files that would be written, for build systems\n"
       "  --isa NAME       with --list-outputs: the ISA name (files need not exist)\n"
       "  -h, --help       this text\n";
}

} // namespace

int main(int argc, char** argv) {
  adl::CppOptions opts;
  std::vector<std::string> files;
  bool check_only = false, list = false, jit = false;
  std::string isa;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "adlc: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      usage(std::cout);
      return 0;
    } else if (a == "-o") {
      opts.out_dir = value();
    } else if (a == "--chunks") {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 1 || n > 64) {
        std::cerr << "adlc: --chunks needs a number from 1 to 64, not '" << v << "'\n";
        return 2;
      }
      opts.interp_chunks = static_cast<int>(n);
    } else if (a == "--check") {
      check_only = true;
    } else if (a == "--jit") {
      jit = true;
    } else if (a == "--list-outputs") {
      list = true;
    } else if (a == "--isa") {
      isa = value();
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "adlc: unknown option '" << a << "' (see --help)\n";
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (list) {
    if (isa.empty()) {
      std::cerr << "adlc: --list-outputs needs --isa NAME\n";
      return 2;
    }
    for (auto& f : jit ? adl::llvm_outputs(isa, {opts.out_dir, opts.interp_chunks}) : adl::cpp_outputs(isa, opts))
      std::cout << f << "\n";
    return 0;
  }
  if (files.empty()) {
    std::cerr << "adlc: no description files given (see --help)\n";
    return 2;
  }
  if (!check_only && opts.out_dir.empty()) {
    std::cerr << "adlc: -o DIR is required\n";
    return 2;
  }
  try {
    adl::Description desc;
    for (auto& f : files) adl::parse_file(f, desc);
    adl::check(desc);
    if (!check_only && jit) adl::emit_llvm(desc, {opts.out_dir, opts.interp_chunks});
    else if (!check_only) adl::emit_cpp(desc, opts);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
