#include "gpu_test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

namespace ucudnn_test {
namespace {

std::uint16_t float_to_half(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0) return sign;
  const std::uint32_t mantissa = bits & 0x7fffffu;
  std::uint32_t half = (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  if (mantissa & 0x1000u) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const std::uint32_t mantissa = h & 0x3ffu;
  float value;
  if (exponent == 0) {
    value = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    value = mantissa ? NAN : INFINITY;
  } else {
    value = std::ldexp(static_cast<float>(mantissa | 0x400u), exponent - 25);
  }
  return sign ? -value : value;
}

// bfloat16 is the upper half of a float, rounded to nearest even.
std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool is_16_bit(cudnnDataType_t type) { return type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16; }

std::size_t size_of(cudnnDataType_t type) { return is_16_bit(type) ? 2 : 4; }

// Strides of a packed tensor whose dims are given in NC(D)HW order, for NCHW or NHWC storage.
std::vector<int> strides_for(const std::vector<int>& dims, Layout layout) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int> strides(rank);
  if (layout == Layout::kNhwc) {
    int s = 1;
    strides[1] = s;
    s *= dims[1];
    for (int i = rank - 1; i >= 2; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    strides[0] = s;
  } else {
    // Padded NCHW: the innermost row gets 3 spare elements and each sample 5 more, so that no
    // stride is the packed one.
    const bool padded = layout == Layout::kPaddedNchw;
    int s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i] + (padded && i == rank - 1 ? 3 : 0);
      if (padded && i == 1) s += 5;
    }
  }
  return strides;
}

}  // namespace

void GpuTest::SetUp() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "no CUDA device";
  }
}

std::uint32_t GpuTest::fresh_seed() {
  const char* fixed = std::getenv("UCUDNN_TEST_SEED");
  const std::uint32_t seed =
      fixed ? static_cast<std::uint32_t>(std::strtoul(fixed, nullptr, 10)) : std::random_device{}();
  // Said before the test uses it: a test that crashes the process still leaves how to repeat it.
  std::fprintf(stderr, "[ seed   ] UCUDNN_TEST_SEED=%u\n", seed);
  std::fflush(stderr);
  return seed;
}

void PlainCudnnTest::SetUp() {
  GpuTest::SetUp();
  if (IsSkipped()) return;
  CUDNN_OK(cudnnCreate(&plain_));
}

void PlainCudnnTest::TearDown() {
  if (plain_ != nullptr) cudnnDestroy(plain_);
}

void PlanExecutionTest::SetUp() {
  PlainCudnnTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  workspace_ = std::make_unique<AmpleWorkspace>();
  ASSERT_TRUE(workspace_->get()) << "no room for " << kAmpleWorkspace << " bytes of workspace";
}

void UcudnnTest::SetUp() {
  PlainCudnnTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  CUDNN_OK(cudnnCreate(&handle_));
}

void UcudnnTest::TearDown() {
  // EXPECT, not ASSERT: the plain handle is still to go.
  if (handle_ != nullptr) {
    EXPECT_EQ(cudnnDestroy(handle_), CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();
  }
  PlainCudnnTest::TearDown();
}

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::kNchw: return "NCHW";
    case Layout::kNhwc: return "NHWC";
    case Layout::kPaddedNchw: return "padded-NCHW";
  }
  return "?";
}

std::string ConvSpec::describe() const {
  std::ostringstream out;
  auto list = [&](const std::vector<int>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) out << (i ? "x" : "") << v[i];
  };
  out << "n" << n << " c" << c << " k" << k << " g" << groups << " in ";
  list(spatial);
  out << " filter ";
  list(filter);
  out << " pad ";
  list(pad);
  out << " stride ";
  list(stride);
  out << " dil ";
  list(dilation);
  out << " " << (data_type == CUDNN_DATA_HALF ? "fp16" : data_type == CUDNN_DATA_BFLOAT16 ? "bf16" : "fp32") << " math" << math << " " << to_string(layout);
  return out.str();
}

ConvSpec square_conv_2d(int n, int c, int k, int size, int filter, int pad) {
  ConvSpec s;
  s.n = n;
  s.c = c;
  s.k = k;
  s.spatial = {size, size};
  s.filter = {filter, filter};
  s.pad = {pad, pad};
  s.stride = {1, 1};
  s.dilation = {1, 1};
  return s;
}

ConvProblem::ConvProblem(const ConvSpec& s) : spec(s) {
  const int nd = static_cast<int>(s.spatial.size());
  x_dims = {s.n, s.c};
  x_dims.insert(x_dims.end(), s.spatial.begin(), s.spatial.end());
  w_dims = {s.k, s.c / s.groups};
  w_dims.insert(w_dims.end(), s.filter.begin(), s.filter.end());
  cudnnCreateTensorDescriptor(&x);
  cudnnCreateTensorDescriptor(&y);
  cudnnCreateFilterDescriptor(&w);
  cudnnCreateConvolutionDescriptor(&conv);
  x_strides = strides_for(x_dims, s.layout);
  const cudnnTensorFormat_t filter_format = s.layout == Layout::kNhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  if (cudnnSetTensorNdDescriptor(x, s.data_type, nd + 2, x_dims.data(), x_strides.data()) != CUDNN_STATUS_SUCCESS) return;
  if (cudnnSetFilterNdDescriptor(w, s.data_type, filter_format, nd + 2, w_dims.data()) != CUDNN_STATUS_SUCCESS) return;
  if (cudnnSetConvolutionNdDescriptor(conv, nd, s.pad.data(), s.stride.data(), s.dilation.data(),
                                      CUDNN_CROSS_CORRELATION, compute) != CUDNN_STATUS_SUCCESS) return;
  if (cudnnSetConvolutionGroupCount(conv, s.groups) != CUDNN_STATUS_SUCCESS) return;
  if (cudnnSetConvolutionMathType(conv, s.math) != CUDNN_STATUS_SUCCESS) return;
  y_dims.assign(nd + 2, 0);
  if (cudnnGetConvolutionNdForwardOutputDim(conv, x, w, nd + 2, y_dims.data()) != CUDNN_STATUS_SUCCESS) return;
  y_strides = strides_for(y_dims, s.layout);
  if (cudnnSetTensorNdDescriptor(y, s.data_type, nd + 2, y_dims.data(), y_strides.data()) != CUDNN_STATUS_SUCCESS) return;
  ok = true;
}

