#include "conv_check.h"

#include <algorithm>
#include <memory>
#include "folder_namespaces.h"

namespace ucudnn_test {
namespace {

constexpr size_t kReferenceWorkspace = size_t{512} << 20;

}  // namespace

int plain_heuristic_algo(cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op,
                         size_t workspace_limit) {
  int n = 0;
  auto first = [&](const auto* r) {
    for (int i = 0; i < n; ++i) {
      if (r[i].status == CUDNN_STATUS_SUCCESS && r[i].memory <= workspace_limit) return static_cast<int>(r[i].algo);
    }
    return -1;
  };
  if (op == UCUDNN_OP_FORWARD) {
    cudnnConvolutionFwdAlgoPerf_t r[16];
    if (cudnnGetConvolutionForwardAlgorithm_v7(plain, p.x, p.w, p.conv, p.y, 16, &n, r)) return -1;
    return first(r);
  }
  if (op == UCUDNN_OP_BACKWARD_DATA) {
    cudnnConvolutionBwdDataAlgoPerf_t r[16];
    if (cudnnGetConvolutionBackwardDataAlgorithm_v7(plain, p.w, p.y, p.conv, p.x, 16, &n, r)) return -1;
    return first(r);
  }
  cudnnConvolutionBwdFilterAlgoPerf_t r[16];
  if (cudnnGetConvolutionBackwardFilterAlgorithm_v7(plain, p.x, p.y, p.conv, p.w, 16, &n, r)) return -1;
  return first(r);
}

cudnnStatus_t plain_convolution(cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op, int algo,
                                float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                size_t workspace_bytes) {
  switch (op) {
    case UCUDNN_OP_FORWARD:
      return cudnnConvolutionForward(plain, &alpha, p.x, x, p.w, w, p.conv, static_cast<cudnnConvolutionFwdAlgo_t>(algo),
                                     workspace, workspace_bytes, &beta, p.y, y);
    case UCUDNN_OP_BACKWARD_DATA:
      return cudnnConvolutionBackwardData(plain, &alpha, p.w, w, p.y, y, p.conv,
                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace,
                                          workspace_bytes, &beta, p.x, x);
    case UCUDNN_OP_BACKWARD_FILTER:
      return cudnnConvolutionBackwardFilter(plain, &alpha, p.x, x, p.y, y, p.conv,
                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace,
                                            workspace_bytes, &beta, p.w, w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

double output_error(const ConvProblem& p, UcudnnConvolutionOp_t op, const DeviceArray& got,
                    const DeviceArray& want) {
  const std::vector<float> a = got.download(), b = want.download();
  if (op == UCUDNN_OP_FORWARD) return relative_error(a, b, p.y_dims, p.y_strides);
  if (op == UCUDNN_OP_BACKWARD_DATA) return relative_error(a, b, p.x_dims, p.x_strides);
  return relative_error(a, b, {static_cast<int>(a.size())}, {1});
}

double tolerance(const ConvSpec& spec, bool same_algorithm) {
  if (!same_algorithm) return 5e-2;
  if (spec.data_type == CUDNN_DATA_HALF) return 1e-2;
  if (spec.data_type == CUDNN_DATA_BFLOAT16) return 2e-2;
  return spec.math == CUDNN_FMA_MATH ? 1e-4 : 5e-3;
}

int micro_batched_algo(UcudnnConvolutionOp_t op) {
  switch (op) {
    case UCUDNN_OP_FORWARD: return UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED;
    case UCUDNN_OP_BACKWARD_DATA: return UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED;
    case UCUDNN_OP_BACKWARD_FILTER: return UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED;
  }
  return -1;
}

void check_op(UcudnnHandle_t handle, cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op,
              float alpha, float beta, std::mt19937& rng, OpCheck* result) {
  const cudnnDataType_t type = p.spec.data_type;
  DeviceArray x(extent(p.x_dims, p.x_strides), type), y(extent(p.y_dims, p.y_strides), type),
      w(product(p.w_dims), type);
  ASSERT_TRUE(x.get() && y.get() && w.get()) << "device allocation failed";
  x.fill_random(rng);
  y.fill_random(rng);
  w.fill_random(rng);
  // The output starts with random values in both runs (beta = 0 must ignore them).
  DeviceArray& out = op == UCUDNN_OP_FORWARD ? y : op == UCUDNN_OP_BACKWARD_DATA ? x : w;
  DeviceArray reference(out.elements(), type);
  ASSERT_TRUE(reference.get());
  reference.copy_from(out);

  // Through ucudnn, as a framework would call it: the first answer whose status is success.
  size_t bytes = 0;
  int returned = 0;
  auto first_success = [&](const auto* r) {
    for (int i = 0; i < returned; ++i) {
      if (r[i].status == CUDNN_STATUS_SUCCESS) result->least_memory = std::min(result->least_memory, r[i].memory);
    }
    for (int i = 0; i < returned; ++i) {
      if (r[i].status == CUDNN_STATUS_SUCCESS) return i;
    }
    return -1;
  };
  switch (op) {
    case UCUDNN_OP_FORWARD: {
      cudnnConvolutionFwdAlgoPerf_t r[16];
      CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, p.x, p.w, p.conv, p.y, 16, &returned, r));
      const int i = first_success(r);
      if (i < 0) return;  // neither ucudnn nor cuDNN has an algorithm
      result->first_algo = r[i].algo;
      if (result->first_algo != micro_batched_algo(op)) return;  // planning failed: the test reports it
      CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, p.x, p.w, p.conv, p.y, r[i].algo, &bytes));
      EXPECT_EQ(bytes, r[i].memory);
      DeviceArray ws(bytes / 4 + 1, CUDNN_DATA_FLOAT);
      CUDNN_OK(cudnnConvolutionForward(handle, &alpha, p.x, x.get(), p.w, w.get(), p.conv, r[i].algo, ws.get(), bytes,
                                       &beta, p.y, y.get()));
      CUDA_OK(cudaDeviceSynchronize());
      break;
    }
    case UCUDNN_OP_BACKWARD_DATA: {
      cudnnConvolutionBwdDataAlgoPerf_t r[16];
      CUDNN_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, p.w, p.y, p.conv, p.x, 16, &returned, r));
      const int i = first_success(r);
      if (i < 0) return;  // neither ucudnn nor cuDNN has an algorithm
      result->first_algo = r[i].algo;
      if (result->first_algo != micro_batched_algo(op)) return;  // planning failed: the test reports it
      CUDNN_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(handle, p.w, p.y, p.conv, p.x, r[i].algo, &bytes));
      EXPECT_EQ(bytes, r[i].memory);
      DeviceArray ws(bytes / 4 + 1, CUDNN_DATA_FLOAT);
      CUDNN_OK(cudnnConvolutionBackwardData(handle, &alpha, p.w, w.get(), p.y, y.get(), p.conv, r[i].algo, ws.get(),
                                            bytes, &beta, p.x, x.get()));
      CUDA_OK(cudaDeviceSynchronize());
      break;
    }
    case UCUDNN_OP_BACKWARD_FILTER: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[16];
      CUDNN_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, p.x, p.y, p.conv, p.w, 16, &returned, r));
      const int i = first_success(r);
      if (i < 0) return;  // neither ucudnn nor cuDNN has an algorithm
      result->first_algo = r[i].algo;
      if (result->first_algo != micro_batched_algo(op)) return;  // planning failed: the test reports it
      CUDNN_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, p.x, p.y, p.conv, p.w, r[i].algo, &bytes));
      EXPECT_EQ(bytes, r[i].memory);
      DeviceArray ws(bytes / 4 + 1, CUDNN_DATA_FLOAT);
      CUDNN_OK(cudnnConvolutionBackwardFilter(handle, &alpha, p.x, x.get(), p.y, y.get(), p.conv, r[i].algo, ws.get(),
                                              bytes, &beta, p.w, w.get()));
      CUDA_OK(cudaDeviceSynchronize());
      break;
    }
  }
  result->returned = returned;
  result->reported_workspace = bytes;
  CUDNN_OK(ucudnnGetPlan(handle, op, p.x, p.w, p.conv, p.y, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &result->plan));

  // The reference: plain cuDNN on the full batch, with the plan's own algorithm where cuDNN can
  // run it undivided (so the comparison isolates the splitting), else cuDNN's heuristic choice.
  DeviceArray workspace_ref(kReferenceWorkspace / 4, CUDNN_DATA_FLOAT);
  ASSERT_TRUE(workspace_ref.get());
  void* ref_out = reference.get();
  std::vector<int> candidates;
  if (!result->plan.runs.empty()) candidates.push_back(result->plan.runs.front().algo);
  candidates.push_back(plain_heuristic_algo(plain, p, op, kReferenceWorkspace));
  for (int algo : candidates) {
    if (algo < 0) continue;
    // The reference writes into its own copy of the output.
    void* rx = op == UCUDNN_OP_BACKWARD_DATA ? ref_out : x.get();
    void* rw = op == UCUDNN_OP_BACKWARD_FILTER ? ref_out : w.get();
    void* ry = op == UCUDNN_OP_FORWARD ? ref_out : y.get();
    if (plain_convolution(plain, p, op, algo, alpha, beta, rx, rw, ry, workspace_ref.get(), kReferenceWorkspace) ==
        CUDNN_STATUS_SUCCESS) {
      result->reference_ran = true;
      result->same_algorithm = true;
      for (const auto& run : result->plan.runs) result->same_algorithm &= run.algo == algo;
      break;
    }
  }
  CUDA_OK(cudaDeviceSynchronize());
  if (!result->reference_ran) return;  // plain cuDNN cannot run it either
  result->error = output_error(p, op, out, reference);
}

}  // namespace ucudnn_test
