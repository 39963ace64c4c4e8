// Convolutions whose workspace limit makes splitting pay, and the behaviour of the intercepted
// API around them: find results, the cuDNN 7 preference calls, first-use planning, streams.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "conv_check.h"
#include "core/statistics.h"

namespace ucudnn_test {
namespace {

constexpr size_t kLimit = size_t{16} << 20;

// AlexNet's conv3 (and conv2) at batch 64, FP32 with cuDNN's default math as frameworks run it:
// undivided, only IMPLICIT_GEMM fits 16 MiB; on micro-batches of 16 or fewer,
// IMPLICIT_PRECOMP_GEMM fits and is about twice as fast (recorded H100 table).
ConvSpec alexnet_conv3() {
  ConvSpec s = square_conv_2d(64, 256, 384, 13, 3, 1);
  s.math = CUDNN_DEFAULT_MATH;
  return s;
}

ConvSpec alexnet_conv2() {
  ConvSpec s = alexnet_conv3();
  s.c = 96;
  s.k = 256;
  s.spatial = {27, 27};
  s.filter = {5, 5};
  s.pad = {2, 2};
  return s;
}

// Plain cuDNN forward on the full batch with a given algorithm and ample workspace.
void plain_forward(cudnnHandle_t plain, const ConvProblem& p, int algo, const DeviceArray& x, const DeviceArray& w,
                   float alpha, float beta, DeviceArray* y) {
  const size_t bytes = size_t{512} << 20;
  DeviceArray ws(bytes / 4, CUDNN_DATA_FLOAT);
  ASSERT_TRUE(ws.get());
  CUDNN_OK(cudnnConvolutionForward(plain, &alpha, p.x, x.get(), p.w, w.get(), p.conv,
                                   static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws.get(), bytes, &beta, p.y,
                                   y->get()));
  CUDA_OK(cudaDeviceSynchronize());
}

class SplitPlans : public UcudnnTest {
 protected:
  void SetUp() override {
    UcudnnTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(ucudnnSetDefaultWorkspaceLimit(handle_, kLimit), CUDNN_STATUS_SUCCESS);
    // These tests are about splitting, with legacy algorithms the reference can run too; a graph
    // engine may need no split under the same limit (tests/gpu/test_engine_plans.cpp).
    ASSERT_EQ(ucudnnSetCandidates(handle_, UCUDNN_CANDIDATES_LEGACY), CUDNN_STATUS_SUCCESS);
  }
};

TEST_F(SplitPlans, LimitForcesSplitAndEveryOpStaysExact) {
  std::mt19937 rng(fresh_seed());
  struct Case {
    ConvSpec spec;
    UcudnnConvolutionOp_t op;
    bool must_pay;  ///< splitting pays at this limit whatever the host's pace
  };
  // Every case runs within the limit and stays exact; that the plan splits and pays (`must_pay`) is
  // asserted only where it does whatever the host's pace. The planner counts each call's host time
  // (50-200 us per legacy call, as measured on the H100 from run to run), so a split of short calls
  // pays only on a quiet host: conv3 backward filter (4 x 16 at 0.06-0.08 ms of GPU time against
  // 0.71 undivided) split in every run until one beside three busy GPUs, where it did not. conv3
  // forward and backward data are at the same edge (tests/gpu/test_forced_splits.cpp checks split
  // backward data for exactness).
  const Case cases[] = {
      {alexnet_conv3(), UCUDNN_OP_BACKWARD_FILTER, false},
      {alexnet_conv2(), UCUDNN_OP_FORWARD, true},
      {alexnet_conv2(), UCUDNN_OP_BACKWARD_FILTER, true},
  };
  for (const Case& c : cases) {
    ConvProblem problem(c.spec);
    ASSERT_TRUE(problem.ok);
    for (const auto& scale : kScales) {
      SCOPED_TRACE(c.spec.describe() + " op " + std::to_string(c.op) + " beta " + std::to_string(scale[1]));
      OpCheck check;
      check_op(handle_, plain_, problem, c.op, scale[0], scale[1], rng, &check);
      ASSERT_FALSE(HasFatalFailure());
      ASSERT_TRUE(check.reference_ran);
      if (c.must_pay) {
        EXPECT_GT(check.plan.microBatchCount(), 1) << "a 16 MiB limit should make splitting pay here";
        EXPECT_LT(check.plan.predictedTimeMs, check.plan.undividedTimeMs);
      } else {
        EXPECT_LE(check.plan.predictedTimeMs, check.plan.undividedTimeMs);
      }
      EXPECT_LE(check.plan.workspaceBytes, kLimit);
      EXPECT_TRUE(check.same_algorithm);
      EXPECT_LE(check.error, tolerance(c.spec, check.same_algorithm));
      std::printf("[ split  ] %s op %d: %d micro-batches, %.3f ms predicted vs %.3f undivided, %zu B, error %.2e\n",
                  c.spec.describe().c_str(), c.op, check.plan.microBatchCount(), check.plan.predictedTimeMs,
                  check.plan.undividedTimeMs, check.plan.workspaceBytes, check.error);
    }
  }
}

TEST_F(SplitPlans, UndividedPolicyNeverSplits) {
  ASSERT_EQ(ucudnnSetBatchSizePolicy(handle_, UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED), CUDNN_STATUS_SUCCESS);
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  UcudnnPlan plan;
  CUDNN_OK(ucudnnGetPlan(handle_, UCUDNN_OP_FORWARD, p.x, p.w, p.conv, p.y, kLimit, &plan));
  ASSERT_EQ(plan.runs.size(), 1u);
  EXPECT_EQ(plan.runs[0].size, 64);
  EXPECT_EQ(plan.runs[0].count, 1);
  EXPECT_LE(plan.workspaceBytes, kLimit);
}

TEST_F(SplitPlans, FindExListsThePlanFirstThenRealAlgorithmsWithinTheLimit) {
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  std::mt19937 rng(fresh_seed());
  DeviceArray x(extent(p.x_dims, p.x_strides), CUDNN_DATA_FLOAT), y(extent(p.y_dims, p.y_strides), CUDNN_DATA_FLOAT),
      w(product(p.w_dims), CUDNN_DATA_FLOAT), ws(kLimit / 4, CUDNN_DATA_FLOAT);
  x.fill_random(rng);
  w.fill_random(rng);
  cudnnConvolutionFwdAlgoPerf_t results[8];
  int returned = 0;
  CUDNN_OK(cudnnFindConvolutionForwardAlgorithmEx(handle_, p.x, x.get(), p.w, w.get(), p.conv, p.y, y.get(), 8,
                                                  &returned, results, ws.get(), kLimit));
  ASSERT_GE(returned, 2);
  ASSERT_LE(returned, 8);
  EXPECT_EQ(results[0].algo, UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);
  EXPECT_EQ(results[0].status, CUDNN_STATUS_SUCCESS);
  EXPECT_GT(results[0].time, 0.0f);
  EXPECT_LE(results[0].memory, kLimit);
  for (int i = 1; i < returned; ++i) {
    EXPECT_LT(static_cast<int>(results[i].algo), CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
    EXPECT_LE(results[i].memory, kLimit);
    EXPECT_LE(results[0].time, results[i].time) << "the plan is never slower than a single algorithm";
    if (i > 1) {
      EXPECT_LE(results[i - 1].time, results[i].time);
    }
  }
  // A smaller requested count is honoured.
  CUDNN_OK(cudnnFindConvolutionForwardAlgorithmEx(handle_, p.x, x.get(), p.w, w.get(), p.conv, p.y, y.get(), 1,
                                                  &returned, results, ws.get(), kLimit));
  EXPECT_EQ(returned, 1);
}

TEST_F(SplitPlans, LegacyPreferenceCallsHonourTheirLimit) {
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  cudnnConvolutionFwdAlgo_t algo;
  size_t bytes = 1;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm(handle_, p.x, p.w, p.conv, p.y, CUDNN_CONVOLUTION_FWD_NO_WORKSPACE, 0,
                                               &algo));
  EXPECT_EQ(algo, UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);
  CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(handle_, p.x, p.w, p.conv, p.y, algo, &bytes));
  EXPECT_EQ(bytes, 0u);

