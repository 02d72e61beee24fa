// The MaliTest fixture: a Mali-G71 on a bus with RAM and a virtual clock, driven the way Linux's panfrost
// driver drives it (reset, MMU enable, job submission on a slot's _NEXT registers), and the machine's side
// of the job manager hand-off (run_jobs, advance).
#pragma once
#include "gpu-bifrost/mali_g71.h"
#include "gpu_test_util.h"
#include <memory>

namespace gputest {
using namespace vplat;
using namespace vplat::gpu;

constexpr uint64_t kGpuVa = 0x2000000; // panfrost's VA space starts at 32 MiB
constexpr uint32_t kTranstabFlags = 0x3 | (1u << 2);
constexpr uint32_t kThreadPri8 = 8u << 16;
constexpr uint32_t kStartFlushCleanInv = 3u << 8, kEndFlushCleanInv = 3u << 12, kFlushReduction = 1u << 14;

class MaliTest : public ::testing::Test {
protected:
  dev::Bus bus;
  dev::VirtualClock clock;
  bool job_line = false, mmu_line = false, gpu_line = false;
  std::unique_ptr<MaliG71> gpu;
  std::unique_ptr<PageTables> pt;

  void SetUp() override {
    bus.add_ram(kRamBase, kRamSize);
    gpu = make(8);
    gpu->set_clock(&clock);
    pt = std::make_unique<PageTables>(bus);
  }
  std::unique_ptr<MaliG71> make(unsigned cores) {
    return std::make_unique<MaliG71>(bus, dev::IrqLine([this](bool l) { job_line = l; }),
                                     dev::IrqLine([this](bool l) { mmu_line = l; }),
                                     dev::IrqLine([this](bool l) { gpu_line = l; }), cores);
  }
  uint32_t rd(uint32_t off) { return static_cast<uint32_t>(gpu->read(off, 4)); }
  void wr(uint32_t off, uint32_t v) { gpu->write(off, 4, v); }

