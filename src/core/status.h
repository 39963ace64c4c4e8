#pragma once
// The runtime's error model: a [[nodiscard]] cuDNN status with a message that records the failed
// expression, file and line. Converted to a bare cudnnStatus_t only at the API boundary.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <string>
#include <utility>

namespace ucudnn {

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(cudnnStatus_t code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status success() { return Status(); }
  /// A failed cuDNN call: "cudnnFoo(...) failed with CUDNN_STATUS_BAD_PARAM at file:line".
  static Status from_cudnn(cudnnStatus_t code, const char* expression, const char* file, int line);
  /// A failed CUDA runtime call; out-of-memory maps to CUDNN_STATUS_ALLOC_FAILED.
  static Status from_cuda(cudaError_t error, const char* expression, const char* file, int line);

  bool ok() const { return code_ == CUDNN_STATUS_SUCCESS; }
  cudnnStatus_t code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  cudnnStatus_t code_ = CUDNN_STATUS_SUCCESS;
  std::string message_;
};

}  // namespace ucudnn

#define UCUDNN_CHECK_CUDNN(expr)                                                        \
  do {                                                                                  \
    const cudnnStatus_t ucudnn_status_ = (expr);                                        \
    if (ucudnn_status_ != CUDNN_STATUS_SUCCESS)                                         \
      return ::ucudnn::Status::from_cudnn(ucudnn_status_, #expr, __FILE__, __LINE__);   \
  } while (0)

#define UCUDNN_CHECK_CUDA(expr)                                                         \
  do {                                                                                  \
    const cudaError_t ucudnn_error_ = (expr);                                           \
    if (ucudnn_error_ != cudaSuccess)                                                   \
      return ::ucudnn::Status::from_cuda(ucudnn_error_, #expr, __FILE__, __LINE__);     \
  } while (0)

#define UCUDNN_RETURN_IF_ERROR(expr)                      \
  do {                                                    \
    ::ucudnn::Status ucudnn_result_ = (expr);             \
    if (!ucudnn_result_.ok()) return ucudnn_result_;      \
  } while (0)