  cudnnConvolutionBwdFilterAlgo_t filter_algo;
  const size_t limit = size_t{4} << 20;
  CUDNN_OK(cudnnGetConvolutionBackwardFilterAlgorithm(handle_, p.x, p.y, p.conv, p.w,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT, limit,
                                                      &filter_algo));
  EXPECT_EQ(filter_algo, UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED);
  CUDNN_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(handle_, p.x, p.y, p.conv, p.w, filter_algo, &bytes));
  EXPECT_LE(bytes, limit);
  // A real algorithm's workspace is cuDNN's own answer.
  size_t plain_bytes = 0, ucudnn_bytes = 1;
  CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(plain_, p.x, p.w, p.conv, p.y,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &plain_bytes));
  CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(handle_, p.x, p.w, p.conv, p.y,
                                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, &ucudnn_bytes));
  EXPECT_EQ(plain_bytes, ucudnn_bytes);
}

TEST_F(SplitPlans, ConvolutionNeverQueriedIsPlannedOnFirstUse) {
  ConvSpec spec = alexnet_conv2();
  spec.n = 48;  // a key no other test has planned
  ConvProblem p(spec);
  ASSERT_TRUE(p.ok);
  std::mt19937 rng(fresh_seed());
  OpTensors t(p, UCUDNN_OP_FORWARD);
  DeviceArray ws(kLimit / 4, CUDNN_DATA_FLOAT);
  t.x.fill_random(rng);
  t.w.fill_random(rng);
  t.y.fill_random(rng);
  t.reference.copy_from(t.y);
  const float alpha = 1.0f, beta = 0.5f;
  // A framework that hard-codes IMPLICIT_GEMM and a 16 MiB workspace, never asking ucudnn.
  CUDNN_OK(cudnnConvolutionForward(handle_, &alpha, p.x, t.x.get(), p.w, t.w.get(), p.conv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws.get(), kLimit, &beta, p.y, t.y.get()));
  CUDA_OK(cudaDeviceSynchronize());
  UcudnnPlan plan;
  CUDNN_OK(ucudnnGetPlan(handle_, UCUDNN_OP_FORWARD, p.x, p.w, p.conv, p.y, kLimit, &plan));
  ASSERT_FALSE(plan.runs.empty());
  plain_forward(plain_, p, plan.runs[0].algo, t.x, t.w, alpha, beta, &t.reference);
  EXPECT_LE(t.error(), tolerance(spec, true));
  EXPECT_LE(plan.workspaceBytes, kLimit);
  EXPECT_GT(plan.microBatchCount(), 1);
}

