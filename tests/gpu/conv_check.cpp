#include "conv_check.h"

#include <algorithm>
#include <memory>

#include "fp64_reference.h"

namespace ucudnn_test {
namespace {

constexpr size_t kReferenceWorkspace = size_t{512} << 20;

// One answer of a get_v7 call, of any op.
struct Answer {
  int algo;
  cudnnStatus_t status;
  size_t memory;
};

// cudnnGetConvolution*Algorithm_v7 of `op`, up to 16 answers (kept only where the call succeeds).
// `Handle` picks the call: plain cuDNN's for a cudnnHandle_t, ucudnn's overload for a UcudnnHandle_t.
template <typename Handle>
cudnnStatus_t get_v7(Handle handle, const ConvProblem& p, UcudnnConvolutionOp_t op, std::vector<Answer>* answers) {
  int returned = 0;
  auto keep = [&](cudnnStatus_t status, const auto* r) {
    for (int i = 0; status == CUDNN_STATUS_SUCCESS && i < returned; ++i) {
      answers->push_back({static_cast<int>(r[i].algo), r[i].status, r[i].memory});
    }
    return status;
  };
  switch (op) {
    case UCUDNN_OP_FORWARD: {
      cudnnConvolutionFwdAlgoPerf_t r[16];
      return keep(cudnnGetConvolutionForwardAlgorithm_v7(handle, p.x, p.w, p.conv, p.y, 16, &returned, r), r);
    }
    case UCUDNN_OP_BACKWARD_DATA: {
      cudnnConvolutionBwdDataAlgoPerf_t r[16];
      return keep(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, p.w, p.y, p.conv, p.x, 16, &returned, r), r);
    }
    case UCUDNN_OP_BACKWARD_FILTER: {
      cudnnConvolutionBwdFilterAlgoPerf_t r[16];
      return keep(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, p.x, p.y, p.conv, p.w, 16, &returned, r), r);
    }
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// cudnnGetConvolution*WorkspaceSize of `op` through ucudnn.
cudnnStatus_t ucudnn_workspace_size(UcudnnHandle_t handle, const ConvProblem& p, UcudnnConvolutionOp_t op, int algo,
                                    size_t* bytes) {
  switch (op) {
    case UCUDNN_OP_FORWARD:
      return cudnnGetConvolutionForwardWorkspaceSize(handle, p.x, p.w, p.conv, p.y,
                                                     static_cast<cudnnConvolutionFwdAlgo_t>(algo), bytes);
    case UCUDNN_OP_BACKWARD_DATA:
      return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, p.w, p.y, p.conv, p.x,
                                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), bytes);
    case UCUDNN_OP_BACKWARD_FILTER:
      return cudnnGetConvolutionBackwardFilterWorkspaceSize(handle, p.x, p.y, p.conv, p.w,
                                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), bytes);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// cudnnConvolution{Forward,BackwardData,BackwardFilter} of `op` (x, w, y in forward naming);
// `Handle` picks the call as in get_v7.
template <typename Handle>
cudnnStatus_t convolution(Handle handle, const ConvProblem& p, UcudnnConvolutionOp_t op, int algo, float alpha,
                          float beta, void* x, void* w, void* y, void* workspace, size_t workspace_bytes) {
  switch (op) {
    case UCUDNN_OP_FORWARD:
      return cudnnConvolutionForward(handle, &alpha, p.x, x, p.w, w, p.conv,
                                     static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace, workspace_bytes, &beta,
                                     p.y, y);
    case UCUDNN_OP_BACKWARD_DATA:
      return cudnnConvolutionBackwardData(handle, &alpha, p.w, w, p.y, y, p.conv,
                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace, workspace_bytes,
                                          &beta, p.x, x);
    case UCUDNN_OP_BACKWARD_FILTER:
      return cudnnConvolutionBackwardFilter(handle, &alpha, p.x, x, p.y, y, p.conv,
                                            static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace,
                                            workspace_bytes, &beta, p.w, w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

size_t output_elements(const ConvProblem& p, UcudnnConvolutionOp_t op) {
  if (op == UCUDNN_OP_FORWARD) return extent(p.y_dims, p.y_strides);
  if (op == UCUDNN_OP_BACKWARD_DATA) return extent(p.x_dims, p.x_strides);
  return product(p.w_dims);
}

}  // namespace

int plain_heuristic_algo(cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op,
                         size_t workspace_limit) {
  std::vector<Answer> answers;
  if (get_v7(plain, p, op, &answers) != CUDNN_STATUS_SUCCESS) return -1;
  for (const Answer& a : answers) {
    if (a.status == CUDNN_STATUS_SUCCESS && a.memory <= workspace_limit) return a.algo;
  }
  return -1;
}

cudnnStatus_t plain_convolution(cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op, int algo,
                                float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                size_t workspace_bytes) {
  return convolution(plain, p, op, algo, alpha, beta, x, w, y, workspace, workspace_bytes);
}

cudnnStatus_t ucudnn_convolution(UcudnnHandle_t handle, const ConvProblem& p, UcudnnConvolutionOp_t op, int algo,
                                 float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                 size_t workspace_bytes) {
  return convolution(handle, p, op, algo, alpha, beta, x, w, y, workspace, workspace_bytes);
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

OpTensors::OpTensors(const ConvProblem& p, UcudnnConvolutionOp_t op)
    : problem(p),
      op(op),
      x(extent(p.x_dims, p.x_strides), p.spec.data_type),
      y(extent(p.y_dims, p.y_strides), p.spec.data_type),
      w(product(p.w_dims), p.spec.data_type),
      reference(output_elements(p, op), p.spec.data_type) {}

bool OpTensors::allocated() const { return x.get() && y.get() && w.get(); }

void OpTensors::fill_random(std::mt19937& rng) {
  x.fill_random(rng);
  y.fill_random(rng);
  w.fill_random(rng);
  reference.copy_from(output());
}

DeviceArray& OpTensors::output() { return op == UCUDNN_OP_FORWARD ? y : op == UCUDNN_OP_BACKWARD_DATA ? x : w; }

const DeviceArray& OpTensors::output() const {
  return op == UCUDNN_OP_FORWARD ? y : op == UCUDNN_OP_BACKWARD_DATA ? x : w;
}

cudnnStatus_t OpTensors::run_reference(cudnnHandle_t plain, int algo, float alpha, float beta, void* workspace,
                                       size_t workspace_bytes) {
  void* rx = op == UCUDNN_OP_BACKWARD_DATA ? reference.get() : x.get();
  void* rw = op == UCUDNN_OP_BACKWARD_FILTER ? reference.get() : w.get();
  void* ry = op == UCUDNN_OP_FORWARD ? reference.get() : y.get();
  return plain_convolution(plain, problem, op, algo, alpha, beta, rx, rw, ry, workspace, workspace_bytes);
}

double OpTensors::error() const { return output_error(problem, op, output(), reference); }

::testing::AssertionResult conv_key_of(const ConvProblem& p, UcudnnConvolutionOp_t op, ucudnn::ConvKey* key) {
  const ucudnn::Status read =
      ucudnn::runtime::read_conv_key(static_cast<ucudnn::ConvOp>(op), 0, {p.x, p.w, p.conv, p.y}, key);
  if (read.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "read_conv_key: " << read.message();
}

std::vector<ReferenceKernel> reference_kernels(cudnnHandle_t plain, const ConvProblem& problem,
                                               size_t workspace_limit) {
  std::vector<ReferenceKernel> kernels;
  for (const auto op : {UCUDNN_OP_FORWARD, UCUDNN_OP_BACKWARD_DATA, UCUDNN_OP_BACKWARD_FILTER}) {
    const int algo = plain_heuristic_algo(plain, problem, op, workspace_limit);
    if (algo < 0) continue;
    ucudnn::ConvKey key;
    const auto read = conv_key_of(problem, op, &key);
    EXPECT_TRUE(read);
    if (read) kernels.push_back({op, algo, key});
  }
  return kernels;
}

::testing::AssertionResult conv_key_of(const ConvSpec& spec, UcudnnConvolutionOp_t op, ucudnn::ConvKey* key) {
  const ConvProblem problem(spec);
  if (!problem.ok) return ::testing::AssertionFailure() << "cuDNN refused " << spec.describe();
  return conv_key_of(problem, op, key);
}

ucudnn::optimize::MicroBatchRun run_of(int size, int algo, cudnnMathType_t math, const std::string& engine) {
  ucudnn::Measurement row;
  row.candidate = engine.empty() ? ucudnn::Candidate::legacy(algo, static_cast<int>(math))
                                 : ucudnn::Candidate::engine(engine, static_cast<int>(math));
  row.micro_batch = size;
  return ucudnn::optimize::MicroBatchRun{row, 1, 0.0};
}

ucudnn::optimize::MicroBatchSplit random_split(int n, const ucudnn::Candidate& candidate, std::mt19937& rng) {
  ucudnn::optimize::MicroBatchSplit split;
  split.batch = n;
  const bool divide = n > 1 && std::uniform_int_distribution<int>(0, 1)(rng) == 1;
  for (int left = n; left > 0;) {
    const int size = divide ? std::uniform_int_distribution<int>(1, left == n ? left - 1 : left)(rng) : left;
    ucudnn::optimize::MicroBatchRun run;
    run.row.candidate = candidate;
    run.row.micro_batch = size;
    run.count = 1;
    split.runs.push_back(run);
    left -= size;
  }
  return split;
}

void random_precision(std::mt19937& rng, ConvSpec* spec) {
  const int type = std::uniform_int_distribution<int>(0, 9)(rng);
  if (type < 4) {
    spec->data_type = type < 2 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    spec->math = CUDNN_DEFAULT_MATH;
  } else {
    spec->data_type = CUDNN_DATA_FLOAT;
    spec->math = type < 7 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  }
}

::testing::AssertionResult build_plan(const ucudnn::ConvKey& key, size_t workspace_limit,
                                      const ucudnn::optimize::MicroBatchSplit& split,
                                      std::unique_ptr<ucudnn::runtime::ExecutablePlan>* plan) {
  const ucudnn::Status built = ucudnn::runtime::ExecutablePlan::build(
      key, workspace_limit, ucudnn::BatchSizePolicy::kAll, split, std::nullopt, plan);
  if (built.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "ExecutablePlan::build: " << built.message();
}

void check_op(UcudnnHandle_t handle, cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op,
              float alpha, float beta, std::mt19937& rng, OpCheck* result) {
  OpTensors t(p, op);
  ASSERT_TRUE(t.allocated()) << "device allocation failed";
  ASSERT_TRUE(t.reference.get());
  // The output starts with random values in both runs (beta = 0 must ignore them).
  t.fill_random(rng);

  // Through ucudnn, as a framework would call it: the first answer whose status is success.
  std::vector<Answer> answers;
  CUDNN_OK(get_v7(handle, p, op, &answers));
  for (const Answer& a : answers) {
    if (a.status == CUDNN_STATUS_SUCCESS) result->least_memory = std::min(result->least_memory, a.memory);
  }
  const auto first =
      std::find_if(answers.begin(), answers.end(), [](const Answer& a) { return a.status == CUDNN_STATUS_SUCCESS; });
  if (first == answers.end()) return;  // neither ucudnn nor cuDNN has an algorithm
  result->first_algo = first->algo;
  if (result->first_algo != micro_batched_algo(op)) return;  // planning failed: the test reports it
  size_t bytes = 0;
  CUDNN_OK(ucudnn_workspace_size(handle, p, op, first->algo, &bytes));
  EXPECT_EQ(bytes, first->memory);
  DeviceArray ws(bytes / 4 + 1, CUDNN_DATA_FLOAT);
  CUDNN_OK(
      ucudnn_convolution(handle, p, op, first->algo, alpha, beta, t.x.get(), t.w.get(), t.y.get(), ws.get(), bytes));
  CUDA_OK(cudaDeviceSynchronize());
  result->returned = static_cast<int>(answers.size());
  result->reported_workspace = bytes;
  CUDNN_OK(ucudnnGetPlan(handle, op, p.x, p.w, p.conv, p.y, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &result->plan));

  // The reference: plain cuDNN on the full batch, with the plan's own algorithm where cuDNN can
  // run it undivided (so the comparison isolates the splitting), else cuDNN's heuristic choice.
  DeviceArray workspace_ref(kReferenceWorkspace / 4, CUDNN_DATA_FLOAT);
  ASSERT_TRUE(workspace_ref.get());
  std::vector<int> candidates;
  if (!result->plan.runs.empty()) candidates.push_back(result->plan.runs.front().algo);
  candidates.push_back(plain_heuristic_algo(plain, p, op, kReferenceWorkspace));
  for (int algo : candidates) {
    if (algo < 0) continue;
    // The reference writes into its own copy of the output.
    if (t.run_reference(plain, algo, alpha, beta, workspace_ref.get(), kReferenceWorkspace) == CUDNN_STATUS_SUCCESS) {
      result->reference_ran = true;
      result->same_algorithm = true;
      for (const auto& run : result->plan.runs) result->same_algorithm &= run.algo == algo;
      break;
    }
  }
  CUDA_OK(cudaDeviceSynchronize());
  if (!result->reference_ran) return;  // plain cuDNN cannot run it either
  result->error = t.error();
}

SplitRun run_split_checked(cudnnHandle_t plain, const ucudnn::ConvKey& key,
                           const ucudnn::optimize::MicroBatchSplit& split, OpTensors& t, const DeviceArray& start,
                           const float* scale, double tolerance, const std::vector<double>& want, void* workspace) {
  SplitRun result;
  std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan;
  if (!build_plan(key, kAmpleWorkspace, split, &plan)) return result;
  t.output().copy_from(start);
  const ucudnn::Status ran =
      plan->execute(plain, &scale[0], &scale[1], {t.x.get(), t.w.get(), t.y.get()}, workspace, kAmpleWorkspace);
  if (!ran.ok()) return result;
  result.ran = true;
  if (cudaDeviceSynchronize() != cudaSuccess) {
    ADD_FAILURE() << "the split's calls failed on the GPU";
    return result;
  }
  EXPECT_LE(t.error(), tolerance);
  if (!want.empty()) {
    const double undivided_error =
        std::max(error_against(t.reference.download(), want), accuracy_floor(t.problem.spec));
    const double split_error = error_against(t.output().download(), want);
    EXPECT_LE(split_error, 2 * undivided_error) << "FP64 bound";
    result.fp64_ratio = split_error / undivided_error;
  }
  return result;
}

}  // namespace ucudnn_test
