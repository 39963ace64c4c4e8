#pragma once
// Shared pieces of the GPU suite: a fixture that skips without a device, device arrays with
// random contents, convolution descriptions, and comparison against plain cuDNN.

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ucudnn/ucudnn.h"

namespace ucudnn_test {

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr
#define CUDNN_OK(expr) ASSERT_EQ((expr), CUDNN_STATUS_SUCCESS) << #expr << ": " << ucudnnGetLastErrorMessage()

/// Skips every test of a suite where no CUDA device is visible.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  /// A seed that differs per run (fresh data) unless UCUDNN_TEST_SEED fixes it; logged on failure.
  static std::uint32_t fresh_seed();
  /// A randomised test's generator, seeded with fresh_seed(); while it lives, every failure of the
  /// test names the seed.
  struct SeededRng : std::mt19937 {
    SeededRng() : SeededRng(fresh_seed()) {}
    explicit SeededRng(std::uint32_t seed)
        : std::mt19937(seed), first_seed(seed), trace(__FILE__, __LINE__, "UCUDNN_TEST_SEED=" + std::to_string(seed)) {}
    std::uint32_t first_seed;
    ::testing::ScopedTrace trace;
  };
};

/// A GpuTest with a plain cuDNN handle, `plain_`, for the reference runs.
class PlainCudnnTest : public GpuTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  cudnnHandle_t plain_ = nullptr;
};

/// A PlainCudnnTest with a ucudnn handle too, `handle_`, at its defaults. Its destruction is checked.
class UcudnnTest : public PlainCudnnTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  UcudnnHandle_t handle_;
};

enum class Layout { kNchw, kNhwc, kPaddedNchw };
const char* to_string(Layout layout);

/// One convolution problem, 2-d (4-d tensors) or 3-d (5-d tensors).
struct ConvSpec {
  int n = 1, c = 1, k = 1, groups = 1;
  std::vector<int> spatial;         ///< input H, W (and D first for 3-d)
  std::vector<int> filter;          ///< R, S (...)
  std::vector<int> pad, stride, dilation;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  Layout layout = Layout::kNchw;
  std::string describe() const;
};

/// A 2-d convolution of square images and filters: `n` x `c` x `size` x `size` in, `k` filters of
/// `filter` x `filter`, padded by `pad`, stride and dilation 1 (the other fields at their defaults).
ConvSpec square_conv_2d(int n, int c, int k, int size, int filter, int pad);

/// Owned descriptors of a ConvSpec, as a framework would make them.
struct ConvProblem {
  explicit ConvProblem(const ConvSpec& spec);
  ~ConvProblem();
  ConvProblem(const ConvProblem&) = delete;
  ConvProblem& operator=(const ConvProblem&) = delete;

  ConvSpec spec;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  std::vector<int> x_dims, x_strides, y_dims, y_strides, w_dims;
  bool ok = false;  ///< descriptors set up (cuDNN accepted the shape)
};

/// Device memory with a host mirror in float (converted from FP16 where needed).
class DeviceArray {
 public:
  DeviceArray(std::size_t elements, cudnnDataType_t type);
  ~DeviceArray();
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void fill_random(std::mt19937& rng);
  void copy_from(const DeviceArray& other);
  std::vector<float> download() const;
  void* get() const { return data_; }
  std::size_t elements() const { return elements_; }

 private:
  void* data_ = nullptr;
  std::size_t elements_;
  cudnnDataType_t type_;
};

/// Room for any algorithm's workspace on the suite's shapes: what the tests that run plans directly
/// give every call.
constexpr std::size_t kAmpleWorkspace = std::size_t{256} << 20;

/// kAmpleWorkspace bytes of device memory; get() is null where it could not be allocated.
struct AmpleWorkspace : DeviceArray {
  AmpleWorkspace() : DeviceArray(kAmpleWorkspace / sizeof(float), CUDNN_DATA_FLOAT) {}
};

/// A PlainCudnnTest that builds and runs plans itself (runtime::ExecutablePlan), with `workspace_`
/// of kAmpleWorkspace bytes for every call.
class PlanExecutionTest : public PlainCudnnTest {
 protected:
  void SetUp() override;
  std::unique_ptr<AmpleWorkspace> workspace_;
};

/// A random convolution: 2-d or 3-d, batch 1-64, groups, kernel 1-7, stride, pad (within the dilated
/// filter's reach), dilation (where the filter is wider than 1),
/// NCHW / NHWC / padded strides, FP32 (FMA math) or FP16.
ConvSpec random_spec(std::mt19937& rng);

std::size_t extent(const std::vector<int>& dims, const std::vector<int>& strides);
std::size_t product(const std::vector<int>& dims);

/// max |a - b| over the logical elements of a strided tensor, divided by max |b| (b: reference).
double relative_error(const std::vector<float>& a, const std::vector<float>& b, const std::vector<int>& dims,
                      const std::vector<int>& strides);

}  // namespace ucudnn_test
