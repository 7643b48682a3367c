// This file declares CopyToDevice: the asynchronous copy of a value to
// another device, and the device copy policy.
#pragma once

#include "core/device.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Device copies]
// A copy is queued on the executor of the device that performs it: the
// device without host memory (host -> device copies run on the
// destination, device -> host and device -> device copies on the source,
// as cudaMemcpyAsync would on the source's stream). The result is a
// pending handle on `dst` whose producer is that device, so later work on
// the performing queue may use it once defined, and everyone else once
// ready. The source stays referenced until the copy finished. Between two
// devices with host memory there is nothing to copy: the handle is
// returned as is (Note [Host-memory devices]).
RefPtr<TensorHandle> CopyToDevice(const RefPtr<TensorHandle>& src, Device* dst);

// Copies ready `src` on `from` into `dst` (allocated on `to`) on the
// performing device, calling `done` when finished. For graph executors,
// whose values are ready tensors.
void CopyTensor(Device* from, Device* to, const Tensor& src, Tensor dst, DoneCallback done);

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
