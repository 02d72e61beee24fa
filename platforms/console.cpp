#include "platforms/console.h"
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

namespace vplat {

namespace {

termios g_saved;
bool g_raw = false;

void restore_terminal() {
  if (g_raw) {
    tcsetattr(STDIN_FILENO, TCSANOW, &g_saved);
    g_raw = false;
  }
}

void on_fatal_signal(int sig) {
  restore_terminal();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

} // namespace

Console::Console() {
  if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &g_saved) == 0) {
    termios raw = g_saved;
    // Keys go to the guest unchanged (Ctrl-C included); output processing is left on so that a crash
    // message from vplat itself still lands at the start of a line.
    raw.c_iflag &= ~static_cast<tcflag_t>(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
    raw.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    raw.c_cflag |= CS8;
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) {
      g_raw = raw_ = true;
      std::atexit(restore_terminal);
      for (int sig : {SIGTERM, SIGHUP, SIGSEGV, SIGABRT, SIGBUS, SIGFPE})
        std::signal(sig, on_fatal_signal);
    }
  }
}

Console::~Console() {
  flush();
  if (raw_) restore_terminal();
}

void Console::output(uint8_t byte) {
  out_ += static_cast<char>(byte);
  if (out_.size() >= 4096) flush();
}

void Console::flush() {
  size_t done = 0;
  while (done < out_.size()) {
    ssize_t n = write(STDOUT_FILENO, out_.data() + done, out_.size() - done);
    if (n <= 0) break; // stdout gone: drop output rather than stall the guest
    done += static_cast<size_t>(n);
  }
  out_.clear();
}

std::string Console::poll_input(int wait_ms) {
  std::string in;
  if (closed_) return in;
  pollfd p{STDIN_FILENO, POLLIN, 0};
  if (poll(&p, 1, wait_ms) <= 0) return in;
  if (p.revents & (POLLERR | POLLNVAL)) {
    closed_ = true;
    return in;
  }
  char buf[256];
  ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
  if (n <= 0) {
    closed_ = n == 0 || (p.revents & POLLHUP); // end of file: the guest sees no more input
    return in;
  }
  for (ssize_t i = 0; i < n; ++i) {
    uint8_t c = static_cast<uint8_t>(buf[i]);
    if (!raw_) {
      in += static_cast<char>(c);
      continue;
    }
    if (escape_) {
      escape_ = false;
      if (c == 'x' || c == 'X') {
        quit_ = true;
        continue;
      }
      if (c == 'h' || c == 'H' || c == '?') {
        const char* help = "\r\nvplat console: Ctrl-A x quit, Ctrl-A Ctrl-A send Ctrl-A, Ctrl-A h this help\r\n";
        [[maybe_unused]] ssize_t w = write(STDOUT_FILENO, help, std::char_traits<char>::length(help));
        continue;
      }
      in += static_cast<char>(c == 0x01 ? 0x01 : c);
      continue;
    }
    if (c == 0x01) {
      escape_ = true;
      continue;
    }
    in += static_cast<char>(c);
  }
  return in;
}

} // namespace vplat
