// The JIT tier against the properties the run loop promises (cpu-dbt/a64_jit.h): self-modifying code runs
// the new instructions, interrupts raised by a device access are taken right after that access, and every
// engine retires the same instructions for the same budgets. Expected values are worked out by hand from
// the programs (programs/jit_*.s); the engines are also compared with one another step by step.
#include "cpu-dbt/a64_core.h"
#include "cpu-dbt/baseline.h"
#include <array>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace vplat::cpu;

namespace {

// Background compiles check each block's IR with LLVM's verifier in these tests, as synchronous engines
// always do (before any engine is made: the JIT reads the switch then).
[[maybe_unused]] const bool verify_ir = setenv("VPLAT_JIT_VERIFY", "1", 0) == 0;

constexpr uint64_t kRamSize = 8ull << 20;
constexpr uint64_t kDevice = 0x10000000; // a store of v here sets the core's IRQ line to (v != 0)
constexpr uint64_t kLoad = 0x10000;
constexpr uint64_t kLog = 0x200000;

struct Memory : MemoryPort {
  std::vector<uint8_t> ram = std::vector<uint8_t>(kRamSize);
  Core* core = nullptr;
  uint8_t* ram_pointer(uint64_t page) override { return page < kRamSize ? &ram[page] : nullptr; }
  bool read(uint64_t pa, unsigned size, uint64_t& v) override {
    v = 0;
    if (pa + size <= kRamSize) {
      std::memcpy(&v, &ram[pa], size);
      return true;
    }
    return pa >= kDevice && pa < kDevice + 0x1000;
  }
  bool write(uint64_t pa, unsigned size, uint64_t v) override {
    if (pa + size <= kRamSize) {
      std::memcpy(&ram[pa], &v, size);
      return true;
    }
    if (pa >= kDevice && pa < kDevice + 0x1000) {
      core->set_irq(v != 0);
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
};

struct Hooks : CoreHooks {
  uint64_t timer_read(Core&, TimerReg) override { return 0; }
  void timer_write(Core&, TimerReg, uint64_t) override {}
  bool firmware_call(Core& c) override { // PSCI SYSTEM_OFF
    if (c.X[0] != 0x84000008) return false;
    c.power_off();
    return true;
  }
};

Core::Config system_config() {
  Core::Config c;
  c.system = true;
  return c;
}

struct Machine {
  Memory mem;
  Hooks hooks;
  Core core;
  explicit Machine(Engine e) : core(mem, system_config(), &hooks) {
    mem.core = &core;
    core.set_engine(e);
  }
  // With these environment settings while the engine is made (the JIT reads its tuning switches then).
  Machine(Engine e, std::initializer_list<std::pair<const char*, const char*>> env)
      : core(mem, system_config(), &hooks) {
    mem.core = &core;
    for (const auto& [name, value] : env) setenv(name, value, 1);
    core.set_engine(e);
    for (const auto& [name, value] : env) unsetenv(name);
  }
  void start(const std::string& program) {
    std::ifstream in(std::string(VPLAT_CPU_PROGRAM_DIR) + "/" + program + ".bin", std::ios::binary);
    ASSERT_TRUE(in) << program;
    std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::memcpy(&mem.ram[kLoad], b.data(), b.size());
    core.power_on(kLoad);
  }
  unsigned records() const { return static_cast<unsigned>(core.X[24]); }
};

// What a run left that the run loop's caller can see, alike in both machines (the engine under test, and
// the interpreter): the run's end and length, PC and the general registers.
static ::testing::AssertionResult same_run(const Machine& want, const Machine& got, const RunResult& a,
                                           const RunResult& b) {
  if (b.retired != a.retired)
    return ::testing::AssertionFailure() << "retired " << b.retired << ", want " << a.retired;
  if (b.exit != a.exit)
    return ::testing::AssertionFailure()
           << "exit " << static_cast<int>(b.exit) << ", want " << static_cast<int>(a.exit);
  if (got.core.PC != want.core.PC)
    return ::testing::AssertionFailure() << std::hex << "PC " << got.core.PC << ", want " << want.core.PC;
  for (unsigned r = 0; r < 31; ++r)
    if (got.core.X[r] != want.core.X[r])
      return ::testing::AssertionFailure() << "x" << r << " " << got.core.X[r] << ", want " << want.core.X[r];
  return ::testing::AssertionSuccess();
}

// What the run loop's caller can observe after each run() call.
struct Step {
  Exit exit;
  uint64_t retired, pc, x1, x13, records, buffer; // buffer: a checksum of the data the loop stores
  bool operator==(const Step& o) const {
    return exit == o.exit && retired == o.retired && pc == o.pc && x1 == o.x1 && x13 == o.x13 &&
           records == o.records && buffer == o.buffer;
  }
};

// Budgets of different sizes, so that blocks often do not fit and the tail of a quantum is interpreted (or,
// with runs that end at a block boundary, a block runs past the budget).
constexpr uint64_t kBudgets[] = {2000, 17, 333, 1, 64, 1000, 5};
constexpr size_t kNumBudgets = sizeof kBudgets / sizeof kBudgets[0];

std::vector<Step> trace(Engine e, uint64_t& total, Core::RunEnd end = Core::RunEnd::AtBudget) {
  Machine m(e);
  m.start("jit_irq");
  std::vector<Step> steps;
  total = 0;
  for (unsigned i = 0; i < 2000; ++i) {
    RunResult r = m.core.run(kBudgets[i % kNumBudgets], end);
    total += r.retired;
    uint64_t sum = 0;
    for (unsigned w = 0; w < 64; ++w) sum = sum * 31 + m.mem.r64(0x300000 + 8 * w);
    steps.push_back({r.exit, r.retired, m.core.PC, m.core.X[1], m.core.X[13], m.records(), sum});
    if (r.exit == Exit::Off) break;
  }
  return steps;
}

} // namespace

TEST(Jit, SelfModifyingCodeRunsTheNewInstructions) {
  for (Engine e : {Engine::Interp, Engine::Jit, Engine::Auto}) {
    SCOPED_TRACE(engine_name(e));
    Machine m(e);
    m.start("jit_smc");
    // Auto compiles only hot code: run the program many times over so that its blocks get translated.
    RunResult r{};
    for (int round = 0; round < (e == Engine::Auto ? 40 : 1); ++round) {
      m.start("jit_smc");
      r = m.core.run(100000);
      ASSERT_EQ(r.exit, Exit::Off);
      EXPECT_EQ(m.core.X[8], 1u);  // the original "mov x0, #1"
      EXPECT_EQ(m.core.X[9], 2u);  // after the store to the called function
      EXPECT_EQ(m.core.X[10], 2u); // the store rewrote a later instruction of its own block
      EXPECT_EQ(m.records(), 0u);
    }
    if (e == Engine::Jit) {
      ASSERT_NE(m.core.jit(), nullptr);
      EXPECT_GT(m.core.jit()->stats().insns_in_blocks, 0u);
      EXPECT_GT(m.core.jit()->stats().invalidated_pages, 0u);
    }
  }
}

TEST(Jit, IcInvalidateDropsOnlyChangedCode) {
  constexpr uint32_t kMovX0_2 = 0xd2800040; // movz x0, #2
  for (Engine e : {Engine::Interp, Engine::Jit, Engine::Auto}) {
    SCOPED_TRACE(engine_name(e));
    Machine m(e);
    m.start("jit_ic");
    RunResult r = m.core.run(100000);
    ASSERT_EQ(r.exit, Exit::Idle);
    EXPECT_EQ(m.core.X[8], 1u);
    // `patched` starts the program's last page with "movz x0, #1".
    uint64_t patched = kLoad + 0x1000;
    while (patched < kLoad + 0x10000 && m.mem.r32(patched) != 0xd2800020u) patched += 0x1000;
    ASSERT_EQ(m.mem.r32(patched), 0xd2800020u);
    std::memcpy(&m.mem.ram[patched], &kMovX0_2, 4);
    r = m.core.run(100000);
    ASSERT_EQ(r.exit, Exit::Idle);
    EXPECT_EQ(m.core.X[9], 2u);
    const uint64_t dropped = e == Engine::Interp ? 0 : m.core.jit()->stats().invalidated_pages;
    if (e == Engine::Jit) {
      EXPECT_EQ(dropped, 1u); // `patched`'s page, not the program's
    }
    r = m.core.run(100000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.core.X[10], 2u);
    EXPECT_EQ(m.records(), 0u);
    if (e != Engine::Interp) {
      EXPECT_EQ(m.core.jit()->stats().invalidated_pages, dropped); // nothing changed before the second IC
      EXPECT_EQ(m.core.jit()->stats().flushes, 0u);
    }
  }
}

TEST(Jit, DeviceInterruptTakenRightAfterTheStore) {
  for (Engine e : {Engine::Interp, Engine::Jit}) {
    SCOPED_TRACE(engine_name(e));
    Machine m(e);
    m.start("jit_irq");
    RunResult r = m.core.run(1'000'000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.core.X[1], 4096u);
    EXPECT_EQ(m.core.X[13], 64u);
    ASSERT_EQ(m.records(), 64u); // one IRQ per 64 iterations
    for (unsigned i = 0; i < 64; ++i) {
      SCOPED_TRACE(i);
      uint64_t rec = kLog + 48 * i;
      EXPECT_EQ(m.mem.r64(rec + 32), 0x280u); // IRQ, current EL with SP_ELx
      // ELR: "add x13, x13, #1" (sf=1, imm12=1, Rn=Rd=13), the instruction after the store.
      EXPECT_EQ(m.mem.r32(m.mem.r64(rec + 8)), 0x910005adu);
    }
    // 4096 iterations of 9 loop instructions, 64 times the 7 instructions after the loop plus the IRQ
    // entry and the handler; the exact total is compared across engines below.
    if (e == Engine::Jit) {
      EXPECT_GT(m.core.jit()->stats().insns_in_blocks, 4096u * 9 / 2);
    }
  }
}

// The translation tables jit_remap.s runs with (its MMU setup points TTBR0 at 0x100000).
static void map_for_jit_remap(Machine& m) {
  auto w64 = [&](uint64_t pa, uint64_t v) { std::memcpy(&m.mem.ram[pa], &v, 8); };
  constexpr uint64_t kTable = 3, kBlock = 1, kAF = 1u << 10;
  w64(0x100000, 0x101000 | kTable);       // L1[0]: VA 0..1 GiB
  w64(0x100008, 0x103000 | kTable);       // L1[1]: VA 1..2 GiB
  w64(0x101000, 0x000000 | kBlock | kAF); // L2[0], L2[1]: VA 0..4 MiB identity (program, tables, log)
  w64(0x101008, 0x200000 | kBlock | kAF);
  w64(0x103000, 0x104000 | kTable); // VA 0x4000_0000: L3 at 0x104000, [0] written by the program
}
// Page `index` of VA 0x4000_0000 (the L3 table map_for_jit_remap points there) -> physical page `pa`.
static void map_page_at_1gib(Machine& m, uint64_t index, uint64_t pa) {
  constexpr uint64_t kPage = 3, kAF = 1u << 10;
  const uint64_t descriptor = pa | kPage | kAF;
  std::memcpy(&m.mem.ram[0x104000 + 8 * index], &descriptor, 8);
}
// The interpreter, the first tier, and every block at the second tier (VPLAT_JIT_TIER2).
struct TierRun {
  const char* name;
  Engine engine;
  const char* tier2;
};
constexpr TierRun kTierRuns[] = {
    {"interp", Engine::Interp, "0"}, {"jit", Engine::Jit, "0"}, {"jit, second tier", Engine::Jit, "1"}};
// jit_remap_direct.s's: the same, with its remapped page at VA 0x60_0000 (L2[3]), within a BL's reach.
static void map_for_jit_remap_direct(Machine& m) {
  map_for_jit_remap(m);
  const uint64_t l2_3 = 0x104000 | 3; // a table descriptor: L3 at 0x104000
  std::memcpy(&m.mem.ram[0x101018], &l2_3, 8);
}

// Translated code keyed by virtual and physical address: when a VA page is remapped, branches into it reach
// the code now mapped there, also indirect ones to the jumping block's own page (whose targets a block finds
// in a table shared by all blocks, not only in its own exit slots).
TEST(Jit, IndirectBranchesReachTheCodeMappedNow) {
  for (Engine e : {Engine::Interp, Engine::Jit}) {
    SCOPED_TRACE(engine_name(e));
    Machine m(e);
    map_for_jit_remap(m);
    m.start("jit_remap");
    RunResult r = m.core.run(10'000'000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.records(), 0u);
    EXPECT_EQ(m.core.X[2], 4096u);
    EXPECT_EQ(m.core.X[3], 2048u * 30 + 4096u * 3 / 2);
    if (e == Engine::Jit) {
      EXPECT_GT(m.core.jit()->stats().insns_in_blocks, 4096u * 8); // the caller and the functions
    }
  }
}

// A first-tier block's direct link to a block on another page is taken only while the fetch TLB maps the
// target to that block's physical page: after each remap, the BL of jit_remap_direct.s reaches the code
// mapped now, not the block it went on to last time. Also at the second tier (exits with their own tests).
TEST(Jit, DirectCallsToOtherPagesReachTheCodeMappedNow) {
  for (const char* tier2 : {"0", "1"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_TIER2=") + tier2);
    Machine m(Engine::Jit, {{"VPLAT_JIT_TIER2", tier2}});
    map_for_jit_remap_direct(m);
    m.start("jit_remap_direct");
    RunResult r = m.core.run(10'000'000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.records(), 0u);
    EXPECT_EQ(m.core.X[2], 4096u);
    EXPECT_EQ(m.core.X[3], 2u * 2048 * 30); // by hand: the program's comment
    const JitStats& s = m.core.jit()->stats();
    EXPECT_GT(s.insns_in_blocks, 4096u * 8);
    if (std::string(tier2) == "0") {
      EXPECT_GT(s.direct_links, 0u); // the BL's exit was linked (to each mapping's block in turn)
    }
  }
}

// Runs `program` with VA 0x4000_0000 -> PA 0x300000 and VA 0x4000_1000 -> PA 0x500000 (physical pages far
// apart), to its end.
static void run_across_two_pages(Machine& m, const char* program) {
  map_for_jit_remap(m);
  map_page_at_1gib(m, 0, 0x300000);
  map_page_at_1gib(m, 1, 0x500000);
  m.start(program);
  RunResult r = m.core.run(10'000'000);
  ASSERT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.records(), 0u);
}

// The second access of an LDP/STP uses the first's TLB hit only on the same page: across a boundary between
// two pages that map to physical pages far apart, it must reach the second one (jit_pairs.s).
TEST(Jit, PairsAcrossAPageBoundaryReachBothPhysicalPages) {
  for (const TierRun& run : kTierRuns) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    ASSERT_NO_FATAL_FAILURE(run_across_two_pages(m, "jit_pairs"));
    EXPECT_EQ(m.core.X[20], 13u * 999 * 1000 / 2 + 5 * 1000);
    EXPECT_EQ(m.core.X[21], 4u * 999 * 1000 / 2 + 21 * 1000);
    EXPECT_EQ(m.core.X[22], uint64_t{0} - (2ull * 999 * 1000 / 2 + 1000));
    // The last iteration's bytes: at 0x4000_0ff8 the low half of 3 * 999 + 1, then W 999 over its high half;
    // at 0x4000_1000 W 999 + 7 over the low half of 5 * 999 + 2.
    EXPECT_EQ(m.mem.r64(0x300ff8), 999ull << 32 | 2998);
    EXPECT_EQ(m.mem.r64(0x500000), 1006u);
    EXPECT_EQ(m.mem.r64(0x301000), 0u); // the physical page after the first: never written
    if (run.engine == Engine::Jit) {
      EXPECT_GT(m.core.jit()->stats().insns_in_blocks, 1000u * 20);
    }
  }
}

// An access takes an earlier access's TLB hit off the same base register (an earlier instruction's, or the
// other half of a Q register) only where both lie on one page: jit_groups.s stores and loads at offsets on
// either side of a boundary between pages that map to physical pages far apart.
TEST(Jit, AccessesOffOneBaseReachThePageEachByteIsOn) {
  uint64_t sum = 0; // x20 by the program's comment
  for (uint64_t i = 0; i < 1000; ++i) {
    const uint64_t a = i + 1, b = 3 * i, c = i + 100, w = 0x11223344 + i;
    sum += (a + b + c) + (a + b + c + w) + (a + b) + (2 * a + 2 * c);
  }
  for (const TierRun& run : kTierRuns) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    ASSERT_NO_FATAL_FAILURE(run_across_two_pages(m, "jit_groups"));
    EXPECT_EQ(m.core.X[20], sum);
    // The last iteration's values (i = 999): a = 1000, b = 2997, c = 1099 (w was overwritten).
    const struct {
      uint64_t pa, value;
    } last_values[] = {
        // off x1
        {0x500018, 1000},
        {0x300fe8, 2997},
        {0x500020, 1099},
        // off x10
        {0x300f80, 1000},
        {0x300fc0, 2997},
        {0x500028, 1099},
        // the STP across the boundary: a twice at the end of the first page, c twice at the second's start
        {0x300ff0, 1000},
        {0x300ff8, 1000},
        {0x500000, 1099},
        {0x500008, 1099},
        // off x12
        {0x300fe0, 1000},
        {0x500050, 2997},
        // off x15, whose register changed after the first store: the second on another page
        {0x300808, 1000},
        {0x500810, 2997},
        {0x300810, 0}};
    for (const auto& [pa, value] : last_values) EXPECT_EQ(m.mem.r64(pa), value) << std::hex << pa;
    const uint64_t q_at_0[] = {1000, 1000, 1099, 1099}, q_at_20[] = {1099, 1099, 1000, 1000};
    for (uint64_t k = 0; k < 4; ++k) {
      EXPECT_EQ(m.mem.r64(0x300f00 + 8 * k), q_at_0[k]);
      EXPECT_EQ(m.mem.r64(0x300f20 + 8 * k), q_at_20[k]);
      EXPECT_EQ(m.mem.r64(0x500100 + 8 * k), q_at_0[k]);
    }
    // Nothing reached the physical pages next to the two: where an access on one page through the other
    // page's host address would have gone.
    for (uint64_t pa = 0; pa < 0x1000; pa += 8) {
      EXPECT_EQ(m.mem.r64(0x301000 + pa), 0u) << std::hex << 0x301000 + pa;
      EXPECT_EQ(m.mem.r64(0x4ff000 + pa), 0u) << std::hex << 0x4ff000 + pa;
    }
    if (run.engine == Engine::Jit) {
      EXPECT_GT(m.core.jit()->stats().insns_in_blocks, 1000u * 40);
    }
  }
}

