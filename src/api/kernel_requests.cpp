#include "api/kernel_requests.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "runtime/cuda_status.h"
#include "runtime/descriptors.h"

namespace ucudnn::api {
using runtime::KernelRequest;

namespace {

// The handle's settings as the planner reads them, once per call.
void read_settings(const UcudnnContext* context, KernelRequest* request) {
  request->handle = context->cudnn();
  request->policy = context->policy.load();
  request->candidates = context->candidates.load();
  request->layer_id = context->layer_id.load();
}

// The handle's stream; a caller capturing it into a CUDA graph of its own gets no benchmark
// (timing would break the capture) and no replay; `replay` otherwise as the handle says.
Status read_stream(const UcudnnContext* context, cudnnHandle_t handle, bool replay, KernelRequest* request) {
  UCUDNN_CHECK_CUDNN(cudnnGetStream(handle, &request->stream));
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t queried = cudaStreamIsCapturing(request->stream, &capture);
  if (queried != cudaSuccess) {
    (void)cudaGetLastError();  // not left for the caller's next error check to find
    return runtime::cuda_error(queried, "cudaStreamIsCapturing", __FILE__, __LINE__);
  }
  const bool capturing = capture != cudaStreamCaptureStatusNone;
  request->may_benchmark = !capturing;
  request->may_replay = replay && !capturing && context->graph_replay.load(std::memory_order_relaxed);
  return Status::success();
}

}  // namespace

Expected<KernelRequest> kernel_request(UcudnnContext* context, const ConvCall& call) {
  KernelRequest request;
  UCUDNN_TRY(runtime::read_conv_key(call.op, context->device, call.descriptors, &request.key));
  read_settings(context, &request);
  return request;
}

Expected<KernelRequest> query_request(UcudnnContext* context, const ConvCall& call,
                                      std::optional<std::size_t> named_limit) {
  UCUDNN_TRY_ASSIGN(KernelRequest request, kernel_request(context, call));
  request.requested_limit = context->requested_limit_for(named_limit);
  context->remember_limit(request.key, request.requested_limit);
  return request;
}

Expected<KernelRequest> remembered_request(UcudnnContext* context, const ConvCall& call) {
  UCUDNN_TRY_ASSIGN(KernelRequest request, kernel_request(context, call));
  request.requested_limit =
      context->remembered(request.key).requested_limit.value_or(context->requested_limit_for(std::nullopt));
  return request;
}

Status complete_convolution_request(UcudnnContext* context, const UcudnnContext::Remembered& remembered,
                                    std::size_t workspace_bytes, KernelRequest* request) {
  request->available_limit = context->requested_limit_for(workspace_bytes);
  request->requested_limit = remembered.requested_limit.value_or(request->available_limit);
  return read_stream(context, context->cudnn(), /*replay=*/true, request);
}

Status graph_workspace_request(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                               KernelRequest* request) {
  request->key = key;
  read_settings(context, request);
  request->requested_limit = limit;
  return read_stream(context, handle, /*replay=*/false, request);
}

Status graph_run_request(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                         std::size_t workspace_bytes, KernelRequest* request) {
  request->key = key;
  read_settings(context, request);
  request->handle = handle;
  request->requested_limit = limit;
  request->available_limit = context->requested_limit_for(workspace_bytes);
  return read_stream(context, handle, /*replay=*/true, request);
}

}  // namespace ucudnn::api
