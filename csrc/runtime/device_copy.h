// This file declares CopyToDevice: the asynchronous copy of a value to
// another device, and the device copy policy.
#pragma once

#include "core/device.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Device copies]
// A copy is issued from the executor of the device that performs it: the
// device without host memory (host -> device copies run on the
// destination's host-to-device stream, device -> host and device ->
// device copies on the source's device-to-host stream, as cudaMemcpyAsync
// would). Once the source is defined, the copy is enqueued behind the
// source's event on the device (Note [Streams and events]) and the result
// is defined with the copy's own event: a kernel on any stream waits for
// it on the device, a host reader synchronizes on it, and nobody waits on
// the host just to start the copy. The result fails when the source does
// (TensorHandle::SetErrorSource). Between two devices with host memory
// there is nothing to copy: the handle is returned as is (Note
// [Host-memory devices]).
RefPtr<TensorHandle> CopyToDevice(const RefPtr<TensorHandle>& src, Device* dst);

// Note [Device scalar cache]: drops the device copies of host scalars
// kept for `device` (ember.config.empty_cache).
void ClearDeviceScalarCache(Device* device);

// Enqueues the copy of `src` on `from` into `dst` (allocated on `to`) on
// the performing device, after `after`; `*done` marks its end. For graph
// executors, whose values are tensors with events.
Status CopyTensor(Device* from, Device* to, const Tensor& src, Tensor dst, const Event& after, Event* done);

// The buffer a copy from `from` into `to` writes: on `to`, or, for a copy
// into host memory, in the source device's pinned host memory while it
// has some (Note [Pinned staging]). Null when out of memory.
RefPtr<Buffer> AllocateCopyDestination(Device* from, Device* to, size_t bytes);

// True if a value on `from` must be copied to be used on `to`.
inline bool NeedsCopy(const Device* from, const Device* to) {
  return from != to && !(from->host_memory() && to->host_memory());
}

// What Execute does with an input that lives on another device than the
// op (ember.config.set_device_policy; TensorFlow's device policies).
enum class DevicePolicy {
  kSilent,    // copy it (shown in the placement log)
  kWarn,      // copy it and print a warning
  kExplicit,  // refuse: the caller must copy it
};

}  // namespace ember
