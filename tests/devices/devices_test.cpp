// Register-level specifications of the device models. Expected values come from the PL011 TRM (DDI 0183)
// and the GICv2 architecture specification (IHI 0048B).
#include "devices/bus.h"
#include "devices/gic400.h"
#include "devices/host_memory.h"
#include "devices/pl011.h"
#include <gtest/gtest.h>
#include <string>

namespace vd = vplat::dev;

TEST(Bus, RamReadsBackWhatWasWrittenLittleEndian) {
  vd::Bus bus;
  bus.add_ram(0x80000000, 1 << 20);
  ASSERT_TRUE(bus.write(0x80000010, 4, 0x11223344));
  uint64_t v = 0;
  ASSERT_TRUE(bus.read(0x80000011, 1, v));
  EXPECT_EQ(v, 0x33u);
}

TEST(Bus, AccessOutsideEverythingFails) {
  vd::Bus bus;
  bus.add_ram(0x80000000, 1 << 20);
  uint64_t v = 0;
  EXPECT_FALSE(bus.read(0x10, 4, v));
  EXPECT_FALSE(bus.write(0x80000000 + (1 << 20) - 2, 4, 0)); // straddles the end of RAM
  EXPECT_EQ(bus.ram_pointer(0x80000000 + (1 << 20) - 2, 4), nullptr);
}

TEST(HostMemory, IsZeroFilledWritableAndOnAHugePageBoundary) {
  // Guest RAM and the cores' soft TLBs rely on all three: RAM starts zeroed, and a transparent huge page
  // backs only an aligned 2 MiB.
  const size_t size = (3u << 20) + 4096; // not a whole number of huge pages
  auto* p = static_cast<uint8_t*>(vd::reserve_host_memory(size));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2u << 20), 0u);
  for (size_t i = 0; i < size; i += 4096) EXPECT_EQ(p[i], 0) << i;
  EXPECT_EQ(p[size - 1], 0);
  p[0] = 1;
  p[size - 1] = 2;
  EXPECT_EQ(p[0] + p[size - 1], 3);
  vd::release_host_memory(p, size);
}

TEST(Bus, RamIsZeroFilledOnAHugePageBoundary) {
  vd::Bus bus;
  bus.add_ram(0x80000000, 4u << 20);
  uint8_t* host = bus.ram_pointer(0x80000000, 1);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % (2u << 20), 0u);
  uint64_t v = 1;
  ASSERT_TRUE(bus.read(0x80000000 + (4u << 20) - 8, 8, v));
  EXPECT_EQ(v, 0u);
}

namespace {
struct UartFixture {
  std::string out;
  bool irq = false;
  vd::Pl011 uart{vd::IrqLine([this](bool l) { irq = l; }), [this](uint8_t b) { out += static_cast<char>(b); }};
};
} // namespace

TEST(Pl011, IdentifiesAsPl011ToTheAmbaBus) {
  UartFixture f;
  uint32_t periph = 0, cell = 0;
  for (int i = 0; i < 4; ++i) {
    periph |= static_cast<uint32_t>(f.uart.read(0xfe0 + 4 * i, 4)) << (8 * i);
    cell |= static_cast<uint32_t>(f.uart.read(0xff0 + 4 * i, 4)) << (8 * i);
  }
  EXPECT_EQ(periph & 0x000fffff, 0x00041011u); // part 0x011, designer 0x41 (Arm)
  EXPECT_EQ(cell, 0xb105f00du);
}

TEST(Pl011, TransmitsImmediatelyAndRaisesTxInterrupt) {
  UartFixture f;
  f.uart.write(0x038, 4, vd::Pl011::kTxInt); // UARTIMSC
  f.uart.write(0x000, 4, 'h');
  f.uart.write(0x000, 4, 'i');
  EXPECT_EQ(f.out, "hi");
  EXPECT_TRUE(f.irq);
  EXPECT_EQ(f.uart.read(0x018, 4) & 0x80, 0x80u); // TXFE
  f.uart.write(0x044, 4, vd::Pl011::kTxInt);      // UARTICR
  EXPECT_FALSE(f.irq);
}

