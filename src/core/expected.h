#pragma once
// A value or an error message: the error model of the CPU-only planning code
// (parsing, optimizers), converted to cudnnStatus_t or an exit status at the boundary.

#include <optional>
#include <string>
#include <utility>

namespace ucudnn {

/// Wraps an error message so that Expected<std::string> stays unambiguous.
struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error) : error_(std::move(error.message)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  const T* operator->() const { return &*value_; }
  const std::string& error() const { return error_; }

 private:
  std::optional<T> value_;
  std::string error_;
};

}  // namespace ucudnn
