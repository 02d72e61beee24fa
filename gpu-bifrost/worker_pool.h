// A fixed set of host threads that run one function together: the "virtual cores" compute workgroups run on
// (compute_cores.h). The thread that calls run() is one of them, so a pool of one starts no thread at all.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vplat::gpu::bifrost {

class WorkerPool {
public:
  // threads >= 1 (0 is taken as 1): the caller of run() plus threads - 1 of the pool's own.
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
  // Runs fn(i) for every i in [0, size()) at once, fn(0) on the calling thread, and returns when all have
  // returned; the result is how many ran. When another run() is in progress (two job slots with compute work)
  // fn(0) runs alone on the calling thread instead, and the result is 1: a caller whose result must not depend
  // on the thread count gets the same answer either way, and a job never waits for another slot's job (which
  // may be stalled on an MMU fault for as long as the guest likes).
  unsigned run(const std::function<void(unsigned)>& fn);

private:
  std::mutex busy_; // held for the duration of a run()
  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void(unsigned)>* fn_ = nullptr;
  uint64_t generation_ = 0;
  unsigned running_ = 0;
  bool quit_ = false;
  std::vector<std::thread> threads_;
  void loop(unsigned index);
};

} // namespace vplat::gpu::bifrost
