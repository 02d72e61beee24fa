// Protocol-level tests of the GDB stub against a fake target, over a real loopback socket. Expected bytes are
// worked out by hand from the protocol description in GDB's manual ("Remote Protocol").
#include "platforms/gdbstub.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using vplat::gdb::GdbStub;
using vplat::gdb::Registers;
using vplat::gdb::SessionEnd;
using vplat::gdb::Target;

namespace {

class FakeTarget : public Target {
public:
  FakeTarget() {
    for (int c = 0; c < 2; ++c) {
      regs[c] = Registers{};
      for (int i = 0; i < 31; ++i)
        regs[c].x[i] = 0x100u * static_cast<unsigned>(c) + static_cast<unsigned>(i);
    }
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(i);
  }
  static constexpr uint64_t kMemBase = 0x1000;
  Registers regs[2];
  std::vector<uint8_t> mem = std::vector<uint8_t>(0x1000);
  std::atomic<int> resumes{0};
  bool last_step = false;
  int last_cpu = -1;
  bool exit_on_continue = false;

  int num_cpus() override { return 2; }
  Registers read_registers(int cpu) override { return regs[cpu]; }
  void write_registers(int cpu, const Registers& r) override { regs[cpu] = r; }
  bool in_range(uint64_t va, size_t n) const {
    return va >= kMemBase && va - kMemBase <= mem.size() && mem.size() - (va - kMemBase) >= n;
  }
  bool read_memory(int, uint64_t va, void* buf, size_t n) override {
    if (!in_range(va, n)) return false;
    std::memcpy(buf, &mem[va - kMemBase], n);
    return true;
  }
  bool write_memory(int, uint64_t va, const void* buf, size_t n) override {
    if (!in_range(va, n)) return false;
    std::memcpy(&mem[va - kMemBase], buf, n);
    return true;
  }
  // Step: moves the PC by 4. Continue with breakpoints: CPU 1 "hits" the first one. Continue without: runs
  // until should_stop() (Ctrl-C or disconnect).
  Stop resume(bool step, int cpu, const std::vector<uint64_t>& bps, const std::function<bool()>& should_stop,
              int& stopped) override {
    ++resumes;
    last_step = step;
    last_cpu = cpu;
    if (step) {
      regs[cpu].pc += 4;
      stopped = cpu;
      return Stop::Step;
    }
    if (exit_on_continue) {
      stopped = 0;
      return Stop::Exited;
    }
    if (!bps.empty()) {
      regs[1].pc = bps[0];
      stopped = 1;
      return Stop::Breakpoint;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!should_stop()) {
      if (std::chrono::steady_clock::now() > deadline) break; // the test fails on the reply, not by hanging
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    stopped = cpu;
    return Stop::Interrupted;
  }
};

std::string frame(const std::string& payload) {
  unsigned sum = 0;
  for (char c : payload) sum += static_cast<uint8_t>(c);
  char cs[3];
  std::snprintf(cs, sizeof cs, "%02x", sum & 0xff);
  return "$" + payload + "#" + cs;
}

// A stub serving in a thread and a raw client socket connected to it.
class StubTest : public ::testing::Test {
protected:
  FakeTarget target;
  std::unique_ptr<GdbStub> stub;
  std::thread server;
  std::atomic<bool> served{false};
  bool serve_result = false;
  int fd = -1;
  std::string rx;

  void SetUp() override {
    stub = std::make_unique<GdbStub>(target, 0);
    server = std::thread([this] {
      stub->wait_for_connection();
      serve_result = stub->serve();
      served = true;
    });
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int one = 1; // small writes back to back: without this, Nagle and delayed acks add 40 ms to each exchange
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(stub->port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  }
  void TearDown() override {
    if (fd >= 0) ::close(fd);
    server.join();
  }
  void send_raw(const std::string& s) {
    ASSERT_EQ(::send(fd, s.data(), s.size(), MSG_NOSIGNAL), ssize_t(s.size()));
  }
  // Next byte from the stub, or -1 on timeout/close.
  int get() {
    if (rx.empty()) {
      char buf[4096];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return -1;
      rx.assign(buf, static_cast<size_t>(n));
    }
    int c = static_cast<uint8_t>(rx[0]);
    rx.erase(0, 1);
    return c;
  }
  // Reads one packet "$...#xx", checks its checksum, returns the payload ("<timeout>" if none).
  std::string read_packet(bool ack = true) {
    int c;
    while ((c = get()) != '$')
      if (c < 0) return "<timeout>";
    std::string body;
    while ((c = get()) != '#') {
      if (c < 0) return "<timeout>";
      body += static_cast<char>(c);
    }
    char cs[3] = {static_cast<char>(get()), static_cast<char>(get()), 0};
    EXPECT_EQ(frame(body).substr(body.size() + 2), cs) << "bad checksum on reply " << body;
    if (ack) send_raw("+");
    return body;
  }
  // Sends a packet in ack mode, expects '+', returns the reply.
  std::string transact(const std::string& payload) {
    send_raw(frame(payload));
    int c = get();
    EXPECT_EQ(c, '+') << "no ack for " << payload;
    return read_packet();
  }
  bool no_ack = false;
  std::string ask(const std::string& payload) {
    if (!no_ack) return transact(payload);
    send_raw(frame(payload));
    return read_packet(false);
  }
};

std::string hex64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned>(v >> (8 * i) & 0xff));
    s += b;
  }
  return s;
}

} // namespace

