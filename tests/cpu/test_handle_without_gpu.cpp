// The handle type and the boundary behaviour that needs no GPU: null handles, bad arguments and
// the environment configuration give clear statuses, never a crash.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>

#include "core/env_config.h"
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
  EXPECT_STRNE(ucudnnGetLastErrorMessage(), "");
}

TEST(EnvConfig, ParsesPolicyAndLimitStrictly) {
  auto defaults = ucudnn::parse_env_config(nullptr, nullptr);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->policy, ucudnn::BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(defaults->default_workspace_limit, size_t{64} << 20);

  auto set = ucudnn::parse_env_config("UNDIVIDED", "8MiB");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->policy, ucudnn::BatchSizePolicy::kUndivided);
  EXPECT_EQ(set->default_workspace_limit, size_t{8} << 20);

  auto bad_policy = ucudnn::parse_env_config("fastest", nullptr);
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_NE(bad_policy.error().find("UCUDNN_BATCH_SIZE_POLICY"), std::string::npos);
  auto bad_size = ucudnn::parse_env_config(nullptr, "64 parsecs");
  ASSERT_FALSE(bad_size.ok());
  EXPECT_NE(bad_size.error().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos);
}

}  // namespace