ConvProblem::~ConvProblem() {
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroyTensorDescriptor(y);
  cudnnDestroyFilterDescriptor(w);
  cudnnDestroyConvolutionDescriptor(conv);
}

DeviceArray::DeviceArray(std::size_t elements, cudnnDataType_t type) : elements_(elements), type_(type) {
  if (cudaMalloc(&data_, elements * size_of(type)) != cudaSuccess) data_ = nullptr;
}

DeviceArray::~DeviceArray() {
  if (data_) cudaFree(data_);
}

void DeviceArray::fill_random(std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  if (is_16_bit(type_)) {
    std::vector<std::uint16_t> host(elements_);
    for (auto& v : host) v = type_ == CUDNN_DATA_HALF ? float_to_half(dist(rng)) : float_to_bfloat16(dist(rng));
    cudaMemcpy(data_, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
  } else {
    std::vector<float> host(elements_);
    for (auto& v : host) v = dist(rng);
    cudaMemcpy(data_, host.data(), host.size() * 4, cudaMemcpyHostToDevice);
  }
}

void DeviceArray::copy_from(const DeviceArray& other) {
  cudaMemcpy(data_, other.data_, elements_ * size_of(type_), cudaMemcpyDeviceToDevice);
}

std::vector<float> DeviceArray::download() const {
  std::vector<float> out(elements_);
  if (is_16_bit(type_)) {
    std::vector<std::uint16_t> host(elements_);
    cudaMemcpy(host.data(), data_, host.size() * 2, cudaMemcpyDeviceToHost);
    for (std::size_t i = 0; i < host.size(); ++i) {
      out[i] = type_ == CUDNN_DATA_HALF ? half_to_float(host[i]) : bfloat16_to_float(host[i]);
    }
  } else {
    cudaMemcpy(out.data(), data_, out.size() * 4, cudaMemcpyDeviceToHost);
  }
  return out;
}

ConvSpec random_spec(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ConvSpec s;
  const bool three_d = pick(0, 99) < 15;
  const int nd = three_d ? 2 + 1 : 2;
  s.n = three_d ? pick(1, 16) : pick(1, 64);
  static const int kGroups[] = {1, 1, 2, 4};
  s.groups = kGroups[pick(0, 3)];
  s.c = s.groups * pick(1, 8);
  s.k = s.groups * pick(1, 8);
  for (int i = 0; i < nd; ++i) {
    const int f = three_d ? pick(1, 3) : pick(1, 7);
    // No dilation where the filter is 1 wide (it changes nothing there), and no padding beyond the
    // dilated filter's reach: cuDNN 9.14's own heuristics raise SIGFPE on the first (legacy
    // get_v7 and the engine heuristics alike, for 3-d backward data), and its backward data
    // algo 1 never finished on the second, plain cuDNN alone (docs/limits.md).
    const int d = pick(0, 4) == 0 && f > 1 ? 2 : 1;
    const int pad = std::min(pick(0, 3), (f - 1) * d);
    const int stride = pick(1, 3);
    const int min_input = std::max(4, (f - 1) * d + 1 - 2 * pad);
    s.filter.push_back(f);
    s.dilation.push_back(d);
    s.pad.push_back(pad);
    s.stride.push_back(stride);
    s.spatial.push_back(pick(min_input, std::max(min_input, three_d ? 10 : 32)));
  }
  const bool half = pick(0, 9) < 3;
  s.data_type = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  s.math = half ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  static const Layout kLayouts[] = {Layout::kNchw, Layout::kNhwc, Layout::kPaddedNchw};
  s.layout = kLayouts[pick(0, 2)];
  return s;
}

std::size_t extent(const std::vector<int>& dims, const std::vector<int>& strides) {
  std::size_t e = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) e += static_cast<std::size_t>(dims[i] - 1) * strides[i];
  return e;
}

std::size_t product(const std::vector<int>& dims) {
  std::size_t p = 1;
  for (int d : dims) p *= static_cast<std::size_t>(d);
  return p;
}

double relative_error(const std::vector<float>& a, const std::vector<float>& b, const std::vector<int>& dims,
                      const std::vector<int>& strides) {
  double max_diff = 0, max_ref = 0;
  std::vector<int> index(dims.size(), 0);
  const std::size_t total = product(dims);
  for (std::size_t n = 0; n < total; ++n) {
    std::size_t offset = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) offset += static_cast<std::size_t>(index[i]) * strides[i];
    const double diff = std::fabs(static_cast<double>(a[offset]) - b[offset]);
    if (std::isnan(diff)) return INFINITY;
    max_diff = std::max(max_diff, diff);
    max_ref = std::max(max_ref, std::fabs(static_cast<double>(b[offset])));
    for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
  return max_diff / std::max(max_ref, 1e-6);
}

}  // namespace ucudnn_test
