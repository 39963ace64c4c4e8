// Workspace division on the GPU: a small network (AlexNet's conv2..conv5 at batch 64, every op)
// under one budget. The framework allocates no workspace, the results equal plain cuDNN, the
// device memory taken for workspaces stays within the budget, and a kernel first seen after the
// division makes a new one.

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "conv_check.h"

namespace ucudnn_test {
namespace {

constexpr size_t kBudget = size_t{48} << 20;  // 4 MiB per kernel for 12 kernels

std::vector<ConvSpec> small_network() {
  std::vector<ConvSpec> layers;
  const int shapes[][5] = {{96, 27, 256, 5, 2}, {256, 13, 384, 3, 1}, {384, 13, 384, 3, 1}, {384, 13, 256, 3, 1}};
  for (const auto& l : shapes) {
    ConvSpec s = square_conv_2d(64, l[0], l[2], l[1], l[3], l[4]);
    s.math = CUDNN_DEFAULT_MATH;
    layers.push_back(s);
  }
  return layers;
}

class WorkspaceDivisionGpu : public GpuTest {
 protected:
  void TearDown() override { ucudnnSetTotalWorkspaceSize(0); }  // back to WR for the other tests
};

// Runs one op through ucudnn with no framework workspace, and plain cuDNN with the plan's
// algorithm; returns the relative error.
double run_and_compare(UcudnnHandle_t handle, cudnnHandle_t plain, const ConvProblem& p, UcudnnConvolutionOp_t op,
                       std::mt19937& rng, UcudnnPlan* plan) {
  OpTensors t(p, op);
  t.fill_random(rng);
  const float alpha = 1.0f, beta = 0.0f;
  const cudnnStatus_t s = ucudnn_convolution(handle, p, op, micro_batched_algo(op), alpha, beta, t.x.get(), t.w.get(),
                                             t.y.get(), nullptr, 0);
  EXPECT_EQ(s, CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();
  EXPECT_EQ(ucudnnGetPlan(handle, op, p.x, p.w, p.conv, p.y, UCUDNN_WORKSPACE_LIMIT_DEFAULT, plan),
            CUDNN_STATUS_SUCCESS);
  const size_t ref_bytes = size_t{512} << 20;
  DeviceArray ws(ref_bytes / 4, CUDNN_DATA_FLOAT);
  EXPECT_EQ(t.run_reference(plain, plan->runs.at(0).algo, alpha, beta, ws.get(), ref_bytes), CUDNN_STATUS_SUCCESS);
  cudaDeviceSynchronize();
  return t.error();
}

// Frameworks call ucudnnOptimize after set-up whatever the mode: in WR mode it does nothing.
TEST_F(WorkspaceDivisionGpu, OptimizeInWrModeSucceedsAndDividesNothing) {
  ASSERT_EQ(ucudnnSetTotalWorkspaceSize(0), CUDNN_STATUS_SUCCESS);
  UcudnnHandle_t handle;
  CUDNN_OK(cudnnCreate(&handle));
  CUDNN_OK(ucudnnSetCandidates(handle, UCUDNN_CANDIDATES_LEGACY));  // the reference runs the plan's algorithms
  ConvProblem p(small_network().front());
  ASSERT_TRUE(p.ok);
  cudnnConvolutionFwdAlgoPerf_t f[4];
  int n = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, p.x, p.w, p.conv, p.y, 4, &n, f));
  UcudnnWorkspaceDivisionInfo before, after;
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(handle, &before));
  EXPECT_EQ(ucudnnOptimize(handle), CUDNN_STATUS_SUCCESS);
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(handle, &after));
  EXPECT_EQ(after.optimizations, before.optimizations);
  EXPECT_EQ(after.bufferBytes, before.bufferBytes);
  EXPECT_EQ(after.budgetBytes, 0u);
  EXPECT_EQ(ucudnnOptimize(UcudnnHandle_t()), CUDNN_STATUS_BAD_PARAM) << "a null handle is still an error";
  CUDNN_OK(cudnnDestroy(handle));
}

