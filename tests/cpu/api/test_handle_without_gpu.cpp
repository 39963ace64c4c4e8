// The handle type and the boundary behaviour that needs no GPU: null handles and bad arguments
// give clear statuses, never a crash, and creating a handle without a GPU says why.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "ucudnn/ucudnn.h"

namespace {

TEST(UcudnnHandle, HasTheSizeAndCopySemanticsOfCudnnHandle) {
  static_assert(sizeof(UcudnnHandle_t) == sizeof(void*), "pointer-sized");
  static_assert(std::is_trivially_copyable<UcudnnHandle_t>::value, "trivially copyable");
  UcudnnHandle_t null_handle;
  EXPECT_EQ(null_handle.context, nullptr);
  EXPECT_EQ(static_cast<cudnnHandle_t>(null_handle), nullptr);
  // Round trip through a void* slot, as frameworks store handles.
  UcudnnHandle_t fake = UcudnnHandle_t::fromPointer(reinterpret_cast<void*>(0x1000));
  void* slot = fake.toPointer();
  EXPECT_EQ(UcudnnHandle_t::fromPointer(slot), fake);
  UcudnnHandle_t copy;
  std::memcpy(&copy, &fake, sizeof copy);
  EXPECT_EQ(copy, fake);
}

TEST(UcudnnHandle, NullHandleCallsReturnBadParam) {
  UcudnnHandle_t null_handle;
  EXPECT_EQ(ucudnnSetBatchSizePolicy(null_handle, UCUDNN_BATCH_SIZE_POLICY_ALL), CUDNN_STATUS_BAD_PARAM);
  EXPECT_STRNE(ucudnnGetLastErrorMessage(), "");
  EXPECT_EQ(ucudnnSetDefaultWorkspaceLimit(null_handle, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnSetGraphReplay(null_handle, 1), CUDNN_STATUS_BAD_PARAM);
  int enabled = 0;
  EXPECT_EQ(ucudnnGetGraphReplay(null_handle, &enabled), CUDNN_STATUS_BAD_PARAM);
  size_t bytes = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(null_handle, nullptr, nullptr, nullptr, nullptr,
                                                    UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED, &bytes),
            CUDNN_STATUS_BAD_PARAM);
  float one = 1, zero = 0;
  EXPECT_EQ(cudnnConvolutionForward(null_handle, &one, nullptr, nullptr, nullptr, nullptr, nullptr,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroy(null_handle), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreate(static_cast<UcudnnHandle_t*>(nullptr)), CUDNN_STATUS_BAD_PARAM);
}

TEST(UcudnnHandle, CreateReportsAStatusWithoutAGpu) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) GTEST_SKIP() << "a GPU is present";
  UcudnnHandle_t handle;
  const cudnnStatus_t status = cudnnCreate(&handle);
  EXPECT_NE(status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(handle.context, nullptr) << "a failed create leaves the handle null";
  const std::string message = ucudnnGetLastErrorMessage();
  EXPECT_NE(message.find("no GPU is usable here"), std::string::npos) << message;
  EXPECT_EQ(message.find(".cpp:"), std::string::npos) << "the cause, not a source line\n" << message;
}

}  // namespace
