#include "runtime/cudnn_shim.h"

namespace ucudnn::runtime {
namespace {

template <typename Perf>
void append(const Perf* results, int count, std::vector<AlgoPerf>* out) {
  out->clear();
  for (int i = 0; i < count; ++i) {
    AlgoPerf p;
    p.algo = static_cast<int>(results[i].algo);
    p.status = results[i].status;
    p.time_ms = results[i].time;
    p.memory = results[i].memory;
    p.determinism = results[i].determinism;
    p.math_type = results[i].mathType;
    out->push_back(p);
  }
}

// Room for every algorithm of every op, with every math type cuDNN may list separately.
constexpr int kMaxResults = 32;

}  // namespace

Status get_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out) {
  int count = 0;
  switch (op) {
    case ConvOp::kForward: {
      cudnnConvolutionFwdAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(
          cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv, d.x, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(
          cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, d.x, d.y, d.conv, d.w, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
  }
  return Status::success();
}

Status find_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out) {
  int count = 0;
  switch (op) {
    case ConvOp::kForward: {
      cudnnConvolutionFwdAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithm(handle, d.x, d.w, d.conv, d.y, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(
          cudnnFindConvolutionBackwardDataAlgorithm(handle, d.w, d.y, d.conv, d.x, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(
          cudnnFindConvolutionBackwardFilterAlgorithm(handle, d.x, d.y, d.conv, d.w, kMaxResults, &count, r));
      append(r, count, out);
      break;
    }
  }
  return Status::success();
}

Status find_algorithms_ex(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, const ConvBuffers& b,
                          void* workspace, std::size_t workspace_bytes, std::vector<AlgoPerf>* out) {
  int count = 0;
  switch (op) {
    case ConvOp::kForward: {
      cudnnConvolutionFwdAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, b.x, d.w, b.w, d.conv, d.y, b.y,
                                                                kMaxResults, &count, r, workspace, workspace_bytes));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardData: {
      cudnnConvolutionBwdDataAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(cudnnFindConvolutionBackwardDataAlgorithmEx(
          handle, d.w, b.w, d.y, b.y, d.conv, d.x, b.x, kMaxResults, &count, r, workspace, workspace_bytes));
      append(r, count, out);
      break;
    }
    case ConvOp::kBackwardFilter: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[kMaxResults];
      UCUDNN_CHECK_CUDNN(cudnnFindConvolutionBackwardFilterAlgorithmEx(
          handle, d.x, b.x, d.y, b.y, d.conv, d.w, b.w, kMaxResults, &count, r, workspace, workspace_bytes));
      append(r, count, out);
      break;
    }
  }
  return Status::success();
}

Status workspace_size(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, int algo, std::size_t* bytes) {
  switch (op) {
    case ConvOp::kForward:
      UCUDNN_CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(handle, d.x, d.w, d.conv, d.y,
                                                                 static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes));
      break;
    case ConvOp::kBackwardData:
      UCUDNN_CHECK_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes));
      break;
    case ConvOp::kBackwardFilter:
      UCUDNN_CHECK_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle, d.x, d.y, d.conv, d.w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes));
      break;
  }
  return Status::success();
}

Status convolve(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, int algo, const void* alpha,
                const ConvBuffers& b, void* workspace, std::size_t workspace_bytes, const void* beta) {
  switch (op) {
    case ConvOp::kForward:
      UCUDNN_CHECK_CUDNN(cudnnConvolutionForward(handle, alpha, d.x, b.x, d.w, b.w, d.conv,
                                                 static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace,
                                                 workspace_bytes, beta, d.y, b.y));
      break;
    case ConvOp::kBackwardData:
      UCUDNN_CHECK_CUDNN(cudnnConvolutionBackwardData(handle, alpha, d.w, b.w, d.y, b.y, d.conv,
                                                      static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace,
                                                      workspace_bytes, beta, d.x, b.x));
      break;
    case ConvOp::kBackwardFilter:
      UCUDNN_CHECK_CUDNN(cudnnConvolutionBackwardFilter(handle, alpha, d.x, b.x, d.y, b.y, d.conv,
                                                        static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace,
                                                        workspace_bytes, beta, d.w, b.w));
      break;
  }
  return Status::success();
}

Status transform_tensor(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* x,
                        const void* beta, cudnnTensorDescriptor_t y_desc, void* y) {
  UCUDNN_CHECK_CUDNN(cudnnTransformTensor(handle, alpha, x_desc, x, beta, y_desc, y));
  return Status::success();
}

}  // namespace ucudnn::runtime