TEST_F(WorkspaceDivisionGpu, SmallNetworkStaysExactWithinTheBudget) {
  ASSERT_EQ(ucudnnSetTotalWorkspaceSize(64), CUDNN_STATUS_BAD_PARAM) << "64 bytes is surely a mistake";
  ASSERT_EQ(ucudnnSetTotalWorkspaceSize(kBudget), CUDNN_STATUS_SUCCESS);
  cudnnHandle_t plain;
  CUDNN_OK(cudnnCreate(&plain));
  UcudnnHandle_t handle;
  CUDNN_OK(cudnnCreate(&handle));
  CUDNN_OK(ucudnnSetCandidates(handle, UCUDNN_CANDIDATES_LEGACY));  // the reference runs the plan's algorithms
  std::mt19937 rng(fresh_seed());

  std::vector<std::unique_ptr<ConvProblem>> layers;
  for (const ConvSpec& spec : small_network()) {
    layers.push_back(std::make_unique<ConvProblem>(spec));
    ASSERT_TRUE(layers.back()->ok);
  }
  // Collection: get calls register the kernels; the framework is told to allocate nothing.
  for (const auto& p : layers) {
    cudnnConvolutionFwdAlgoPerf_t f[4];
    cudnnConvolutionBwdDataAlgoPerf_t d[4];
    cudnnConvolutionBwdFilterAlgoPerf_t b[4];
    int n = 0;
    size_t bytes = 1;
    CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle, p->x, p->w, p->conv, p->y, 4, &n, f));
    ASSERT_EQ(n, 1);
    EXPECT_EQ(f[0].memory, 0u);
    CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(handle, p->x, p->w, p->conv, p->y, f[0].algo, &bytes));
    EXPECT_EQ(bytes, 0u);
    CUDNN_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, p->w, p->y, p->conv, p->x, 4, &n, d));
    EXPECT_EQ(d[0].algo, UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED);
    CUDNN_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, p->x, p->y, p->conv, p->w, 4, &n, b));
    EXPECT_EQ(b[0].algo, UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED);
  }

  CUDA_OK(cudaDeviceSynchronize());
  size_t free_before = 0, free_after = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  CUDNN_OK(ucudnnOptimize(handle));
  CUDA_OK(cudaMemGetInfo(&free_after, &total));
  UcudnnWorkspaceDivisionInfo info;
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(handle, &info));
  const long long taken = static_cast<long long>(free_before) - static_cast<long long>(free_after);
  std::printf("[ wd     ] %d kernels, %d variables solved in %.3f ms; buffer %zu B of %zu; device memory taken %lld B; "
              "%.3f ms predicted\n",
              info.kernels, info.variables, info.solveMs, info.bufferBytes, kBudget, taken, info.predictedTimeMs);
  EXPECT_EQ(info.kernels, 12);
  EXPECT_GT(info.variables, 12);
  EXPECT_LE(info.bufferBytes, kBudget);
  EXPECT_LE(taken, static_cast<long long>(kBudget) + (2 << 20)) << "cudaMalloc rounds to 2 MiB pages";

  int split = 0;
  for (const auto& p : layers) {
    for (int op = 0; op < 3; ++op) {
      UcudnnPlan plan;
      const double error = run_and_compare(handle, plain, *p, static_cast<UcudnnConvolutionOp_t>(op), rng, &plan);
      EXPECT_LE(error, tolerance(p->spec, true)) << p->spec.describe() << " op " << op;
      split += plan.microBatchCount() > 1;
    }
  }
  std::printf("[ wd     ] %d of 12 kernels split\n", split);
  EXPECT_GT(split, 0) << "4 MiB per kernel on average should make some kernels split";
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(handle, &info));
  EXPECT_EQ(info.optimizations, 1) << "calls for known kernels change nothing";

  // A kernel first seen now: a new division, and the results stay right.
  ConvSpec late = small_network()[1];
  late.n = 32;
  ConvProblem p(late);
  ASSERT_TRUE(p.ok);
  UcudnnPlan plan;
  EXPECT_LE(run_and_compare(handle, plain, p, UCUDNN_OP_FORWARD, rng, &plan), tolerance(late, true));
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(handle, &info));
  EXPECT_EQ(info.optimizations, 2);
  EXPECT_EQ(info.kernels, 13);
  EXPECT_LE(info.bufferBytes, kBudget);
  cudnnDestroy(handle);
  cudnnDestroy(plain);
}

