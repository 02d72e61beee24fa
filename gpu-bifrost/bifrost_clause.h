// Decoding Bifrost clauses into a form the shader core executes without re-deriving anything per lane: the
// container, header, register blocks and FAU selection are unpacked once, with the rules and tables of
// archdesc/bifrost/base.adl (the generated bifrost_isa.h); FMA and ADD words are identified by the generated
// decoders. A clause that cannot execute records the GPU exception the hardware raises (INSTR_INVALID_ENC).
#pragma once
#include "instrumentation/models/timing.h"
#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace vplat::gpu::bifrost {

// GPU exception codes a shader raises (kbase's mali_kbase_exceptions / panfrost_exception_name).
constexpr uint32_t kInstrInvalidPc = 0x50;
constexpr uint32_t kInstrInvalidEnc = 0x51;

constexpr unsigned kMaxTuples = 8;
// Constant quadwords can hold constants 0..6 (CONST_POS_INDEX + 1); the FAU addresses 0..5 (FAU_CONST_SLOT).
constexpr unsigned kMaxConstants = 7;
constexpr unsigned kMaxClauseQwords = 6 + 3;

enum class SlotOp : uint8_t { Idle = 0, Read = 1, Write = 2, WriteLo = 3, WriteHi = 4 };
enum class FauKind : uint8_t { Special = 0, Constant = 1, Uniform = 2 };

struct DecodedTuple {
  uint64_t regs = 0; // the 35-bit register block
  uint32_t fma_word = 0, add_word = 0;
  int fma_id = -1, add_id = -1; // generated instruction ids
  // Reads: ports 0..2 (port 2 = slot 2 in read mode).
  bool port_read[3] = {};
  uint8_t port_reg[3] = {};
  // Where this tuple's results go (encoded in the next tuple's block, or the first's for the last tuple).
  SlotOp write2 = SlotOp::Idle, write3 = SlotOp::Idle;
  uint8_t write2_reg = 0, write3_reg = 0;
  bool write3_fma = false;
  // FAU: the 64-bit word selected by fau_idx. Constants are resolved at decode time (with PC-relative
  // modifiers); uniforms and special values at run time.
  uint8_t fau_idx = 0;
  FauKind fau_kind = FauKind::Special;
  uint64_t fau_const = 0;
};

// Memory messages, for statistics: segments as the storage levels they reach (ISA.xml's stream segment is
// global memory with a cache hint; images go through the attribute tables).
enum class MemSeg : uint8_t { Global = 0, Wls = 1, Tls = 2, Ubo = 3, Image = 4 };
constexpr unsigned kNumMemSegs = 5;
enum class MemOp : uint8_t { None = 0, Load = 1, Store = 2, Atomic = 3 };

// What one lane's execution of a clause does, worked out once at decode time (clause_stats.h).
struct ClauseMetrics {
  uint8_t nops = 0;                      // FMA and ADD slots holding NOP
  uint8_t reg_reads = 0, reg_writes = 0; // register-block port reads, slot writes
  uint8_t staging_reads = 0, staging_writes = 0;
  uint8_t temp_reads = 0;                                     // operands from t, t0, t1
  uint8_t fau_uniform = 0, fau_constant = 0, fau_special = 0; // FAU operands by kind
  struct Access {
    MemSeg seg = MemSeg::Global;
    MemOp op = MemOp::None;
    uint8_t bytes = 0;
  };
  std::array<Access, 2 * kMaxTuples> accesses{};
  uint8_t access_count = 0;
};

struct DecodedClause {
  uint64_t address = 0;
  unsigned qwords = 0; // size, including constant quadwords
  uint64_t header = 0;
  unsigned tuple_count = 0;
  std::array<DecodedTuple, kMaxTuples> tuples{};
  std::array<uint64_t, kMaxConstants> constants{}; // stored 60 bits (value >> 4)
  std::array<uint8_t, kMaxConstants> const_mods{}; // 0 none, 1 PC_LO, 2 PC_HI, 3 PC_LO_HI
  unsigned constant_count = 0;
  uint32_t exception = 0;  // nonzero: executing this clause raises it
  std::string error;       // why (for logs and tests)
  ClauseMetrics metrics;   // valid when exception == 0
  models::ClauseCost cost; // static timing (clause_timing.h), filled by decode_clause for a valid clause
  uint64_t next() const { return address + 16ull * qwords; }
  unsigned flow() const; // header flow_control (0 = end of shader)
  unsigned staging_register() const;
};

// Reads one 128-bit quadword at a GPU address; false when it cannot (the caller reports the fault).
using QwordReader = std::function<bool(uint64_t addr, uint64_t& lo, uint64_t& hi)>;

// Decodes the clause at `address`. Returns false only when a quadword could not be read; an invalid encoding
// returns true with `exception` set.
bool decode_clause(uint64_t address, const QwordReader& read, DecodedClause& out);

// Mesa-style disassembly of one decoded clause: the header line, then "{", one line per FMA and ADD op, "}".
// A PC-relative constant prints as "(pc + offset)", or, given the clause's index in its program (quadwords
// from the start), as the label of its target ("clause_N"), as Mesa's disassembler prints branch targets.
std::string disassemble_clause(const DecodedClause& c, int64_t clause_index = -1);
// A whole shader as Mesa's disassemble_bifrost prints it: "clause_N:" (N in quadwords from `address`) before
// each clause, a blank line after it, branch targets as labels, stopping at the zero padding after the shader
// or after the first end-of-shader clause that no earlier branch jumps past (or after max_clauses).
std::string disassemble_program(uint64_t address, const QwordReader& read, unsigned max_clauses = 4096);

} // namespace vplat::gpu::bifrost
