// System-level behaviour of the A64 core: small programs (programs/*.s, assembled by llvm-mc-16 at build
// time) run at EL1 from a power-on state. Expected values are worked out by hand from the Arm ARM (D1
// exception model, D17 ESR/SPSR/PAR layouts, D5 translation) and instruction words come from llvm-mc, never
// from this model's output. Every exception the programs take is logged by the handler in common.inc.
#include "cpu-dbt/a64_core.h"
#include <gtest/gtest.h>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace vplat::cpu;

namespace {

constexpr uint64_t kRamSize = 8ull << 20;      // RAM at PA 0
constexpr uint64_t kDevice = 0x10000000;        // a 4 KiB device page
constexpr uint64_t kLoad = 0x10000;             // programs load here
constexpr uint64_t kLog = 0x200000;             // the handler's exception log
constexpr uint64_t kDeviceValue = 0xd0d0d0d0;

struct Memory : MemoryPort {
  std::vector<uint8_t> ram = std::vector<uint8_t>(kRamSize);
  struct DevWrite {
    uint64_t pa;
    unsigned size;
    uint64_t value;
  };
  std::vector<DevWrite> dev_writes;
  uint8_t* ram_pointer(uint64_t page) override { return page < kRamSize ? &ram[page] : nullptr; }
  bool read(uint64_t pa, unsigned size, uint64_t& v) override {
    if (pa < kRamSize) {
      v = 0;
      std::memcpy(&v, &ram[pa], size);
      return true;
    }
    if (pa >= kDevice && pa < kDevice + 0x1000) {
      v = kDeviceValue + (pa - kDevice);
      return true;
    }
    return false;
  }
  bool write(uint64_t pa, unsigned size, uint64_t v) override {
    if (pa < kRamSize) {
      std::memcpy(&ram[pa], &v, size);
      return true;
    }
    if (pa >= kDevice && pa < kDevice + 0x1000) {
      dev_writes.push_back({pa, size, v});
      return true;
    }
    return false;
  }
  uint64_t r64(uint64_t pa) const {
    uint64_t v;
    std::memcpy(&v, &ram[pa], 8);
    return v;
  }
  uint32_t r32(uint64_t pa) const {
    uint32_t v;
    std::memcpy(&v, &ram[pa], 4);
    return v;
  }
  void w64(uint64_t pa, uint64_t v) { std::memcpy(&ram[pa], &v, 8); }
  void w32(uint64_t pa, uint32_t v) { std::memcpy(&ram[pa], &v, 4); }
  void load(const std::string& name, uint64_t pa) {
    std::ifstream in(std::string(VPLAT_CPU_PROGRAM_DIR) + "/" + name + ".bin", std::ios::binary);
    ASSERT_TRUE(in) << name;
    std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_LT(pa + b.size(), kRamSize);
    std::memcpy(&ram[pa], b.data(), b.size());
  }
};

// PSCI SYSTEM_OFF (0x84000008) powers the core off; every other SMC is declined (UNDEFINED).
struct Hooks : CoreHooks {
  uint64_t timer_read(Core&, TimerReg r) override { return r == TimerReg::Cntvct ? 12345 : 0; }
  void timer_write(Core&, TimerReg, uint64_t) override {}
  bool firmware_call(Core& c) override {
    if (c.X[0] != 0x84000008) return false;
    c.power_off();
    return true;
  }
};

struct Record {
  uint64_t esr, elr, spsr, far, vector, seq;
};

struct Machine {
  Memory mem;
  Hooks hooks;
  Core core;
  explicit Machine(Core::Config cfg = system_config()) : core(mem, cfg, &hooks) {
#ifdef VPLAT_TEST_ENGINE_JIT
    core.set_engine(Engine::Jit);
#endif
  }
  static Core::Config system_config() {
    Core::Config c;
    c.system = true;
    return c;
  }
  void start(const std::string& program) {
    mem.load(program, kLoad);
    core.power_on(kLoad);
  }
  RunResult run(uint64_t budget = 100000) { return core.run(budget); }
  unsigned records() const { return static_cast<unsigned>(core.X[24]); }
  Record rec(unsigned i) const {
    uint64_t a = kLog + 48 * i;
    return {mem.r64(a), mem.r64(a + 8), mem.r64(a + 16), mem.r64(a + 24), mem.r64(a + 32), mem.r64(a + 40)};
  }
  uint32_t word_at(uint64_t addr) const { return mem.r32(addr); } // programs run identity-mapped
};

} // namespace

