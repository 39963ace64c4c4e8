// The one place an Error becomes a cudnnStatus_t: each kind of failure its own status, and a status
// cuDNN itself returned passed on as it was.

#include <gtest/gtest.h>

#include "runtime/cuda_status.h"

namespace ucudnn::runtime {
namespace {

TEST(CudaStatus, EachKindOfFailureHasItsStatus) {
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kBadParam, "x"}), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kNotSupported, "x"}), CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kAllocFailed, "x"}), CUDNN_STATUS_ALLOC_FAILED);
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kExecutionFailed, "x"}), CUDNN_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kInternal, "x"}), CUDNN_STATUS_INTERNAL_ERROR);
  // A database that cannot be read or locked is not the caller's bad argument.
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kStorage, "x"}), CUDNN_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(to_cudnn_status(Error{ErrorCode::kBadParam, "x", CUDNN_STATUS_NOT_INITIALIZED}),
            CUDNN_STATUS_NOT_INITIALIZED);
}

}  // namespace
}  // namespace ucudnn::runtime