// Runs programs/jit_miss*.s with VA 0x4000_0000 + 4 KiB * j mapped to PA 0x300000 + 8 KiB * j for j < 12,
// and nothing after, to its end.
static void run_with_twelve_pages(Machine& m, const char* program) {
  map_for_jit_remap(m);
  for (uint64_t j = 0; j < 12; ++j) map_page_at_1gib(m, j, 0x300000 + 0x2000 * j);
  m.start(program);
  RunResult r = m.core.run(1'000'000);
  ASSERT_EQ(r.exit, Exit::Off);
}
// Of those programs: the sum of x1's 16 values (0x4000_1000 + 4 KiB * i), plus `extra`.
static uint64_t sum_of_x1(uint64_t extra) {
  for (uint64_t i = 0; i < 16; ++i) extra += 0x40001000 + 0x1000 * i;
  return extra;
}

// Second-tier loads and stores that miss the TLB: made by read_quietly/write_quietly where they can be
// without raising (a page not in the TLB yet; an access across two pages), else the block leaves before the
// instruction and the interpreter runs it (a fault), with the registers as they were before it: what
// earlier instructions of the block wrote, and not the base register a faulting post-indexed load would
// have written.
TEST(Jit, SecondTierAccessesThatMissTheTlbFaultLikeTheInterpreter) {
  for (const TierRun& run : kTierRuns) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    ASSERT_NO_FATAL_FAILURE(run_with_twelve_pages(m, "jit_miss"));
    const uint64_t bases = sum_of_x1(8 * 11);
    EXPECT_EQ(m.core.X[10], 120u);
    EXPECT_EQ(m.core.X[11], 105u);
    EXPECT_EQ(m.core.X[12], 105u << 16);
    EXPECT_EQ(m.core.X[13], bases);
    ASSERT_EQ(m.records(), 15u);
    for (unsigned k = 0; k < 15; ++k) {
      SCOPED_TRACE(k);
      const uint64_t rec = kLog + 48 * k, page = 0x40001000 + 0x1000 * (11 + k / 3);
      EXPECT_EQ(m.mem.r64(rec) >> 26, 0x25u); // ESR: data abort at the current EL
      // ELR and FAR: the store, the post-indexed load, the read across pages (whose first page faults, but
      // in the first iteration without page 12 its second).
      static constexpr uint32_t kWords[] = {0xf9000033, 0xf84084e4, 0xf85fe0c5};
      EXPECT_EQ(m.mem.r32(m.mem.r64(rec + 8)), kWords[k % 3]);
      EXPECT_EQ(m.mem.r64(rec + 24), k % 3 < 2 || k == 2 ? page : page - 2);
    }
    if (run.engine == Engine::Jit) {
      const JitStats& s = m.core.jit()->stats();
      EXPECT_GT(s.insns_in_blocks, 100u);
      if (std::string_view(run.tier2) == "1") {
        EXPECT_GT(s.blocks_tier2, 0u);
        EXPECT_EQ(s.tlb_miss_exits, 15u); // one per fault: the rest were made without leaving
      }
    }
  }
}

