// This file implements TensorHandle.
#include "runtime/tensor_handle.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

#include "runtime/spin.h"

namespace ember {
namespace {

// Note [Lighter handles]: waiting is rare next to creating handles, so the
// handles share these mutexes and condition variables, picked by address.
// A slot's condition variable may wake waiters of other handles; they
// check their own state and sleep again.
struct WaitSlot {
  std::mutex mu;
  std::condition_variable cv;
};

WaitSlot& SlotFor(const void* handle) {
  static WaitSlot* slots = new WaitSlot[64];  // leaked: handles may outlive static destruction
  return slots[(reinterpret_cast<uintptr_t>(handle) >> 6) & 63];
}

}  // namespace

RefPtr<TensorHandle> TensorHandle::CreatePending(DType dtype, Shape shape, Device* device) {
  return RefPtr<TensorHandle>::Adopt(new TensorHandle(dtype, std::move(shape), device));
}

RefPtr<TensorHandle> TensorHandle::CreateReady(Tensor tensor, Device* device) {
  auto handle = RefPtr<TensorHandle>::Adopt(new TensorHandle(tensor.dtype(), tensor.shape(), device));
  handle->tensor_ = std::move(tensor);
  handle->state_.store(kReady, std::memory_order_release);
  return handle;
}

RefPtr<TensorHandle> TensorHandle::CreateSymbolic(DType dtype, Shape shape, Device* device,
                                                  const void* tracer, int node, int output, Status error) {
  auto handle = RefPtr<TensorHandle>::Adopt(new TensorHandle(dtype, std::move(shape), device));
  handle->symbolic_ = std::make_unique<Symbolic>(Symbolic{tracer, node, output});
  handle->error_ = std::move(error);
  handle->state_.store(kError, std::memory_order_release);
  return handle;
}

TensorHandle::~TensorHandle() { delete waiters_; }

// Readers usually wait for work that finishes within microseconds (a queued
// kernel, a small graph); polling briefly first spares them the futex
// sleep and wake-up, which cost more than that.
constexpr int kAwaitSpinIterations = 1000;

void TensorHandle::AwaitDefined() const {
  auto settled = [this] { return state_.load(std::memory_order_acquire) != kPending; };
  if (settled() || SpinUntil(settled, kAwaitSpinIterations)) return;
  WaitSlot& slot = SlotFor(this);
  std::unique_lock<std::mutex> lock(slot.mu);
  Watch();
  slot.cv.wait(lock, [this] { return state_.load(std::memory_order_seq_cst) != kPending; });
}

// Note [Unwatched publish]: most handles are never waited for, so Publish
// skips the wait table's lock and notification unless a waiter announced
// itself. A waiter stores watched_ and then reads the state; Publish stores
// the state and then reads watched_; both sequentially consistent, so at
// least one of them sees the other's store: either the waiter sees the new
// state and does not sleep, or Publish sees the waiter and takes the lock,
// which the waiter holds until it sleeps, so the notification reaches it.
void TensorHandle::Watch() const { watched_.store(true, std::memory_order_seq_cst); }

// Note [Unshared publish]
// The sequentially consistent store of Publish is an xchg on x86, a locked
// instruction (~4 ns) on every op's path. It orders the store against a
// waiter's announcement; a handle that only the publishing thread has ever
// held has no waiter to order against. A borrowing launch for a cached call
// (Note [Borrowed launches]) that runs from its issuer's stack, before
// Execute hands its outputs back, publishes those: no observer saw them
// (the cache skips observed calls), the caller is on the same thread, and
// any thread it gives them to later receives them through a synchronizing
// hand-off. A launch moved to a queue publishes as usual.
// SetReadyUnshared is then a release store, which x86 makes a plain move.

// A pending handle is waited for in the wait table until its launch
// defines it; a defined one on its event (Note [Defined handles]).
Status TensorHandle::Await() const {
  AwaitDefined();
  if (state_.load(std::memory_order_acquire) == kDefined) {
    event_.Synchronize();
    if (event_.stream != nullptr) {
      Status failure = event_.stream->Failure();
      if (!failure.ok()) return failure;
    }
  }
  return error();
}

bool TensorHandle::AwaitFor(std::chrono::milliseconds timeout) const {
  if (IsAvailable()) return true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto settled = [this] { return state_.load(std::memory_order_acquire) != kPending; };
  if (!settled() && !SpinUntil(settled, kAwaitSpinIterations)) {
    WaitSlot& slot = SlotFor(this);
    std::unique_lock<std::mutex> lock(slot.mu);
    Watch();
    if (!slot.cv.wait_until(lock, deadline, [this] { return state_.load(std::memory_order_seq_cst) != kPending; })) {
      return false;
    }
  }
  if (state_.load(std::memory_order_acquire) != kDefined) return true;
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
  return event_.SynchronizeFor(std::max(left, std::chrono::microseconds(0)));
}

void TensorHandle::SetReady(Tensor tensor) {
  tensor_ = std::move(tensor);
  Publish(kReady);
}

// Under the slot's lock.
std::vector<TensorHandle::Waiter>* TensorHandle::TakeWaiters() { return std::exchange(waiters_, nullptr); }

void TensorHandle::MarkDefined(const Event& event) {
  WaitSlot& slot = SlotFor(this);
  std::unique_ptr<std::vector<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(slot.mu);
    if (state_.load(std::memory_order_relaxed) != kPending) return;  // the work failed already
    event_ = event;
    state_.store(kDefined, std::memory_order_release);
    waiters.reset(TakeWaiters());
  }
  slot.cv.notify_all();
  if (!waiters) return;
  for (Waiter& w : *waiters) {
    if (w.until_defined) {
      w.callback();
    } else {
      AndThen(std::move(w.callback));
    }
  }
}

