// This file declares ThreadExecutor: one worker thread draining a FIFO queue.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/device.h"

namespace ember {

// The async executor of a device: one thread running each task's host part
// in FIFO order. FIFO order means an op's inputs produced on the same
// device are ready (or defined, Note [Defined handles]) when it runs, with
// no per-op dependency tracking; inputs from other devices are waited for
// as events (Note [Event-driven waits]).
//
// With `readers_may_run`, a thread waiting for a value may run queued tasks
// itself (TryRunOne, Note [Readers run queued work]), and the thread
// issuing a cheap task to an idle executor runs it at once (TryRunAtIssue,
// Note [Running at issue]); one task runs at a time either way, so FIFO
// order holds.
class ThreadExecutor final : public Executor {
 public:
  explicit ThreadExecutor(std::string name, bool readers_may_run = false);
  ~ThreadExecutor() override;

  void Enqueue(std::unique_ptr<Task> task) override;
  void WaitIdle() override;
  bool WaitIdleFor(std::chrono::milliseconds timeout) override;
  size_t QueueLength() const override { return queued_.load(std::memory_order_relaxed); }
  bool TryRunOne() override;
  bool TryRunAtIssue(Task& task) override;

 private:
  void WorkerLoop();
  void WaitForEvents(Task& task);
  // Runs a task taken from the queue (running_task_ set), after waiting for
  // its events unless `inputs_ready`, then clears running_task_ and wakes
  // whoever waits for it.
  void RunTask(std::unique_ptr<Task> task, bool inputs_ready = false);
  // Takes the token to run a task; false if another thread holds it.
  bool Claim();
  // Gives the token back and wakes whoever waits for the executor.
  void FinishRunning();

  std::string name_;
  std::mutex mu_;
  std::condition_variable work_cv_;  // worker waits for tasks
  std::condition_variable idle_cv_;  // WaitIdle waits for an empty queue
  std::deque<std::unique_ptr<Task>> queue_;
  // A thread (the worker, a reader or an issuer) is running a task: the
  // token of Note [Claiming the executor].
  std::atomic<bool> running_task_{false};
  const bool readers_may_run_;
  bool stopping_ = false;
  // The worker waits on work_cv_; written under mu_, read without it by
  // FinishRunning.
  std::atomic<bool> sleeping_{false};
  bool woken_ = false;  // a parked task's event happened (guarded by mu_)
  // Threads in WaitIdle/WaitIdleFor; changed under mu_, read without it
  // by FinishRunning.
  std::atomic<int> idle_waiters_{0};
  std::atomic<size_t> queued_{0};  // queue_.size(), readable without mu_
  std::thread worker_;
};

}  // namespace ember