TEST(Pl011, ReceiveFifoFlagsAndInterrupts) {
  UartFixture f;
  f.uart.write(0x02c, 4, 0x70); // 8 bits, FIFOs enabled
  f.uart.write(0x038, 4, vd::Pl011::kRxInt | vd::Pl011::kRxTimeoutInt);
  EXPECT_EQ(f.uart.read(0x018, 4) & 0x10, 0x10u); // RXFE
  EXPECT_TRUE(f.uart.receive('a'));
  EXPECT_TRUE(f.irq); // below the trigger level: receive timeout
  EXPECT_EQ(f.uart.read(0x040, 4), static_cast<uint64_t>(vd::Pl011::kRxTimeoutInt));
  EXPECT_EQ(f.uart.read(0x018, 4) & 0x10, 0u);
  EXPECT_EQ(f.uart.read(0x000, 4), static_cast<uint64_t>('a'));
  EXPECT_FALSE(f.irq);
  for (int i = 0; i < 32; ++i) EXPECT_TRUE(f.uart.receive(static_cast<uint8_t>('0' + i % 10)));
  EXPECT_EQ(f.uart.read(0x018, 4) & 0x40, 0x40u); // RXFF
  EXPECT_FALSE(f.uart.receive('x'));              // overrun
  EXPECT_EQ(f.uart.read(0x03c, 4) & vd::Pl011::kOverrunInt, static_cast<uint64_t>(vd::Pl011::kOverrunInt));
}

TEST(Pl011, WithoutFifosHoldsOneByte) {
  UartFixture f;
  EXPECT_TRUE(f.uart.receive('a'));
  EXPECT_FALSE(f.uart.receive('b'));
  EXPECT_EQ(f.uart.read(0x000, 4), static_cast<uint64_t>('a'));
}

namespace {
struct GicFixture {
  bool irq[2] = {false, false};
  vd::Gic400 gic{2, [this](int cpu, bool level) { irq[cpu] = level; }};
  void dist(int cpu, uint64_t o, uint64_t v, unsigned size = 4) {
    gic.set_current_cpu(cpu);
    gic.distributor().write(o, size, v);
  }
  uint64_t cpu_read(int cpu, uint64_t o) {
    gic.set_current_cpu(cpu);
    return gic.cpu_interface().read(o, 4);
  }
  void cpu_write(int cpu, uint64_t o, uint64_t v) {
    gic.set_current_cpu(cpu);
    gic.cpu_interface().write(o, 4, v);
  }
  void enable_all() {
    dist(0, 0x000, 1);
    for (int c = 0; c < 2; ++c) {
      cpu_write(c, 0x000, 1);
      cpu_write(c, 0x004, 0xf0);
    }
  }
};
} // namespace

TEST(Gic400, TyperReportsLinesAndCpus) {
  GicFixture f;
  EXPECT_EQ(f.gic.distributor().read(0x004, 4), 7u | (1u << 5)); // 256 interrupts, 2 CPUs
  EXPECT_EQ(f.gic.distributor().read(0x008, 4), 0x0200043bu);
}

TEST(Gic400, LevelSpiIsDeliveredToItsTargetAndStaysPendingWhileHigh) {
  GicFixture f;
  f.enable_all();
  f.dist(0, 0x100 + 4 * (64 / 32), 1u << (64 % 32)); // enable INTID 64 (SPI 32)
  f.dist(0, 0x800 + 64, 2, 1);                        // target CPU 1
  f.dist(0, 0x400 + 64, 0xa0, 1);                     // priority
  f.gic.set_spi(64, true);
  EXPECT_FALSE(f.irq[0]);
  EXPECT_TRUE(f.irq[1]);
  EXPECT_EQ(f.cpu_read(1, 0x00c), 64u); // IAR
  EXPECT_FALSE(f.irq[1]);               // active: not signalled again
  EXPECT_EQ(f.cpu_read(1, 0x014), 0xa0u); // running priority
  f.cpu_write(1, 0x010, 64);            // EOIR
  EXPECT_TRUE(f.irq[1]);                // line still high: pending again
  f.gic.set_spi(64, false);
  EXPECT_FALSE(f.irq[1]);
  EXPECT_EQ(f.cpu_read(1, 0x00c), 1023u); // spurious
}

TEST(Gic400, EdgeSpiLatchesUntilAcknowledged) {
  GicFixture f;
  f.enable_all();
  f.dist(0, 0x100 + 4 * 2, 1u << 1);   // INTID 65
  f.dist(0, 0x800 + 65, 1, 1);
  f.dist(0, 0xc00 + 4 * (65 / 16), 2u << (2 * (65 % 16))); // edge-triggered
  f.gic.set_spi(65, true);
  f.gic.set_spi(65, false);
  EXPECT_TRUE(f.irq[0]);
  EXPECT_EQ(f.cpu_read(0, 0x00c), 65u);
  f.cpu_write(0, 0x010, 65);
  EXPECT_FALSE(f.irq[0]);
}

