// The host side of the guest's serial console: guest output to stdout; stdin to the guest, in raw mode when
// it is a terminal (restored on exit), with QEMU's escape: Ctrl-A x quits, Ctrl-A Ctrl-A sends Ctrl-A,
// Ctrl-A h lists the keys. Works with stdin closed or redirected from a file or pipe.
#pragma once
#include <cstdint>
#include <string>

namespace vplat {

class Console {
public:
  Console();
  ~Console();
  Console(const Console&) = delete;
  Console& operator=(const Console&) = delete;

  void output(uint8_t byte);
  void flush();

  // Reads what the host has typed, without blocking; returns the bytes for the guest. Sets quit_requested()
  // on Ctrl-A x. `wait_ms` > 0 waits up to that long for input (used when every CPU is idle).
  std::string poll_input(int wait_ms = 0);
  bool quit_requested() const { return quit_; }
  bool input_closed() const { return closed_; }

private:
  bool raw_ = false, quit_ = false, closed_ = false, escape_ = false;
  std::string out_;
};

} // namespace vplat