TEST(System, SynchronousExceptionsAtEl1) {
  Machine m;
  m.start("exceptions");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  ASSERT_EQ(m.records(), 13u);
  struct Want {
    uint32_t esr, word;
    uint64_t far; // 0: not checked
  };
  // ESR = EC << 26 | IL (bit 25) | ISS. Data abort taken from EL1: EC 0x25, WnR bit 6, DFSC 0x10 external
  // abort, 0x21 alignment. SP alignment EC 0x26, BRK EC 0x3c with the immediate; everything UNDEFINED: EC 0.
  const Want want[] = {
      {0x02000000, 0x00000000, 0},        // udf #0
      {0x96000010, 0xf9400462, 0x20000008}, // ldr x2, [x3, #8]: nothing at that PA
      {0x96000050, 0xf9000062, 0x20000000}, // str x2, [x3]
      {0xf2000123, 0xd4202460, 0},        // brk #0x123
      {0x02000000, 0xd4000022, 0},        // hvc #1
      {0x02000000, 0xd4000003, 0},        // smc #0 declined
      {0x02000000, 0xd4400000, 0},        // hlt #0
      {0x02000000, 0xd538f000, 0},        // mrs x0, s3_0_c15_c0_0
      {0x96000021, 0xc85f7c80, 0x300004}, // ldxr x0, [x4] misaligned
      {0x96000061, 0xc8057c80, 0x300004}, // stxr w5, x0, [x4] misaligned
      {0x96000021, 0xb8402060, 0x300002}, // ldur w0, [x3, #2] with SCTLR.A
      {0x9a000000, 0xf94003e0, 0},        // ldr x0, [sp] with SCTLR.SA, SP = 0x300008
      {0x02000000, 0xd51b0020, 0},        // msr to read-only CTR_EL0
  };
  for (unsigned i = 0; i < 13; ++i) {
    SCOPED_TRACE(i);
    auto rec = m.rec(i);
    EXPECT_EQ(rec.esr, want[i].esr);
    EXPECT_EQ(m.word_at(rec.elr), want[i].word); // preferred return: the faulting instruction
    EXPECT_EQ(rec.spsr, 0xa00003c5u);            // NZCV 1010, DAIF masked, EL1h
    EXPECT_EQ(rec.vector, 0x200u);               // current EL with SP_ELx, synchronous
    if (want[i].far) {
      EXPECT_EQ(rec.far, want[i].far);
    }
  }
  EXPECT_EQ(m.core.el(), 1u);
}

TEST(System, AlignmentCheckingAppliesToPagesAlreadyInTheTlb) {
  Machine m;
  m.start("align_after_fill");
  m.mem.w64(0x300000, 0x8877665544332211);
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  ASSERT_EQ(m.records(), 2u);
  // Data abort from the current EL (EC 0x25), IL, DFSC 0x21 alignment; WnR (bit 6) for the store.
  EXPECT_EQ(m.rec(0).esr, 0x96000021u);
  EXPECT_EQ(m.rec(0).far, 0x300002u);
  EXPECT_EQ(m.rec(1).esr, 0x96000061u);
  EXPECT_EQ(m.rec(1).far, 0x300006u);
  // The first store wrote bytes 2-5 (0x66554433) to bytes 6-9; the faulting one (of zero) wrote nothing.
  EXPECT_EQ(m.core.X[1], 0x44336655u);
  EXPECT_EQ(m.core.X[2], 0x66554433u);
}

