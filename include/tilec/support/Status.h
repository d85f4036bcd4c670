//===- Status.h - errors of the MLIR-free support code ----------*- C++ -*-===//
//
// The support library (lib/Support) is used both by the MLIR tools, which
// report errors as llvm::Error, and by programs built without LLVM on the
// GPU machine (tilec-gpu-run), which cannot. It reports every failure as a
// Status or a Result<T> holding a message meant for the user; it never
// throws, since LLVM and the tools around it are built without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_SUPPORT_STATUS_H
#define TILEC_SUPPORT_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace tilec::support {

/// Success, or an error with a message.
class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return !message_; }
  /// The error's message; empty on success.
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

private:
  std::optional<std::string> message_;
};

/// A value, or the error that prevented it. Check ok() before reading the
/// value.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value_(std::move(value)) {}
  /// An error; a successful Status is turned into an error that says so, so
  /// that a Result is never empty.
  Result(Status error) : status_(std::move(error)) {
    if (status_.ok())
      status_ = Status::error("internal error: Result built from success");
  }
  bool ok() const { return value_.has_value(); }
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }
  T &operator*() & { return *value_; }
  const T &operator*() const & { return *value_; }
  T &&operator*() && { return std::move(*value_); }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace tilec::support

#endif // TILEC_SUPPORT_STATUS_H
