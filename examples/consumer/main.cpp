// The handle swap in a program of its own: one forward convolution through UcudnnHandle_t,
// checked against plain cuDNN on random data. Exits 0 when the results agree, 1 when they do
// not, and 77 (the "skipped" status of test drivers) where no GPU is visible.
#include <ucudnn/ucudnn.h>
#include <ucudnn/version.h>

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

namespace {

bool ok(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudnnGetErrorString(status));
  return false;
}

struct Conv {
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  int n = 64, c = 64, h = 56, k = 64;
};

void describe(Conv& d) {
  cudnnCreateTensorDescriptor(&d.x);
  cudnnCreateTensorDescriptor(&d.y);
  cudnnCreateFilterDescriptor(&d.w);
  cudnnCreateConvolutionDescriptor(&d.conv);
  cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d.n, d.c, d.h, d.h);
  cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d.n, d.k, d.h, d.h);
  cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, d.k, d.c, 3, 3);
  cudnnSetConvolution2dDescriptor(d.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  cudnnSetConvolutionMathType(d.conv, CUDNN_FMA_MATH);  // strict FP32: results comparable at 1e-4
}

constexpr size_t kLimit = size_t{8} << 20;  // Caffe's workspace limit per layer

// One forward convolution on `handle` (either handle type), with the first algorithm its get call
// recommends within 8 MiB, as a framework would run it; `algo` says which.
template <typename Handle>
bool forward(Handle handle, const Conv& d, const float* x, const float* w, float* y, int* algo) {
  cudnnConvolutionFwdAlgoPerf_t perf[16];
  int count = 0;
  if (!ok(cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y, 16, &count, perf), "get algorithm"))
    return false;
  const auto* chosen = std::find_if(perf, perf + count, [&](const auto& p) {
    return p.status == CUDNN_STATUS_SUCCESS && p.memory <= kLimit;
  });
  if (chosen == perf + count) return false;
  *algo = chosen->algo;
  void* workspace = nullptr;
  if (chosen->memory > 0 && cudaMalloc(&workspace, chosen->memory) != cudaSuccess) return false;
  const float one = 1.0f, zero = 0.0f;
  const bool done = ok(cudnnConvolutionForward(handle, &one, d.x, x, d.w, w, d.conv, chosen->algo, workspace,
                                               chosen->memory, &zero, d.y, y),
                       "convolution");
  cudaFree(workspace);
  return done && cudaDeviceSynchronize() == cudaSuccess;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: built against ucudnn %d; no GPU visible, nothing to run\n", UCUDNN_VERSION);
    return 77;
  }
  Conv d;
  describe(d);
  const size_t xs = size_t(d.n) * d.c * d.h * d.h, ws = size_t(d.k) * d.c * 9, ys = size_t(d.n) * d.k * d.h * d.h;
  std::vector<float> host(xs + ws);
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : host) v = uniform(rng);
  float *x = nullptr, *w = nullptr, *y_plain = nullptr, *y_ucudnn = nullptr;
  for (auto [buffer, count] : {std::pair{&x, xs}, {&w, ws}, {&y_plain, ys}, {&y_ucudnn, ys}}) {
    if (cudaMalloc(reinterpret_cast<void**>(buffer), count * sizeof(float)) != cudaSuccess) return 1;
  }
  cudaMemcpy(x, host.data(), xs * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(w, host.data() + xs, ws * 4, cudaMemcpyHostToDevice);

  cudnnHandle_t plain;
  UcudnnHandle_t handle;  // the one change a framework makes: was cudnnHandle_t
  if (!ok(cudnnCreate(&plain), "cudnnCreate") || !ok(cudnnCreate(&handle), "cudnnCreate(UcudnnHandle_t)")) return 1;
  // The get call names no limit: the handle's default is the one it plans under.
  if (!ok(ucudnnSetDefaultWorkspaceLimit(handle, kLimit), "ucudnnSetDefaultWorkspaceLimit")) return 1;
  int plain_algo = -1, ucudnn_algo = -1;
  if (!forward(plain, d, x, w, y_plain, &plain_algo) || !forward(handle, d, x, w, y_ucudnn, &ucudnn_algo)) return 1;
  if (ucudnn_algo != UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED) {
    std::fprintf(stderr, "consumer: ucudnn's get call did not offer its plan first (algorithm %d)\n", ucudnn_algo);
    return 1;
  }

  // What ucudnn runs for it: the README's plan query, as it stands there.
  const cudnnTensorDescriptor_t xDesc = d.x, yDesc = d.y;
  const cudnnFilterDescriptor_t wDesc = d.w;
  const cudnnConvolutionDescriptor_t convDesc = d.conv;
  UcudnnPlan plan;
  cudnnStatus_t status = ucudnnGetPlan(handle, UCUDNN_OP_FORWARD, xDesc, wDesc, convDesc, yDesc,
                                       UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan);
  if (!ok(status, "ucudnnGetPlan") || plan.microBatchCount() < 1 || plan.workspaceBytes > kLimit) return 1;
  std::printf("consumer: the plan runs %d micro-batches in %zu bytes of workspace\n", plan.microBatchCount(),
              plan.workspaceBytes);

  std::vector<float> a(ys), b(ys);
  cudaMemcpy(a.data(), y_plain, ys * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), y_ucudnn, ys * 4, cudaMemcpyDeviceToHost);
  float largest = 0, difference = 0;
  for (size_t i = 0; i < ys; ++i) {
    largest = std::max(largest, std::fabs(a[i]));
    difference = std::max(difference, std::fabs(a[i] - b[i]));
  }
  const float relative = difference / largest;
  std::printf("consumer: ucudnn %d ran its plan, plain cuDNN algorithm %d; max |ucudnn - cuDNN| / max |cuDNN| = %.2e\n",
              UCUDNN_VERSION, plain_algo, relative);
  cudnnDestroy(handle);
  cudnnDestroy(plain);
  return relative <= 1e-4f ? 0 : 1;
}