// Second-tier loads that miss the TLB after their block wrote registers, after it stored, and in a later
// iteration of a loop whose earlier ones stored: each leaves before its access with the state as it was
// there, and no instruction runs twice or not at all (programs/jit_miss_after.s).
TEST(Jit, MissExitsAfterRegisterWritesAndStoresRunEachInstructionOnce) {
  // The faults, in order: for each i, the store (pages 12 on), the first call's load (the same page), the
  // loop's loads of pages j + x9 from page 12 on, and the last call's load.
  struct Fault {
    uint32_t word;
    uint64_t far;
  };
  std::vector<Fault> faults;
  for (uint64_t i = 0; i < 16; ++i) {
    const uint64_t x1 = 0x40001000 + 0x1000 * i;
    if (i + 1 >= 12) {
      faults.push_back({0xf9000033, x1}); // str x19, [x1]
      faults.push_back({0xf84084e4, x1}); // ldr x4, [x7], #8
    }
    for (uint64_t x9 = 0; x9 < 3; ++x9)
      if (i + 1 + x9 >= 12) faults.push_back({0xf9400065, x1 + 0x1000 * x9}); // ldr x5, [x3]
    if (i + 1 >= 12) faults.push_back({0xf9400828, x1 + 16});                 // ldr x8, [x1, #16]
  }
  for (const TierRun& run : kTierRuns) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    ASSERT_NO_FATAL_FAILURE(run_with_twelve_pages(m, "jit_miss_after"));
    const uint64_t bases = sum_of_x1(8 * 11);
    EXPECT_EQ(m.core.X[10], 120u);
    EXPECT_EQ(m.core.X[11], 105u);
    EXPECT_EQ(m.core.X[12], 225u);
    EXPECT_EQ(m.core.X[13], bases);
    EXPECT_EQ(m.core.X[14], 47u * 48 / 2);
    EXPECT_EQ(m.mem.r64(0x300800), 48u); // the loop's count, on page 0
    EXPECT_EQ(m.mem.r64(0x300808), 16u); // the last call's
    ASSERT_EQ(faults.size(), 33u);
    ASSERT_EQ(m.records(), faults.size());
    for (unsigned k = 0; k < faults.size(); ++k) {
      SCOPED_TRACE(k);
      const uint64_t rec = kLog + 48 * k;
      EXPECT_EQ(m.mem.r64(rec) >> 26, 0x25u); // ESR: data abort at the current EL
      EXPECT_EQ(m.mem.r32(m.mem.r64(rec + 8)), faults[k].word);
      EXPECT_EQ(m.mem.r64(rec + 24), faults[k].far);
    }
    if (run.engine == Engine::Jit && std::string_view(run.tier2) == "1") {
      const JitStats& s = m.core.jit()->stats();
      EXPECT_GT(s.blocks_tier2, 0u);
      EXPECT_EQ(s.tlb_miss_exits, faults.size()); // one per fault
    }
  }
}

// Data TLB entries a fill displaces are kept aside (Core::victims_) and found again by the next fill of their
// page. Put aside, an entry still goes with a TLBI by VA and a TLBI of everything (the loads after each must
// see the page's new mapping), and loses its write permission when its page starts to hold translated code
// (the store through it must drop the translation, so that the call after it runs the new instruction).
// programs/jit_displaced.s: pages 32 MiB apart, which share a TLB slot; values worked out by hand.
TEST(Jit, DisplacedTlbEntriesGoWithTlbiAndCodePages) {
  for (const TierRun& run : kTierRuns) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    map_for_jit_remap(m);
    auto w64 = [&](uint64_t pa, uint64_t v) { std::memcpy(&m.mem.ram[pa], &v, 8); };
    constexpr uint64_t kTable = 3, kPage = 3, kAF = 1u << 10;
    map_page_at_1gib(m, 0, 0x300000);
    w64(0x103080, 0x105000 | kTable); // L2[16] of 1..2 GiB: VA 0x4200_0000
    w64(0x105000, 0x302000 | kPage | kAF);
    w64(0x101080, 0x106000 | kTable); // L2[16] of 0..1 GiB: VA 32 MiB above the program
    for (uint64_t i = 0; i < 512; ++i) w64(0x106000 + 8 * i, 0x308000 | kPage | kAF);
    for (uint64_t pa : {0x300000, 0x302000, 0x304000, 0x306000}) w64(pa, 0x1000000000 + pa);
    m.start("jit_displaced");
    RunResult r = m.core.run(100000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.core.X[2], 0x1000300000u);
    EXPECT_EQ(m.core.X[3], 0x1000302000u);
    EXPECT_EQ(m.core.X[4], 0x1000304000u); // after the TLBI by VA
    EXPECT_EQ(m.core.X[6], 0x1000302000u);
    EXPECT_EQ(m.core.X[7], 0x1000306000u); // after the TLBI of everything
    EXPECT_EQ(m.core.X[8], 1u);
    EXPECT_EQ(m.core.X[9], 2u); // the rewritten instruction
    EXPECT_EQ(m.records(), 0u);
  }
}