// A framework that was offered the plan but keeps to a real algorithm (PyTorch filtering for
// deterministic algorithms, say) gets that algorithm on the whole batch, not a split plan.
TEST_F(SplitPlans, RealAlgorithmChosenOverTheOfferedPlanRunsUnsplit) {
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  cudnnConvolutionFwdAlgoPerf_t perf[16];
  int returned = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, 16, &returned, perf));
  ASSERT_GT(returned, 0);
  ASSERT_EQ(perf[0].algo, UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);
  std::mt19937 rng(fresh_seed());
  OpTensors t(p, UCUDNN_OP_FORWARD);
  t.x.fill_random(rng);
  t.w.fill_random(rng);
  t.y.fill_random(rng);
  t.reference.copy_from(t.y);
  const float alpha = 1.0f, beta = 0.5f;
  UcudnnStatistics before, after;
  CUDNN_OK(ucudnnGetStatistics(&before));
  CUDNN_OK(cudnnConvolutionForward(handle_, &alpha, p.x, t.x.get(), p.w, t.w.get(), p.conv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta, p.y, t.y.get()));
  CUDA_OK(cudaDeviceSynchronize());
  CUDNN_OK(ucudnnGetStatistics(&after));
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].plainCalls - before.op[UCUDNN_OP_FORWARD].plainCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].splitCalls, before.op[UCUDNN_OP_FORWARD].splitCalls);
  // The same deterministic algorithm on the same data: the same result.
  plain_forward(plain_, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, t.x, t.w, alpha, beta, &t.reference);
  EXPECT_LE(t.error(), 1e-6);
}

