#include "platforms/gdbstub.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace vplat::gdb {

namespace {

// Largest packet payload we accept and announce (qSupported PacketSize, in hex in the reply). Big enough for
// a G packet (68 registers, 1072 bytes of data = 2144 hex digits) and for 8 KiB memory transfers.
constexpr size_t kPacketSize = 0x4000;
constexpr int kNumRegs = 68;
constexpr const char* kHex = "0123456789abcdef";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses a whole string as a hexadecimal number of at most 16 digits.
bool parse_hex(std::string_view s, uint64_t& v) {
  if (s.empty() || s.size() > 16) return false;
  v = 0;
  for (char c : s) {
    int d = hex_digit(c);
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return true;
}

std::string to_hex(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  std::string s;
  s.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}

bool from_hex(std::string_view s, std::string& out) {
  if (s.size() % 2) return false;
  out.clear();
  out.reserve(s.size() / 2);
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>(hi << 4 | lo);
  }
  return true;
}

std::string hex_u64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hex_byte(unsigned v) {
  char buf[3] = {kHex[(v >> 4) & 15], kHex[v & 15], 0};
  return buf;
}

// Splits "addr,len" (both hex) as used by m, M, X, Z and qXfer.
bool parse_addr_len(std::string_view s, uint64_t& addr, uint64_t& len) {
  size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  return parse_hex(s.substr(0, comma), addr) && parse_hex(s.substr(comma + 1), len);
}

// Register `n` of `r` as its bytes in target (little-endian) order; the size follows the target description.
size_t reg_bytes(Registers& r, int n, uint8_t*& p) {
  if (n >= 0 && n <= 30) {
    p = reinterpret_cast<uint8_t*>(&r.x[n]);
    return 8;
  }
  if (n == 31) {
    p = reinterpret_cast<uint8_t*>(&r.sp);
    return 8;
  }
  if (n == 32) {
    p = reinterpret_cast<uint8_t*>(&r.pc);
    return 8;
  }
  if (n == 33) {
    p = reinterpret_cast<uint8_t*>(&r.cpsr);
    return 4;
  }
  if (n >= 34 && n <= 65) {
    p = reinterpret_cast<uint8_t*>(&r.v[n - 34]);
    return 16;
  }
  if (n == 66) {
    p = reinterpret_cast<uint8_t*>(&r.fpsr);
    return 4;
  }
  if (n == 67) {
    p = reinterpret_cast<uint8_t*>(&r.fpcr);
    return 4;
  }
  return 0;
}

std::string make_target_xml() {
  // The feature and register names are the ones GDB's manual requires for AArch64 ("AArch64 Features"); GDB
  // checks them by name, so the types only shape how values are printed. The vector union lets `p $v0` show
  // the lanes the way GDB users expect.
  std::string x =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      "<architecture>aarch64</architecture>\n"
      "<feature name=\"org.gnu.gdb.aarch64.core\">\n"
      "<flags id=\"cpsr_flags\" size=\"4\">\n"
      "<field name=\"SP\" start=\"0\" end=\"0\"/>\n"
      "<field name=\"EL\" start=\"2\" end=\"3\"/>\n"
      "<field name=\"nRW\" start=\"4\" end=\"4\"/>\n"
      "<field name=\"F\" start=\"6\" end=\"6\"/>\n"
      "<field name=\"I\" start=\"7\" end=\"7\"/>\n"
      "<field name=\"A\" start=\"8\" end=\"8\"/>\n"
      "<field name=\"D\" start=\"9\" end=\"9\"/>\n"
      "<field name=\"V\" start=\"28\" end=\"28\"/>\n"
      "<field name=\"C\" start=\"29\" end=\"29\"/>\n"
      "<field name=\"Z\" start=\"30\" end=\"30\"/>\n"
      "<field name=\"N\" start=\"31\" end=\"31\"/>\n"
      "</flags>\n";
  for (int i = 0; i <= 30; ++i)
    x += "<reg name=\"x" + std::to_string(i) + "\" bitsize=\"64\" type=\"int\" regnum=\"" +
         std::to_string(i) + "\"/>\n";
  x += "<reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\" regnum=\"31\"/>\n"
       "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"32\"/>\n"
       "<reg name=\"cpsr\" bitsize=\"32\" type=\"cpsr_flags\" regnum=\"33\"/>\n"
       "</feature>\n"
       "<feature name=\"org.gnu.gdb.aarch64.fpu\">\n"
       "<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
       "<vector id=\"v2u\" type=\"uint64\" count=\"2\"/>\n"
       "<vector id=\"v2i\" type=\"int64\" count=\"2\"/>\n"
       "<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
       "<vector id=\"v4u\" type=\"uint32\" count=\"4\"/>\n"
       "<vector id=\"v4i\" type=\"int32\" count=\"4\"/>\n"
       "<vector id=\"v8u\" type=\"uint16\" count=\"8\"/>\n"
       "<vector id=\"v8i\" type=\"int16\" count=\"8\"/>\n"
       "<vector id=\"v16u\" type=\"uint8\" count=\"16\"/>\n"
       "<vector id=\"v16i\" type=\"int8\" count=\"16\"/>\n"
       "<vector id=\"v1u\" type=\"uint128\" count=\"1\"/>\n"
       "<vector id=\"v1i\" type=\"int128\" count=\"1\"/>\n"
       "<union id=\"vnd\"><field name=\"f\" type=\"v2d\"/><field name=\"u\" type=\"v2u\"/>"
       "<field name=\"s\" type=\"v2i\"/></union>\n"
       "<union id=\"vns\"><field name=\"f\" type=\"v4f\"/><field name=\"u\" type=\"v4u\"/>"
       "<field name=\"s\" type=\"v4i\"/></union>\n"
       "<union id=\"vnh\"><field name=\"u\" type=\"v8u\"/><field name=\"s\" type=\"v8i\"/></union>\n"
       "<union id=\"vnb\"><field name=\"u\" type=\"v16u\"/><field name=\"s\" type=\"v16i\"/></union>\n"
       "<union id=\"vnq\"><field name=\"u\" type=\"v1u\"/><field name=\"s\" type=\"v1i\"/></union>\n"
       "<union id=\"aarch64v\"><field name=\"d\" type=\"vnd\"/><field name=\"s\" type=\"vns\"/>"
       "<field name=\"h\" type=\"vnh\"/><field name=\"b\" type=\"vnb\"/><field name=\"q\" "
       "type=\"vnq\"/></union>\n";
  for (int i = 0; i < 32; ++i)
    x += "<reg name=\"v" + std::to_string(i) + "\" bitsize=\"128\" type=\"aarch64v\" regnum=\"" +
         std::to_string(34 + i) + "\"/>\n";
  x += "<reg name=\"fpsr\" bitsize=\"32\" type=\"int\" regnum=\"66\"/>\n"
       "<reg name=\"fpcr\" bitsize=\"32\" type=\"int\" regnum=\"67\"/>\n"
       "</feature>\n</target>\n";
  return x;
}

} // namespace

