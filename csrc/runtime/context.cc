// This file implements Context and the thread-local device scope.
#include "runtime/context.h"

#include <algorithm>
#include <thread>

#include <cstdlib>
#include <cstring>

namespace ember {
namespace {

bool EnvFlag(const char* name, bool default_value) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return default_value;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 || std::strcmp(v, "False") == 0);
}

constexpr size_t kDefaultKernelCacheCapacity = 4096;

thread_local std::vector<Device*> device_scope;

}  // namespace

Context::Context()
    : async_(EnvFlag("EMBER_ASYNC", true)),
      log_placement_(EnvFlag("EMBER_LOG_PLACEMENT", false)),
      kernel_cache_(kDefaultKernelCacheCapacity) {}

Context& Context::Global() {
  static Context* context = new Context();
  return *context;
}

const std::shared_ptr<ErrorSink>& ErrorSink::ForCurrentThread() {
  thread_local std::shared_ptr<ErrorSink> sink = std::make_shared<ErrorSink>();
  return sink;
}

void ErrorSink::Record(const Status& error, uint64_t sequence) {
  std::lock_guard<std::mutex> lock(mu_);
  errors_.emplace_back(error, sequence);
}

// Verdicts already known good are dropped as more come, so a long run of
// launches that never fail keeps a bounded list.
void ErrorSink::RecordDeferred(RefPtr<DeferredError> verdict, uint64_t sequence) {
  std::lock_guard<std::mutex> lock(mu_);
  if (deferred_.size() >= 64) {
    std::erase_if(deferred_, [](const auto& entry) { return entry.first->KnownOk(); });
  }
  deferred_.emplace_back(std::move(verdict), sequence);
}

void ErrorSink::AbandonSince(uint64_t sequence) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sequence >= next_sequence_) return;
  abandoned_.emplace_back(sequence, next_sequence_);
}

std::vector<Status> ErrorSink::TakeUnreported() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Status> out;
  for (const auto& [verdict, sequence] : deferred_) errors_.emplace_back(verdict->Resolve(), sequence);
  deferred_.clear();
  for (const auto& [error, sequence] : errors_) {
    if (error.ok()) continue;
    if (error.reported()) continue;
    bool abandoned = false;
    for (const auto& [begin, end] : abandoned_) abandoned |= sequence >= begin && sequence < end;
    if (!abandoned) out.push_back(error);
  }
  errors_.clear();
  // Ranges only matter for launches still in flight; once the executors
  // are idle (Sync waited for them) none is.
  abandoned_.clear();
  return out;
}

Status Context::Sync() {
  for (Device* device : DeviceManager::Global().devices()) device->executor()->WaitIdle();
  while (!WaitIdleFor(std::chrono::hours(1))) {
  }
  return TakeThreadErrors();
}

bool Context::WaitIdleFor(std::chrono::milliseconds timeout) {
  for (Device* device : DeviceManager::Global().devices()) {
    if (!device->executor()->WaitIdleFor(timeout)) return false;
  }
  // Work the executors handed to device streams must have finished too.
  // Executors go idle only after posting, so synchronizing on streams
  // second covers everything posted before the call.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (Device* device : DeviceManager::Global().devices()) {
    for (Stream* stream : device->streams()) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
      if (!stream->HostWaitFor(stream->LastPosted(), std::max(left, std::chrono::microseconds(0)))) return false;
    }
  }
  return true;
}

Status Context::TakeThreadErrors() {
  std::vector<Status> errors = ErrorSink::ForCurrentThread()->TakeUnreported();
  if (errors.empty()) return Status::OK();
  if (errors.size() == 1) return errors[0];
  return Status(errors[0].code(), errors[0].message() + " (and " + std::to_string(errors.size() - 1) +
                                      " more asynchronous error(s))");
}

namespace {
thread_local const ErrorSink* cancellation_sink = nullptr;
thread_local uint64_t cancellation_epoch = 0;
}  // namespace

CancellationScope::CancellationScope(const ErrorSink* sink, uint64_t epoch)
    : previous_sink_(cancellation_sink), previous_epoch_(cancellation_epoch) {
  cancellation_sink = sink;
  cancellation_epoch = epoch;
}

CancellationScope::~CancellationScope() {
  cancellation_sink = previous_sink_;
  cancellation_epoch = previous_epoch_;
}

bool CancellationRequested() {
  return cancellation_sink != nullptr && cancellation_sink->cancellation_epoch() != cancellation_epoch;
}

Device* CurrentScopeDevice() { return device_scope.empty() ? nullptr : device_scope.back(); }
void PushDeviceScope(Device* device) { device_scope.push_back(device); }
void PopDeviceScope() {
  if (!device_scope.empty()) device_scope.pop_back();
}

}  // namespace ember
