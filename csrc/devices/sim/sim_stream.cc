// This file implements SimStream.
#include "devices/sim/sim_stream.h"

#include <chrono>

namespace ember {

SimStream::SimStream(std::string name, int64_t latency_us) : name_(std::move(name)), latency_us_(latency_us) {
  thread_ = std::thread([this] { Loop(); });
}

SimStream::~SimStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
}

uint64_t SimStream::Post(std::function<void()> work) {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(work));
    // Under the lock, so tickets follow queue order.
    ticket = posted_.fetch_add(1, std::memory_order_acq_rel) + 1;
  }
  work_cv_.notify_one();
  return ticket;
}

void SimStream::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = LastPosted();
  drained_cv_.wait(lock, [&] { return LastCompleted() >= target; });
}

// Sleeps for long delays; spins (yielding) for short ones, which a sleep
// would round up to the scheduler's tick.
void SimStream::Delay() const {
  if (latency_us_ <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(latency_us_);
  if (latency_us_ >= 200) {
    std::this_thread::sleep_until(until);
    return;
  }
  while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

void SimStream::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Delay();
    work();
    work = nullptr;  // drop what the work held before counting it complete
    lock.lock();
    completed_.fetch_add(1, std::memory_order_acq_rel);
    drained_cv_.notify_all();
  }
}

}  // namespace ember
