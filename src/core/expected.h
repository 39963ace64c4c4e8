#pragma once
// The one error model of ucudnn: Expected<T> holds a value or an Error; Status (Expected<void>)
// holds success or an Error. An Error carries a message and the kind of failure, chosen where it
// arises; the API boundary turns it into a cudnnStatus_t in exactly one place
// (runtime/cuda_status.h), the tools into one line and a non-zero exit.
//
// Propagate with UCUDNN_TRY(expr) (any Expected) and UCUDNN_TRY_ASSIGN(lhs, expr) (keeps the value).

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace ucudnn {

/// What kind of failure an Error is, chosen where it arises; the boundary maps each to a
/// cudnnStatus_t (runtime/cuda_status.h) and a fallback's warning names it (error_kind_name).
enum class ErrorCode {
  kBadParam,         ///< invalid input: arguments, descriptors, files, settings
  kNotSupported,     ///< valid, but not something ucudnn (or cuDNN) can do
  kAllocFailed,      ///< host or device memory exhausted
  kExecutionFailed,  ///< cuDNN failed to run an operation on the GPU
  kCuda,             ///< the CUDA runtime failed (a device query, a copy, a stream, an event)
  kSolver,           ///< GLPK failed to solve the workspace division's integer program
  kTimeLimit,        ///< a search ran out of its time limit before it found an answer
  kInternal,         ///< a bug, or a library in a state it should never be in
  kStorage,          ///< a file could not be read, written or locked (I/O, locks, damage): a benchmark
                     ///< database above all, also a table or report a tool writes
};

/// The kind in a few words, as messages name it ("CUDA failure", "storage failure").
const char* error_kind_name(ErrorCode kind);

/// A failure: its kind and its message. Every constructor names the kind; the named ones below
/// say it in a word.
struct Error {
  Error(ErrorCode kind, std::string text, int backend = 0)
      : message(std::move(text)), code(kind), backend_status(backend) {}

  static Error invalid(std::string text) { return {ErrorCode::kBadParam, std::move(text)}; }
  static Error unsupported(std::string text) { return {ErrorCode::kNotSupported, std::move(text)}; }
  static Error out_of_memory(std::string text) { return {ErrorCode::kAllocFailed, std::move(text)}; }
  static Error cuda(std::string text) { return {ErrorCode::kCuda, std::move(text)}; }
  static Error solver(std::string text) { return {ErrorCode::kSolver, std::move(text)}; }
  static Error time_limit(std::string text) { return {ErrorCode::kTimeLimit, std::move(text)}; }
  static Error internal(std::string text) { return {ErrorCode::kInternal, std::move(text)}; }
  static Error storage(std::string text) { return {ErrorCode::kStorage, std::move(text)}; }

  /// The same error with `context` put before its message.
  Error prefixed(const std::string& context) const {
    Error e = *this;
    e.message = context + e.message;
    return e;
  }

  std::string message;
  ErrorCode code = ErrorCode::kBadParam;
  int backend_status = 0;  ///< the status cuDNN itself returned, passed on verbatim (0: none)
};

/// Stops the process: the value of a failed Expected was asked for (a bug in ucudnn).
[[noreturn]] inline void value_of_failure(const std::string& message) {
  std::fprintf(stderr, "ucudnn: internal error: the value of a failed result was used: %s\n", message.c_str());
  std::abort();
}

/// Stops the process: the error of a successful Expected was asked for (a bug in ucudnn).
[[noreturn]] inline void error_of_success() {
  std::fprintf(stderr, "ucudnn: internal error: the error of a successful result was asked for\n");
  std::abort();
}

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  // The value of a failed Expected is a bug: it stops the process, naming the error (as LLVM's
  // Expected does), rather than reading an empty optional.
  const T& value() const& { return checked(), *value_; }
  T& value() & { return checked(), *value_; }
  T&& value() && { return checked(), std::move(*value_); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  /// Only on failure: on a success it stops the process, naming the misuse, as value() does.
  const Error& error() const { return failure(), *error_; }
  const std::string& message() const { return failure(), error_->message; }

 private:
  void checked() const {
    if (!value_) value_of_failure(error_->message);
  }
  void failure() const {
    if (!error_) error_of_success();
  }
  std::optional<T> value_;
  std::optional<Error> error_;
};

template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  static Expected success() { return Expected(); }
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  /// Only on failure: on a success it stops the process, naming the misuse.
  const Error& error() const { return failure(), *error_; }
  const std::string& message() const { return failure(), error_->message; }

 private:
  void failure() const {
    if (!error_) error_of_success();
  }
  std::optional<Error> error_;
};

/// Success or an Error: what an operation without a result returns.
using Status = Expected<void>;

}  // namespace ucudnn

#define UCUDNN_CONCAT_INNER_(a, b) a##b
#define UCUDNN_CONCAT_(a, b) UCUDNN_CONCAT_INNER_(a, b)

/// Returns the error of `expr` (an Expected of any type) from the enclosing function.
#define UCUDNN_TRY(expr)                                          \
  do {                                                            \
    auto&& ucudnn_try_result_ = (expr);                           \
    if (!ucudnn_try_result_.ok()) return ucudnn_try_result_.error(); \
  } while (0)

/// `lhs = value of expr`, or returns its error: UCUDNN_TRY_ASSIGN(auto rows, read_rows(path));
#define UCUDNN_TRY_ASSIGN(lhs, expr) UCUDNN_TRY_ASSIGN_IMPL_(UCUDNN_CONCAT_(ucudnn_try_, __LINE__), lhs, expr)
#define UCUDNN_TRY_ASSIGN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                            \
  if (!tmp.ok()) return tmp.error();            \
  lhs = std::move(tmp).value()