TEST(System, SvcAndTrapsFromEl0) {
  Machine m;
  m.start("svc_el0");
  auto r = m.run(200);
  EXPECT_EQ(r.exit, Exit::Budget);
  ASSERT_EQ(m.records(), 7u);
  EXPECT_EQ(m.core.X[10], 0x400000u); // EL0 runs on SP_EL0
  EXPECT_EQ(m.core.el(), 0u);
  const uint32_t esr[] = {
      0x56000042, // SVC: EC 0x15, imm16
      0x02000000, // MRS CurrentEL at EL0: UNDEFINED
      0x6232c1a1, // MRS CTR_EL0, UCT = 0: EC 0x18, op0 3 op2 1 op1 3 CRn 0 Rt 13 CRm 0, read
      0x6212dc28, // DC ZVA, DZE = 0: EC 0x18, op0 1 op2 1 op1 3 CRn 7 Rt 1 CRm 4, write
      0x620cd3e4, // MSR DAIFSet, UMA = 0: EC 0x18, op0 0 op2 6 op1 3 CRn 4 Rt 31 CRm 2
      0x07e00000, // WFI, nTWI = 0: EC 0x01, CV = 1, COND = 0xe, TI = 0
      0x02000000, // MRS MIDR_EL1 at EL0
  };
  const uint32_t word[] = {0xd4000841, 0xd538424c, 0xd53b002d, 0xd50b7421, 0xd50342df, 0xd503207f, 0xd538000e};
  for (unsigned i = 0; i < 7; ++i) {
    SCOPED_TRACE(i);
    auto rec = m.rec(i);
    EXPECT_EQ(rec.esr, esr[i]);
    EXPECT_EQ(rec.spsr, 0u);       // EL0t, nothing masked
    EXPECT_EQ(rec.vector, 0x400u); // lower EL, AArch64, synchronous
    // SVC's preferred return is the next instruction; the others return to themselves.
    EXPECT_EQ(m.word_at(i == 0 ? rec.elr - 4 : rec.elr), word[i]);
  }
}

TEST(System, StackPointerBankingAndIllegalReturn) {
  Machine m;
  m.start("sp_bank");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.core.X[3], 0x110000u); // SPSel = 0: SP is SP_EL0
  EXPECT_EQ(m.core.X[4], 0u);
  EXPECT_EQ(m.core.X[6], 0x100000u); // back on SP_EL1
  EXPECT_EQ(m.core.X[7], 0x120000u); // SP_EL0 as written through SP
  EXPECT_EQ(m.core.X[8], 4u);        // CurrentEL: EL1
  EXPECT_EQ(m.core.X[9], 0x120000u); // the exception returned to EL1t with SP_EL0
  EXPECT_EQ(m.core.X[10], 4u);
  ASSERT_EQ(m.records(), 2u);
  auto a = m.rec(0);
  EXPECT_EQ(a.vector, 0x000u); // current EL with SP_EL0
  EXPECT_EQ(a.spsr, 0x3c4u);   // EL1t
  EXPECT_EQ(m.word_at(a.elr), 0x00000001u);
  auto b = m.rec(1);
  EXPECT_EQ(b.esr, 0x3a000000u);  // illegal execution state: EC 0x0e
  EXPECT_EQ(b.spsr, 0x00100005u); // IL set, DAIF and NZCV from the SPSR, EL and SP unchanged (EL1h)
  EXPECT_EQ(b.vector, 0x200u);
  EXPECT_EQ(m.word_at(b.elr), 0xd503201fu); // the nop at the return address
}

TEST(System, IrqMaskedByDaifThenTaken) {
  Machine m;
  m.start("irq");
  m.core.set_irq(true);
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.core.X[1], 100u); // the loop ran to the end with PSTATE.I set
  EXPECT_EQ(m.core.X[2], 1u);
  ASSERT_EQ(m.records(), 1u);
  auto a = m.rec(0);
  EXPECT_EQ(a.vector, 0x280u);               // current EL with SP_ELx, IRQ
  EXPECT_EQ(a.esr, 0u);                      // an IRQ does not write ESR_EL1
  EXPECT_EQ(a.spsr, 0x60000345u);            // Z and C from cmp, D A F masked, I clear, EL1h
  EXPECT_EQ(m.word_at(a.elr), 0xd2800022u);  // returns to the instruction after msr daifclr
}

TEST(System, WfiIdleAndWfeYield) {
  Machine m;
  m.start("wfi");
  auto r = m.run();
  EXPECT_EQ(r.exit, Exit::Idle);
  EXPECT_EQ(r.retired, 6u); // b main, setup (4) and the wfi, which completes
  EXPECT_EQ(m.word_at(m.core.PC), 0xd2800021u);
  // A pending interrupt wakes WFI even while masked; SEVL makes the first WFE fall through; the second
  // WFE has no event (the masked IRQ does not count for WFE) and yields.
  m.core.set_irq(true);
  r = m.run();
  EXPECT_EQ(r.exit, Exit::Yield);
  EXPECT_EQ(m.core.X[1], 1u);
  EXPECT_EQ(m.core.X[2], 2u);
  EXPECT_EQ(m.core.X[3], 3u);
  EXPECT_EQ(m.core.X[4], 0u);
  r = m.run();
  EXPECT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.core.X[4], 4u);
  EXPECT_EQ(m.records(), 0u);
}