TEST(GdbHelpers, Checksum) {
  EXPECT_EQ(vplat::gdb::checksum("OK"), 0x9a); // 'O' 0x4f + 'K' 0x4b
  EXPECT_EQ(vplat::gdb::checksum(""), 0);
  EXPECT_EQ(vplat::gdb::checksum(std::string(300, '\xff')), (300 * 255) & 0xff); // modulo 256
}

TEST(GdbHelpers, Escaping) {
  EXPECT_EQ(vplat::gdb::escape_binary("a#b$c}d*e"), std::string("a}\x03"
                                                                "b}\x04"
                                                                "c}]d}\x0a"
                                                                "e"));
  std::string out;
  EXPECT_TRUE(vplat::gdb::unescape_binary(std::string("}\x03}\x04}]}\x0a"
                                                      "x"),
                                          out));
  EXPECT_EQ(out, "#$}*x");
  EXPECT_FALSE(vplat::gdb::unescape_binary("abc}", out));
}

TEST(GdbHelpers, TargetXmlNamesStandardFeatures) {
  const std::string& x = GdbStub::target_xml();
  EXPECT_NE(x.find("<feature name=\"org.gnu.gdb.aarch64.core\">"), std::string::npos);
  EXPECT_NE(x.find("<feature name=\"org.gnu.gdb.aarch64.fpu\">"), std::string::npos);
  EXPECT_NE(x.find("<reg name=\"x30\" bitsize=\"64\""), std::string::npos);
  EXPECT_NE(x.find("<reg name=\"cpsr\" bitsize=\"32\""), std::string::npos);
  EXPECT_NE(x.find("<reg name=\"v31\" bitsize=\"128\""), std::string::npos);
  EXPECT_NE(x.find("<reg name=\"fpcr\" bitsize=\"32\" type=\"int\" regnum=\"67\"/>"), std::string::npos);
}

TEST(GdbStubListen, LoopbackOnlyAndBusyPort) {
  FakeTarget t;
  GdbStub a(t, 0);
  ASSERT_NE(a.port(), 0);
  // /proc/net/tcp lists listeners as local_address "0100007F:PORT" (hex, address in network byte order as
  // read).
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  char want[32];
  std::snprintf(want, sizeof want, ":%04X", a.port());
  bool found = false;
  while (std::getline(tcp, line)) {
    std::istringstream ls(line);
    std::string sl, local, remote, state;
    ls >> sl >> local >> remote >> state;
    if (state != "0A" || local.size() != 13 || local.substr(8) != want) continue; // 0A: listening
    found = true;
    EXPECT_EQ(local.substr(0, 8), "0100007F") << line;
  }
  EXPECT_TRUE(found);
  try {
    GdbStub b(t, a.port());
    FAIL() << "second listener on the same port";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
  }
}