// Identical kernels share a segment: a call on a second stream waits (on the GPU, through an event)
// for the first stream's use of the segment. Layer ids give identical kernels segments of their own.
TEST_F(WorkspaceDivisionGpu, SharedSegmentIsOrderedAcrossStreamsAndLayerIdsSeparateIt) {
  ASSERT_EQ(ucudnnSetTotalWorkspaceSize(kBudget), CUDNN_STATUS_SUCCESS);
  UcudnnHandle_t first, second;
  CUDNN_OK(cudnnCreate(&first));
  CUDNN_OK(cudnnCreate(&second));
  CUDNN_OK(ucudnnSetCandidates(first, UCUDNN_CANDIDATES_LEGACY));
  CUDNN_OK(ucudnnSetCandidates(second, UCUDNN_CANDIDATES_LEGACY));
  cudaStream_t a, b;
  CUDA_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  CUDNN_OK(cudnnSetStream(first, a));
  CUDNN_OK(cudnnSetStream(second, b));
  ConvProblem p(small_network()[1]);
  ASSERT_TRUE(p.ok);
  std::mt19937 rng(fresh_seed());
  DeviceArray x(extent(p.x_dims, p.x_strides), CUDNN_DATA_FLOAT), w(product(p.w_dims), CUDNN_DATA_FLOAT),
      y1(extent(p.y_dims, p.y_strides), CUDNN_DATA_FLOAT), y2(extent(p.y_dims, p.y_strides), CUDNN_DATA_FLOAT);
  x.fill_random(rng);
  w.fill_random(rng);
  const float alpha = 1.0f, beta = 0.0f;
  const auto algo = UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED;
  // Plan first (outside the timed part), so that the calls below only enqueue work.
  CUDNN_OK(cudnnConvolutionForward(first, &alpha, p.x, x.get(), p.w, w.get(), p.conv, algo, nullptr, 0, &beta, p.y,
                                   y1.get()));
  CUDA_OK(cudaDeviceSynchronize());

  std::atomic<bool> released{false};
  CUDA_OK(cudaLaunchHostFunc(
      a,
      [](void* flag) {
        while (!static_cast<std::atomic<bool>*>(flag)->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      &released));
  CUDNN_OK(cudnnConvolutionForward(first, &alpha, p.x, x.get(), p.w, w.get(), p.conv, algo, nullptr, 0, &beta, p.y,
                                   y1.get()));
  CUDNN_OK(cudnnConvolutionForward(second, &alpha, p.x, x.get(), p.w, w.get(), p.conv, algo, nullptr, 0, &beta, p.y,
                                   y2.get()));
  cudaEvent_t b_done;
  CUDA_OK(cudaEventCreate(&b_done));
  CUDA_OK(cudaEventRecord(b_done, b));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(cudaEventQuery(b_done), cudaErrorNotReady) << "stream b used the shared segment while a still held it";
  released = true;
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(y1.download(), y2.download()) << "same inputs, same plan: bitwise the same";

  UcudnnWorkspaceDivisionInfo before, after;
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(first, &before));
  CUDNN_OK(ucudnnSetLayerId(second, 7));
  CUDNN_OK(cudnnConvolutionForward(second, &alpha, p.x, x.get(), p.w, w.get(), p.conv, algo, nullptr, 0, &beta, p.y,
                                   y2.get()));
  CUDA_OK(cudaDeviceSynchronize());
  CUDNN_OK(ucudnnGetWorkspaceDivisionInfo(second, &after));
  EXPECT_EQ(after.kernels, before.kernels + 1) << "layer 7 gets a segment of its own";
  // The new division may choose another configuration (another algorithm) for layer 7.
  EXPECT_LE(relative_error(y2.download(), y1.download(), p.y_dims, p.y_strides), tolerance(p.spec, false));
  cudaEventDestroy(b_done);
  cudnnDestroy(first);
  cudnnDestroy(second);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

}  // namespace
}  // namespace ucudnn_test
