// This file declares Status, the error value that flows through Ember.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <utility>

namespace ember {

// Error codes map onto the classes of ember.errors at the binding layer
// (python/status_to_python.cc), each also a built-in Python exception:
// kInvalidArgument -> InvalidArgumentError (a ValueError), kTypeError ->
// TypeError, kOutOfRange -> OutOfRangeError (an IndexError), kNotFound ->
// NotFoundError (a LookupError), kResourceExhausted ->
// ResourceExhaustedError (a MemoryError), kCancelled -> CancelledError.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,
  kTypeError,
  kOutOfRange,
  kNotFound,
  kUnimplemented,
  kInternal,
  kResourceExhausted,
  kCancelled,
  kFailedPrecondition,
  kDeadlineExceeded,  // a wait ran past its deadline (a collective whose peers never joined)
  kUnavailable,       // a peer is gone (a lost worker)
};

// A cheap-to-pass result: OK is a null pointer, an error owns its message.
// Copies share the (immutable) error state.
class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  std::string ToString() const;

  // Returns a new status with `prefix` prepended to the message
  // (used to name the failing op).
  Status WithPrefix(const std::string& prefix) const;

  // Note [Reported errors]: an error raised to Python once (by reading a
  // poisoned value) is marked reported, so ember.sync() does not raise it a
  // second time. Copies of a Status share the mark; poison propagation
  // passes the failing op's Status on unchanged, so reading any value
  // downstream of the failure reports it.
  void MarkReported() const {
    if (state_) state_->reported.store(true, std::memory_order_relaxed);
  }
  bool reported() const { return state_ && state_->reported.load(std::memory_order_relaxed); }

 private:
  struct State {
    State(StatusCode c, std::string m) : code(c), message(std::move(m)) {}
    const StatusCode code;
    const std::string message;
    mutable std::atomic<bool> reported{false};
  };
  std::shared_ptr<const State> state_;
};

Status InvalidArgument(std::string message);
Status TypeError(std::string message);
Status OutOfRange(std::string message);
Status NotFound(std::string message);
Status Unimplemented(std::string message);
Status Internal(std::string message);
Status ResourceExhausted(std::string message);
Status Cancelled(std::string message);
Status FailedPrecondition(std::string message);
Status DeadlineExceeded(std::string message);
Status Unavailable(std::string message);

}  // namespace ember

#define EMBER_RETURN_IF_ERROR(expr)        \
  do {                                     \
    ::ember::Status _ember_status = (expr); \
    if (!_ember_status.ok()) return _ember_status; \
  } while (0)
