// A GDB remote serial protocol stub for vplat's AArch64 CPUs.
//
// The stub speaks the protocol to one GDB at a time over TCP and drives an abstract Target, so it knows
// nothing of the machine behind it (interpreter, JIT, bus, MMU). Usage:
//
//   vplat::gdb::GdbStub stub(target, 1234);   // binds 127.0.0.1:1234, throws std::runtime_error on failure
//   stub.wait_for_connection();               // blocks until GDB connects
//   bool keep_running = stub.serve();         // until GDB detaches, kills, disconnects or the guest exits
//
// What the stub offers GDB: PacketSize, QStartNoAckMode, the target description (qXfer:features:read,
// features org.gnu.gdb.aarch64.core and org.gnu.gdb.aarch64.fpu), g/G p/P, m/M/X, c/s and vCont (c, C, s, S),
// Z0/z0,
// ?, qC, qfThreadInfo/qsThreadInfo (one thread per CPU, thread id = cpu + 1), Hg/Hc, T, Ctrl-C, k, D,
// qAttached. Anything else gets the empty reply, which GDB reads as "not supported".
//
// Breakpoints stay on the emulator side: the stub keeps the Z0 addresses and hands them to Target::resume,
// and never writes BRK into guest memory, so they work in read-only memory, in translated code and on every
// CPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace vplat::gdb {

// The registers GDB sees, in the order of the target description (GDB register numbers 0..67):
// x0-x30 (0-30), sp (31), pc (32), cpsr (33, 32 bits), v0-v31 (34-65, 128 bits), fpsr (66), fpcr (67).
struct Registers {
  uint64_t x[31];
  uint64_t sp, pc;
  uint32_t cpsr;
  unsigned __int128 v[32];
  uint32_t fpsr, fpcr;
};

class Target {
public:
  virtual ~Target() = default;
  virtual int num_cpus() = 0;
  virtual Registers read_registers(int cpu) = 0;
  virtual void write_registers(int cpu, const Registers&) = 0;
  // Memory as the CPU sees it now (through its current translation); false where nothing is mapped. A read or
  // write that fails must not have partial effects the stub relies on: the stub retries byte by byte to find
  // the readable prefix of a failed read.
  virtual bool read_memory(int cpu, uint64_t va, void* buf, size_t n) = 0;
  virtual bool write_memory(int cpu, uint64_t va, const void* buf, size_t n) = 0;

  // Why resume() returned. Fault is a refinement over the original interface: a CPU met something it cannot
  // go on from (in a bare test harness, an exception nobody handles); GDB is told SIGSEGV.
  enum class Stop { Breakpoint, Step, Interrupted, Exited, Fault };

  // Runs all CPUs until a breakpoint (a CPU about to execute an instruction at one of `breakpoints`), one
  // instruction on `cpu` for Step (the other CPUs stay put), until `should_stop()` returns true, or until the
  // guest powers off. Sets `stopped_cpu` to the CPU that stopped (for Interrupted and Exited, any valid CPU).
  //
  // Contract details:
  //  - The first instruction each CPU executes after resume() is not checked against `breakpoints`; otherwise
  //  a
  //    continue from a breakpoint address would stop at once without progress.
  //  - `should_stop()` polls the GDB connection for Ctrl-C (one non-blocking system call): call it often
  //  enough for
  //    a prompt reaction (every few thousand instructions, or every millisecond) but not per instruction.
  //    When it returns true, stop with Interrupted as soon as possible at an instruction boundary.
  //  - For Breakpoint and Step, the PC of `stopped_cpu` is the next instruction to execute.
  virtual Stop resume(bool step, int cpu, const std::vector<uint64_t>& breakpoints,
                      const std::function<bool()>& should_stop, int& stopped_cpu) = 0;
};

// How a debugging session ended.
enum class SessionEnd { Detached, Killed, Disconnected, Exited };

class GdbStub {
public:
  // Listens on 127.0.0.1:`port` only (never on other interfaces: the stub gives full control of the guest to
  // whoever connects). Port 0 picks a free port; port() says which. Throws std::runtime_error with a clear
  // message when the port is busy or the socket cannot be created.
  GdbStub(Target& target, uint16_t port);
  ~GdbStub();
  GdbStub(const GdbStub&) = delete;
  GdbStub& operator=(const GdbStub&) = delete;

  uint16_t port() const { return port_; }

  // Blocks until a GDB connects (a previous connection, if any, is closed first).
  void wait_for_connection();
  // Non-blocking: accepts a GDB that is waiting to connect and returns true, else returns false at once. For
  // running a guest without --gdb-wait: the run loop calls it now and then, and calls serve() when it returns
  // true.
  bool try_accept();

  // Serves the connected GDB until the session ends. Returns true when the guest should keep running without
  // the debugger (GDB detached or the connection dropped), false when it should stop (GDB killed it, or it
  // exited).
  bool serve();
  SessionEnd end_reason() const { return end_; }

  // The target description handed to GDB (qXfer:features:read:target.xml); public for tests.
  static const std::string& target_xml();

private:
  enum class Read { Packet, Interrupt, Closed };
  bool accept_one(int timeout_ms);
  Read read_packet(std::string& packet);
  bool fill_input(int timeout_ms);
  void send_packet(std::string_view payload);
  void send_raw(std::string_view bytes);
  bool poll_interrupt();
  // Handles one packet. Returns false when the session is over (end_ set).
  bool handle(const std::string& packet);
  std::string stop_reply() const;
  bool do_resume(bool step, int cpu);
  std::string handle_query(const std::string& p);
  std::string handle_vcont(const std::string& p, bool& ended);
  std::string read_memory_hex(uint64_t addr, uint64_t len);
  int thread_to_cpu(const std::string& tid, bool allow_all, bool& ok) const;

  Target& target_;
  int listen_fd_ = -1;
  int conn_fd_ = -1;
  uint16_t port_ = 0;
  bool no_ack_ = false;
  std::string in_;        // received bytes not consumed yet
  std::string last_sent_; // the last packet as framed, for retransmission on '-'
  std::set<uint64_t> breakpoints_;
  int g_cpu_ = 0;  // CPU for register and memory access (Hg)
  int c_cpu_ = -1; // CPU for c/s (Hc); -1 for all
  int stop_cpu_ = 0;
  Target::Stop last_stop_ = Target::Stop::Interrupted;
  SessionEnd end_ = SessionEnd::Disconnected;
};

// Protocol helpers, exposed for the unit tests.
uint8_t checksum(std::string_view data);
// Escapes '#', '$', '}' and '*' as '}' followed by the byte XOR 0x20 (binary data in replies and X packets).
std::string escape_binary(std::string_view data);
// Undoes escape_binary; false on a trailing lone '}'.
bool unescape_binary(std::string_view data, std::string& out);

} // namespace vplat::gdb
