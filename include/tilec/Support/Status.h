//===- Status.h - errors without exceptions ---------------------*- C++ -*-===//
//
// tilec's MLIR-free libraries (the runtime, the support code) and the
// programs built on them without LLVM report every failure as a Status or
// an Expected<T> carrying a message for the user; they never throw (LLVM
// and the tools around it are built without exceptions) and never abort. A
// successful Status is one null pointer, so returning it from the launch hot
// path costs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_STATUS_H
#define TILEC_SUPPORT_STATUS_H

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace tilec {


/// Success, or an error with a message for the user.
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  /// An error with `message` (an empty message still makes an error).
  static Status error(std::string message) {
    Status s;
    s.message_ = std::make_shared<const std::string>(std::move(message));
    return s;
  }
  bool ok() const { return !message_; }
  /// The error's message; empty on success.
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }
  /// Returns this error with `context` put in front ("context: message").
  Status withContext(const std::string &context) const {
    if (ok())
      return *this;
    return error(context + ": " + *message_);
  }

private:
  std::shared_ptr<const std::string> message_;
};

/// A value of type T, or the error that prevented it. Check ok() before
/// reading the value: reading the value of an error is a programming error.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  /// An error; a successful Status here would leave neither value nor error,
  /// so it is turned into an error that says so.
  Expected(Status error) : status_(std::move(error)) {
    if (status_.ok())
      status_ = Status::error("internal error: Expected built from success");
  }

  bool ok() const { return value_.has_value(); }
  /// Success, or the error.
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }

  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }
  T &&operator*() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T &value() & { return *value_; }
  const T &value() const & { return *value_; }
  T &&value() && { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace tilec

/// Returns the error of a Status-valued expression from the enclosing function.
#define TILEC_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::tilec::Status tilecStatus_ = (expr);                                     \
    if (!tilecStatus_.ok())                                                    \
      return tilecStatus_;                                                     \
  } while (false)

#endif // TILEC_SUPPORT_STATUS_H
