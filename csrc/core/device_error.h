// This file declares the device error word and DeferredError: how a kernel
// on a device whose memory the host cannot read reports bad data it found
// while it ran (Note [Device error words]).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/device_error_word.h"
#include "core/ref_counted.h"
#include "core/status.h"
#include "core/stream.h"

namespace ember {

// Note [Device error words]
// A GPU kernel finds bad data (an index out of range) only while it runs,
// long after its launch returned. It reports it in a device error word:
// 32 bytes of page-locked host memory, which kernels can write directly
// (unified addressing) and the host reads once the kernel's event
// happened. A launch of a kernel that can fail this way takes a fresh,
// zeroed word from its device (KernelContext::NewErrorWord) and passes it
// to the kernel; the first GPU thread that finds bad data claims the word
// (compare-and-swap of `code` from 0) and fills in where and what, the
// others leave it alone, so the message names one bad value as the CPU's
// does. The launch's outputs carry a DeferredError over the word, and so
// does every value computed from them while it is unresolved (Note
// [Deferred errors in handles] in runtime/tensor_handle.h): reading any of
// them raises the error, ember.sync() raises it in async mode, and a
// function call raises it at its end, naming the node. The device stays
// usable: the bad data was never read out of bounds. A word goes back to
// its device when the last verdict over it is gone; the launch's KernelRun
// holds one, and a GPU stream holds the run until the kernel finished, so
// a word is never handed out again while a kernel may still write it.
// A device's supply of error words. Thread-safe.
class DeviceErrorWords {
 public:
  virtual ~DeviceErrorWords() = default;
  // A zeroed word, or null if no memory for one could be had.
  virtual DeviceErrorWord* Acquire() = 0;
  virtual void Release(DeviceErrorWord* word) = 0;
};

// Turns a claimed word into the op's message (the op's name is prefixed).
using DescribeDeviceError = std::function<std::string(const DeviceErrorWord&)>;

// The verdict on data some launches read, known once they ran: a launch's
// word, or the joint verdict of several launches' words (a value computed
// from two values that each carry one). Thread-safe.
class DeferredError final : public RefCounted {
 public:
  static RefPtr<DeferredError> ForWord(DeviceErrorWords* words, DeviceErrorWord* word, std::string op,
                                       DescribeDeviceError describe);
  // The first failure among `parts`' words; null if `parts` is empty.
  // Joints never nest: the words of joint parts are taken apart.
  static RefPtr<DeferredError> Joint(const std::vector<RefPtr<DeferredError>>& parts);

  // For a launch's word(s): after the launch was posted, before anyone
  // resolves it.
  void SetEvent(const Event& event);
  // Blocks until every word covered was written (its launch's event
  // happened), then returns the first failure, or OK. The same Status
  // object every time, so reporting it once marks it for everyone.
  const Status& Resolve() const;
  // True if it resolved OK, or can without waiting: a value computed from
  // one known OK need not carry it on.
  bool KnownOk() const;
  // The words' verdicts this one covers (itself, or a joint's parts).
  void AppendWords(std::vector<RefPtr<DeferredError>>* out) const;

 private:
  DeferredError() = default;
  ~DeferredError() override;
  Status ReadWord() const;

  // A word's (parts_ empty):
  DeviceErrorWords* words_ = nullptr;
  DeviceErrorWord* word_ = nullptr;
  std::string op_;
  DescribeDeviceError describe_;
  Event event_;
  // A joint's:
  std::vector<RefPtr<DeferredError>> parts_;

  mutable std::once_flag resolved_once_;
  mutable std::atomic<bool> resolved_{false};
  mutable Status status_;
};

// What a value computed from `inputs`' values carries (Note [Deferred
// errors in handles]): their unresolved verdicts and `own` (the launch's
// word's, or null), joined; null when there is none, the common case,
// which allocates nothing.
template <typename InputRange, typename DeferredOf>
RefPtr<DeferredError> CarryDeferredErrors(const InputRange& inputs, DeferredOf deferred_of,
                                          const RefPtr<DeferredError>& own) {
  std::vector<RefPtr<DeferredError>> parts;
  for (const auto& in : inputs) {
    const RefPtr<DeferredError>& d = deferred_of(in);
    if (d && !d->KnownOk()) d->AppendWords(&parts);
  }
  if (parts.empty()) return own;
  if (own) own->AppendWords(&parts);
  return DeferredError::Joint(parts);
}

}  // namespace ember