// The plan runs on the stream set through the implicit cast, without waiting on the host: the
// stream is held by a host callback that the test releases only after the convolution returned.
TEST_F(SplitPlans, RunsOnTheHandleStreamWithoutHostSynchronisation) {
  ConvProblem p(alexnet_conv2());  // splits 8 ways at 16 MiB, saving far more than the host's time
  ASSERT_TRUE(p.ok);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDNN_OK(cudnnSetStream(handle_, stream));  // a non-intercepted cuDNN call, through the cast
  cudaStream_t seen = nullptr;
  CUDNN_OK(cudnnGetStream(handle_, &seen));
  EXPECT_EQ(seen, stream);

  std::mt19937 rng(fresh_seed());
  OpTensors t(p, UCUDNN_OP_FORWARD);
  DeviceArray ws(kLimit / 4, CUDNN_DATA_FLOAT);
  t.x.fill_random(rng);
  t.w.fill_random(rng);
  cudnnConvolutionFwdAlgoPerf_t r[4];
  int returned = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, 4, &returned, r));  // plans now
  UcudnnPlan plan;
  CUDNN_OK(ucudnnGetPlan(handle_, UCUDNN_OP_FORWARD, p.x, p.w, p.conv, p.y, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan));
  ASSERT_GT(plan.microBatchCount(), 1);

  struct Gate {
    std::atomic<bool> released{false};
    std::atomic<bool> timed_out{false};
  } gate;
  CUDA_OK(cudaLaunchHostFunc(
      stream,
      [](void* arg) {
        auto* g = static_cast<Gate*>(arg);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!g->released.load()) {
          if (std::chrono::steady_clock::now() > deadline) {
            g->timed_out = true;
            return;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      },
      &gate));
  const float alpha = 1.0f, beta = 0.0f;
  CUDNN_OK(cudnnConvolutionForward(handle_, &alpha, p.x, t.x.get(), p.w, t.w.get(), p.conv, r[0].algo, ws.get(),
                                   r[0].memory, &beta, p.y, t.y.get()));
  gate.released = true;  // only now may the stream run the convolution
  CUDA_OK(cudaStreamSynchronize(stream));
  EXPECT_FALSE(gate.timed_out.load()) << "cudnnConvolutionForward waited for the stream";

  plain_forward(plain_, p, plan.runs[0].algo, t.x, t.w, alpha, beta, &t.reference);
  EXPECT_LE(t.error(), tolerance(p.spec, true));
  CUDNN_OK(cudnnSetStream(handle_, nullptr));
  cudaStreamDestroy(stream);
}

// A split whose micro-batches save GPU time but cost the host about as much (conv3 forward at
// 16 MiB: 4 x 0.07 ms against 0.87 ms, with 0.07-0.2 ms of host time per legacy call): whether
// issued calls split depends on the host's pace, but replayed calls are planned on GPU time
// alone, so the split shows in `runs` or in `replayedRuns`, recurring calls run it, and every
// call matches plain cuDNN.
TEST_F(SplitPlans, HostBoundSplitIsReplayedAndExact) {
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  std::mt19937 rng(fresh_seed());
  OpTensors t(p, UCUDNN_OP_FORWARD);
  cudnnConvolutionFwdAlgoPerf_t r[4];
  int returned = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, 4, &returned, r));
  ASSERT_EQ(r[0].algo, UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);
  UcudnnPlan plan;
  CUDNN_OK(ucudnnGetPlan(handle_, UCUDNN_OP_FORWARD, p.x, p.w, p.conv, p.y, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan));
  int replayed_calls = plan.microBatchCount();
  if (!plan.replayedRuns.empty()) {
    replayed_calls = 0;
    for (const UcudnnPlanRun& run : plan.replayedRuns) {
      replayed_calls += run.count;
      EXPECT_LE(run.workspaceBytes, plan.workspaceBytes) << "the plan asks for the replay plan's workspace too";
    }
  }
  std::printf("[ split  ] conv3 forward: %d calls issued, %d replayed, %zu B\n", plan.microBatchCount(), replayed_calls,
              plan.workspaceBytes);
  EXPECT_GT(replayed_calls, 1) << "on GPU time alone 4 x 16 is about 3x faster than undivided";
  EXPECT_LE(plan.workspaceBytes, kLimit);
  EXPECT_EQ(r[0].memory, plan.workspaceBytes);

  DeviceArray ws(std::max<size_t>(r[0].memory, 4) / 4 + 1, CUDNN_DATA_FLOAT);
  t.w.fill_random(rng);
  const float alpha = 1.0f, beta = 0.0f;
  const auto stats = [] { return ucudnn::Statistics::instance().read(ucudnn::ConvOp::kForward); };
  const auto before = stats();
  for (int call = 0; call < 3; ++call) {  // direct, captured and launched, launched
    t.x.fill_random(rng);  // fresh data every call: a graph must read it
    CUDNN_OK(cudnnConvolutionForward(handle_, &alpha, p.x, t.x.get(), p.w, t.w.get(), p.conv, r[0].algo, ws.get(),
                                     r[0].memory, &beta, p.y, t.y.get()));
    plain_forward(plain_, p, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, t.x, t.w, alpha, beta, &t.reference);
    EXPECT_LE(t.error(), tolerance(p.spec, false)) << "call " << call;
  }
  const auto after = stats();
  EXPECT_EQ(after.replayed_calls - before.replayed_calls, 2);
  EXPECT_EQ(after.split_calls - before.split_calls, (plan.microBatchCount() > 1 ? 1 : 0) + 2)
      << "the direct call runs `runs`, the two replayed calls the split";
}