TEST(System, CpacrTrapsFpAndSimd) {
  Machine m;
  m.start("fptrap");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  ASSERT_EQ(m.records(), 3u);
  const uint32_t word[] = {0x9e670020, 0xd53b4423, 0x4ea48462}; // fmov d0, x1; mrs x3, fpsr; add v2.4s
  for (unsigned i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(m.rec(i).esr, 0x1e000000u); // EC 0x07, IL
    EXPECT_EQ(m.word_at(m.rec(i).elr), word[i]);
  }
}

TEST(System, IdRegisters) {
  Core::Config cfg = Machine::system_config();
  cfg.midr = 0x410FD081; // Cortex-A72 r0p1
  cfg.mpidr = 0x101;     // cluster 1, core 1
  Machine m(cfg);
  m.start("idregs");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  auto& x = m.core.X;
  EXPECT_EQ(x[1], 0x410FD081u);
  EXPECT_EQ(x[2], 0x80000101u); // bit 31 RES1, U = 0
  EXPECT_EQ(x[3], 0x11u);       // EL0/EL1 AArch64 only; EL2, EL3 absent; FP, AdvSIMD present; no GIC sysregs
  EXPECT_EQ(x[4], 0x10000u);    // CRC32
  EXPECT_EQ(x[5], 0x0F000022u); // PARange 40, ASID 16, TGran4 only
  EXPECT_EQ(x[6], 0u);
  EXPECT_EQ(x[7] & 0xf, 6u);        // DebugVer: Armv8 debug
  EXPECT_EQ(x[7] >> 8 & 0xf, 0u);   // PMUVer: no PMU
  EXPECT_EQ(x[8] >> 16 & 0xf, 4u);  // CTR_EL0.DminLine: 64 bytes
  EXPECT_EQ(x[8] & 0xf, 4u);        // IminLine
  EXPECT_EQ(x[9], 4u);              // DCZID_EL0: 64-byte blocks, allowed
  EXPECT_EQ(x[10], 0u);             // unallocated ID space reads as zero
  EXPECT_EQ(x[11], 4u);
  EXPECT_EQ(x[12], 0u);
  EXPECT_EQ(x[13], 50000000u);
  EXPECT_EQ(x[14], 0u);
  EXPECT_EQ(x[15], 0u);
  EXPECT_EQ(x[16] & 0x3f, 0x23u); // CLIDR: separate L1 I/D, unified L2
  EXPECT_EQ(x[17], 12345u);       // CNTVCT_EL0 from the platform hook
  EXPECT_EQ(m.records(), 0u);
}

namespace {
constexpr uint64_t kValid = 3, kBlock = 1, kAF = 1u << 10, kRO = 1u << 7;
void build_tables(Memory& mem) {
  mem.w64(0x100000, 0x101000 | kValid);         // L1[0]: VA 0..1 GiB
  mem.w64(0x100008, 0x103000 | kValid);         // L1[1]: VA 1..2 GiB
  mem.w64(0x101000, 0x102000 | kValid);         // L2[0]: VA 0..2 MiB, pages
  mem.w64(0x101008, 0x200000 | kBlock | kAF);   // L2[1]: VA 2..4 MiB identity block
  for (uint64_t i = 0; i < 512; ++i) mem.w64(0x102000 + 8 * i, (i << 12) | kValid | kAF);
  mem.w64(0x103000, 0x104000 | kValid);         // VA 0x4000_0000: L3 at 0x104000
  mem.w64(0x104000, 0x500000 | kValid | kAF);
  mem.w64(0x104008, 0x501000 | kValid | kAF | kRO);
  mem.w64(0x104010, 0x502000 | kValid);         // no access flag
  mem.w64(0x104020, kDevice | kValid | kAF);    // [3] stays invalid
}
} // namespace

