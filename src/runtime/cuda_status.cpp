#include "runtime/cuda_status.h"

#include <cstring>
#include <string>

namespace ucudnn::runtime {
namespace {

std::string location(const char* file, int line) {
  const char* slash = std::strrchr(file, '/');
  return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line);
}

// cuDNN 9 groups its statuses by thousands: 2xxx bad parameter, 3xxx not supported, 4xxx
// internal (4001: allocation), 5xxx execution failed.
ErrorCode kind_of(cudnnStatus_t status) {
  if (status == CUDNN_STATUS_ALLOC_FAILED) return ErrorCode::kAllocFailed;
  switch (static_cast<int>(status) / 1000) {
    case 2: return ErrorCode::kBadParam;
    case 3: return ErrorCode::kNotSupported;
    case 5: return ErrorCode::kExecutionFailed;
    default: return ErrorCode::kInternal;
  }
}

}  // namespace

Error cudnn_error(cudnnStatus_t status, const char* expression, const char* file, int line) {
  return Error(kind_of(status),
               std::string(expression) + " failed with " + cudnnGetErrorString(status) + " at " + location(file, line),
               static_cast<int>(status));
}

Error cuda_error(cudaError_t error, const char* expression, const char* file, int line) {
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
  return Error(error == cudaErrorMemoryAllocation ? ErrorCode::kAllocFailed : ErrorCode::kCuda,
               std::string(expression) + " failed with " + cudaGetErrorName(error) + " (" +
                   cudaGetErrorString(error) + ") at " + location(file, line));
}

cudnnStatus_t to_cudnn_status(const Error& error) {
  if (error.backend_status != 0) return static_cast<cudnnStatus_t>(error.backend_status);
  switch (error.code) {
    case ErrorCode::kBadParam: return CUDNN_STATUS_BAD_PARAM;
    case ErrorCode::kNotSupported: return CUDNN_STATUS_NOT_SUPPORTED;
    case ErrorCode::kAllocFailed: return CUDNN_STATUS_ALLOC_FAILED;
    case ErrorCode::kExecutionFailed: return CUDNN_STATUS_EXECUTION_FAILED;
    case ErrorCode::kCuda: return CUDNN_STATUS_EXECUTION_FAILED_CUDART;
    case ErrorCode::kInternal: return CUDNN_STATUS_INTERNAL_ERROR;
    // cuDNN has no status for a solver, a time limit or files: the operation (planning) failed.
    case ErrorCode::kSolver:
    case ErrorCode::kTimeLimit:
    case ErrorCode::kStorage: return CUDNN_STATUS_EXECUTION_FAILED;
  }
  return CUDNN_STATUS_INTERNAL_ERROR;
}

}  // namespace ucudnn::runtime
