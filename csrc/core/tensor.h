// This file declares Tensor, a ready value: a buffer with dtype and shape.
#pragma once

#include "core/allocator.h"
#include "core/device_access.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace ember {

// A dense, row-major, contiguous tensor whose data is available. Kernels see
// only Tensors; the asynchronous wrapper is TensorHandle (runtime/).
class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape, RefPtr<Buffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t NumElements() const { return shape_.NumElements(); }
  size_t NumBytes() const { return static_cast<size_t>(NumElements()) * DTypeSize(dtype_); }
  const RefPtr<Buffer>& buffer() const { return buffer_; }

  // Note [Strict device memory]: memory the host may not touch is checked.
  void* raw_data() const {
    if (!buffer_) return nullptr;
    if (buffer_->access_domain() != nullptr) CheckDeviceAccess(*buffer_);
    return buffer_->data();
  }
  template <typename T>
  T* data() const { return static_cast<T*>(raw_data()); }

  // Note [Borrowed kernel inputs] (runtime/kernel_launch.cc): a copy of
  // `t` that shares its buffer without a reference of its own, and the
  // undoing of it. Valid only while something else keeps `t`'s buffer.
  static Tensor Borrow(const Tensor& t) {
    return Tensor(t.dtype_, t.shape_, RefPtr<Buffer>::Adopt(t.buffer_.get()));
  }
  void ForgetBorrowedBuffer() { buffer_.Release(); }

 private:
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  RefPtr<Buffer> buffer_;
};

}  // namespace ember
