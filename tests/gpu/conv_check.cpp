#include "conv_check.h"

#include <memory>

namespace ucudnn_test {
namespace {

constexpr size_t kReferenceWorkspace = size_t{512} << 20;

// Plain cuDNN's answer: the first heuristic algorithm that succeeds within the reference workspace.
template <typename Perf>
int first_fitting(const Perf* results, int count) {
  for (int i = 0; i < count; ++i) {
    if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= kReferenceWorkspace) {
      return static_cast<int>(results[i].algo);
    }
  }
  return -1;
}

}  // namespace

double tolerance(const ConvSpec& spec, bool same_algorithm) {
  if (!same_algorithm) return 5e-2;
  if (spec.data_type == CUDNN_DATA_HALF) return 1e-2;
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
  switch (op) {
    case UCUDNN_OP_FORWARD: {
      cudnnConvolutionFwdAlgoPerf_t r[16];
      int n = 0;
      CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(plain, p.x, p.w, p.conv, p.y, 16, &n, r));
      candidates.push_back(first_fitting(r, n));
      break;
    }
    case UCUDNN_OP_BACKWARD_DATA: {
      cudnnConvolutionBwdDataAlgoPerf_t r[16];
      int n = 0;
      CUDNN_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(plain, p.w, p.y, p.conv, p.x, 16, &n, r));
      candidates.push_back(first_fitting(r, n));
      break;
    }
    case UCUDNN_OP_BACKWARD_FILTER: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[16];
      int n = 0;
      CUDNN_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(plain, p.x, p.y, p.conv, p.w, 16, &n, r));
      candidates.push_back(first_fitting(r, n));
      break;
    }
  }
  for (int algo : candidates) {
    if (algo < 0) continue;
    cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
    switch (op) {
      case UCUDNN_OP_FORWARD:
        status = cudnnConvolutionForward(plain, &alpha, p.x, x.get(), p.w, w.get(), p.conv,
                                         static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace_ref.get(),
                                         kReferenceWorkspace, &beta, p.y, ref_out);
        break;
      case UCUDNN_OP_BACKWARD_DATA:
        status = cudnnConvolutionBackwardData(plain, &alpha, p.w, w.get(), p.y, y.get(), p.conv,
                                              static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace_ref.get(),
                                              kReferenceWorkspace, &beta, p.x, ref_out);
        break;
      case UCUDNN_OP_BACKWARD_FILTER:
        status = cudnnConvolutionBackwardFilter(plain, &alpha, p.x, x.get(), p.y, y.get(), p.conv,
                                                static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo),
                                                workspace_ref.get(), kReferenceWorkspace, &beta, p.w, ref_out);
        break;
    }
    if (status == CUDNN_STATUS_SUCCESS) {
      result->reference_ran = true;
      result->same_algorithm = true;
      for (const auto& run : result->plan.runs) result->same_algorithm &= run.algo == algo;
      break;
    }
  }
  CUDA_OK(cudaDeviceSynchronize());
  if (!result->reference_ran) return;  // plain cuDNN cannot run it either


  const std::vector<float> got = out.download();
  const std::vector<float> want = reference.download();
  if (op == UCUDNN_OP_BACKWARD_FILTER) {
    result->error = relative_error(got, want, {static_cast<int>(got.size())}, {1});
  } else if (op == UCUDNN_OP_FORWARD) {
    result->error = relative_error(got, want, p.y_dims, p.y_strides);
  } else {
    result->error = relative_error(got, want, p.x_dims, p.x_strides);
  }
}

}  // namespace ucudnn_test
