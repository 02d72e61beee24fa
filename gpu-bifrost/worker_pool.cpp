#include "gpu-bifrost/worker_pool.h"

namespace vplat::gpu::bifrost {

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) threads_.emplace_back([this, i] { loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(m_);
    quit_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::loop(unsigned index) {
  uint64_t seen = 0;
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return quit_ || generation_ != seen; });
    if (quit_) return;
    seen = generation_;
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(index);
    lock.lock();
    if (--running_ == 0) cv_.notify_all();
  }
}

unsigned WorkerPool::run(const std::function<void(unsigned)>& fn) {
  std::unique_lock busy(busy_, std::try_to_lock);
  if (!busy.owns_lock() || threads_.empty()) {
    fn(0);
    return 1;
  }
  {
    std::lock_guard lock(m_);
    fn_ = &fn;
    running_ = static_cast<unsigned>(threads_.size());
    ++generation_;
  }
  cv_.notify_all();
  fn(0);
  std::unique_lock lock(m_);
  cv_.wait(lock, [&] { return running_ == 0; });
  fn_ = nullptr;
  return size();
}

} // namespace vplat::gpu::bifrost
