// The Mali job manager: runs each job slot's chain on a host thread of its own while the CPUs run, and
// makes every result visible to the guest at a deterministic virtual time.
//
// Determinism. The machine runs its CPUs round-robin on one host thread with a virtual clock; the same
// inputs must give the same outputs however fast the host threads are. So a chain is cut into steps (one
// job each, see ChainRunner) and each step has a virtual timeline that depends only on virtual time:
//   - the step begins at a boundary B (the START, the previous step's end, or the stall's resolution);
//   - its outcome becomes visible at B + kStepTicks + (shader-core cycles converted to ticks), never before
//     B + kStepTicks;
//   - the host thread executes the step as soon as it is granted, concurrently with the CPUs.
// The machine asks next_event() for the earliest virtual time at which something may become visible (its
// idle skip jumps no further) and calls poll(now) after advancing the clock. When a step's earliest
// visibility time has come and its host thread has not finished, poll() waits for it: virtual time does not
// advance meanwhile. The one exception is a step stalled on an MMU fault: it can only continue after the
// guest's driver has handled the fault, so poll() reports the stall (the device raises the MMU interrupt)
// and never waits for a stalled step. The driver's fix is seen at the virtual time of its register write,
// which becomes the step's new boundary. (The machine polls after each round of CPU quanta, so the guest
// sees an event at the end of the first round that reaches its time: later, but just as deterministic.)
// What stays outside this guarantee: a step reads guest memory while the CPUs run, so a guest that writes
// a job's memory while the job runs (no driver does) can see either value, as with any DMA.
// Stops act between jobs (at the next boundary) or at once on a stalled step; a job already running on a
// shader core is not preempted by a soft stop (a hard stop raises the abort flag the shader core polls).
// A soft-stopped chain reports STOPPED with JS_HEAD = JS_TAIL = the first job not done; the slot keeps the
// chain's scoreboard and the jobs it executed (also across a GPU reset: panfrost stops, resets, then
// resubmits from JS_TAIL), and a chain started on the slot at that address continues with them, so jobs
// that depend on work done before the stop still run and finished jobs are not run twice. (Where real
// hardware keeps that progress is not documented publicly; this is the model's choice.)
// After a failed or stopped chain the slot holds its _NEXT job until the driver clears the error bit
// (panfrost cancels it with COMMAND_NEXT = NOP first); after a chain that is done it starts it at once.
//
// Threading. All calls are from the machine thread (the device holds its lock); the slot threads only run
// ChainRunner steps and wait for grants. The GPU MMU is shared and guarded by the device's MMU mutex.
//
// MMU faults (panfrost_mmu.c, 6.1 and 6.12). A translation/permission/walk fault on a job's access stalls
// the step. The access is retried once the driver has both cleared the AS's MMU interrupt and issued an AS
// command that changes translation (UPDATE, FLUSH_PT, FLUSH_MEM, UNLOCK), in either order (kbase: a flush
// restarts stalled transactions): the growable-heap path maps pages then FLUSH_PTs. For unhandled faults
// panfrost (since "Disable the AS on unhandled page faults", 2021: both guest kernels) clears the interrupt
// and disables the AS (LOCK + FLUSH_MEM, TRANSTAB/MEMATTR zeroed, UPDATE): any retry, and any stall on a
// disabled AS, ends the job with the status of the fault that first stalled it, without a further MMU
// interrupt. A driver that only clears the interrupt leaves the job stalled until its timeout stops it. A
// fault on an AS that is already unmapped ends the job at once (and is reported on the MMU interrupt).
// AS commands wait for the steps in flight on their AS (quiesce), so a retry and the driver's next table
// change never race.
#pragma once
#include "gpu-bifrost/gpu_mmu.h"
#include "gpu-bifrost/job_chain.h"
#include "gpu-bifrost/shader_core_iface.h"
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace vplat::gpu {

class JobManager {
public:
  static constexpr unsigned kSlots = 3;
  // Virtual time of one step (one job, or the end of a chain) without shader work: 1 us at 50 MHz.
  static constexpr uint64_t kStepTicks = 50;
  // GPU cycles per virtual-clock tick (800 MHz GPU clock / 50 MHz counter).
  static constexpr uint64_t kCyclesPerTick = 16;

  struct Event {
    enum class Kind { Progress, Stall, End } kind;
    unsigned slot = 0;
    uint64_t time = 0;            // the virtual time it becomes visible
    uint64_t start = 0;           // Progress / End: the virtual time the step began
    uint32_t job_type = 0;        // Progress / End: the job the step executed (0: none)
    uint64_t job_at = 0;
    uint64_t job_va = 0;          // Progress: the job completed
    unsigned as = 0;              // Stall / End: the slot's address space
    MmuFault fault;               // Stall: what to report in the AS registers
    StepOutcome end;              // End: the chain's result
    std::string trace;
  };

  // cycle_at(ticks): the GPU cycle counter at a virtual time (what a Write-value job writes).
  JobManager(GpuMmu& mmu, std::mutex& mmu_mutex, std::function<uint64_t(uint64_t)> cycle_at);
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  void set_shader_core(ShaderCore* core) { shader_core_ = core; }
  void set_trace(bool on) { trace_ = on; }

  // Starts a chain on an idle slot at virtual time `now`.
  void start(unsigned slot, uint64_t head, unsigned as, bool writeback, uint64_t now);
  // SOFT_STOP (code STOPPED) or HARD_STOP (TERMINATED) of the slot's running chain.
  void stop(unsigned slot, uint32_t code, uint64_t now);
  bool active(unsigned slot) const;
  // The driver cleared AS `as`'s MMU interrupt / issued a translation-changing AS command.
  void mmu_irq_cleared(unsigned as, uint64_t now);
  void as_command(unsigned as, uint64_t now);
  // Before an AS command takes effect: waits until every step in flight on `as` has settled, so a step
  // sees the translation of its grant time and never one that a concurrent driver write changes under it.
  void quiesce(unsigned as);
  // GPU reset: every chain ends now, without a result (the slots' threads are quiesced).
  void reset();

  uint64_t next_event();
  // The earliest event visible at `now`, waiting for slot threads as described above; nothing when none.
  std::optional<Event> poll(uint64_t now);

private:
  enum class Phase { Idle, Step, Stalled };
  enum class Resolve { None, Retry, Abort };
  struct Slot;
  class Memory;

  GpuMmu& mmu_;
  std::mutex& mmu_mutex_;
  std::function<uint64_t(uint64_t)> cycle_at_;
  ShaderCore* shader_core_ = nullptr;
  bool trace_ = false;
  std::array<std::unique_ptr<Slot>, kSlots> slots_;

  void grant(Slot& s, uint64_t boundary, uint32_t stop_code);
  bool as_disabled(unsigned as);
  void resolve(Slot& s, Resolve how, uint32_t code, uint64_t now);
  void worker(Slot& s);
  // Under s.m: the step's outcome or stall is known.
  static bool settled(const Slot& s);
  uint64_t visible_at(const Slot& s) const; // under s.m, settled
};

} // namespace vplat::gpu
