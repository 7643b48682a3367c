// This file declares TensorHandle: what execute() returns at once. Dtype,
// shape and device are known immediately; the value is a future.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "core/device.h"
#include "core/device_error.h"
#include "core/ref_counted.h"
#include "core/status.h"
#include "core/stream.h"
#include "core/tensor.h"

namespace ember {

// Thread-safe. A handle moves once from pending to ready or to error and
// never changes afterwards, so readers of an available handle need no lock.
// Errors are values: a failed kernel poisons its outputs, and ops that
// consume a poisoned handle pass the error on without running.
//
// Note [Defined handles]: on a device with streams, a launch allocates its
// outputs and posts the kernel, then marks the outputs *defined* with the
// event of that post (Note [Streams and events]): the buffer is known, and
// the data is there once the event happened. Later work on the same stream
// may use the buffer at once; work on another stream waits for the event
// on the device; host readers synchronize on it. Nothing calls back per
// kernel: a defined handle is available as soon as its event happened,
// which readers check. A kernel that fails on its stream sets its outputs'
// error before its event happens (the simulated device's form of a device
// error flag), so an available handle never changes. On the CPU a handle
// goes from pending straight to ready.
class TensorHandle : public RefCounted {
 public:
  static RefPtr<TensorHandle> CreatePending(DType dtype, Shape shape, Device* device);
  static RefPtr<TensorHandle> CreateReady(Tensor tensor, Device* device);
  // Note [Symbolic handles]: while @ember.function traces, ops return
  // handles that stand for output `output` of node `node` in the graph that
  // `tracer` builds. They have a dtype and a shape (whose dims may be
  // unknown, -1) but never a value: they are created in the error state
  // with `error`, so reading one raises it and ops that consume one outside
  // its trace pass the error on.
  static RefPtr<TensorHandle> CreateSymbolic(DType dtype, Shape shape, Device* device,
                                             const void* tracer, int node, int output, Status error);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  Device* device() const { return device_; }

  bool is_symbolic() const { return symbolic_ != nullptr; }
  const void* tracer() const { return symbolic_ ? symbolic_->tracer : nullptr; }
  int symbolic_node() const { return symbolic_ ? symbolic_->node : -1; }
  int symbolic_output() const { return symbolic_ ? symbolic_->output : -1; }

  bool IsAvailable() const {
    const uint8_t s = state_.load(std::memory_order_acquire);
    return s >= kReady || (s == kDefined && event_.HasHappened());
  }
  bool IsError() const {
    const uint8_t s = state_.load(std::memory_order_acquire);
    if (s == kError) return true;
    // error_source_ is set before the handle is defined (release), so it
    // may be read once kDefined was seen (acquire).
    if (s != kDefined || !event_.HasHappened()) return false;
    return (error_source_ && error_source_->IsError()) || (deferred_ && !deferred_->Resolve().ok());
  }
  // Note [Defined handles]: tensor() is valid (its data may be pending)
  // and event() says when its data is there.
  bool IsDefined() const {
    const uint8_t s = state_.load(std::memory_order_acquire);
    return s == kDefined || s == kReady;
  }
  // The event after which the data is there; one without a stream for a
  // ready handle. Valid once defined.
  const Event& event() const { return event_; }

  // Blocks until available; returns the error, if any. Callers from Python
  // release the GIL first.
  Status Await() const;
  // Waits at most `timeout`; true if the handle is available.
  bool AwaitFor(std::chrono::milliseconds timeout) const;
  // Blocks until defined or available (the host side of a launch that
  // orders itself after the value on a stream).
  void AwaitDefined() const;
  // Valid once defined or ready (not after an error).
  const Tensor& tensor() const { return tensor_; }
  // Valid only once available.
  const Status& error() const {
    if (state_.load(std::memory_order_acquire) != kDefined) return error_;
    if (error_source_ && (error_source_->IsError() || !deferred_)) return error_source_->error();
    return deferred_ ? deferred_->Resolve() : error_;
  }