TEST(System, MmuTranslationFaultsTlbiAndAt) {
  Machine m;
  build_tables(m.mem);
  m.mem.w64(0x500000, 0x1122334455667788);
  m.mem.w64(0x501000, 0x0102030405060708);
  m.mem.w32(0x500ffc, 0xaabbccdd);
  m.mem.w64(0x503000, 0x99);
  m.start("mmu");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  auto& x = m.core.X;
  EXPECT_EQ(x[2], 0x1122334455667788u);
  EXPECT_EQ(m.mem.r64(0x500008), 0x1122334455667788u);
  EXPECT_EQ(x[3], 0x0102030405060708u);
  EXPECT_EQ(x[8], kDeviceValue);
  ASSERT_EQ(m.mem.dev_writes.size(), 1u);
  EXPECT_EQ(m.mem.dev_writes[0].pa, kDevice + 8);
  EXPECT_EQ(m.mem.dev_writes[0].value, kDeviceValue);
  EXPECT_EQ(x[9], 0x05060708aabbccddu);        // page-crossing load
  EXPECT_EQ(m.mem.r32(0x500ffc), 0xaabbccddu); // the faulting page-crossing store wrote nothing
  // PAR_EL1: success = ATTR (MAIR attr 0 = 0xff) << 56 | PA | bit 11 RES1; fault = FST << 1 | F, bit 11.
  EXPECT_EQ(x[11], 0xff00000000500800u);
  EXPECT_EQ(x[12], 0x80fu); // translation fault, level 3
  EXPECT_EQ(x[13], 0x81fu); // permission fault, level 3 (write to read-only)
  EXPECT_EQ(x[14], 0x81fu); // permission fault, level 3 (EL0 read of an EL1-only page)
  EXPECT_EQ(x[15], 0x1122334455667788u);
  EXPECT_EQ(x[18], 0x99u); // after the PTE change and TLBI
  ASSERT_EQ(m.records(), 6u);
  struct Want {
    uint32_t esr, word;
    uint64_t far;
  };
  const Want want[] = {
      {0x9600004f, 0xf9080023, 0x40001000}, // permission, level 3, write
      {0x9600000b, 0xf9500024, 0x40002000}, // access flag, level 3
      {0x96000007, 0xf9580025, 0x40003000}, // translation, level 3
      {0x96000005, 0xf94000c7, 0x80000000}, // translation, level 1
      {0x9600004f, 0xf9000142, 0x40001000}, // page-crossing store: the second page faults
      {0x9600000f, 0xf8400833, 0x40000000}, // LDTR at EL1 checks EL0 permissions
  };
  for (unsigned i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    auto rec = m.rec(i);
    EXPECT_EQ(rec.esr, want[i].esr);
    EXPECT_EQ(rec.far, want[i].far);
    EXPECT_EQ(m.word_at(rec.elr), want[i].word);
  }
}

namespace {

// Two cores of one group sharing RAM: `a` runs programs/monitor_a.s (load-exclusive, store-exclusive pairs at
// 0x300000), `b` the given program, which stores to the same 64-byte granule.
struct TwoCores {
  Memory mem;
  Hooks hooks;
  Core a{mem, Machine::system_config(), &hooks}, b{mem, Machine::system_config(), &hooks};
  CoreGroup group;
  TwoCores(Engine e, const std::string& program_b) {
    group.add(a);
    group.add(b);
    a.set_engine(e);
    b.set_engine(e);
    mem.load("monitor_a", 0x10000);
    mem.load(program_b, 0x20000);
    a.power_on(0x10000);
    b.power_on(0x20000);
  }
};

} // namespace

// A TLBI by VA drops that page's translation, and the whole of a block it falls in (Arm ARM D8.13: a TLB
// entry for a block translates every address of it). Tables as above, plus L2[1] of the 1-2 GiB range: a 2
// MiB block at VA 0x4020_0000 (PA 0x600000).
TEST(System, TlbiByVaDropsItsPageAndWholeBlocks) {
  Machine m;
  build_tables(m.mem);
  m.mem.w64(0x103008, 0x600000 | kBlock | kAF);
  const uint64_t at[] = {0x500000, 0x501000, 0x503000, 0x600000, 0x601000, 0x400000, 0x401000};
  for (uint64_t pa : at) m.mem.w64(pa, 0x1000000000 + pa);
  m.start("tlbi_va");
  auto r = m.run();
  ASSERT_EQ(r.exit, Exit::Off);
  auto& x = m.core.X;
  EXPECT_EQ(x[2], 0x1000500000u);
  EXPECT_EQ(x[3], 0x1000501000u);
  EXPECT_EQ(x[4], 0x1000503000u); // the page remapped
  EXPECT_EQ(x[5], 0x1000501000u);
  EXPECT_EQ(x[7], 0x1000600000u);
  EXPECT_EQ(x[8], 0x1000601000u);
  EXPECT_EQ(x[9], 0x1000401000u); // the block remapped, at a page the TLBI did not name
  EXPECT_EQ(x[15], 0x1000400000u);
  EXPECT_EQ(m.records(), 0u);
}

