// This file declares Context: process-wide runtime settings and state
// (execution mode, placement logging, the kernel cache, async errors) and
// the thread-local device scope.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/device.h"
#include "core/status.h"
#include "runtime/device_copy.h"
#include "runtime/kernel_cache.h"

namespace ember {

// Note [Async error routing]
// A kernel that fails asynchronously records its error in the ErrorSink of
// the Python thread that issued the op, so ember.sync() in that thread, and
// only there, raises it. Errors already raised by reading a value are
// skipped (Note [Reported errors]), as are errors of ops issued inside a
// Python composite that itself raised (AbandonSince): the composite's
// exception already told the caller the call failed. Each launch carries a
// per-thread sequence number for that.
class ErrorSink {
 public:
  // The calling thread's sink, created on first use; shared with the
  // launches it issues, so it outlives the thread if need be.
  static const std::shared_ptr<ErrorSink>& ForCurrentThread();

  // The sequence number of the next op this thread issues.
  uint64_t NextSequence() { return next_sequence_++; }
  uint64_t PeekSequence() const { return next_sequence_; }

  void Record(const Status& error, uint64_t sequence);
  // Note [Device error words]: a launch's verdict, known once it ran;
  // TakeUnreported resolves it (the caller waited for the streams first).
  void RecordDeferred(RefPtr<DeferredError> verdict, uint64_t sequence);
  // Errors of ops issued from `sequence` up to now are dropped.
  void AbandonSince(uint64_t sequence);
  // Removes and returns the recorded errors not yet reported or abandoned.
  std::vector<Status> TakeUnreported();

  // Note [Cancellation]: a KeyboardInterrupt while a Python thread waits
  // cancels the work that thread issued before it: each launch remembers
  // the epoch it was issued in, and one that starts after the epoch moved
  // fails with a Cancelled error instead of running. A kernel already
  // running checks CancellationRequested() where it loops (while_loop).
  void Cancel() { cancellation_epoch_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t cancellation_epoch() const { return cancellation_epoch_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> cancellation_epoch_{0};
  uint64_t next_sequence_ = 0;  // touched by the owning thread only
  std::mutex mu_;
  std::vector<std::pair<Status, uint64_t>> errors_;
  std::vector<std::pair<RefPtr<DeferredError>, uint64_t>> deferred_;
  std::vector<std::pair<uint64_t, uint64_t>> abandoned_;  // [begin, end) ranges
};

class Context {
 public:
  // Created on first use; reads EMBER_ASYNC and EMBER_LOG_PLACEMENT.
  static Context& Global();

  bool async() const { return async_.load(std::memory_order_relaxed); }
  void set_async(bool on) { async_.store(on, std::memory_order_relaxed); }
  bool log_placement() const { return log_placement_.load(std::memory_order_relaxed); }
  void set_log_placement(bool on) { log_placement_.store(on, std::memory_order_relaxed); }
  DevicePolicy device_policy() const { return device_policy_.load(std::memory_order_relaxed); }
  void set_device_policy(DevicePolicy policy) { device_policy_.store(policy, std::memory_order_relaxed); }

  KernelCache& kernel_cache() { return kernel_cache_; }

  // Waits until every device's executor is idle, then returns (and
  // forgets) the first unreported async error of the ops this thread
  // issued (Note [Async error routing]); a note counts any others.
  Status Sync();
  // Sync in two steps, so a Python caller can check for KeyboardInterrupt
  // between waits: true once every executor is idle...
  bool WaitIdleFor(std::chrono::milliseconds timeout);
  // ...then the first unreported error of this thread's ops (as Sync).
  Status TakeThreadErrors();

 private:
  Context();

  std::atomic<bool> async_;
  std::atomic<bool> log_placement_;
  std::atomic<DevicePolicy> device_policy_{DevicePolicy::kSilent};
  KernelCache kernel_cache_;
};

// Note [Cancellation]: while a launch runs its kernel, the thread knows
// which sink and epoch it belongs to; CancellationRequested() tells a
// long-running kernel to stop. False outside launches. Only the kernels
// of ops that run graphs (RunsOnHost: loops, function calls) or wait for
// peers (collectives) poll it, so only their launches set the scope
// (KernelLaunch::RunGuarded); a kernel of another op that polls must
// make its op one of those.
class CancellationScope {
 public:
  CancellationScope(const ErrorSink* sink, uint64_t epoch);
  ~CancellationScope();

 private:
  const ErrorSink* previous_sink_;
  uint64_t previous_epoch_;
};
bool CancellationRequested();

// The innermost `with ember.device(...)` of the calling thread, or null.
Device* CurrentScopeDevice();
void PushDeviceScope(Device* device);
void PopDeviceScope();

}  // namespace ember