TEST_F(StubTest, BasicQueries) {
  EXPECT_EQ(transact("?"), "T02thread:1;");
  std::string sup = transact("qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386");
  EXPECT_NE(sup.find("PacketSize=4000"), std::string::npos) << sup;
  EXPECT_NE(sup.find("qXfer:features:read+"), std::string::npos) << sup;
  EXPECT_NE(sup.find("swbreak+"), std::string::npos) << sup;
  EXPECT_EQ(transact("qfThreadInfo"), "m1,2");
  EXPECT_EQ(transact("qsThreadInfo"), "l");
  EXPECT_EQ(transact("qC"), "QC1");
  EXPECT_EQ(transact("qAttached"), "1");
  EXPECT_EQ(transact("T1"), "OK");
  EXPECT_EQ(transact("T2"), "OK");
  EXPECT_EQ(transact("T3"), "E01");
  EXPECT_EQ(transact("vCont?"), "vCont;c;C;s;S");
  EXPECT_EQ(transact("vMustReplyEmpty"), "");
  EXPECT_EQ(transact("qTStatus"), "");
  EXPECT_EQ(transact("Z2,1000,4"), ""); // watchpoints: not supported
  send_raw(frame("k"));
  EXPECT_EQ(get(), '+');
  server.join();
  server = std::thread([] {});
  EXPECT_FALSE(serve_result);
  EXPECT_EQ(stub->end_reason(), SessionEnd::Killed);
}

TEST_F(StubTest, TargetXmlInChunks) {
  std::string xml;
  for (int i = 0; i < 100; ++i) {
    char req[80];
    std::snprintf(req, sizeof req, "qXfer:features:read:target.xml:%zx,%x", xml.size(), 0x100);
    std::string r = transact(req);
    ASSERT_FALSE(r.empty());
    std::string data;
    ASSERT_TRUE(vplat::gdb::unescape_binary(r.substr(1), data));
    xml += data;
    if (r[0] == 'l') break;
    ASSERT_EQ(r[0], 'm');
  }
  EXPECT_EQ(xml, GdbStub::target_xml());
  EXPECT_EQ(transact("qXfer:features:read:other.xml:0,100"), "E00");
  EXPECT_EQ(transact("qXfer:features:read:target.xml:zz,100"), "E01");
}

TEST_F(StubTest, Registers) {
  target.regs[0].x[0] = 0x0102030405060708ull;
  target.regs[0].pc = 0x80000;
  target.regs[0].cpsr = 0x600003c5;
  target.regs[0].v[1] = (static_cast<unsigned __int128>(0x1111222233334444ull) << 64) | 0x5555666677778888ull;
  target.regs[0].fpcr = 0x03000000;
  std::string g = transact("g");
  // 31 x + sp + pc (8 bytes each), cpsr 4, 32 v of 16, fpsr 4, fpcr 4 = 788 bytes.
  ASSERT_EQ(g.size(), 2u * 788);
  EXPECT_EQ(g.substr(0, 16), "0807060504030201");
  EXPECT_EQ(g.substr(16, 16), hex64(1));
  EXPECT_EQ(g.substr(32 * 16, 16), "0000080000000000");                          // pc
  EXPECT_EQ(g.substr(33 * 16, 8), "c5030060");                                   // cpsr
  EXPECT_EQ(g.substr(33 * 16 + 8 + 32, 32), "88887777666655554444333322221111"); // v1
  EXPECT_EQ(g.substr(2 * 784, 8), "00000003");                                   // fpcr
  EXPECT_EQ(transact("p20"), "0000080000000000");
  EXPECT_EQ(transact("p21"), "c5030060");
  EXPECT_EQ(transact("p23"), "88887777666655554444333322221111");
  EXPECT_EQ(transact("p44"), "E01"); // register 68 does not exist
  EXPECT_EQ(transact("P5=efbeadde00000000"), "OK");
  EXPECT_EQ(target.regs[0].x[5], 0xdeadbeefull);
  EXPECT_EQ(transact("P5=efbe"), "E01");
  // Registers of the other CPU through Hg.
  EXPECT_EQ(transact("Hg2"), "OK");
  EXPECT_EQ(transact("p3"), hex64(0x103));
  EXPECT_EQ(transact("qC"), "QC2");
  // G writes everything back; change x2 of CPU 1 in the image.
  std::string g2 = transact("g");
  g2.replace(2 * 16, 16, hex64(0xcafe));
  EXPECT_EQ(transact("G" + g2), "OK");
  EXPECT_EQ(target.regs[1].x[2], 0xcafeu);
  EXPECT_EQ(target.regs[1].x[3], 0x103u);
  EXPECT_EQ(transact("G" + g2 + "00"), "E01");
  EXPECT_EQ(transact("G123"), "E01");
  EXPECT_EQ(transact("Hg3"), "E01");
  EXPECT_EQ(transact("Hg0"), "OK");
  EXPECT_EQ(transact("Hc-1"), "OK");
  EXPECT_EQ(transact("Hg-1"), "E01");
}

