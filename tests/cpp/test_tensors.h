// This file has the small tensor builders the C++ tests share.
#pragma once

#include <algorithm>
#include <vector>

#include "core/allocator.h"
#include "core/device.h"
#include "runtime/tensor_handle.h"

namespace ember {

// A ready float32 vector on the CPU.
inline RefPtr<TensorHandle> Vector(std::vector<float> values) {
  RefPtr<Buffer> b = Buffer::Allocate(HostAllocator(), values.size() * sizeof(float));
  std::copy(values.begin(), values.end(), static_cast<float*>(b->data()));
  return TensorHandle::CreateReady(
      Tensor(DType::kFloat32, Shape({static_cast<int64_t>(values.size())}), std::move(b)),
      DeviceManager::Global().cpu());
}

}  // namespace ember