TEST(Gic400, PriorityMaskAndPreemption) {
  GicFixture f;
  f.enable_all();
  f.dist(0, 0x100 + 4 * 2, (1u << 1) | (1u << 2)); // INTIDs 65, 66
  f.dist(0, 0x800 + 65, 1, 1);
  f.dist(0, 0x800 + 66, 1, 1);
  f.dist(0, 0x400 + 65, 0x80, 1);
  f.dist(0, 0x400 + 66, 0x40, 1);
  f.cpu_write(0, 0x004, 0x80); // PMR: only priorities below 0x80 get through
  f.gic.set_spi(65, true);
  EXPECT_FALSE(f.irq[0]);
  f.cpu_write(0, 0x004, 0xf0);
  EXPECT_TRUE(f.irq[0]);
  EXPECT_EQ(f.cpu_read(0, 0x00c), 65u);
  f.gic.set_spi(66, true); // higher priority preempts the active 0x80
  EXPECT_TRUE(f.irq[0]);
  EXPECT_EQ(f.cpu_read(0, 0x00c), 66u);
  f.cpu_write(0, 0x010, 66);
  f.cpu_write(0, 0x010, 65);
}

TEST(Gic400, SgiCarriesTheSourceCpu) {
  GicFixture f;
  f.enable_all();
  f.dist(1, 0x100, 1u << 3); // CPU 1 enables its SGI 3
  f.dist(0, 0xf00, (2u << 16) | 3); // CPU 0 sends SGI 3 to CPU 1
  EXPECT_TRUE(f.irq[1]);
  EXPECT_EQ(f.cpu_read(1, 0x00c), 3u); // source CPU 0 in bits 12:10
  f.cpu_write(1, 0x010, 3);
  f.dist(1, 0xf00, (2u << 24) | 3); // CPU 1 to itself
  f.dist(0, 0x100, 1u << 3);
  EXPECT_EQ(f.cpu_read(1, 0x00c), 3u | (1u << 10)); // from CPU 1 itself
  f.dist(1, 0xf00, (1u << 24) | 3); // CPU 1 to all others: CPU 0
  EXPECT_EQ(f.cpu_read(0, 0x00c), 3u | (1u << 10));
}

TEST(Gic400, PpisAreBankedPerCpu) {
  GicFixture f;
  f.enable_all();
  f.dist(0, 0x100, 1u << 30);
  f.gic.set_ppi(1, 30, true); // CPU 1's timer, but only CPU 0 enabled its PPI 30
  EXPECT_FALSE(f.irq[1]);
  f.gic.set_ppi(0, 30, true);
  EXPECT_TRUE(f.irq[0]);
}

#include "devices/generic_timer.h"
#include "devices/pl031.h"

TEST(GenericTimer, FiresWhenTheCountReachesCvalUnlessMasked) {
  vd::VirtualClock clock;
  bool phys = false, virt = false;
  vd::GenericTimer t(clock, vd::IrqLine([&](bool l) { phys = l; }), vd::IrqLine([&](bool l) { virt = l; }));
  t.write_tval(t.phys, t.physical_count(), 100);
  t.phys.ctl = 1;
  t.update();
  EXPECT_FALSE(phys);
  EXPECT_EQ(t.next_deadline(), 100u);
  clock.advance(100);
  t.update();
  EXPECT_TRUE(phys);
  EXPECT_EQ(t.read_ctl(t.phys, t.physical_count()), 5u); // ENABLE | ISTATUS
  t.phys.ctl = 3;                                         // IMASK
  t.update();
  EXPECT_FALSE(phys);
  EXPECT_EQ(t.next_deadline(), UINT64_MAX);
}

