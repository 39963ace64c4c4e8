#pragma once
// CUDA and cuDNN results as ucudnn Errors, and the one conversion of an Error back into a
// cudnnStatus_t (used only at the API boundary).

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "core/expected.h"

namespace ucudnn::runtime {

/// A failed cuDNN call: "cudnnFoo(...) failed with CUDNN_STATUS_BAD_PARAM at file:line". cuDNN's
/// status is kept verbatim, so the caller gets exactly what cuDNN said.
Error cudnn_error(cudnnStatus_t status, const char* expression, const char* file, int line);
/// A failed CUDA runtime call; out-of-memory is kAllocFailed, everything else kCuda.
Error cuda_error(cudaError_t error, const char* expression, const char* file, int line);

/// The status an intercepted call returns for `error`.
cudnnStatus_t to_cudnn_status(const Error& error);
inline cudnnStatus_t to_cudnn_status(const Status& status) {
  return status.ok() ? CUDNN_STATUS_SUCCESS : to_cudnn_status(status.error());
}

}  // namespace ucudnn::runtime

#define UCUDNN_CHECK_CUDNN(expr)                                                        \
  do {                                                                                  \
    const cudnnStatus_t ucudnn_status_ = (expr);                                        \
    if (ucudnn_status_ != CUDNN_STATUS_SUCCESS)                                         \
      return ::ucudnn::runtime::cudnn_error(ucudnn_status_, #expr, __FILE__, __LINE__); \
  } while (0)

#define UCUDNN_CHECK_CUDA(expr)                                                                                       \
  do {                                                                                                                \
    const cudaError_t ucudnn_error_ = (expr);                                                                         \
    if (ucudnn_error_ != cudaSuccess) return ::ucudnn::runtime::cuda_error(ucudnn_error_, #expr, __FILE__, __LINE__); \
  } while (0)