  void SetReady(Tensor tensor);
  // Note [Unshared publish]: SetReady for a handle no other thread can
  // have seen yet, so none can be waiting for it.
  void SetReadyUnshared(Tensor tensor) {
    tensor_ = std::move(tensor);
    state_.store(kReady, std::memory_order_release);
  }
  // Note [Defined handles]: SetTensor stores the buffer before the work
  // that fills it is posted; MarkDefined, after the post, publishes it
  // with the post's event (a no-op if the work already failed).
  void SetTensor(Tensor tensor) { tensor_ = std::move(tensor); }
  // A copy's output fails when its source does: the copy is ordered after
  // the source on the device, so by the time the output's event happened
  // the source's error, if any, is set. Call before MarkDefined.
  void SetErrorSource(RefPtr<TensorHandle> source) { error_source_ = std::move(source); }
  // Note [Deferred errors in handles]
  // On a device whose kernels report bad data through error words (Note
  // [Device error words] in core/device_error.h), whether a value is good
  // is known only once the kernels that made it, and those that made its
  // inputs, ran. A defined handle carries that verdict: the launch's own
  // word's, joined with the unresolved verdicts its inputs carried, so a
  // value computed from a failed one fails too, with the first failure's
  // message, however long the chain (joints hold words, never joints).
  // Call before MarkDefined; valid once defined.
  void SetDeferredError(RefPtr<DeferredError> deferred) { deferred_ = std::move(deferred); }
  const RefPtr<DeferredError>& deferred_error() const { return deferred_; }
  void MarkDefined(const Event& event);
  void SetReady();
  void SetError(Status error);
  // A gradient tape keeps this value for its backward pass: no op may take
  // over its buffer (Note [Buffer donation]). Never cleared.
  void MarkSaved() { saved_.store(true, std::memory_order_relaxed); }
  bool saved() const { return saved_.load(std::memory_order_relaxed); }
  // A small integer value derived from shapes on the host (Note
  // [Host-memory outputs]): placement keeps arithmetic on it there. Set
  // once, by Execute, before the handle is handed out.
  void MarkShapeValue() { shape_value_ = true; }
  bool is_shape_value() const { return shape_value_; }
  // Runs `callback` once the handle is available: at once, on this thread,
  // if it already is; otherwise on the thread that makes it available (for
  // a defined handle, the stream's, through Stream::OnCompleted).
  void AndThen(std::function<void()> callback);
  // Runs `callback` once the handle is defined or available.
  void WhenDefined(std::function<void()> callback);

 private:
  enum State : uint8_t { kPending, kDefined, kReady, kError };
  struct Waiter {
    std::function<void()> callback;
    bool until_defined;  // WhenDefined rather than AndThen
  };
  // Set only for symbolic handles (Note [Symbolic handles]).
  struct Symbolic {
    const void* tracer;
    int node;
    int output;
  };
  TensorHandle(DType dtype, Shape shape, Device* device)
      : dtype_(dtype), shape_(std::move(shape)), device_(device) {}
  ~TensorHandle() override;
  void Publish(State state);
  void Watch() const;  // Note [Unwatched publish]
  std::vector<Waiter>* TakeWaiters();

  // Note [Lighter handles]: every op output is a handle, and few are ever
  // waited for, so a handle carries no mutex, condition variable or waiter
  // list of its own: waits go through a small table shared by all handles
  // (tensor_handle.cc), the waiter list is allocated for the first waiter,
  // and the tracer's identity lives out of line: 232 bytes, from 328.
  const DType dtype_;
  std::atomic<uint8_t> state_{kPending};
  std::atomic<bool> saved_{false};
  // Note [Unwatched publish]: set, under the wait-table lock, before anyone
  // sleeps on or registers a callback for this handle while it is pending.
  mutable std::atomic<bool> watched_{false};
  bool shape_value_ = false;
  const Shape shape_;
  Device* const device_;
  Tensor tensor_;
  Status error_;
  Event event_;
  RefPtr<TensorHandle> error_source_;
  RefPtr<DeferredError> deferred_;
  std::vector<Waiter>* waiters_ = nullptr;  // under the handle's wait-table lock, while pending
  std::unique_ptr<Symbolic> symbolic_;
};

}  // namespace ember