// Two CPUs take their quanta of one round in turn from the same start: each sees time move with its own
// instructions, and nobody sees it go back (the second CPU's first reads are held at what the first showed).
TEST(VirtualClock, MovesWithTheRunningCpusInstructions) {
  vd::VirtualClock clock;
  clock.advance(1000);
  uint64_t cpu0 = 70, cpu1 = 5; // instructions retired so far
  auto progress = [](const void* p) { return *static_cast<const uint64_t*>(p); };
  clock.begin_quantum(progress, &cpu0);
  EXPECT_EQ(clock.ticks(), 1000u);
  cpu0 += 3;
  EXPECT_EQ(clock.ticks(), 1003u); // two reads three instructions apart differ by three ticks
  cpu0 += 17;
  EXPECT_EQ(clock.ticks(), 1020u);
  clock.end_quantum();
  clock.begin_quantum(progress, &cpu1);
  cpu1 += 12;
  EXPECT_EQ(clock.ticks(), 1020u); // 1012 by its own count, but 1020 was seen already
  cpu1 += 18;
  EXPECT_EQ(clock.ticks(), 1030u);
  clock.end_quantum();
  clock.advance(30); // the round lasts as long as its busiest CPU
  EXPECT_EQ(clock.ticks(), 1030u);
}

// A faster modelled CPU retires several instructions per tick: with 20 per tick (1000 MIPS at 50 MHz), reads
// inside a quantum move one tick per 20 instructions, and the part of a tick a round leaves over counts
// towards the next round's first tick.
TEST(VirtualClock, CountsTicksOfSeveralInstructions) {
  vd::VirtualClock clock(20);
  EXPECT_EQ(clock.insns_per_tick(), 20u);
  uint64_t cpu = 0;
  auto progress = [](const void* p) { return *static_cast<const uint64_t*>(p); };
  clock.begin_quantum(progress, &cpu);
  cpu += 19;
  EXPECT_EQ(clock.ticks(), 0u);
  cpu += 1;
  EXPECT_EQ(clock.ticks(), 1u);
  cpu += 30;
  EXPECT_EQ(clock.ticks(), 2u); // 50 instructions
  clock.end_quantum();
  clock.retire(50);
  EXPECT_EQ(clock.ticks(), 2u); // 10 instructions of the third tick are kept
  clock.begin_quantum(progress, &cpu);
  cpu += 10;
  EXPECT_EQ(clock.ticks(), 3u);
  clock.end_quantum();
  clock.retire(10);
  EXPECT_EQ(clock.ticks(), 3u);
  clock.advance_to(100); // a WFI skip to a timer deadline starts a fresh tick
  clock.retire(19);
  EXPECT_EQ(clock.ticks(), 100u);
  clock.retire(1);
  EXPECT_EQ(clock.ticks(), 101u);
}

TEST(GenericTimer, TvalIsASigned32BitDistance) {
  vd::VirtualClock clock;
  vd::GenericTimer t(clock, vd::IrqLine(), vd::IrqLine());
  clock.advance(1000);
  t.write_tval(t.virt, t.virtual_count(), 0xffffff9c); // -100
  EXPECT_EQ(t.virt.cval, 900u);
  EXPECT_EQ(t.read_tval(t.virt, t.virtual_count()), 0xffffff9cu);
}

TEST(GenericTimer, VirtualCountSubtractsTheOffset) {
  vd::VirtualClock clock;
  bool virt = false;
  vd::GenericTimer t(clock, vd::IrqLine(), vd::IrqLine([&](bool l) { virt = l; }));
  clock.advance(5000);
  t.cntvoff = 4000;
  EXPECT_EQ(t.virtual_count(), 1000u);
  t.virt.cval = 1500;
  t.virt.ctl = 1;
  EXPECT_EQ(t.next_deadline(), 5500u);
  clock.advance(500);
  t.update();
  EXPECT_TRUE(virt);
}

TEST(Pl031, CountsVirtualSecondsFromTheEpochAndTheLoadValue) {
  vd::VirtualClock clock;
  bool irq = false;
  vd::Pl031 rtc(clock, vd::IrqLine([&](bool l) { irq = l; }), 1'700'000'000);
  EXPECT_EQ(rtc.read(0x00, 4), 1'700'000'000u);
  clock.advance(vd::VirtualClock::kFrequency * 3);
  EXPECT_EQ(rtc.read(0x00, 4), 1'700'000'003u);
  rtc.write(0x08, 4, 42);
  EXPECT_EQ(rtc.read(0x00, 4), 42u);
  rtc.write(0x04, 4, 43);
  rtc.write(0x10, 4, 1);
  clock.advance(vd::VirtualClock::kFrequency);
  rtc.update();
  EXPECT_TRUE(irq);
  rtc.write(0x1c, 4, 1);
  EXPECT_FALSE(irq);
  uint32_t id = 0;
  for (int i = 0; i < 4; ++i) id |= static_cast<uint32_t>(rtc.read(0xfe0 + 4 * i, 4)) << (8 * i);
  EXPECT_EQ(id, 0x00041031u);
}