TEST(System, GlobalMonitorClearedByAnotherCoresStore) {
  TwoCores m(Engine::Interp, "monitor_b");
  ASSERT_EQ(m.a.run(2).retired, 2u); // movz, ldxr
  ASSERT_EQ(m.b.run(3).retired, 3u); // a store to the same 64-byte granule
  ASSERT_EQ(m.a.run(1).retired, 1u); // stxr
  EXPECT_EQ(m.a.X[2], 1u);           // failed: the global monitor was cleared
  ASSERT_EQ(m.a.run(2).retired, 2u);
  EXPECT_EQ(m.a.X[4], 0u); // undisturbed pair succeeds
}

// The same with the store in a translated block, to a page in the TLB: its inlined fast path sees the group's
// monitor flag and takes the slow path, which clears the other core's monitor.
TEST(System, GlobalMonitorClearedByAStoreInTranslatedCode) {
  TwoCores m(Engine::Jit, "monitor_c");
  ASSERT_EQ(m.a.run(2).retired, 2u); // movz, ldxr (interpreted: a's block is longer than the budget)
  ASSERT_EQ(m.b.run(5).retired, 5u); // b's whole block: movz, a load, mov, the store, b .
  ASSERT_GT(m.b.jit()->stats().insns_in_blocks, 0u);
  ASSERT_EQ(m.a.run(1).retired, 1u); // stxr
  EXPECT_EQ(m.a.X[2], 1u);           // failed: the global monitor was cleared
}

// A store translated while its engine ran one core has no monitor test (no other core's monitor to clear);
// when a second core joins the group those translations go, so b's store, translated again, clears a's
// monitor as above. Without the drop a's store-exclusive would succeed.
TEST(System, StoresTranslatedForOneCoreGoWhenASecondCoreJoins) {
  Memory mem;
  Hooks hooks;
  Core a{mem, Machine::system_config(), &hooks}, b{mem, Machine::system_config(), &hooks};
  CoreGroup group;
  group.add(b);
  b.set_engine(Engine::Jit);
  mem.load("monitor_a", 0x10000);
  mem.load("monitor_c", 0x20000);
  b.power_on(0x20000);
  ASSERT_EQ(b.run(5).retired, 5u); // its block, translated for one core
  ASSERT_GT(b.jit()->stats().insns_in_blocks, 0u);
  group.add(a);
  a.set_engine(Engine::Jit);
  a.power_on(0x10000);
  ASSERT_EQ(a.run(2).retired, 2u); // movz, ldxr
  b.PC = 0x20000;
  ASSERT_EQ(b.run(5).retired, 5u); // the store to a's granule, in a block again
  ASSERT_EQ(a.run(1).retired, 1u); // stxr
  EXPECT_EQ(a.X[2], 1u);           // failed: the global monitor was cleared
}

TEST(System, UserModeStopsOnExceptions) {
  Machine m(Core::Config{}); // user level, as the differential tests use it
  m.start("exceptions");
  auto r = m.run();
  EXPECT_EQ(r.exit, Exit::Exception);
  EXPECT_EQ(m.core.exception(), Exception::Undefined);
  EXPECT_EQ(m.word_at(m.core.PC), 0u); // stopped at the udf
}

// --cpu-stats: the interpreter counts each instruction it executes by generated instruction id. A countdown loop
// (words from llvm-mc-16): movz x0, #3; subs x0, x0, #1; b.ne #-4 -- 1 + 3 + 3 instructions.
TEST(System, InterpreterCountsInstructionsById) {
  Machine m;
  m.core.set_engine(Engine::Interp); // the counts come from the interpreter only
  const uint32_t words[] = {0xd2800060, 0xf1000400, 0x54ffffe1};
  std::memcpy(&m.mem.ram[kLoad], words, sizeof words);
  std::vector<uint64_t> counts(vplat::gen::aarch64::kNumInsns);
  m.core.insn_counts = counts.data();
  m.core.power_on(kLoad);
  RunResult r = m.run(7);
  EXPECT_EQ(r.retired, 7u);
  EXPECT_EQ(m.core.X[0], 0u);
  EXPECT_EQ(counts[static_cast<size_t>(vplat::gen::aarch64::decode(words[0]))], 1u);
  EXPECT_EQ(counts[static_cast<size_t>(vplat::gen::aarch64::decode(words[1]))], 3u);
  EXPECT_EQ(counts[static_cast<size_t>(vplat::gen::aarch64::decode(words[2]))], 3u);
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  EXPECT_EQ(total, 7u);
}