void TensorHandle::SetReady() { Publish(kReady); }

void TensorHandle::SetError(Status error) {
  {
    std::lock_guard<std::mutex> lock(SlotFor(this).mu);
    error_ = std::move(error);
  }
  Publish(kError);
}

void TensorHandle::Publish(State state) {
  state_.store(state, std::memory_order_seq_cst);
  if (!watched_.load(std::memory_order_seq_cst)) return;  // Note [Unwatched publish]
  WaitSlot& slot = SlotFor(this);
  std::unique_ptr<std::vector<Waiter>> waiters;
  {
    // Waiters check the state and sleep under this lock: taking it after
    // the store means each has either seen the store or is asleep now.
    std::lock_guard<std::mutex> lock(slot.mu);
    waiters.reset(TakeWaiters());
  }
  slot.cv.notify_all();
  if (!waiters) return;
  for (Waiter& w : *waiters) w.callback();
}

void TensorHandle::AndThen(std::function<void()> callback) {
  uint8_t s = state_.load(std::memory_order_acquire);
  if (s == kPending) {
    std::lock_guard<std::mutex> lock(SlotFor(this).mu);
    Watch();
    s = state_.load(std::memory_order_seq_cst);
    if (s == kPending) {
      if (waiters_ == nullptr) waiters_ = new std::vector<Waiter>();
      waiters_->push_back({std::move(callback), false});
      return;
    }
  }
  // A stream kernel that fails sets kError before its event happens, and
  // its callbacks run once the event happened: either way after the error.
  if (s == kDefined && event_.stream != nullptr) return event_.stream->OnCompleted(event_.ticket, std::move(callback));
  callback();
}

void TensorHandle::WhenDefined(std::function<void()> callback) {
  if (state_.load(std::memory_order_acquire) == kPending) {
    std::lock_guard<std::mutex> lock(SlotFor(this).mu);
    Watch();
    if (state_.load(std::memory_order_seq_cst) == kPending) {
      if (waiters_ == nullptr) waiters_ = new std::vector<Waiter>();
      waiters_->push_back({std::move(callback), true});
      return;
    }
  }
  callback();
}

}  // namespace ember