uint8_t checksum(std::string_view data) {
  unsigned sum = 0;
  for (char c : data) sum += static_cast<uint8_t>(c);
  return static_cast<uint8_t>(sum);
}

std::string escape_binary(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (char c : data) {
    if (c == '#' || c == '$' || c == '}' || c == '*') {
      out += '}';
      out += static_cast<char>(c ^ 0x20);
    } else {
      out += c;
    }
  }
  return out;
}

bool unescape_binary(std::string_view data, std::string& out) {
  out.clear();
  out.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '}') {
      if (++i == data.size()) return false;
      out += static_cast<char>(data[i] ^ 0x20);
    } else {
      out += data[i];
    }
  }
  return true;
}

const std::string& GdbStub::target_xml() {
  static const std::string xml = make_target_xml();
  return xml;
}

GdbStub::GdbStub(Target& target, uint16_t port) : target_(target) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0)
    throw std::runtime_error(std::string("gdbstub: cannot create a socket: ") + std::strerror(errno));
  // SO_REUSEADDR lets a restarted vplat take the port back while old connections sit in TIME_WAIT; it does
  // not let two live listeners share the port on Linux, so a busy port is still reported.
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  // Loopback only: whoever connects controls the guest completely.
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 ||
      ::listen(listen_fd_, 1) < 0) {
    int err = errno;
    ::close(listen_fd_);
    listen_fd_ = -1;
    if (err == EADDRINUSE)
      throw std::runtime_error("gdbstub: port " + std::to_string(port) +
                               " on 127.0.0.1 is already in use; choose another port for the GDB server");
    throw std::runtime_error("gdbstub: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " +
                             std::strerror(err));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

GdbStub::~GdbStub() {
  if (conn_fd_ >= 0) ::close(conn_fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void GdbStub::wait_for_connection() {
  while (!accept_one(-1)) {
  }
}

bool GdbStub::try_accept() {
  return accept_one(0);
}

bool GdbStub::accept_one(int timeout_ms) {
  pollfd p{listen_fd_, POLLIN, 0};
  int r = ::poll(&p, 1, timeout_ms);
  if (r < 0 && errno != EINTR)
    throw std::runtime_error(std::string("gdbstub: poll failed: ") + std::strerror(errno));
  if (r <= 0) return false;
  // Non-blocking accept: the client may have gone away between poll and accept.
  int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EWOULDBLOCK) return false;
    throw std::runtime_error(std::string("gdbstub: accept failed: ") + std::strerror(errno));
  }
  if (conn_fd_ >= 0) ::close(conn_fd_);
  conn_fd_ = fd;
  int one = 1;
  // Packets are small and each waits for an answer: Nagle's delay would only add latency.
  ::setsockopt(conn_fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  no_ack_ = false;
  in_.clear();
  last_sent_.clear();
  breakpoints_.clear();
  g_cpu_ = 0;
  c_cpu_ = -1;
  stop_cpu_ = 0;
  last_stop_ = Target::Stop::Interrupted;
  end_ = SessionEnd::Disconnected;
  return true;
}

// Reads what is available into in_, waiting up to timeout_ms (-1: forever). False when the connection is
// gone.
bool GdbStub::fill_input(int timeout_ms) {
  pollfd p{conn_fd_, POLLIN, 0};
  int r;
  do r = ::poll(&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  if (r < 0) return false;
  if (r == 0) return true;
  char buf[4096];
  ssize_t n;
  do n = ::recv(conn_fd_, buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return false;
  in_.append(buf, static_cast<size_t>(n));
  return true;
}

void GdbStub::send_raw(std::string_view bytes) {
  while (!bytes.empty() && conn_fd_ >= 0) {
    ssize_t n = ::send(conn_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return; // a dead connection is noticed by the next read
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void GdbStub::send_packet(std::string_view payload) {
  std::string framed;
  framed.reserve(payload.size() + 4);
  framed += '$';
  framed += payload;
  framed += '#';
  framed += hex_byte(checksum(payload));
  last_sent_ = framed;
  send_raw(framed);
}

// Takes the next complete packet out of in_, reading more as needed. Outside packets, '+' is an ack (ignored:
// we do not block on acks), '-' asks for the last packet again, 0x03 is Ctrl-C, anything else is line noise.
GdbStub::Read GdbStub::read_packet(std::string& packet) {
  for (;;) {
    size_t i = 0;
    while (i < in_.size()) {
      char c = in_[i];
      if (c == '$') break;
      ++i;
      if (c == '-' && !no_ack_ && !last_sent_.empty()) send_raw(last_sent_);
      if (c == 0x03) {
        in_.erase(0, i);
        return Read::Interrupt;
      }
    }
    in_.erase(0, i);
    if (!in_.empty()) {
      size_t hash = in_.find('#');
      if (hash == std::string::npos && in_.size() > kPacketSize + 4) {
        // Far over the announced size and not finished: drop it rather than buffer without limit.
        in_.erase(0, 1);
        if (!no_ack_) send_raw("-");
        continue;
      }
      // A '$' before the end of the checksum means the previous packet was cut ('$' never appears unescaped
      // in a body or a checksum): start again there.
      size_t restart = in_.find('$', 1);
      if (restart != std::string::npos && (hash == std::string::npos || restart <= hash + 2)) {
        in_.erase(0, restart);
        continue;
      }
      if (hash != std::string::npos && in_.size() >= hash + 3) {
        std::string body = in_.substr(1, hash - 1);
        int hi = hex_digit(in_[hash + 1]), lo = hex_digit(in_[hash + 2]);
        in_.erase(0, hash + 3);
        bool good = hi >= 0 && lo >= 0 && checksum(body) == (hi << 4 | lo) && body.size() <= kPacketSize;
        if (!no_ack_) send_raw(good ? "+" : "-");
        // In no-ack mode GDB does not retransmit, so a damaged packet is simply dropped.
        if (!good) continue;
        packet = std::move(body);
        return Read::Packet;
      }
    }
    if (!fill_input(-1)) return Read::Closed;
  }
}

// Called by the target while it runs: true when GDB sent Ctrl-C or went away.
bool GdbStub::poll_interrupt() {
  if (conn_fd_ < 0) return true;
  if (!fill_input(0)) {
    ::close(conn_fd_);
    conn_fd_ = -1;
    return true;
  }
  // Only the interrupt byte matters while running; acks and stray bytes are dropped, but a packet GDB sent
  // meanwhile (it should not) is kept for after the stop.
  size_t dollar = in_.find('$');
  std::string_view head(in_.data(), dollar == std::string::npos ? in_.size() : dollar);
  bool intr = head.find('\x03') != std::string_view::npos;
  in_.erase(0, head.size());
  return intr;
}

std::string GdbStub::stop_reply() const {
  std::string thread = "thread:" + hex_u64(static_cast<uint64_t>(stop_cpu_) + 1) + ";";
  switch (last_stop_) {
  case Target::Stop::Breakpoint:
    return "T05swbreak:;" + thread;
  case Target::Stop::Step:
    return "T05" + thread;
  case Target::Stop::Interrupted:
    return "T02" + thread;
  case Target::Stop::Fault:
    return "T0b" + thread;
  case Target::Stop::Exited:
    return "W00";
  }
  return "T05" + thread;
}

// Runs the target and sends the stop reply. Returns false when the session ended meanwhile.
bool GdbStub::do_resume(bool step, int cpu) {
  std::vector<uint64_t> bps(breakpoints_.begin(), breakpoints_.end());
  int stopped = cpu;
  last_stop_ = target_.resume(
      step, cpu, bps, [this] { return poll_interrupt(); }, stopped);
  if (stopped >= 0 && stopped < target_.num_cpus()) stop_cpu_ = stopped;
  g_cpu_ = stop_cpu_;
  if (conn_fd_ < 0) {
    end_ = SessionEnd::Disconnected;
    return false;
  }
  send_packet(stop_reply());
  if (last_stop_ == Target::Stop::Exited) {
    end_ = SessionEnd::Exited;
    return false;
  }
  return true;
}

// Thread ids: "-1" all, "0" any, otherwise cpu + 1 in hex. A "p<pid>.<tid>" multiprocess form is accepted
// too.
int GdbStub::thread_to_cpu(const std::string& tid_in, bool allow_all, bool& ok) const {
  std::string tid = tid_in;
  if (!tid.empty() && tid[0] == 'p') {
    size_t dot = tid.find('.');
    tid = dot == std::string::npos ? "0" : tid.substr(dot + 1);
  }
  ok = true;
  if (tid == "-1") {
    if (allow_all) return -1;
    ok = false;
    return 0;
  }
  uint64_t v;
  if (!parse_hex(tid, v)) {
    ok = false;
    return 0;
  }
  if (v == 0) return allow_all ? -1 : g_cpu_;
  if (v > static_cast<uint64_t>(target_.num_cpus())) {
    ok = false;
    return 0;
  }
  return static_cast<int>(v - 1);
}

std::string GdbStub::read_memory_hex(uint64_t addr, uint64_t len) {
  // A reply is at most kPacketSize characters, two per byte; GDB accepts a shorter answer and asks for the
  // rest.
  len = std::min<uint64_t>(len, kPacketSize / 2 - 8);
  // Do not wrap around the top of the address space.
  if (addr + len < addr) len = 0 - addr;
  std::vector<uint8_t> buf(len);
  if (len == 0) return "";
  if (target_.read_memory(g_cpu_, addr, buf.data(), len)) return to_hex(buf.data(), len);
  size_t got = 0;
  while (got < len && target_.read_memory(g_cpu_, addr + got, &buf[got], 1)) ++got;
  if (got == 0) return "E14"; // EFAULT
  return to_hex(buf.data(), got);
}

std::string GdbStub::handle_query(const std::string& p) {
  if (p.rfind("qSupported", 0) == 0)
    return "PacketSize=" + hex_u64(kPacketSize) +
           ";qXfer:features:read+;swbreak+;QStartNoAckMode+;vContSupported+";
  if (p == "QStartNoAckMode") {
    // The OK still travels in ack mode (GDB acks it); everything after does not.
    send_packet("OK");
    no_ack_ = true;
    return std::string("\x01", 1); // sentinel: already answered
  }
  if (p == "qC") return "QC" + hex_u64(static_cast<uint64_t>(g_cpu_) + 1);
  if (p == "qfThreadInfo") {
    std::string r = "m";
    for (int i = 0; i < target_.num_cpus(); ++i) r += (i ? "," : "") + hex_u64(static_cast<uint64_t>(i) + 1);
    return r;
  }
  if (p == "qsThreadInfo") return "l";
  if (p == "qAttached" || p.rfind("qAttached:", 0) == 0) return "1";
  const std::string xfer = "qXfer:features:read:";
  if (p.rfind(xfer, 0) == 0) {
    std::string rest = p.substr(xfer.size());
    size_t colon = rest.find(':');
    if (colon == std::string::npos) return "E01";
    if (rest.substr(0, colon) != "target.xml") return "E00";
    uint64_t off, len;
    if (!parse_addr_len(rest.substr(colon + 1), off, len)) return "E01";
    const std::string& xml = target_xml();
    if (off >= xml.size()) return "l";
    // Escaping can double a byte: keep the reply within the packet size.
    len = std::min<uint64_t>(len, kPacketSize / 2 - 8);
    std::string chunk = xml.substr(off, len);
    return (off + chunk.size() >= xml.size() ? "l" : "m") + escape_binary(chunk);
  }
  return "";
}

std::string GdbStub::handle_vcont(const std::string& p, bool& ended) {
  if (p == "vCont?") return "vCont;c;C;s;S";
  // vCont;action[:thread];action[:thread]... The leftmost action that names a thread wins for it; an action
  // without a thread applies to the rest. All CPUs run together, so the only choice is whether one CPU
  // single-steps.
  std::string_view rest(p);
  rest.remove_prefix(5);
  int step_cpu = -2; // -2: no step requested
  bool any = false;
  while (!rest.empty()) {
    if (rest[0] != ';') return "E01";
    rest.remove_prefix(1);
    size_t end = rest.find(';');
    std::string_view act = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    size_t colon = act.find(':');
    std::string_view kind = act.substr(0, colon);
    bool ok = true;
    int cpu = -1;
    if (colon != std::string_view::npos) cpu = thread_to_cpu(std::string(act.substr(colon + 1)), true, ok);
    if (!ok || kind.empty()) return "E01";
    char k = kind[0];
    // C and S carry a signal number; there are no signals to deliver to a bare-metal CPU, so it is ignored.
    if ((k == 'c' || k == 's') && kind.size() != 1) return "E01";
    if ((k == 'C' || k == 'S') && (kind.size() != 3 || hex_digit(kind[1]) < 0 || hex_digit(kind[2]) < 0))
      return "E01";
    if (k == 's' || k == 'S') {
      if (step_cpu == -2) step_cpu = cpu < 0 ? g_cpu_ : cpu;
    } else if (k != 'c' && k != 'C') {
      return "E01";
    }
    any = true;
  }
  if (!any) return "E01";
  bool step = step_cpu != -2;
  if (!do_resume(step, step ? step_cpu : (c_cpu_ < 0 ? g_cpu_ : c_cpu_))) ended = true;
  return std::string("\x01", 1);
}

bool GdbStub::handle(const std::string& p) {
  const std::string answered("\x01", 1);
  std::string reply;
  if (p.empty()) {
    reply = "";
  } else {
    switch (p[0]) {
    case '?':
      reply = stop_reply();
      break;
    case 'q':
    case 'Q':
      reply = handle_query(p);
      break;
    case 'g': {
      Registers r = target_.read_registers(g_cpu_);
      for (int n = 0; n < kNumRegs; ++n) {
        uint8_t* b;
        size_t sz = reg_bytes(r, n, b);
        reply += to_hex(b, sz);
      }
      break;
    }
    case 'G': {
      std::string bytes;
      if (!from_hex(std::string_view(p).substr(1), bytes)) {
        reply = "E01";
        break;
      }
      Registers r = target_.read_registers(g_cpu_);
      size_t off = 0;
      // GDB may send fewer registers than it knows of; the rest keep their values.
      for (int n = 0; n < kNumRegs && off < bytes.size(); ++n) {
        uint8_t* b;
        size_t sz = reg_bytes(r, n, b);
        if (bytes.size() - off < sz) break;
        std::memcpy(b, bytes.data() + off, sz);
        off += sz;
      }
      if (off != bytes.size()) {
        reply = "E01";
        break;
      }
      target_.write_registers(g_cpu_, r);
      reply = "OK";
      break;
    }
    case 'p': {
      uint64_t n;
      if (!parse_hex(std::string_view(p).substr(1), n) || n >= kNumRegs) {
        reply = "E01";
        break;
      }
      Registers r = target_.read_registers(g_cpu_);
      uint8_t* b;
      size_t sz = reg_bytes(r, static_cast<int>(n), b);
      reply = to_hex(b, sz);
      break;
    }
    case 'P': {
      size_t eq = p.find('=');
      uint64_t n;
      std::string bytes;
      if (eq == std::string::npos || !parse_hex(std::string_view(p).substr(1, eq - 1), n) || n >= kNumRegs ||
          !from_hex(std::string_view(p).substr(eq + 1), bytes)) {
        reply = "E01";
        break;
      }
      Registers r = target_.read_registers(g_cpu_);
      uint8_t* b;
      size_t sz = reg_bytes(r, static_cast<int>(n), b);
      if (bytes.size() != sz) {
        reply = "E01";
        break;
      }
      std::memcpy(b, bytes.data(), sz);
      target_.write_registers(g_cpu_, r);
      reply = "OK";
      break;
    }
    case 'm': {
      uint64_t addr, len;
      reply = parse_addr_len(std::string_view(p).substr(1), addr, len) ? read_memory_hex(addr, len) : "E01";
      break;
    }
    case 'M':
    case 'X': {
      size_t colon = p.find(':');
      uint64_t addr, len;
      std::string data;
      if (colon == std::string::npos ||
          !parse_addr_len(std::string_view(p).substr(1, colon - 1), addr, len)) {
        reply = "E01";
        break;
      }
      std::string_view payload = std::string_view(p).substr(colon + 1);
      bool ok = p[0] == 'M' ? from_hex(payload, data) : unescape_binary(payload, data);
      if (!ok || data.size() != len || addr + len < addr) {
        reply = "E01";
        break;
      }
      if (len == 0) {
        reply = "OK";
        break;
      } // GDB probes X support with an empty write
      reply = target_.write_memory(g_cpu_, addr, data.data(), len) ? "OK" : "E14";
      break;
    }
    case 'c':
    case 's': {
      // Hc picks the CPU; "all" (-1, the default) means the one GDB is looking at.
      int cpu = c_cpu_ < 0 ? g_cpu_ : c_cpu_;
      if (p.size() > 1) {
        uint64_t addr;
        if (!parse_hex(std::string_view(p).substr(1), addr)) {
          reply = "E01";
          break;
        }
        Registers r = target_.read_registers(cpu);
        r.pc = addr;
        target_.write_registers(cpu, r);
      }
      if (!do_resume(p[0] == 's', cpu)) return false;
      reply = answered;
      break;
    }
    case 'v': {
      if (p == "vCont?" || p.rfind("vCont;", 0) == 0) {
        bool ended = false;
        reply = handle_vcont(p, ended);
        if (ended) return false;
      } else if (p.rfind("vKill", 0) == 0) {
        send_packet("OK");
        end_ = SessionEnd::Killed;
        return false;
      } else {
        reply = ""; // vMustReplyEmpty and everything we do not know
      }
      break;
    }
    case 'Z':
    case 'z': {
      // Only software breakpoints (type 0). "Z0,addr,kind": kind is the instruction size, always 4 on A64.
      if (p.size() < 2 || p[1] != '0') {
        reply = "";
        break;
      }
      std::string_view args = std::string_view(p).substr(2);
      if (args.empty() || args[0] != ',') {
        reply = "E01";
        break;
      }
      args.remove_prefix(1);
      size_t semi = args.find(';'); // conditions and commands are evaluated by GDB, not here
      uint64_t addr, kind;
      if (!parse_addr_len(args.substr(0, semi), addr, kind)) {
        reply = "E01";
        break;
      }
      if (p[0] == 'Z')
        breakpoints_.insert(addr);
      else
        breakpoints_.erase(addr);
      reply = "OK";
      break;
    }
    case 'H': {
      if (p.size() < 2 || (p[1] != 'g' && p[1] != 'c')) {
        reply = "E01";
        break;
      }
      bool ok;
      int cpu = thread_to_cpu(p.substr(2), p[1] == 'c', ok);
      if (!ok) {
        reply = "E01";
        break;
      }
      if (p[1] == 'g')
        g_cpu_ = cpu;
      else
        c_cpu_ = cpu;
      reply = "OK";
      break;
    }
    case 'T': {
      bool ok;
      thread_to_cpu(p.substr(1), false, ok);
      reply = ok && p.size() > 1 ? "OK" : "E01";
      break;
    }
    case 'k':
      // No reply is expected to k.
      end_ = SessionEnd::Killed;
      return false;
    case 'D':
      send_packet("OK");
      end_ = SessionEnd::Detached;
      return false;
    default:
      reply = "";
      break;
    }
  }
  if (reply != answered) send_packet(reply);
  return true;
}

bool GdbStub::serve() {
  if (conn_fd_ < 0) throw std::logic_error("gdbstub: serve() called without a connection");
  std::string packet;
  for (;;) {
    Read r = read_packet(packet);
    if (r == Read::Closed) {
      end_ = SessionEnd::Disconnected;
      break;
    }
    if (r == Read::Interrupt) {
      // Ctrl-C that crossed a stop reply on the wire: the target is already halted and GDB has its stop
      // reply.
      continue;
    }
    if (!handle(packet)) break;
  }
  if (conn_fd_ >= 0) {
    ::close(conn_fd_);
    conn_fd_ = -1;
  }
  return end_ == SessionEnd::Detached || end_ == SessionEnd::Disconnected;
}

} // namespace vplat::gdb
