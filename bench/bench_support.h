#pragma once
// What the GPU benchmark programs share: failing with one line, checked CUDA/cuDNN calls, owned
// device memory, and asking ucudnn for its plan as a framework does.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "ucudnn/ucudnn.h"

namespace bench {

inline const char* const kOpNames[] = {"fwd", "bwdd", "bwdf"};

/// The program's name in error lines; main sets it first.
inline const char* program_name = "ucudnn benchmark";

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", program_name, what.c_str());
  std::exit(1);
}
inline void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) fail(std::string(what) + ": " + cudnnGetErrorString(s) + " " + ucudnnGetLastErrorMessage());
}
inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}

struct DeviceMemory {
  void* ptr = nullptr;
  explicit DeviceMemory(size_t bytes) {
    if (bytes) check(cudaMalloc(&ptr, bytes), "cudaMalloc");
  }
  ~DeviceMemory() {
    if (ptr) cudaFree(ptr);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
};

/// ucudnn as a framework calls it: get_v7 (planning happens there), then the workspace size of its
/// first answer. `Conv` has the descriptors x, w, conv and y in forward naming.
template <typename Conv>
int ucudnn_choice(UcudnnHandle_t h, const Conv& c, int op, size_t* ws) {
  int returned = 0;
  if (op == 0) {
    cudnnConvolutionFwdAlgoPerf_t r[16];
    check(cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv, c.y, 16, &returned, r),
          "cudnnGetConvolutionForwardAlgorithm_v7");
    if (returned < 1) fail("cudnnGetConvolutionForwardAlgorithm_v7 returned no algorithm");
    check(cudnnGetConvolutionForwardWorkspaceSize(h, c.x, c.w, c.conv, c.y, r[0].algo, ws),
          "cudnnGetConvolutionForwardWorkspaceSize");
    return r[0].algo;
  }
  if (op == 1) {
    cudnnConvolutionBwdDataAlgoPerf_t r[16];
    check(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, c.w, c.y, c.conv, c.x, 16, &returned, r),
          "cudnnGetConvolutionBackwardDataAlgorithm_v7");
    if (returned < 1) fail("cudnnGetConvolutionBackwardDataAlgorithm_v7 returned no algorithm");
    check(cudnnGetConvolutionBackwardDataWorkspaceSize(h, c.w, c.y, c.conv, c.x, r[0].algo, ws),
          "cudnnGetConvolutionBackwardDataWorkspaceSize");
    return r[0].algo;
  }
  cudnnConvolutionBwdFilterAlgoPerf_t r[16];
  check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, c.x, c.y, c.conv, c.w, 16, &returned, r),
        "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  if (returned < 1) fail("cudnnGetConvolutionBackwardFilterAlgorithm_v7 returned no algorithm");
  check(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, c.x, c.y, c.conv, c.w, r[0].algo, ws),
        "cudnnGetConvolutionBackwardFilterWorkspaceSize");
  return r[0].algo;
}

/// One convolution call, bound to a handle (cuDNN's or ucudnn's), a descriptor, an algorithm and a
/// workspace. `Tensors` has the descriptors x, w, y and their memory x_mem, w_mem, y_mem (forward
/// naming), and must outlive the call.
template <typename Handle, typename Tensors>
std::function<void()> make_launch(Handle handle, const Tensors& t, cudnnConvolutionDescriptor_t conv, int op, int algo,
                                  void* ws, size_t ws_bytes) {
  static const float one = 1.0f, zero = 0.0f;
  return [=, &t]() {
    switch (op) {
      case 0:
        check(cudnnConvolutionForward(handle, &one, t.x, t.x_mem->ptr, t.w, t.w_mem->ptr, conv,
                                      static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes, &zero, t.y,
                                      t.y_mem->ptr),
              "cudnnConvolutionForward");
        break;
      case 1:
        check(cudnnConvolutionBackwardData(handle, &one, t.w, t.w_mem->ptr, t.y, t.y_mem->ptr, conv,
                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws, ws_bytes, &zero, t.x,
                                           t.x_mem->ptr),
              "cudnnConvolutionBackwardData");
        break;
      default:
        check(cudnnConvolutionBackwardFilter(handle, &one, t.x, t.x_mem->ptr, t.y, t.y_mem->ptr, conv,
                                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws, ws_bytes, &zero,
                                             t.w, t.w_mem->ptr),
              "cudnnConvolutionBackwardFilter");
    }
  };
}

}  // namespace bench
