// This file implements Context and the thread-local device scope.
#include "runtime/context.h"

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

void Context::RecordAsyncError(const Status& error) {
  std::lock_guard<std::mutex> lock(errors_mu_);
  async_errors_.push_back(error);
}

Status Context::Sync() {
  for (Device* device : DeviceManager::Global().devices()) device->executor()->WaitIdle();
  std::vector<Status> errors;
  {
    std::lock_guard<std::mutex> lock(errors_mu_);
    errors.swap(async_errors_);
  }
  if (errors.empty()) return Status::OK();
  if (errors.size() == 1) return errors[0];
  return Status(errors[0].code(), errors[0].message() + " (and " + std::to_string(errors.size() - 1) +
                                      " more asynchronous error(s))");
}

Device* CurrentScopeDevice() { return device_scope.empty() ? nullptr : device_scope.back(); }
void PushDeviceScope(Device* device) { device_scope.push_back(device); }
void PopDeviceScope() {
  if (!device_scope.empty()) device_scope.pop_back();
}

}  // namespace ember
