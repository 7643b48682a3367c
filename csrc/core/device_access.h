// This file declares DeviceAccessScope and CheckDeviceAccess: who may touch
// memory a device keeps from the host (Note [Strict device memory]).
#pragma once

#include <stdexcept>

#include "core/allocator.h"

namespace ember {

// Note [Strict device memory]
// A GPU's memory cannot be read by host code: a kernel's host-side
// prologue that peeks at an input, a graph executor that reads a value it
// did not copy, or numpy() without a copy would crash there, or force a
// synchronization per op. A device whose allocator has an access domain
// (the simulated accelerator's) makes the same mistakes fail here:
// Tensor::raw_data() on such a buffer throws DeviceMemoryAccessError
// unless the calling thread runs work for that domain, i.e. work posted to
// one of the device's streams (SimStream sets the scope) and the
// intra-op threads it fans out to (ParallelFor carries the scope over).
// Kernel guards turn the exception into an error naming the op, so a test
// that does it fails loudly instead of passing by luck.
class DeviceMemoryAccessError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// While alive, the calling thread may touch memory of `domain` (null:
// host memory only). Nests.
class DeviceAccessScope {
 public:
  explicit DeviceAccessScope(const void* domain);
  ~DeviceAccessScope();
  DeviceAccessScope(const DeviceAccessScope&) = delete;
  DeviceAccessScope& operator=(const DeviceAccessScope&) = delete;
  // The calling thread's domain now (to carry it to helper threads).
  static const void* Current();

 private:
  const void* previous_;
};

// Throws DeviceMemoryAccessError unless the calling thread may touch
// `buffer` (its domain is the thread's current one).
void CheckDeviceAccess(const Buffer& buffer);

}  // namespace ember
