#include "core/status.h"

#include <cstring>

namespace ucudnn {
namespace {

std::string location(const char* file, int line) {
  const char* slash = std::strrchr(file, '/');
  return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line);
}

}  // namespace

Status Status::from_cudnn(cudnnStatus_t code, const char* expression, const char* file, int line) {
  return Status(code, std::string(expression) + " failed with " + cudnnGetErrorString(code) + " at " +
                          location(file, line));
}

Status Status::from_cuda(cudaError_t error, const char* expression, const char* file, int line) {
  const cudnnStatus_t code =
      error == cudaErrorMemoryAllocation ? CUDNN_STATUS_ALLOC_FAILED : CUDNN_STATUS_EXECUTION_FAILED;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
  return Status(code, std::string(expression) + " failed with " + cudaGetErrorName(error) + " (" +
                          cudaGetErrorString(error) + ") at " + location(file, line));
}

}  // namespace ucudnn
