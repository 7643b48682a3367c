// This file declares Status, the error value that flows through Ember.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace ember {

// Error codes map onto Python exception types at the binding layer:
// kInvalidArgument -> ValueError, kTypeError -> TypeError,
// kOutOfRange -> IndexError, kNotFound -> LookupError, others -> RuntimeError.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,
  kTypeError,
  kOutOfRange,
  kNotFound,
  kUnimplemented,
  kInternal,
  kResourceExhausted,
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

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

Status InvalidArgument(std::string message);
Status TypeError(std::string message);
Status OutOfRange(std::string message);
Status NotFound(std::string message);
Status Unimplemented(std::string message);
Status Internal(std::string message);

}  // namespace ember

#define EMBER_RETURN_IF_ERROR(expr)        \
  do {                                     \
    ::ember::Status _ember_status = (expr); \
    if (!_ember_status.ok()) return _ember_status; \
  } while (0)
