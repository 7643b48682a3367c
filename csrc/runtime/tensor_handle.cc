// This file implements TensorHandle.
#include "runtime/tensor_handle.h"

#include "runtime/spin.h"

namespace ember {

RefPtr<TensorHandle> TensorHandle::CreatePending(DType dtype, Shape shape, Device* device, Device* producer) {
  return RefPtr<TensorHandle>::Adopt(new TensorHandle(dtype, std::move(shape), device, producer));
}

RefPtr<TensorHandle> TensorHandle::CreateReady(Tensor tensor, Device* device) {
  auto handle = RefPtr<TensorHandle>::Adopt(new TensorHandle(tensor.dtype(), tensor.shape(), device, device));
  handle->tensor_ = std::move(tensor);
  handle->state_.store(kReady, std::memory_order_release);
  return handle;
}

RefPtr<TensorHandle> TensorHandle::CreateSymbolic(DType dtype, Shape shape, Device* device,
                                                  const void* tracer, int node, int output, Status error) {
  auto handle = RefPtr<TensorHandle>::Adopt(new TensorHandle(dtype, std::move(shape), device, device));
  handle->tracer_ = tracer;
  handle->symbolic_node_ = node;
  handle->symbolic_output_ = output;
  handle->error_ = std::move(error);
  handle->state_.store(kError, std::memory_order_release);
  return handle;
}

// Readers usually wait for work that finishes within microseconds (a queued
// kernel, a small graph); polling briefly first spares them the futex
// sleep and wake-up, which cost more than that.
constexpr int kAwaitSpinIterations = 1000;

Status TensorHandle::Await() const {
  if (!IsAvailable() && !SpinUntil([this] { return IsAvailable(); }, kAwaitSpinIterations)) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return IsAvailable(); });
  }
  return error_;
}

bool TensorHandle::AwaitFor(std::chrono::milliseconds timeout) const {
  if (IsAvailable() || SpinUntil([this] { return IsAvailable(); }, kAwaitSpinIterations)) return true;
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return IsAvailable(); });
}

void TensorHandle::SetReady(Tensor tensor) {
  tensor_ = std::move(tensor);
  Publish(kReady);
}

void TensorHandle::MarkDefined() {
  uint8_t expected = kPending;
  state_.compare_exchange_strong(expected, kDefined, std::memory_order_acq_rel);
}

void TensorHandle::SetReady() { Publish(kReady); }

void TensorHandle::SetError(Status error) {
  error_ = std::move(error);
  Publish(kError);
}

void TensorHandle::Publish(State state) {
  std::vector<std::function<void()>> waiters;
  {
    // The store happens under the lock so a waiter cannot check the state,
    // miss the store and then sleep through the notification.
    std::lock_guard<std::mutex> lock(mu_);
    state_.store(state, std::memory_order_release);
    waiters.swap(waiters_);
  }
  cv_.notify_all();
  for (auto& w : waiters) w();
}

void TensorHandle::AndThen(std::function<void()> callback) {
  if (!IsAvailable()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!IsAvailable()) {
      waiters_.push_back(std::move(callback));
      return;
    }
  }
  callback();
}

}  // namespace ember
