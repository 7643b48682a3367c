// This file implements ThreadExecutor.
#include "runtime/thread_executor.h"

#include "runtime/profiler.h"
#include "runtime/spin.h"

namespace ember {

ThreadExecutor::ThreadExecutor(std::string name, bool readers_may_run)
    : name_(std::move(name)), readers_may_run_(readers_may_run) {
  worker_ = std::thread([this] { WorkerLoop(); });
}

ThreadExecutor::~ThreadExecutor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
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
  if (wake) work_cv_.notify_all();  // a reader may wait on work_cv_ for an event too
}

void ThreadExecutor::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_waiters_.fetch_add(1, std::memory_order_seq_cst);  // Note [Claiming the executor]
  idle_cv_.wait(lock, [this] { return queue_.empty() && !running_task_.load(); });
  idle_waiters_.fetch_sub(1, std::memory_order_relaxed);
}

bool ThreadExecutor::WaitIdleFor(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  idle_waiters_.fetch_add(1, std::memory_order_seq_cst);
  const bool idle = idle_cv_.wait_for(lock, timeout, [this] { return queue_.empty() && !running_task_.load(); });
  idle_waiters_.fetch_sub(1, std::memory_order_relaxed);
  return idle;
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
    work_cv_.notify_all();  // the worker may sleep on work_cv_ too
  };
  while (task.WaitBeforeRun(wake)) {
    std::unique_lock<std::mutex> lock(mu_);
    work_cv_.wait(lock, [this] { return woken_; });
    woken_ = false;
  }
}

void ThreadExecutor::RunTask(std::unique_ptr<Task> task, bool inputs_ready) {
  if (!inputs_ready) WaitForEvents(*task);
  task->Run();
  task.reset();  // release buffers before reporting idle
  FinishRunning();
}

// Note [Claiming the executor]: running_task_ is the one token a thread
// must hold to run a task, taken by compare-and-swap (the worker and
// readers under mu_, an issuer without it) and given back here. Threads
// that sleep until it is free (the worker, WaitIdle) first announce
// themselves in sleeping_ or idle_waiters_ and then read running_task_;
// this store and the loads after it are sequentially consistent, so either
// the sleeper sees the token free or this thread sees the sleeper and
// takes the lock to wake it. With no one asleep, giving the token back
// takes no lock: a tiny op run at issue costs no mutex at all.
void ThreadExecutor::FinishRunning() {
  running_task_.store(false, std::memory_order_seq_cst);
  if (idle_waiters_.load(std::memory_order_seq_cst) == 0 && !sleeping_.load(std::memory_order_seq_cst)) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_waiters_.load(std::memory_order_relaxed) > 0 && queue_.empty()) idle_cv_.notify_all();
  // A reader ran this one: the sleeping worker takes the next (or stops).
  if (sleeping_.load(std::memory_order_relaxed) && (!queue_.empty() || stopping_)) work_cv_.notify_all();
}

bool ThreadExecutor::Claim() {
  bool free = false;
  return running_task_.compare_exchange_strong(free, true, std::memory_order_seq_cst);
}

// Note [Readers run queued work]: a Python thread reading a value that is
// still queued would otherwise sleep until the worker thread wakes, runs
// the queue up to that value and wakes it back: two thread switches, and
// on a machine whose cores are all busy the reader may even hold the core
// the worker needs. Instead the reader runs queued tasks itself, front
// first, while the worker is not running one; the worker skips its turn
// meanwhile. Only tasks that say they are cheap (small, bounded kernels:
// Task::CheapToRunInline) run on a reader, because a reader running a task
// cannot check for KeyboardInterrupt until it returns; a larger task at the
// front makes the reader wait as before. Only the CPU's executor allows
// it: its tasks are plain host work that may run on any thread.
bool ThreadExecutor::TryRunOne() {
  if (!readers_may_run_ || queued_.load(std::memory_order_acquire) == 0 ||
      running_task_.load(std::memory_order_relaxed)) {
    return false;
  }
  std::unique_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (running_task_.load(std::memory_order_relaxed) || queue_.empty()) return false;
    if (!queue_.front()->CheapToRunInline(Task::InlineRunner::kReader)) return false;
    if (!Claim()) return false;  // before queued_ drops: Note [Claiming the executor]
    task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_seq_cst);
  }
  RunTask(std::move(task), /*inputs_ready=*/true);  // a cheap task waits for nothing
  return true;
}

// Note [Running at issue]: in async mode, a tiny op issued while its
// device's executor has nothing queued or running gains nothing from the
// queue: handing it over costs a launch record's trip through a locked
// queue, and reading its value soon after costs a wait for the worker, both
// more than the kernel itself. The issuing thread runs it at once instead,
// as a reader would. It is still an async launch: its errors surface when
// the value is read, like those of a queued launch. Only tasks far smaller
// than a reader's limit qualify (a few microseconds of work), so that a
// long run of medium-sized ops still overlaps the Python thread's dispatch
// with the worker's kernels.
bool ThreadExecutor::TryRunAtIssue(Task& task) {
  if (!readers_may_run_ || queued_.load(std::memory_order_acquire) != 0 ||
      running_task_.load(std::memory_order_relaxed) || !task.CheapToRunInline(Task::InlineRunner::kIssuer)) {
    return false;
  }
  // FIFO order: the token first, then nothing queued. A runner that takes
  // a task claims the token before queued_ drops, so an empty count seen
  // while holding the token means no task of this thread is queued or
  // running (Note [Claiming the executor]).
  if (!Claim()) return false;
  if (queued_.load(std::memory_order_seq_cst) != 0) {
    FinishRunning();
    return false;
  }
  task.Run();  // a cheap task waits for nothing
  FinishRunning();
  return true;
}

void ThreadExecutor::WorkerLoop() {
  profiler::NameThisThread(name_ + " executor");
  const auto has_work = [this] { return !queue_.empty() && !running_task_.load(std::memory_order_seq_cst); };
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (!has_work()) {
      lock.unlock();
      SpinUntil(
          [this] {
            return queued_.load(std::memory_order_acquire) != 0 && !running_task_.load(std::memory_order_relaxed);
          },
          kSpinIterations);
      lock.lock();
      if (!has_work()) {
        const auto drained = [this] { return stopping_ && queue_.empty() && !running_task_.load(); };
        if (drained()) return;
        sleeping_.store(true, std::memory_order_seq_cst);
        work_cv_.wait(lock, [&] { return drained() || has_work(); });
        sleeping_.store(false, std::memory_order_relaxed);
        if (!has_work()) return;  // stopping and drained
      }
    }
    if (!Claim()) continue;  // an issuer took the token meanwhile: wait for it
    std::unique_ptr<Task> task = std::move(queue_.front());
    queue_.pop_front();
    queued_.fetch_sub(1, std::memory_order_seq_cst);
    lock.unlock();
    RunTask(std::move(task));
    lock.lock();
  }
}

}  // namespace ember