// Frameworks capture training steps into CUDA graphs: a planned convolution records its
// micro-batch calls into the graph, and an unplanned one inside a capture runs as plain cuDNN
// instead of benchmarking (which would break the capture).
TEST_F(SplitPlans, CapturesIntoACudaGraph) {
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDNN_OK(cudnnSetStream(handle_, stream));
  std::mt19937 rng(fresh_seed());
  const float alpha = 1.0f, beta = 0.0f;

  ConvSpec unseen_spec = alexnet_conv2();
  unseen_spec.n = 40;  // a key no other test plans
  ConvProblem planned(alexnet_conv2()), unseen(unseen_spec);  // conv2 at 64 splits 8 ways
  ASSERT_TRUE(planned.ok && unseen.ok);
  std::vector<std::unique_ptr<DeviceArray>> arrays;
  auto array = [&](size_t n) {
    arrays.push_back(std::make_unique<DeviceArray>(n, CUDNN_DATA_FLOAT));
    arrays.back()->fill_random(rng);
    return arrays.back().get();
  };
  DeviceArray *x1 = array(extent(planned.x_dims, planned.x_strides)), *w1 = array(product(planned.w_dims)),
              *y1 = array(extent(planned.y_dims, planned.y_strides)), *ref1 = array(y1->elements());
  DeviceArray *x2 = array(extent(unseen.x_dims, unseen.x_strides)), *w2 = array(product(unseen.w_dims)),
              *y2 = array(extent(unseen.y_dims, unseen.y_strides)), *ref2 = array(y2->elements());
  DeviceArray* ws = array(kLimit / 4);

  cudnnConvolutionFwdAlgoPerf_t r[4];
  int returned = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle_, planned.x, planned.w, planned.conv, planned.y, 4,
                                                  &returned, r));
  ASSERT_EQ(r[0].algo, UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);

  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudnnStatus_t planned_status =
      cudnnConvolutionForward(handle_, &alpha, planned.x, x1->get(), planned.w, w1->get(), planned.conv, r[0].algo,
                              ws->get(), r[0].memory, &beta, planned.y, y1->get());
  const cudnnStatus_t unseen_status =
      cudnnConvolutionForward(handle_, &alpha, unseen.x, x2->get(), unseen.w, w2->get(), unseen.conv,
                              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws->get(), kLimit, &beta, unseen.y, y2->get());
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  EXPECT_EQ(planned_status, CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();
  EXPECT_EQ(unseen_status, CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  size_t nodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_GE(nodes, 4u) << "the planned convolution's micro-batches are in the graph";
  CUDA_OK(cudaGraphLaunch(exec, stream));
  CUDA_OK(cudaStreamSynchronize(stream));

  UcudnnPlan plan;
  CUDNN_OK(ucudnnGetPlan(handle_, UCUDNN_OP_FORWARD, planned.x, planned.w, planned.conv, planned.y,
                         UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan));
  EXPECT_GT(plan.microBatchCount(), 1);
  plain_forward(plain_, planned, plan.runs[0].algo, *x1, *w1, alpha, beta, ref1);
  plain_forward(plain_, unseen, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, *x2, *w2, alpha, beta, ref2);
  EXPECT_LE(relative_error(y1->download(), ref1->download(), planned.y_dims, planned.y_strides),
            tolerance(planned.spec, true));
  EXPECT_LE(relative_error(y2->download(), ref2->download(), unseen.y_dims, unseen.y_strides),
            tolerance(unseen.spec, true));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  CUDNN_OK(cudnnSetStream(handle_, nullptr));
  cudaStreamDestroy(stream);
}

TEST_F(SplitPlans, InvalidArgumentsGetCudnnsOwnStatus) {
  ConvProblem p(alexnet_conv3());
  ASSERT_TRUE(p.ok);
  cudnnConvolutionFwdAlgoPerf_t r[4];
  int returned = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, 0, &returned, r),
            CUDNN_STATUS_BAD_PARAM);
  // Output dims that do not match the convolution: whatever cuDNN answers, ucudnn answers too.
  cudnnTensorDescriptor_t wrong;
  CUDNN_OK(cudnnCreateTensorDescriptor(&wrong));
  CUDNN_OK(cudnnSetTensor4dDescriptor(wrong, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 64, 384, 11, 11));
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, wrong, 4, &returned, r),
            cudnnGetConvolutionForwardAlgorithm_v7(plain_, p.x, p.w, p.conv, wrong, 4, &returned, r));
  // A null descriptor is a bad parameter for both.
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(plain_, p.x, nullptr, p.conv, p.y, 4, &returned, r),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, nullptr, p.conv, p.y, 4, &returned, r),
            CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyTensorDescriptor(wrong);
}

}  // namespace
}  // namespace ucudnn_test