TEST_F(StubTest, Memory) {
  EXPECT_EQ(transact("m1000,4"), "00010203");
  EXPECT_EQ(transact("m1ffe,4"), "feff"); // only the mapped prefix
  EXPECT_EQ(transact("m3000,4"), "E14");
  EXPECT_EQ(transact("mffffffffffffffff,10"), "E14");
  EXPECT_EQ(transact("M1010,3:aabbcc"), "OK");
  EXPECT_EQ(transact("m1010,4"), "aabbcc13");
  EXPECT_EQ(transact("M1010,3:aabb"), "E01"); // length mismatch
  EXPECT_EQ(transact("M3000,1:00"), "E14");
  // X: binary, with '#', '$', '}' and '*' escaped.
  EXPECT_EQ(transact(std::string("X1020,5:}\x03}\x04}]}\x0a") + "A"), "OK");
  EXPECT_EQ(transact("m1020,5"), "23247d2a41");
  EXPECT_EQ(transact("X1020,0:"), "OK");
  EXPECT_EQ(transact("X1020,1:}"), "E01");
  // A huge length is answered with what fits in a packet.
  std::string big = transact("m1000,100000");
  EXPECT_GT(big.size(), 0x1000u);
  EXPECT_LE(big.size(), 0x4000u);
}

TEST_F(StubTest, MalformedPacketsDoNotCrash) {
  // Bad checksum: NAK, then the stub still answers.
  send_raw("$?#00");
  EXPECT_EQ(get(), '-');
  send_raw("$?#zz");
  EXPECT_EQ(get(), '-');
  // Noise between packets, and a packet cut by a new '$'.
  send_raw("garbage\x7f+++$qC#");
  EXPECT_EQ(transact("qC"), "QC1");
  for (const char* p : {"m",
                        "mzz,1",
                        "m1000",
                        "m1000,",
                        "M1000",
                        "M1000,1",
                        "G1",
                        "P",
                        "Pzz=00",
                        "P1=zz",
                        "p",
                        "pzzzzzzzzzzzzzzzzz",
                        "Z0",
                        "Z0,",
                        "Z0,zz,4",
                        "z0,1000",
                        "H",
                        "Hx1",
                        "Hgzz",
                        "T",
                        "Tzz",
                        "vCont",
                        "vCont;x",
                        "vCont;c:zz",
                        "vCont;C",
                        "vCont;sx",
                        "c12345678901234567",
                        "qXfer:features:read:target.xml",
                        "qXfer:features:read:target.xml:0",
                        "X1000,2:"}) {
    std::string r = transact(p);
    EXPECT_TRUE(r.empty() || r[0] == 'E') << p << " -> " << r;
  }
  EXPECT_EQ(transact(""), "");
  // Over the announced packet size: dropped with a NAK, never buffered without limit.
  std::string huge(0x5000, 'a');
  send_raw("$" + huge + "#00");
  EXPECT_EQ(get(), '-');
  // Binary junk, including NULs.
  std::string junk;
  for (int i = 0; i < 512; ++i) junk += static_cast<char>((i * 37) & 0xff);
  junk.erase(std::remove(junk.begin(), junk.end(), '$'), junk.end());
  junk.erase(std::remove(junk.begin(), junk.end(), '\x03'), junk.end());
  junk.erase(std::remove(junk.begin(), junk.end(), '-'), junk.end());
  EXPECT_EQ(transact("qC"), "QC1");
  send_raw(junk);
  rx.clear();
  EXPECT_EQ(transact("qC"), "QC1");
  EXPECT_FALSE(served);
}

