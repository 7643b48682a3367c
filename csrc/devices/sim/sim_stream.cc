// This file implements SimStream (Note [Simulated timing]).
#include "devices/sim/sim_stream.h"

#include <chrono>

#include "core/device_access.h"

namespace ember {

SimStream::SimStream(std::string name, int64_t latency_us, int64_t launch_us, const void* access_domain)
    : name_(std::move(name)), latency_us_(latency_us), launch_us_(launch_us), access_domain_(access_domain) {
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

uint64_t SimStream::Push(Item item) {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(item));
    // Under the lock, so tickets follow queue order.
    ticket = posted_.fetch_add(1, std::memory_order_acq_rel) + 1;
  }
  work_cv_.notify_one();
  return ticket;
}

bool SimStream::CapturingHere() const {
  return capturing_thread_.load(std::memory_order_acquire) == std::this_thread::get_id();
}

Status SimStream::Capture(const std::function<Status()>& issue, Recording* recording) {
  std::thread::id none;
  if (!capturing_thread_.compare_exchange_strong(none, std::this_thread::get_id())) {
    return FailedPrecondition(name_ + " is capturing already");
  }
  recording_ = recording;
  Status s = issue();
  recording_ = nullptr;
  capturing_thread_.store(std::thread::id(), std::memory_order_release);
  return s;
}

uint64_t SimStream::PostReplay(std::shared_ptr<const Recording> recording, std::function<void()> before,
                               std::function<void()> after) {
  return Post([recording = std::move(recording), before = std::move(before), after = std::move(after)] {
    before();
    for (const std::function<void()>& work : *recording) work();
    after();
  });
}

uint64_t SimStream::DoPost(std::function<void()> work, WorkKind kind) {
  if (CapturingHere()) {  // Note [Simulated graphs]
    recording_->push_back(std::move(work));
    return LastPosted();
  }
  if (kind != WorkKind::kMarker) Spin(launch_us_);
  Item item;
  item.work = std::move(work);
  item.kind = kind;
  return Push(std::move(item));
}

void SimStream::DoWait(const Event& event) {
  if (CapturingHere()) {  // Note [Simulated graphs]: a host wait
    event.stream->BlockUntil(event.ticket, std::chrono::hours(24 * 365));
    return;
  }
  Item item;
  item.wait = event;
  Push(std::move(item));
}

void SimStream::DoOnCompleted(uint64_t ticket, std::function<void()> callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!Passed(ticket)) {
      callbacks_.emplace_back(ticket, std::move(callback));
      return;
    }
  }
  callback();  // it finished while we took the lock
}

void SimStream::Drain() {
  BlockUntil(LastPosted(), std::chrono::hours(24 * 365));
}

bool SimStream::BlockUntil(uint64_t ticket, std::chrono::microseconds timeout) {
  if (Passed(ticket)) return true;
  std::unique_lock<std::mutex> lock(mu_);
  return drained_cv_.wait_for(lock, timeout, [&] { return Passed(ticket); });
}

// Sleeps for long delays; spins (yielding) for short ones, which a sleep
// would round up to the scheduler's tick.
void SimStream::Spin(int64_t us) {
  if (us <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  if (us >= 200) {
    std::this_thread::sleep_until(until);
    return;
  }
  while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
}

void SimStream::Loop() {
  DeviceAccessScope access(access_domain_);  // Note [Strict device memory]
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    Item item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (item.work) {
      const auto start = std::chrono::steady_clock::now();
      if (item.kind != WorkKind::kMarker) Spin(latency_us_);
      item.work();
      item.work = nullptr;  // drop what the work held before counting it complete
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      mutable_counters().busy_ns.fetch_add(static_cast<uint64_t>(ns.count()), std::memory_order_relaxed);
    } else {
      item.wait.stream->BlockUntil(item.wait.ticket, std::chrono::hours(24 * 365));
    }
    std::vector<std::function<void()>> due;
    lock.lock();
    const uint64_t done = completed_.fetch_add(1, std::memory_order_acq_rel) + 1;
    for (size_t i = 0; i < callbacks_.size();) {
      if (callbacks_[i].first <= done) {
        due.push_back(std::move(callbacks_[i].second));
        callbacks_[i] = std::move(callbacks_.back());
        callbacks_.pop_back();
      } else {
        ++i;
      }
    }
    drained_cv_.notify_all();
    if (!due.empty()) {
      lock.unlock();
      for (auto& callback : due) callback();
      lock.lock();
    }
  }
}

}  // namespace ember