// Once its exits are linked, a block jumps to the next one itself: to another page (after the fetch TLB
// check), through a return with more targets than exit slots (the jump cache) and back on its own page. Of
// the 70000 blocks the loop runs, only the first runs of each exit return to the run loop.
TEST(Jit, BlocksFollowEachOtherWithoutTheRunLoop) {
  Machine m(Engine::Jit);
  m.start("jit_chain");
  RunResult r = m.core.run(10'000'000);
  ASSERT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.records(), 0u);
  EXPECT_EQ(m.core.X[3], 3u * 9999u * 10000u / 2);
  EXPECT_EQ(m.core.X[5], 20000u);
  EXPECT_LT(m.core.jit()->stats().blocks_run, 100u);
}

// A block's exit to the one block it can reach on its own page jumps there directly once linked, while no
// block has been replaced or dropped since (the link's generation is current). Here the BL block's exit is
// linked to the function's block; then runs of one iteration start at the function until the second tier
// replaces its block (VPLAT_JIT_TIER2=5: at its fifth chain start) and the first-tier code replaced is
// released; then a run long enough for the BL's exit to jump on into the function: were it still linked to
// the released code, it would jump into released memory. The BL block starts no chain in those runs, so it
// stays in the first tier.
TEST(Jit, DirectLinksNeverReachReplacedBlocks) {
  for (const char* tier2 : {"0", "5"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_TIER2=") + tier2);
    Machine m(Engine::Jit, {{"VPLAT_JIT_TIER2", tier2}});
    m.start("jit_direct");
    for (unsigned i = 0; i < 1000 && (m.core.X[9] == 0 || m.core.PC != m.core.X[9]); ++i) m.core.run(1);
    const uint64_t function = m.core.X[9];
    ASSERT_EQ(m.core.PC, function);
    // The function, the code after the call, the BL and the function again: the BL's exit is linked.
    EXPECT_EQ(m.core.run(9).retired, 9u);
    EXPECT_EQ(m.core.run(4).retired, 4u); // the code after the call
    EXPECT_EQ(m.core.run(1).retired, 1u); // the BL
    ASSERT_EQ(m.core.PC, function);
    const uint64_t compiled = m.core.jit()->stats().blocks_compiled;
    for (int i = 0; i < 6; ++i) EXPECT_EQ(m.core.run(7).retired, 7u); // one iteration from the function
    if (tier2[0] != '0') {
      EXPECT_EQ(m.core.jit()->stats().blocks_compiled, compiled + 1); // the function's block, replaced
    }
    EXPECT_EQ(m.core.run(9).retired, 9u); // ... and on from the BL into the function
    RunResult r = m.core.run(1'000'000);
    ASSERT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.records(), 0u);
    EXPECT_EQ(m.core.X[2], 10000u);
    EXPECT_EQ(m.core.X[3], 9999u * 10000u / 2);
    EXPECT_GT(m.core.jit()->stats().direct_links, 0u);
  }
}

// A hot loop of linked first-tier blocks reaches the second tier although its chains start wherever a run
// begins (chain-start sampling is off here: VPLAT_JIT_TIER2 at a million): the blocks count their runs and
// the run loop asks for the second tier of those that ran most in a period of 2^26 instructions. Without
// that (VPLAT_JIT_PROMOTE=0) the same runs make no second-tier block. Either way, at the loop's start after
// n iterations x3 = floor(n/2) and x2 = 1 + 3 + ... = ceil(n/2)^2.
TEST(Jit, HotBlocksInsideChainsReachTheSecondTier) {
  constexpr unsigned kMaxRuns = 20000; // of 1M instructions: ~300 suffice
  unsigned runs_needed = 0;
  for (const char* promote : {"131072", "0"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_PROMOTE=") + promote);
    Machine m(Engine::Auto, {{"VPLAT_JIT_TIER2", "1000000"}, {"VPLAT_JIT_PROMOTE", promote}});
    m.start("jit_hot_chain");
    const bool promoting = promote[0] != '0';
    unsigned runs = 0;
    while (runs < (promoting ? kMaxRuns : runs_needed)) {
      ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Budget);
      ++runs;
      if (promoting && m.core.jit()->stats().blocks_tier2 > 0) break;
    }
    if (promoting) {
      EXPECT_GT(m.core.jit()->stats().blocks_tier2, 0u);
      runs_needed = runs;
    } else {
      EXPECT_EQ(m.core.jit()->stats().blocks_tier2, 0u);
    }
    for (unsigned i = 0; i < 300; ++i) ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Budget); // and on
    for (unsigned i = 0; i < 100 && m.core.PC != m.core.X[9]; ++i) m.core.run(1);
    ASSERT_EQ(m.core.PC, m.core.X[9]);
    const uint64_t n = m.core.X[1];
    EXPECT_GT(n, 50'000'000u); // 5 instructions an iteration
    EXPECT_EQ(m.core.X[3], n / 2);
    EXPECT_EQ(m.core.X[2], ((n + 1) / 2) * ((n + 1) / 2));
    EXPECT_EQ(m.records(), 0u);
  }
}

// jit_spread's 1025 blocks each run ~65 k of a promotion period's 2^26 instructions, under the threshold of
// 131072. Runs it in runs of 1M instructions, `m` made with the rule under test on or off: on, until 100
// blocks reached the second tier (at most 4000 runs: ~200-300 suffice); off, for as many runs as `runs_on`
// took, with none promoted. `each` sees the statistics after every run. Either way the program's counts
// agree at its first block (x3 = 1024 x5). Chain-start sampling is off. Returns the runs made.
static unsigned run_spread(Machine& m, bool rule_on, unsigned runs_on,
                           const std::function<void(const JitStats&, unsigned)>& each = {}) {
  constexpr unsigned kMaxRuns = 4000;
  constexpr uint64_t kPromoted = 100;
  m.start("jit_spread");
  unsigned runs = 0;
  while (runs < (rule_on ? kMaxRuns : runs_on)) {
    EXPECT_EQ(m.core.run(1'000'000).exit, Exit::Budget);
    ++runs;
    const JitStats s = m.core.jit()->stats();
    if (each) each(s, runs);
    if (rule_on && s.blocks_tier2 >= kPromoted) break;
  }
  if (rule_on) {
    EXPECT_GE(m.core.jit()->stats().blocks_tier2, kPromoted);
  } else {
    EXPECT_EQ(m.core.jit()->stats().blocks_tier2, 0u);
  }
  for (unsigned i = 0; i < 5000 && m.core.PC != m.core.X[9]; ++i) m.core.run(1);
  EXPECT_EQ(m.core.PC, m.core.X[9]);
  EXPECT_GT(m.core.X[5], 0u);
  EXPECT_EQ(m.core.X[3], 1024u * m.core.X[5]);
  EXPECT_EQ(m.records(), 0u);
  return runs;
}