TEST_F(StubTest, BreakpointStepAndInterrupt) {
  EXPECT_EQ(transact("Z0,80010,4"), "OK");
  EXPECT_EQ(transact("c"), "T05swbreak:;thread:2;");
  EXPECT_EQ(target.regs[1].pc, 0x80010u);
  EXPECT_FALSE(target.last_step);
  EXPECT_EQ(transact("qC"), "QC2"); // register access follows the CPU that stopped
  EXPECT_EQ(transact("z0,80010,4"), "OK");
  EXPECT_EQ(transact("s"), "T05thread:2;");
  EXPECT_TRUE(target.last_step);
  EXPECT_EQ(target.last_cpu, 1);
  EXPECT_EQ(target.regs[1].pc, 0x80014u);
  EXPECT_EQ(transact("vCont;s:1;c"), "T05thread:1;");
  EXPECT_EQ(target.last_cpu, 0);
  EXPECT_EQ(target.regs[0].pc, 4u);
  // s and c with an address set the PC first.
  EXPECT_EQ(transact("s2000"), "T05thread:1;");
  EXPECT_EQ(target.regs[0].pc, 0x2004u);
  EXPECT_EQ(transact("Z0,5000,4"), "OK");
  EXPECT_EQ(transact("vCont;c"), "T05swbreak:;thread:2;");
  EXPECT_EQ(transact("z0,5000,4"), "OK");
  // Continue without breakpoints runs until Ctrl-C.
  send_raw(frame("c"));
  EXPECT_EQ(get(), '+');
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  send_raw("\x03");
  EXPECT_EQ(read_packet(), "T02thread:2;"); // the CPU GDB last looked at
  EXPECT_EQ(transact("?"), "T02thread:2;");
  EXPECT_EQ(transact("D"), "OK");
  server.join();
  server = std::thread([] {});
  EXPECT_TRUE(serve_result);
  EXPECT_EQ(stub->end_reason(), SessionEnd::Detached);
}

TEST_F(StubTest, NoAckMode) {
  EXPECT_EQ(transact("QStartNoAckMode"), "OK");
  no_ack = true;
  send_raw(frame("qC"));
  EXPECT_EQ(get(), '$'); // straight to the reply, no '+'
  rx.insert(0, "$");
  EXPECT_EQ(read_packet(false), "QC1");
  // A damaged packet is dropped silently.
  send_raw("$qC#00");
  EXPECT_EQ(ask("qfThreadInfo"), "m1,2");
}

TEST_F(StubTest, RetransmitOnNak) {
  send_raw(frame("qC"));
  EXPECT_EQ(get(), '+');
  EXPECT_EQ(read_packet(false), "QC1");
  send_raw("-");
  EXPECT_EQ(read_packet(), "QC1");
}

TEST_F(StubTest, GuestExit) {
  target.exit_on_continue = true;
  EXPECT_EQ(transact("c"), "W00");
  server.join();
  server = std::thread([] {});
  EXPECT_FALSE(serve_result);
  EXPECT_EQ(stub->end_reason(), SessionEnd::Exited);
}

TEST_F(StubTest, DisconnectWhileRunning) {
  send_raw(frame("c"));
  EXPECT_EQ(get(), '+');
  ::close(fd);
  fd = -1;
  server.join();
  server = std::thread([] {});
  EXPECT_TRUE(serve_result);
  EXPECT_EQ(stub->end_reason(), SessionEnd::Disconnected);
}

// Random well-framed packets built from the protocol's own alphabet: every one gets a reply and nothing
// crashes (the commands that resume or end the session are left out, as they would wait for the fake target).
TEST_F(StubTest, RandomPacketsGetReplies) {
  const std::string firsts = "?gGpPmMXzZHTqQ";
  const std::string alphabet = "0123456789abcdefABCDEF,:;=-}#$*pxXqS\x01\xff";
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1103515245u + 12345u, seed >> 16; };
  for (int i = 0; i < 3000; ++i) {
    std::string p(1, firsts[next() % firsts.size()]);
    size_t len = next() % 40;
    for (size_t j = 0; j < len; ++j) {
      char c = alphabet[next() % alphabet.size()];
      if (c == '#' || c == '$') c = '0'; // these would end or restart the frame
      p += c;
    }
    std::string r = transact(p);
    ASSERT_NE(r, "<timeout>") << p;
  }
  EXPECT_FALSE(served);
}

TEST(GdbStubListen, TryAcceptDoesNotBlock) {
  FakeTarget t;
  GdbStub stub(t, 0);
  EXPECT_FALSE(stub.try_accept()); // nobody there: returns at once
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(stub.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  bool accepted = false;
  for (int i = 0; i < 1000 && !accepted; ++i) {
    accepted = stub.try_accept();
    if (!accepted) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(accepted);
  std::string d = frame("D");
  ASSERT_EQ(::send(fd, d.data(), d.size(), MSG_NOSIGNAL), ssize_t(d.size()));
  EXPECT_TRUE(stub.serve());
  EXPECT_EQ(stub.end_reason(), SessionEnd::Detached);
  char buf[64];
  ssize_t n = ::recv(fd, buf, sizeof buf, MSG_WAITALL);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "+$OK#9a");
  ::close(fd);
}