  // panfrost_gpu_soft_reset: returns how many RAWSTAT polls it took.
  int soft_reset() {
    wr(reg::GPU_INT_MASK, 0);
    wr(reg::GPU_INT_CLEAR, GPU_IRQ_RESET_COMPLETED);
    wr(reg::GPU_COMMAND, GPU_CMD_SOFT_RESET);
    int polls = 0;
    while (!(rd(reg::GPU_INT_RAWSTAT) & GPU_IRQ_RESET_COMPLETED) && polls < 100) polls++;
    wr(reg::GPU_INT_CLEAR, GPU_IRQ_ALL);
    wr(reg::GPU_INT_MASK, GPU_IRQ_ALL);
    return polls + 1;
  }
  // panfrost's wait_ready: polls AS_STATUS until AS_ACTIVE clears; returns the number of reads.
  int wait_ready(unsigned as) {
    int reads = 1;
    while ((rd(reg::as(as, reg::AS_STATUS)) & AS_STATUS_ACTIVE) && reads < 100) reads++;
    return reads;
  }
  void as_cmd(unsigned as, uint32_t cmd) {
    wait_ready(as);
    wr(reg::as(as, reg::AS_COMMAND), cmd);
  }
  // panfrost_mmu_enable: lock + FLUSH_MEM, TRANSTAB/MEMATTR, UPDATE.
  void mmu_enable(unsigned as, uint64_t pgd) {
    wr(reg::as(as, reg::AS_LOCKADDR_LO), 0x000 | 47); // whole VA space (fls64(size-1)-1 for 2^48)
    wr(reg::as(as, reg::AS_LOCKADDR_HI), 0);
    as_cmd(as, AS_CMD_LOCK);
    as_cmd(as, AS_CMD_FLUSH_MEM);
    wait_ready(as);
    uint64_t transtab = pgd | kTranstabFlags;
    wr(reg::as(as, reg::AS_TRANSTAB_LO), static_cast<uint32_t>(transtab));
    wr(reg::as(as, reg::AS_TRANSTAB_HI), static_cast<uint32_t>(transtab >> 32));
    wr(reg::as(as, reg::AS_MEMATTR_LO), 0x00888d88);
    wr(reg::as(as, reg::AS_MEMATTR_HI), 0);
    as_cmd(as, AS_CMD_UPDATE);
    wait_ready(as);
  }
  // panfrost_mmu_disable (what the driver does after an unhandled fault): lock the whole VA range + FLUSH_MEM,
  // TRANSTAB and MEMATTR zeroed, UPDATE.
  void mmu_disable(unsigned as) {
    wr(reg::as(as, reg::AS_LOCKADDR_LO), 47);
    wr(reg::as(as, reg::AS_LOCKADDR_HI), 0);
    as_cmd(as, AS_CMD_LOCK);
    as_cmd(as, AS_CMD_FLUSH_MEM);
    wait_ready(as);
    wr(reg::as(as, reg::AS_TRANSTAB_LO), 0);
    wr(reg::as(as, reg::AS_TRANSTAB_HI), 0);
    wr(reg::as(as, reg::AS_MEMATTR_LO), 0);
    wr(reg::as(as, reg::AS_MEMATTR_HI), 0);
    as_cmd(as, AS_CMD_UPDATE);
  }
  // Maps n pages at kGpuVa to kDataPa contiguously, and enables AS `as`.
  void map_and_enable(unsigned as = 0, unsigned pages = 16) {
    for (unsigned i = 0; i < pages; i++) pt->map(kGpuVa + 4096ull * i, kDataPa + 4096ull * i, kRw);
    mmu_enable(as, pt->pgd());
  }
  static uint64_t pa_of(uint64_t va) { return va - kGpuVa + kDataPa; }
  // The machine's side of the job manager hand-off: virtual time jumps to each GPU event and the device
  // makes it visible, until nothing is pending (or a job waits on an MMU fault).
  void run_jobs() {
    for (int i = 0; i < 1000000; i++) {
      uint64_t t = gpu->next_event();
      if (t == UINT64_MAX) return;
      clock.advance_to(t);
      gpu->service(clock.ticks());
    }
    FAIL() << "GPU events never settle";
  }
  // Virtual time moves to `t` and the device makes visible what is due by then.
  void advance_to(uint64_t t) {
    clock.advance_to(t);
    gpu->service(clock.ticks());
  }
  // panfrost_job_hw_submit on `slot`, then the GPU runs until idle.
  void submit(unsigned slot, uint64_t jc, unsigned as = 0, uint32_t extra_config = 0) {
    queue(slot, jc, as, extra_config);
    run_jobs();
  }
  // panfrost_job_hw_submit on `slot` alone.
  void queue(unsigned slot, uint64_t jc, unsigned as = 0, uint32_t extra_config = 0) {
    ASSERT_EQ(rd(reg::js(slot, reg::JS_COMMAND_NEXT)), 0u);
    wr(reg::js(slot, reg::JS_HEAD_NEXT_LO), static_cast<uint32_t>(jc));
    wr(reg::js(slot, reg::JS_HEAD_NEXT_HI), static_cast<uint32_t>(jc >> 32));
    wr(reg::js(slot, reg::JS_AFFINITY_NEXT_LO), rd(reg::SHADER_PRESENT_LO));
    wr(reg::js(slot, reg::JS_AFFINITY_NEXT_HI), rd(reg::SHADER_PRESENT_HI));
    wr(reg::js(slot, reg::JS_CONFIG_NEXT),
       as | kThreadPri8 | kStartFlushCleanInv | kEndFlushCleanInv | kFlushReduction | extra_config);
    wr(reg::js(slot, reg::JS_FLUSH_ID_NEXT), rd(reg::LATEST_FLUSH));
    wr(reg::js(slot, reg::JS_COMMAND_NEXT), JS_CMD_START);
  }
  void unmask_all() {
    wr(reg::JOB_INT_MASK, ~0u);
    wr(reg::MMU_INT_MASK, ~0u);
    wr(reg::GPU_INT_MASK, GPU_IRQ_ALL);
  }
};

} // namespace gputest