// While nothing waits to be compiled, blocks that ran a sixteenth of the promotion threshold's instructions
// in a period reach the second tier too (VPLAT_JIT_PROMOTE_IDLE=16; off by default), jit_spread's (over
// 8192 each); with the divisor at 1 none is promoted in as many runs. The steady rule (below) is off.
TEST(Jit, SpreadOutTimeReachesTheSecondTierWhileTheCompilerIdles) {
  unsigned runs_on = 0;
  for (const char* divisor : {"16", "1"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_PROMOTE_IDLE=") + divisor);
    Machine m(Engine::Auto, {{"VPLAT_JIT_TIER2", "1000000"},
                             {"VPLAT_JIT_PROMOTE_IDLE", divisor},
                             {"VPLAT_JIT_PROMOTE_STEADY", "0"}});
    const bool on = std::string(divisor) != "1";
    const unsigned runs = run_spread(m, on, runs_on);
    if (on) runs_on = runs;
  }
}

// Blocks that run at least VPLAT_JIT_PROMOTE_STEADY instructions (default 2^14) in each of four promotion
// periods in a row reach the second tier, though each stays under the threshold: jit_spread's do. None is
// asked for before the fourth period ends (the requests are made there, so no compile can have finished
// before), and none at all with the rule off.
TEST(Jit, SteadyWarmCodeReachesTheSecondTierAfterFourPeriods) {
  constexpr uint64_t kPeriod = 1ull << 26;
  unsigned runs_on = 0;
  for (const char* steady : {"16384", "0"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_PROMOTE_STEADY=") + steady);
    Machine m(Engine::Auto, {{"VPLAT_JIT_TIER2", "1000000"}, {"VPLAT_JIT_PROMOTE_STEADY", steady}});
    const bool on = std::string(steady) != "0";
    const unsigned runs = run_spread(m, on, runs_on, [](const JitStats& s, unsigned after) {
      if (s.insns_in_blocks < 4 * kPeriod) {
        EXPECT_EQ(s.blocks_tier2, 0u) << "after " << after << " runs";
      }
    });
    if (on) runs_on = runs;
  }
}

// A loop that runs most of the instructions is compiled at the second tier ahead of queued first-tier
// compiles (VPLAT_JIT_DOMINANT); otherwise the second tier waits for the first tier's queue to empty.
// jit_dominant makes 4096 blocks hot at once, then loops in two blocks. Chain-start sampling is off and
// queued requests do not expire, so the first tier's queue holds all 4096 until compiled.
TEST(Jit, DominantLoopsReachTheSecondTierAheadOfQueuedCompiles) {
  for (const char* dominant : {"4194304", "18446744073709551615"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_DOMINANT=") + dominant);
    Machine m(
        Engine::Auto,
        {{"VPLAT_JIT_TIER2", "1000000"}, {"VPLAT_JIT_MAX_WAIT", "600000"}, {"VPLAT_JIT_DOMINANT", dominant}});
    m.start("jit_dominant");
    for (unsigned runs = 0; runs < 1'000'000 && m.core.jit()->stats().blocks_tier2 == 0; ++runs)
      ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Budget);
    const JitStats s = m.core.jit()->stats();
    ASSERT_GT(s.blocks_tier2, 0u);
    const uint64_t first_tier = s.blocks_compiled - s.blocks_tier2; // when the second tier's first came
    if (dominant[0] == '4') {
      EXPECT_EQ(s.tier2_ahead, s.blocks_tier2);
      EXPECT_LT(first_tier, 4096u);
    } else {
      EXPECT_EQ(s.tier2_ahead, 0u);
      EXPECT_GE(first_tier, 4096u);
    }
    for (unsigned i = 0; i < 100 && m.core.PC != m.core.X[9]; ++i) m.core.run(1);
    ASSERT_EQ(m.core.PC, m.core.X[9]);
    EXPECT_EQ(m.core.X[3], 4200u * 4096u * 2u);
    EXPECT_EQ(m.core.X[1], m.core.X[2]);
    EXPECT_GT(m.core.X[1], 1000u);
    EXPECT_EQ(m.records(), 0u);
  }
}

// A translation replaced by its second-tier one: the exits and jump-cache entries that jumped to the old
// code jump to the new (JitStats::redirected), so what was linked to it stays linked; with
// VPLAT_JIT_REDIRECT=0 a new cache generation unlinks every exit, and each returns to the run loop once to
// be linked again. As in DirectLinksNeverReachReplacedBlocks: jit_direct's BL block is linked to the
// function's block, which the second tier then replaces (at its fifth chain start), and the BL block, which
// starts no chain, stays in the first tier.
TEST(Jit, ReplacedTranslationsKeepTheirLinks) {
  for (const char* redirect : {"1", "0"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_REDIRECT=") + redirect);
    Machine m(Engine::Jit, {{"VPLAT_JIT_TIER2", "5"}, {"VPLAT_JIT_REDIRECT", redirect}});
    m.start("jit_direct");
    for (unsigned i = 0; i < 1000 && (m.core.X[9] == 0 || m.core.PC != m.core.X[9]); ++i) m.core.run(1);
    const uint64_t function = m.core.X[9];
    ASSERT_EQ(m.core.PC, function);
    EXPECT_EQ(m.core.run(9).retired, 9u); // the function, the code after the call, the BL (linked) ...
    EXPECT_EQ(m.core.run(5).retired, 5u); // ... and the code after the call, the BL
    ASSERT_EQ(m.core.PC, function);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(m.core.run(7).retired, 7u); // from the function: it is replaced
    const JitStats replaced = m.core.jit()->stats();
    EXPECT_EQ(replaced.blocks_tier2, 1u);
    EXPECT_EQ(replaced.redirected, redirect[0] == '1' ? 1u : 0u);
    EXPECT_EQ(m.core.run(9).retired, 9u); // the function, the code after the call, the BL and on
    const uint64_t returns = m.core.jit()->stats().unlinked_returns - replaced.unlinked_returns;
    if (redirect[0] == '1')
      EXPECT_EQ(returns, 0u);
    else
      EXPECT_GT(returns, 0u);
    ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Off);
    EXPECT_EQ(m.records(), 0u);
    EXPECT_EQ(m.core.X[2], 10000u);
    EXPECT_EQ(m.core.X[3], 9999u * 10000u / 2);
  }
}

// The same replacement after another module was released (a debugger write to the page with the program's
// set-up code, whose blocks were compiled first, drops them after the BL block was linked to the function):
// the released module's exits may be listed in Block::linked_from, so their records are kept until, with no
// slack (VPLAT_JIT_LINK_SLACK=0), the lists are made again from the installed modules' exits before the
// replacement; the replacement still redirects, and the program still computes its sums.
TEST(Jit, ReplacedTranslationsKeepTheirLinksAfterAnotherModuleIsReleased) {
  Machine m(Engine::Jit, {{"VPLAT_JIT_TIER2", "5"}, {"VPLAT_JIT_LINK_SLACK", "0"}});
  m.start("jit_direct");
  for (unsigned i = 0; i < 1000 && (m.core.X[9] == 0 || m.core.PC != m.core.X[9]); ++i) m.core.run(1);
  const uint64_t function = m.core.X[9];
  ASSERT_EQ(m.core.PC, function);
  EXPECT_EQ(m.core.run(9).retired, 9u); // links the BL block to the function
  EXPECT_EQ(m.core.run(5).retired, 5u);
  ASSERT_EQ(m.core.PC, function);
  ASSERT_NE(kLoad >> 12, function >> 12); // jit_direct's loop and function are on a page of their own
  const uint64_t dropped = m.core.jit()->stats().invalidated_translated;
  const uint32_t nop = 0xd503201f; // over the set-up code's first instruction, which has run
  ASSERT_TRUE(m.core.debug_write(kLoad, &nop, sizeof nop));
  ASSERT_EQ(m.core.jit()->stats().invalidated_translated, dropped + 1);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(m.core.run(7).retired, 7u); // from the function: it is replaced
  const JitStats replaced = m.core.jit()->stats();
  EXPECT_EQ(replaced.blocks_tier2, 1u);
  EXPECT_EQ(replaced.redirected, 1u);
  ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Off);
  EXPECT_EQ(m.records(), 0u);
  EXPECT_EQ(m.core.X[2], 10000u);
  EXPECT_EQ(m.core.X[3], 9999u * 10000u / 2);
}

// While first-tier requests queue up, modules are made by the backlog's code generator (CodeGenOpt::None,
// VPLAT_JIT_BACKLOG=N: N requests left waiting), and never with VPLAT_JIT_BACKLOG=0. jit_dominant makes 4096
// blocks hot at once; with one block per module (VPLAT_JIT_BATCH=1) thousands wait behind each. The
// program's results are the same either way. (Its code is checked against Unicorn in
// a64_exec_unicorn_jit_backlog: VPLAT_JIT_CODEGEN=0 gives the first tier the same code generator.)
TEST(Jit, QueuedUpRequestsAreCompiledByTheBacklogCodeGenerator) {
  for (const char* backlog : {"1", "0"}) {
    SCOPED_TRACE(std::string("VPLAT_JIT_BACKLOG=") + backlog);
    Machine m(Engine::Auto, {{"VPLAT_JIT_BACKLOG", backlog},
                             {"VPLAT_JIT_BATCH", "1"},
                             {"VPLAT_JIT_TIER2", "0"},
                             {"VPLAT_JIT_MAX_WAIT", "600000"}});
    m.start("jit_dominant");
    for (unsigned runs = 0; runs < 1'000'000 && m.core.jit()->stats().blocks_compiled < 64; ++runs)
      ASSERT_EQ(m.core.run(1'000'000).exit, Exit::Budget);
    const JitStats s = m.core.jit()->stats();
    ASSERT_GE(s.blocks_compiled, 64u);
    if (backlog[0] == '1')
      EXPECT_GT(s.blocks_backlog, 0u);
    else
      EXPECT_EQ(s.blocks_backlog, 0u);
    for (unsigned i = 0; i < 100 && m.core.PC != m.core.X[9]; ++i) m.core.run(1);
    ASSERT_EQ(m.core.PC, m.core.X[9]);
    EXPECT_EQ(m.core.X[3], 4200u * 4096u * 2u);
    EXPECT_EQ(m.core.X[1], m.core.X[2]);
    EXPECT_EQ(m.records(), 0u);
  }
}

// Run by run, with budgets of many sizes, translated code with the second tier replacing blocks early
// (VPLAT_JIT_TIER2=2) retires the same instructions and leaves the same registers as the interpreter. The
// second tier's exits jump on to the next block without recording where the chain left the first tier, so
// the exit the run loop is told about may be an earlier one of the chain: it must not be linked to the block
// where the chain stopped. jit_loop_io's block loops to its own start with a helper call in it (a device
// load): where it declines at its start after looping, its PC must be its start (the helper call stored
// the load's). jit_loop_flags's loop sets flags that change every few iterations and that it never reads:
// the second tier computes them only on its way out (cpu-dbt/jit_loop_exits.h), and a run that ends inside
// the loop must leave those of the iteration that ended last. jit_flagged's loop stores off SP with an
// alignment check that raises on every other iteration, and takes permission and translation faults: the
// state at each fault as the interpreter leaves it. Half the runs end at a block boundary.
TEST(Jit, SameStepsAsTheInterpreterWithTheSecondTierEarly) {
  for (const char* program :
       {"jit_loops", "jit_direct", "jit_chain", "jit_loop_io", "jit_loop_flags", "jit_flagged"}) {
    SCOPED_TRACE(program);
    Machine want(Engine::Interp);
    setenv("VPLAT_JIT_TIER2", "2", 1);
    Machine got(Engine::Jit);
    unsetenv("VPLAT_JIT_TIER2");
    want.start(program);
    got.start(program);
    uint64_t seed = 12345;
    for (unsigned i = 0; i < 200000; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull; // budgets of 1 to 3000 instructions
      const uint64_t budget = (seed >> 33) % 3000 + 1;
      // Every other run ends at a block boundary (as the machine's): where a second-tier block declines a
      // short budget, the interpreter goes on to the boundary.
      const auto end = (i & 1) ? Core::RunEnd::AtBlockBoundary : Core::RunEnd::AtBudget;
      RunResult a = want.core.run(budget, end), b = got.core.run(budget, end);
      ASSERT_TRUE(same_run(want, got, a, b)) << "run " << i;
      // The flags too: where a run ends inside a loop, the next instruction may overwrite them unread.
      const std::array<uint8_t, 4> want_nzcv{want.core.NF, want.core.ZF, want.core.CF, want.core.VF};
      const std::array<uint8_t, 4> got_nzcv{got.core.NF, got.core.ZF, got.core.CF, got.core.VF};
      ASSERT_EQ(got_nzcv, want_nzcv) << "NZCV, run " << i;
      if (a.exit == Exit::Off) break;
    }
    EXPECT_EQ(want.core.PC, got.core.PC);
    EXPECT_GT(got.core.jit()->stats().blocks_tier2, 0u);
    // jit_chain's exits leave their page, or return; jit_loop_io's one block jumps only to itself.
    if (std::string(program) != "jit_chain" && std::string(program) != "jit_loop_io") {
      EXPECT_GT(got.core.jit()->stats().direct_links, 0u);
    }
  }
}

// MRS/MSR of the thread and stack-pointer registers, CTR_EL0 and DCZID_EL0 run in blocks (inline where the
// access cannot raise); every engine and tier gives what the interpreter gives, and the values worked out
// from jit_sysregs.s by hand.
TEST(Jit, SystemRegisterAccessesInBlocksMatchTheInterpreter) {
  struct Run {
    const char* name;
    Engine engine;
    const char* tier2; // VPLAT_JIT_TIER2 (1: every block at the second tier at once)
  };
  std::vector<std::vector<uint64_t>> results;
  for (const Run& run : {Run{"interp", Engine::Interp, "0"}, Run{"jit", Engine::Jit, "0"},
                         Run{"jit, second tier", Engine::Jit, "1"}}) {
    SCOPED_TRACE(run.name);
    Machine m(run.engine, {{"VPLAT_JIT_TIER2", run.tier2}});
    m.start("jit_sysregs");
    for (unsigned i = 0; i < 100; ++i) m.core.run(kBudgets[i % kNumBudgets]);
    ASSERT_EQ(m.core.el(), 0u);
    // EL1 loop, i = 40..1: TPIDR_EL0/EL1/RO = i + 0x100/0x200/0x300, SP_EL0 = i + 0x400, CTR_EL0 as
    // cpu-dbt/README.md gives it, DCZID_EL0 = 4 (64-byte blocks, DZP clear at EL1).
    EXPECT_EQ(m.core.X[9], 4 * 820 + 40 * 0xa00 + 40 * (0x8444C004ull + 4));
    EXPECT_EQ(m.core.X[12], 7u);
    EXPECT_EQ(m.core.X[18], 0x401u);
    // EL0 loop, i = 40..1: TPIDR_EL0 as EL1 left it (0x101), then i + 1; TPIDRRO_EL0 0x301; DCZID_EL0 with
    // DZP (0x14).
    EXPECT_EQ(m.core.X[13], 0x101u + (820 - 40 + 39) + 40 * 0x301 + 40 * 0x14);
    EXPECT_EQ(m.core.X[17], 9u);
    EXPECT_EQ(m.core.X[15], 0x301u);
    ASSERT_EQ(m.records(), 5u);
    const uint32_t esr[] = {
        0x02000000, // MRS SP_EL0, SPSel = 0: UNDEFINED
        0x02000000, // MSR SP_EL0, SPSel = 0
        0x6232c221, // MRS CTR_EL0 at EL0, UCT = 0: EC 0x18, op0 3 op2 1 op1 3 CRn 0 Rt 17 CRm 0, read
        0x02000000, // MRS TPIDR_EL1 at EL0
        0x02000000, // MSR TPIDRRO_EL0 at EL0
    };
    std::vector<uint64_t> got(m.core.X, m.core.X + 31);
    for (unsigned i = 0; i < 5; ++i) {
      EXPECT_EQ(m.mem.r64(kLog + 48 * i), esr[i]) << "record " << i;
      got.push_back(m.mem.r64(kLog + 48 * i + 8)); // ELR
    }
    got.push_back(m.core.PC);
    results.push_back(got);
  }
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(results[2], results[0]);
}

// A second-tier block loops (a loop's write-backs store all that the block writes anywhere, loaded at its
// entry for the purpose) only where a branch in it can go back to its start: jit_loops' inner loop does,
// the outer loop's blocks, whose branches go to other blocks, do not. (Their targets are read from the next
// PC, which holds only constants there.)
TEST(Jit, OnlyBlocksThatBranchToTheirStartLoopAtTheSecondTier) {
  setenv("VPLAT_JIT_TIER2", "2", 1);
  Machine m(Engine::Jit);
  unsetenv("VPLAT_JIT_TIER2");
  m.start("jit_loops");
  RunResult r;
  for (unsigned i = 0; i < 1000000; ++i) // short runs: the second tier samples chain starts
    if ((r = m.core.run(1000)).exit != Exit::Budget) break;
  ASSERT_EQ(r.exit, Exit::Off);
  EXPECT_EQ(m.core.X[5], 136000u);
  const JitStats s = m.core.jit()->stats();
  EXPECT_GE(s.blocks_tier2, 3u);
  EXPECT_GE(s.blocks_tier2_looping, 1u);
  EXPECT_LT(s.blocks_tier2_looping, s.blocks_tier2);
}

// Blocks that run pre-decoded (VPLAT_JIT_PREDECODE=1: from their first run; no compiles, with the first
// tier's threshold at its highest) take the same steps as the interpreter, run by run with budgets of
// 1-3000 instructions: retired count, PC, registers and memory; both through Core::run_predecoded
// (VPLAT_JIT_BASELINE=0) and as baseline code from their first run (VPLAT_JIT_BASELINE=1, with LLVM's tiers
// off). The programs cover self-modifying code (jit_smc: a store drops the block that made it; jit_smc_loop:
// one that a block before it names as its successor), interrupts raised by a store (jit_irq), code remapped
// under the same virtual address (jit_remap, and jit_remap_direct: by a direct branch), IC invalidation
// (jit_ic), and SP alignment faults and LDTR/STTR with EL0's permissions (jit_flagged).
TEST(Jit, PreDecodedBlocksTakeTheSameStepsAsTheInterpreter) {
  uint64_t entered_threaded = 0; // runs entered by the end entry of the block before (threaded.h)
  for (const bool baseline : {false, true}) {
    if (baseline && !baseline::available()) continue;
    for (const char* program : {"jit_loops", "jit_direct", "jit_chain", "jit_smc", "jit_smc_loop", "jit_irq",
                                "jit_remap", "jit_remap_direct", "jit_ic", "jit_flagged"}) {
      SCOPED_TRACE(std::string(program) + (baseline ? " in baseline code" : " through run_predecoded"));
      Machine want(Engine::Interp);
      setenv("VPLAT_JIT_PREDECODE", "1", 1);
      setenv("VPLAT_JIT_HOT", "32767", 1);
      setenv("VPLAT_JIT_TIER2", "0", 1);
      setenv("VPLAT_JIT_BASELINE", baseline ? "1" : "0", 1);
      setenv("VPLAT_JIT_COMPILE", "0", 1);
      Machine got(Engine::Auto);
      for (const char* v : {"VPLAT_JIT_PREDECODE", "VPLAT_JIT_HOT", "VPLAT_JIT_TIER2", "VPLAT_JIT_BASELINE",
                            "VPLAT_JIT_COMPILE"})
        unsetenv(v);
      if (std::string(program) == "jit_remap") {
        map_for_jit_remap(want);
        map_for_jit_remap(got);
      }
      if (std::string(program) == "jit_remap_direct") {
        map_for_jit_remap_direct(want);
        map_for_jit_remap_direct(got);
      }
      want.start(program);
      got.start(program);
      uint64_t seed = 777;
      for (unsigned i = 0; i < 200000; ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t budget = (seed >> 33) % 3000 + 1;
        RunResult a = want.core.run(budget), b = got.core.run(budget);
        ASSERT_TRUE(same_run(want, got, a, b)) << "run " << i;
        if (a.exit == Exit::Off) break;
      }
      EXPECT_EQ(want.core.PC, got.core.PC);
      EXPECT_TRUE(want.mem.ram == got.mem.ram);
      // By hand: the programs' comments.
      if (std::string(program) == "jit_smc_loop") {
        EXPECT_EQ(got.core.X[3], 2016u);
      }
      if (std::string(program) == "jit_remap_direct") {
        EXPECT_EQ(got.core.X[3], 122880u);
      }
      const JitStats& s = got.core.jit()->stats();
      EXPECT_GT(s.insns_predecoded, s.insns_in_blocks / 2); // nearly all of them: only pre-decoded blocks ran
      EXPECT_EQ(s.blocks_compiled, 0u);
      if (baseline)
        EXPECT_GT(s.insns_baseline, s.insns_predecoded / 2); // the rest: runs shorter than their block
      else
        EXPECT_EQ(s.insns_baseline, 0u);
      entered_threaded += s.blocks_entered_threaded;
      // Their loops' blocks jump to one another through their exits' links: the run loop goes from one to
      // the next only where a run ends (its budget) or a link is made, not at every block (~40 k times
      // for jit_loops' blocks of a few instructions without links).
      if (baseline && (std::string(program) == "jit_loops" || std::string(program) == "jit_direct")) {
        const uint64_t steps = s.steps[JitStats::kBaseline][JitStats::kBaseline][0] +
                               s.steps[JitStats::kBaseline][JitStats::kBaseline][1];
        EXPECT_LT(steps * 50, s.insns_baseline);
      }
    }
  }
  // Where there are handlers, pre-decoded blocks followed one another without the run loop too.
  if (threaded::kEnd) {
    EXPECT_GT(entered_threaded, 0u);
  }
}

// The run loop goes on from a translated block to the pre-decoded block its exit led to last without looking
// it up (JitEngine::try_run), while that block is still there and mapped there. jit_smc_calls rewrites its
// callee after every second call, which drops its block: the exit's record still names the block gone.
// jit_remap_rotate maps the callee's page to another physical page before each call: the exit's record names
// the block of the page mapped before. The translated caller has to run the callee as the interpreter does
// (both ways of running pre-decoded blocks).
TEST(Jit, TranslatedExitsGoOnOnlyToBlocksStillThere) {
  struct Case {
    const char* program;
    const char* hot;    // the first tier's threshold: below the caller's runs, above the callee blocks' ones
    uint64_t wait_from; // the iteration (x2) by which the caller's blocks have been asked for
    uint64_t x3;        // by hand: the programs' comments
    bool known;         // whether the exit's block is ever still the one to go on to
  };
  for (const Case& c : {Case{"jit_smc_calls", "16", 64, 99990000u, true},
                        Case{"jit_remap_rotate", "1024", 1100, 69632u, false}})
    for (const bool baseline : {false, true}) {
      if (baseline && !baseline::available()) continue;
      SCOPED_TRACE(std::string(c.program) +
                   (baseline ? ", callee in baseline code" : ", callee through run_predecoded"));
      Machine want(Engine::Interp);
      Machine got(Engine::Auto, {{"VPLAT_JIT_PREDECODE", "1"},
                                 {"VPLAT_JIT_HOT", c.hot},
                                 {"VPLAT_JIT_TIER2", "0"},
                                 {"VPLAT_JIT_BASELINE", baseline ? "1" : "0"}});
      if (std::string(c.program) == "jit_remap_rotate") {
        map_for_jit_remap_direct(want);
        map_for_jit_remap_direct(got);
      }
      want.start(c.program);
      got.start(c.program);
      uint64_t seed = 99;
      unsigned waited_ms = 0;
      for (unsigned i = 0;; ++i) {
        // The caller's blocks are compiled in the background (and installed by a run): the guest goes on an
        // instruction a millisecond until they are (at most 20 s), so that most calls are made from them.
        const bool wait =
            got.core.jit()->stats().blocks_compiled == 0 && got.core.X[2] >= c.wait_from && waited_ms < 20000;
        if (wait) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ++waited_ms;
        }
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t budget = wait ? 1 : (seed >> 33) % 3000 + 1;
        RunResult a = want.core.run(budget), b = got.core.run(budget);
        ASSERT_TRUE(same_run(want, got, a, b)) << "run " << i;
        if (a.exit == Exit::Off) break;
      }
      EXPECT_EQ(got.core.X[3], c.x3);
      const JitStats& s = got.core.jit()->stats();
      ASSERT_GT(s.blocks_compiled, 0u);
      const auto callee = baseline ? JitStats::kBaseline : JitStats::kThreaded;
      if (c.known) {
        EXPECT_GT(s.steps[JitStats::kTranslated][callee][0], 0u); // went on without a lookup
      }
      EXPECT_GT(s.steps[JitStats::kTranslated][callee][1], 0u); // and looked up each new callee block
    }
}

