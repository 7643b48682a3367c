// This file implements ThreadExecutor.
#include "runtime/thread_executor.h"

#include "runtime/spin.h"

namespace ember {

ThreadExecutor::ThreadExecutor(std::string name) : name_(std::move(name)) {
  worker_ = std::thread([this] { WorkerLoop(); });
}

ThreadExecutor::~ThreadExecutor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  worker_.join();
}

void ThreadExecutor::Enqueue(std::unique_ptr<Task> task) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    queued_.fetch_add(1, std::memory_order_release);
    wake = sleeping_;
  }
  // A spinning or busy worker sees the task without a futex wake-up.
  if (wake) work_cv_.notify_one();
}

void ThreadExecutor::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !running_task_; });
}

bool ThreadExecutor::WaitIdleFor(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_for(lock, timeout, [this] { return queue_.empty() && !running_task_; });
}

namespace {

// Note [Executor spinning]: after draining its queue the worker polls for
// a few tens of microseconds before sleeping. Eager programs issue ops in
// bursts; during a burst the producer then never pays for waking the
// worker (a futex call and a context switch, several microseconds).
constexpr int kSpinIterations = 2000;

}  // namespace

// Note [Event-driven waits]: the queue stays parked on the task's event;
// the thread sleeps on its own condition variable until the event's
// callback wakes it, and never waits inside a value's Await.
void ThreadExecutor::WaitForEvents(Task& task) {
  const std::function<void()> wake = [this] {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
    work_cv_.notify_one();
  };
  while (task.WaitBeforeRun(wake)) {
    std::unique_lock<std::mutex> lock(mu_);
    work_cv_.wait(lock, [this] { return woken_; });
    woken_ = false;
  }
}

void ThreadExecutor::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (queue_.empty()) {
      running_task_ = false;
      idle_cv_.notify_all();
      lock.unlock();
      SpinUntil([this] { return queued_.load(std::memory_order_acquire) != 0; }, kSpinIterations);
      lock.lock();
      if (queue_.empty()) {
        if (stopping_) return;
        sleeping_ = true;
        work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        sleeping_ = false;
        if (queue_.empty()) return;  // stopping and drained
      }
    }
    std::unique_ptr<Task> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_relaxed);
    running_task_ = true;
    lock.unlock();
    WaitForEvents(*task);
    task->Run();
    task.reset();  // release buffers before reporting idle
    lock.lock();
  }
}

}  // namespace ember
