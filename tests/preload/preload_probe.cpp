// An "unmodified program" for the LD_PRELOAD layer: it knows nothing of ucudnn and links only
// cuDNN. It prints, one `key=value` per line, which library defines the convolution calls it
// makes and what they return; tests run it with and without LD_PRELOAD=libucudnn_preload.so.
// With a GPU it also runs a convolution that a small workspace makes worth splitting, with the
// algorithm cuDNN's get call answers or, with PROBE_FIXED_ALGO=N, algorithm N.

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// cudnnCreate as a program calls it, printed; a failed one is tried once more, as programs that
// retry (or make one handle per device) do, so that tests see what the layer says each time.
cudnnStatus_t create(cudnnHandle_t* handle) {
  const cudnnStatus_t status = cudnnCreate(handle);
  std::printf("create=%s\n", cudnnGetErrorString(status));
  if (status != CUDNN_STATUS_SUCCESS) std::printf("create_again=%s\n", cudnnGetErrorString(cudnnCreate(handle)));
  return status;
}

const char* defining_library(void* function) {
  Dl_info info{};
  if (!dladdr(function, &info) || !info.dli_fname) return "?";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

// AlexNet conv3 at batch 64: with 16 MiB of workspace, micro-batches pay off (about 2x on an H100).
int convolve_on_gpu() {
  cudnnHandle_t handle = nullptr;
  cudnnStatus_t status = create(&handle);
  if (status != CUDNN_STATUS_SUCCESS) return 0;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnCreateTensorDescriptor(&x);
  cudnnCreateTensorDescriptor(&y);
  cudnnCreateFilterDescriptor(&w);
  cudnnCreateConvolutionDescriptor(&conv);
  cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 64, 256, 13, 13);
  cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 384, 256, 3, 3);
  cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 64, 384, 13, 13);
  const size_t x_count = 64ull * 256 * 13 * 13, w_count = 384ull * 256 * 9, y_count = 64ull * 384 * 13 * 13;
  std::vector<float> host_x(x_count), host_w(w_count), host_y(y_count);
  unsigned state = 12345;  // the same inputs in every run, so runs can be compared
  auto next = [&state] { return ((state = state * 1664525u + 1013904223u) >> 8) * (1.0f / 16777216.0f) - 0.5f; };
  for (auto& v : host_x) v = next();
  for (auto& v : host_w) v = next();
  void *dx = nullptr, *dw = nullptr, *dy = nullptr;
  void* workspace = nullptr;
  const size_t limit = size_t{16} << 20;
  cudaMalloc(&dx, x_count * 4);
  cudaMalloc(&dw, w_count * 4);
  cudaMalloc(&dy, y_count * 4);
  cudaMemcpy(dx, host_x.data(), x_count * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dw, host_w.data(), w_count * 4, cudaMemcpyHostToDevice);

  int algo = -1;
  if (const char* fixed = std::getenv("PROBE_FIXED_ALGO")) {
    // As Darknet's half precision: an algorithm fixed in the source, no get or find call.
    algo = std::atoi(fixed);
    std::printf("fixed_algo=%d\n", algo);
  } else {
    // As a framework with a 16 MiB limit: the fastest answer that fits.
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int returned = 0;
    status = cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 16, &returned, perf);
    std::printf("get_v7=%s\n", cudnnGetErrorString(status));
    for (int i = 0; i < returned; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= limit) {
        algo = perf[i].algo;
        break;
      }
    }
    std::printf("first_algo=%d\nalgo_count=%d\n", returned ? static_cast<int>(perf[0].algo) : -1,
                static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT));
  }
  size_t bytes = 0;
  status = cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                                   &bytes);
  std::printf("workspace_size=%s\nworkspace_bytes=%zu\n", cudnnGetErrorString(status), bytes);
  if (bytes) cudaMalloc(&workspace, bytes);
  const float one = 1.0f, zero = 0.0f;
  status = cudnnConvolutionForward(handle, &one, x, dx, w, dw, conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                   workspace, bytes, &zero, y, dy);
  std::printf("forward=%s\n", cudnnGetErrorString(status));
  cudaMemcpy(host_y.data(), dy, y_count * 4, cudaMemcpyDeviceToHost);
  double sum = 0, sum_abs = 0;
  for (float v : host_y) {
    sum += v;
    sum_abs += v < 0 ? -v : v;
  }
  std::printf("output_sum=%.9g\noutput_sum_abs=%.9g\n", sum, sum_abs);
  cudaFree(workspace);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
  std::printf("destroy=%s\n", cudnnGetErrorString(cudnnDestroy(handle)));
  return 0;
}

}  // namespace

int main() {
  std::printf("forward_defined_in=%s\n", defining_library(reinterpret_cast<void*>(&cudnnConvolutionForward)));
  std::printf("create_defined_in=%s\n", defining_library(reinterpret_cast<void*>(&cudnnCreate)));
  std::printf("version_defined_in=%s\n", defining_library(reinterpret_cast<void*>(&cudnnGetVersion)));
  // Calls on a handle the layer did not make pass through: cuDNN answers a null handle itself.
  size_t bytes = 0;
  std::printf("null_handle_workspace=%s\n",
              cudnnGetErrorString(cudnnGetConvolutionForwardWorkspaceSize(
                  nullptr, nullptr, nullptr, nullptr, nullptr, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, &bytes)));
  std::printf("null_handle_forward=%s\n",
              cudnnGetErrorString(cudnnConvolutionForward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                          nullptr, CUDNN_CONVOLUTION_FWD_ALGO_GEMM, nullptr, 0,
                                                          nullptr, nullptr, nullptr)));
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudnnHandle_t handle = nullptr;
    create(&handle);  // no GPU: an error, not a crash
    std::printf("gpu=none\n");
    return 0;
  }
  std::printf("gpu=yes\n");
  return convolve_on_gpu();
}
