// This file declares Context: process-wide runtime settings and state
// (execution mode, placement logging, the kernel cache, async errors) and
// the thread-local device scope.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "core/device.h"
#include "core/status.h"
#include "runtime/kernel_cache.h"

namespace ember {

class Context {
 public:
  // Created on first use; reads EMBER_ASYNC and EMBER_LOG_PLACEMENT.
  static Context& Global();

  bool async() const { return async_.load(std::memory_order_relaxed); }
  void set_async(bool on) { async_.store(on, std::memory_order_relaxed); }
  bool log_placement() const { return log_placement_.load(std::memory_order_relaxed); }
  void set_log_placement(bool on) { log_placement_.store(on, std::memory_order_relaxed); }

  KernelCache& kernel_cache() { return kernel_cache_; }

  // A kernel that failed on an executor records its error here, so that
  // Sync() can raise it even if nobody reads the poisoned outputs.
  void RecordAsyncError(const Status& error);
  // Waits until every device's executor is idle, then returns (and forgets)
  // the first recorded async error; a note counts any others.
  Status Sync();

 private:
  Context();

  std::atomic<bool> async_;
  std::atomic<bool> log_placement_;
  KernelCache kernel_cache_;
  std::mutex errors_mu_;
  std::vector<Status> async_errors_;
};

// The innermost `with ember.device(...)` of the calling thread, or null.
Device* CurrentScopeDevice();
void PushDeviceScope(Device* device);
void PopDeviceScope();

}  // namespace ember
