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

// Each op lists its algorithms in a struct type of its own: `list(results, &count)` fills an array
// of `Perf`, read into `out`. `name` is cuDNN's function, for the error.
template <typename Perf, typename List>
Status read_listing(const char* name, std::vector<AlgoPerf>* out, List list) {
  Perf results[kMaxResults];
  int count = 0;
  const cudnnStatus_t status = list(results, &count);
  if (status != CUDNN_STATUS_SUCCESS) return cudnn_error(status, name, __FILE__, __LINE__);
  append(results, count, out);
  return Status::success();
}

// cuDNN's measured listing (`find`, Find*) and its heuristic one (`get`, Get*_v7) take the same
// arguments, so one call serves both.
template <typename Perf, typename Find, typename Get, typename... Args>
Status find_or_get(bool measure, Find find, const char* find_name, Get get, const char* get_name,
                   std::vector<AlgoPerf>* out, Args... args) {
  return read_listing<Perf>(measure ? find_name : get_name, out, [&](Perf* results, int* count) {
    return measure ? find(args..., kMaxResults, count, results) : get(args..., kMaxResults, count, results);
  });
}
#define UCUDNN_FIND_OR_GET(find, get) find, #find, get, #get

Status list_algorithms(bool measure, cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d,
                       std::vector<AlgoPerf>* out) {
  switch (op) {
    case ConvOp::kForward:
      return find_or_get<cudnnConvolutionFwdAlgoPerf_t>(
          measure, UCUDNN_FIND_OR_GET(cudnnFindConvolutionForwardAlgorithm, cudnnGetConvolutionForwardAlgorithm_v7),
          out, handle, d.x, d.w, d.conv, d.y);
    case ConvOp::kBackwardData:
      return find_or_get<cudnnConvolutionBwdDataAlgoPerf_t>(
          measure,
          UCUDNN_FIND_OR_GET(cudnnFindConvolutionBackwardDataAlgorithm, cudnnGetConvolutionBackwardDataAlgorithm_v7),
          out, handle, d.w, d.y, d.conv, d.x);
    case ConvOp::kBackwardFilter:
      return find_or_get<cudnnConvolutionBwdFilterAlgoPerf_t>(
          measure,
          UCUDNN_FIND_OR_GET(cudnnFindConvolutionBackwardFilterAlgorithm,
                             cudnnGetConvolutionBackwardFilterAlgorithm_v7),
          out, handle, d.x, d.y, d.conv, d.w);
  }
  return Status::success();
}
#undef UCUDNN_FIND_OR_GET

}  // namespace

Status get_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out) {
  return list_algorithms(false, handle, op, d, out);
}

Status find_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out) {
  return list_algorithms(true, handle, op, d, out);
}

Status find_algorithms_ex(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, const ConvBuffers& b,
                          void* workspace, std::size_t workspace_bytes, std::vector<AlgoPerf>* out) {
  switch (op) {
    case ConvOp::kForward:
      return read_listing<cudnnConvolutionFwdAlgoPerf_t>(
          "cudnnFindConvolutionForwardAlgorithmEx", out, [&](auto* r, int* count) {
            return cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, b.x, d.w, b.w, d.conv, d.y, b.y, kMaxResults,
                                                          count, r, workspace, workspace_bytes);
          });
    case ConvOp::kBackwardData:
      return read_listing<cudnnConvolutionBwdDataAlgoPerf_t>(
          "cudnnFindConvolutionBackwardDataAlgorithmEx", out, [&](auto* r, int* count) {
            return cudnnFindConvolutionBackwardDataAlgorithmEx(handle, d.w, b.w, d.y, b.y, d.conv, d.x, b.x,
                                                               kMaxResults, count, r, workspace, workspace_bytes);
          });
    case ConvOp::kBackwardFilter:
      return read_listing<cudnnConvolutionBwdFilterAlgoPerf_t>(
          "cudnnFindConvolutionBackwardFilterAlgorithmEx", out, [&](auto* r, int* count) {
            return cudnnFindConvolutionBackwardFilterAlgorithmEx(handle, d.x, b.x, d.y, b.y, d.conv, d.w, b.w,
                                                                 kMaxResults, count, r, workspace, workspace_bytes);
          });
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

Status set_tensor(cudnnHandle_t handle, cudnnTensorDescriptor_t y_desc, void* y, const void* value) {
  UCUDNN_CHECK_CUDNN(cudnnSetTensor(handle, y_desc, y, value));
  return Status::success();
}

}  // namespace ucudnn::runtime