// Where the threaded handlers are built (by clang, as the baseline tier's stencils are), a pre-decoded
// instruction runs through a handler of its own unless it needs the Core's work around it (SP-based
// addressing, LDTR/STTR, load-exclusive), which the shared one does: so the test above runs its pre-decoded
// blocks through the handlers (VPLAT_JIT_THREADED=0 would make it run them through run_predecoded's loop).
TEST(Jit, PreDecodedInstructionsTakeTheirOwnThreadedHandler) {
  if (!baseline::available()) GTEST_SKIP() << "built without clang: no threaded handlers";
  ASSERT_NE(threaded::kFlagged, nullptr);
  for (uint32_t plain : {0x91000420u,    // ADD X0, X1, #1
                         0xf9400420u,    // LDR X0, [X1, #8]
                         0xf94007e0u,    // LDR X0, [SP, #8]
                         0x54000041u}) { // B.NE .+8
    const Core::PredecodedInsn d = Core::predecode(plain);
    EXPECT_NE(d.handler, nullptr) << std::hex << plain;
    EXPECT_NE(d.handler, threaded::kFlagged) << std::hex << plain;
  }
  for (uint32_t flagged : {0xc85f7c20u,    // LDXR X0, [X1]
                           0xf8400820u}) { // LDTR X0, [X1]
    const Core::PredecodedInsn d = Core::predecode(flagged);
    EXPECT_EQ(d.handler, threaded::kFlagged) << std::hex << flagged;
  }
  // One function, a handler per case of register 31 in its words: none, Rd alone (CMP, MOV to SP), Rn alone
  // (MOV from SP, SP-based addressing), both.
  auto handler = [](uint32_t word) { return Core::predecode(word).handler; };
  const std::vector<uint32_t> adds{0x9100003d,  // ADD X29, X1, #0
                                   0x9100003f,  // ADD SP, X1, #0
                                   0x910003fd,  // ADD X29, SP, #0 (MOV X29, SP)
                                   0x910043ff}; // ADD SP, SP, #16
  const std::vector<uint32_t> subs{0xeb020020,  // SUBS X0, X1, X2
                                   0xeb02003f,  // SUBS XZR, X1, X2 (CMP X1, X2)
                                   0xeb0203e0,  // SUBS X0, XZR, X2 (NEGS X0, X2)
                                   0xeb0203ff}; // SUBS XZR, XZR, X2
  const std::vector<uint32_t> ldrs{0xf9400420,  // LDR X0, [X1, #8]
                                   0xf940043f,  // LDR XZR, [X1, #8]
                                   0xf94007e0,  // LDR X0, [SP, #8]
                                   0xf94007ff}; // LDR XZR, [SP, #8]
  for (const auto& words : {adds, subs, ldrs})
    for (size_t i = 0; i < words.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        EXPECT_NE(handler(words[i]), handler(words[j])) << std::hex << words[i] << " " << words[j];
  EXPECT_EQ(handler(0x9100003d), handler(0x91000062)); // ADD X2, X3, #0: none is 31 in either
}

// The steps of trace() in each of `engines` are those of the interpreter, `want`.
static void expect_steps_of_the_interpreter(const std::vector<Step>& want, uint64_t total_interp,
                                            std::initializer_list<Engine> engines, Core::RunEnd end) {
  for (Engine e : engines) {
    SCOPED_TRACE(engine_name(e));
    uint64_t total = 0;
    std::vector<Step> got = trace(e, total, end);
    EXPECT_EQ(total, total_interp);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      SCOPED_TRACE(i);
      ASSERT_TRUE(got[i] == want[i]) << "retired " << got[i].retired << " vs " << want[i].retired << ", pc 0x"
                                     << std::hex << got[i].pc << " vs 0x" << want[i].pc;
    }
  }
}

