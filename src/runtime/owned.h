#pragma once
// Ownership of C resources (cuDNN descriptors and handles, CUDA events, streams and graphs) through one deleter
// template: Owned<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor> is a unique_ptr that
// calls the library's destroy function. Destroy results are ignored: a destructor has nobody to
// report to.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <type_traits>

#include "runtime/cuda_status.h"

namespace ucudnn::runtime {

namespace detail {
/// Calls `Destroy` on a non-null handle.
template <auto Destroy>
struct Deleter {
  template <typename T>
  void operator()(T* handle) const {
    if (handle) (void)Destroy(handle);
  }
};
}  // namespace detail

/// An owning `Handle` (a C library's opaque pointer type) destroyed by `Destroy`.
template <typename Handle, auto Destroy>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, detail::Deleter<Destroy>>;

using TensorDescriptor = Owned<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = Owned<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = Owned<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;
using BackendDescriptor = Owned<cudnnBackendDescriptor_t, cudnnBackendDestroyDescriptor>;
// ucudnn.h overloads cudnnDestroy for its own handle: name cuDNN's.
using CudnnHandle = Owned<cudnnHandle_t, static_cast<cudnnStatus_t (*)(cudnnHandle_t)>(cudnnDestroy)>;
using CudaEvent = Owned<cudaEvent_t, cudaEventDestroy>;
using CudaStream = Owned<cudaStream_t, cudaStreamDestroy>;
using CudaGraph = Owned<cudaGraph_t, cudaGraphDestroy>;
/// Destroying one that is still running is allowed: CUDA frees it when the launch completes.
using CudaGraphExec = Owned<cudaGraphExec_t, cudaGraphExecDestroy>;

/// A new event on the current device (cudaEventCreateWithFlags).
inline Status create_event(unsigned flags, CudaEvent* out) {
  cudaEvent_t raw = nullptr;
  UCUDNN_CHECK_CUDA(cudaEventCreateWithFlags(&raw, flags));
  out->reset(raw);
  return Status::success();
}

}  // namespace ucudnn::runtime
