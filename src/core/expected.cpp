#include "core/expected.h"

namespace ucudnn {

const char* error_kind_name(ErrorCode kind) {
  switch (kind) {
    case ErrorCode::kBadParam: return "invalid input";
    case ErrorCode::kNotSupported: return "not supported";
    case ErrorCode::kAllocFailed: return "out of memory";
    case ErrorCode::kExecutionFailed: return "cuDNN execution failure";
    case ErrorCode::kCuda: return "CUDA failure";
    case ErrorCode::kSolver: return "GLPK failure";
    case ErrorCode::kTimeLimit: return "time limit reached";
    case ErrorCode::kInternal: return "internal error";
    case ErrorCode::kStorage: return "storage failure";
  }
  return "unknown failure";
}

}  // namespace ucudnn