TEST(Jit, SameRetiredInstructionsInEveryEngine) {
  uint64_t total_interp = 0;
  std::vector<Step> want = trace(Engine::Interp, total_interp);
  ASSERT_EQ(want.back().exit, Exit::Off);
  expect_steps_of_the_interpreter(want, total_interp, {Engine::Jit, Engine::Auto, Engine::Auto},
                                  Core::RunEnd::AtBudget);
}

// A run that ends at a block boundary ends at the same instruction in every engine, never more than a region
// (64 instructions) past its budget, and past it at least sometimes with these budgets.
TEST(Jit, RunsEndingAtABlockBoundaryEndAtTheSameInstructionInEveryEngine) {
  uint64_t total_interp = 0;
  std::vector<Step> want = trace(Engine::Interp, total_interp, Core::RunEnd::AtBlockBoundary);
  ASSERT_EQ(want.back().exit, Exit::Off);
  unsigned past = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(want[i].retired, kBudgets[i % kNumBudgets] + 64) << i;
    past += want[i].retired > kBudgets[i % kNumBudgets];
  }
  EXPECT_GT(past, want.size() / 4);
  expect_steps_of_the_interpreter(want, total_interp, {Engine::Jit, Engine::Auto},
                                  Core::RunEnd::AtBlockBoundary);
}

// The block boundaries of programs/jit_run_end.s, counted by hand: a region start (instruction 64), a
// conditional branch not taken in the middle of a block (71), an unconditional branch (73).
TEST(Jit, ARunEndingAtABlockBoundaryStopsAtTheFirstOnePastItsBudget) {
  constexpr auto kBoundary = Core::RunEnd::AtBlockBoundary;
  for (Engine e : {Engine::Interp, Engine::Jit}) {
    SCOPED_TRACE(engine_name(e));
    {
      Machine m(e);
      m.start("jit_run_end");
      RunResult r = m.core.run(10);
      EXPECT_EQ(r.retired, 10u);
      EXPECT_EQ(m.core.PC, kLoad + 4 * 10);
    }
    Machine m(e);
    m.start("jit_run_end");
    RunResult r = m.core.run(10, kBoundary);
    EXPECT_EQ(r.exit, Exit::Budget);
    EXPECT_EQ(r.retired, 64u);
    EXPECT_EQ(m.core.PC, kLoad + 4 * 64);
    r = m.core.run(1, kBoundary);
    EXPECT_EQ(r.retired, 8u);
    EXPECT_EQ(m.core.PC, kLoad + 4 * 72);
    r = m.core.run(1, kBoundary);
    EXPECT_EQ(r.retired, 2u);
    EXPECT_EQ(m.core.PC, kLoad + 4 * 74);
    r = m.core.run(100, kBoundary);
    EXPECT_EQ(r.exit, Exit::Off);
    EXPECT_EQ(m.core.X[1], 2u);
    // A budget that ends at a boundary ends there.
    Machine again(e);
    again.start("jit_run_end");
    EXPECT_EQ(again.core.run(64, kBoundary).retired, 64u);
    EXPECT_EQ(again.core.run(8, kBoundary).retired, 8u);
  }
}

namespace {

// --cpu-stats: the histogram of programs/jit_stats.s by the description's instruction names, with the budgets
// of trace() so that blocks also stop where a budget ends inside them.
struct Histogram {
  std::map<std::string, uint64_t> by_name, by_class;
  uint64_t total = 0, retired = 0;
  uint64_t in_blocks = 0; // instructions retired by translated blocks
};

Histogram count_jit_stats(Engine e) {
  namespace isa = vplat::gen::aarch64;
  Machine m(e);
  std::vector<uint64_t> counts(isa::kNumInsns);
  m.core.set_insn_counts(counts.data());
  m.start("jit_stats");
  for (unsigned i = 0; i < 100000; ++i)
    if (m.core.run(kBudgets[i % kNumBudgets]).exit == Exit::Off) break;
  m.core.flush_insn_counts();
  Histogram h;
  h.retired = m.core.retired;
  if (m.core.jit()) h.in_blocks = m.core.jit()->stats().insns_in_blocks;
  for (int id = 0; id < isa::kNumInsns; ++id) {
    const uint64_t n = counts[static_cast<size_t>(id)];
    if (!n) continue;
    h.by_name[isa::kInsnInfo[id].name] += n;
    h.by_class[isa::kInsnInfo[id].cls] += n;
    h.total += n;
  }
  return h;
}

} // namespace

// Counted by hand from jit_stats.s and common.inc: R = 8192 rounds, 8R = 65536 loop iterations, R synchronous
// exceptions (the faulting load, which never retires, so LDR_imm is absent) and R IRQs.
//   start and end: b main; adr, msr vbar, 2 movz (setup); 5 movz, msr daifclr; movz, movk, smc (done)
//   per iteration: ldr (register), add (shifted register), str (register), add #1, tst, b.ne
//   per round: add x6, mov x12, 2 str (immediate), msr daifclr, cmp, b.ne
//   per synchronous exception: vector mov + b; handler 4 mrs, 3 stp, add x24, and, cbnz (not taken), bic,
//     msr spsr, lsr, cmp, b.eq (not taken), add x27, msr elr, b, eret
//   per IRQ: vector mov + b; handler 4 mrs, 3 stp, add x24, and, cbnz (taken), orr, msr spsr, eret
TEST(CpuStats, HistogramOfAKnownProgramInEveryEngine) {
  const uint64_t R = 8192, I = 8 * R;
  const std::map<std::string, uint64_t> by_name = {
      {"B_imm", 1 + 2 * R + R},
      {"ADR", 1},
      {"MSR", 1 + 2 * R + R},
      {"MOVZ", 2 + 5 + 1 + R + R + R},
      {"MSR_imm", 1 + R},
      {"MOVK", 1},
      {"SVC", 1}, // smc
      {"LDR_reg", I},
      {"ADDSUB_shreg", I},
      {"STR_reg", I},
      {"ADDSUB_imm", I + 2 * R + 3 * R + R},
      {"LOGICAL_imm", I + 2 * R + 2 * R},
      {"B_cond", I + R + R},
      {"STR_imm", 2 * R},
      {"MRS", 4 * R + 4 * R},
      {"STP", 3 * R + 3 * R},
      {"CBZ", R + R},
      {"UBFM", R},
      {"ERET", R + R},
  };
  // Classes (archdesc/aarch64): alu = ADR, MOVZ, MOVK, ADDSUB_*, LOGICAL_imm, UBFM.
  const std::map<std::string, uint64_t> by_class = {
      {"alu", 1 + (8 + 3 * R) + 1 + I + (I + 6 * R) + (I + 4 * R) + R},
      {"branch_imm", 1 + 3 * R},
      {"branch_cond", (I + 2 * R) + 2 * R},
      {"mem_load", I},
      {"mem_store", I + 2 * R},
      {"mem_pair", 6 * R},
      {"sys_mrs", 8 * R},
      {"sys_msr", 1 + 3 * R},
      {"sys_pstate", 1 + R},
      {"sys_eret", 2 * R},
      {"sys_exc", 1},
  };
  uint64_t want_total = 0;
  for (const auto& [name, n] : by_name) want_total += n;
  Histogram interp = count_jit_stats(Engine::Interp);
  for (Engine e : {Engine::Interp, Engine::Jit, Engine::Auto}) {
    SCOPED_TRACE(engine_name(e));
    Histogram h = e == Engine::Interp ? interp : count_jit_stats(e);
    EXPECT_EQ(h.by_name, by_name);
    EXPECT_EQ(h.by_class, by_class);
    EXPECT_EQ(h.total, want_total);
    EXPECT_EQ(h.total, h.retired); // retired instructions only: the faulting load is not counted
    EXPECT_EQ(h.by_name, interp.by_name);
    // Jit translates every block (the loop's, the rounds', the handler's between its MRSs); Auto only what
    // got hot, whenever the background compiles finish.
    if (e == Engine::Jit) {
      EXPECT_GT(h.in_blocks, h.retired / 2);
    }
  }
}

// Blocks translated while counting is off carry no counter: turning it on drops them, so that what runs from
// then on is all counted.
TEST(CpuStats, OnlyCountedWhenOn) {
  namespace isa = vplat::gen::aarch64;
  Machine m(Engine::Jit);
  m.start("jit_stats");
  ASSERT_EQ(m.core.run(5000).exit, Exit::Budget);
  const uint64_t flushes = m.core.jit()->stats().flushes;
  std::vector<uint64_t> counts(isa::kNumInsns);
  m.core.set_insn_counts(counts.data());
  EXPECT_EQ(m.core.jit()->stats().flushes, flushes + 1);
  const uint64_t before = m.core.retired;
  ASSERT_EQ(m.core.run(3000).exit, Exit::Budget);
  m.core.flush_insn_counts();
  uint64_t total = 0;
  for (uint64_t n : counts) total += n;
  EXPECT_GT(m.core.retired - before, 2000u);
  EXPECT_EQ(total, m.core.retired - before); // blocks translated before would have run uncounted
}
