// Graph replay: a plan's calls captured into a CUDA graph once their buffers and scalars recur
// must compute what plain cuDNN computes on the data present at each later call, whichever of
// two buffer sets a call names, and a call with other scalars must not reuse a graph. A plan with
// a replay plan runs whole when issued and split when replayed, or whole again where the call's
// workspace is too small for the replay plan.

#include "conv_check.h"
#include "core/conv_key.h"
#include "core/statistics.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

class GraphReplay : public UcudnnTest {};

long long replayed(UcudnnConvolutionOp_t op) {
  return ucudnn::Statistics::instance().read(static_cast<ucudnn::ConvOp>(op)).replayed_calls;
}
long long split(UcudnnConvolutionOp_t op) {
  return ucudnn::Statistics::instance().read(static_cast<ucudnn::ConvOp>(op)).split_calls;
}

TEST_F(GraphReplay, ReplayedCallsMatchPlainCudnnOnFreshDataAndTwoBufferSets) {
  SeededRng rng;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDNN_OK(cudnnSetStream(plain_, stream));
  AmpleWorkspace workspace;
  ASSERT_TRUE(workspace.get());

  // Which buffer set each call names and its (alpha, beta); the last call changes beta on set 0.
  struct Call {
    int set;
    float alpha, beta;
  };
  const Call kCalls[] = {{0, 1.0f, 0.5f}, {0, 1.0f, 0.5f}, {0, 1.0f, 0.5f}, {1, 1.0f, 0.5f},
                         {1, 1.0f, 0.5f}, {0, 1.0f, 0.5f}, {1, 1.0f, 0.5f}, {0, 1.0f, 0.0f}};
  // Direct, capture, launch, direct (new set), capture, launch, launch, direct (new beta).
  const long long kExpectedReplays = 5;

  int plans = 0, refused = 0;
  for (int i = 0; i < 12; ++i) {
    ConvSpec spec = random_spec(rng);
    spec.n = std::max(spec.n, 2);
    ConvProblem p(spec);
    if (!p.ok) continue;
    for (const auto& [op, algo, key] : reference_kernels(plain_, p, kAmpleWorkspace)) {
      // Issued calls run the whole batch; replayed ones two micro-batches (so backward filter's
      // accumulation is captured too), unless the replay plan claims more workspace than the calls give.
      const bool replay_fits = i % 2 == 0;
      ucudnn::optimize::MicroBatchSplit whole;
      whole.batch = spec.n;
      whole.runs.push_back(run_of(spec.n, algo, spec.math));
      ucudnn::optimize::MicroBatchSplit halves;
      halves.batch = spec.n;
      halves.runs.push_back(run_of(spec.n / 2, algo, spec.math));
      halves.runs.push_back(run_of(spec.n - spec.n / 2, algo, spec.math));
      if (!replay_fits) halves.workspace_bytes = kAmpleWorkspace + 1;
      std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan, replay_plan;
      ASSERT_TRUE(build_plan(key, kAmpleWorkspace, whole, &plan));
      ASSERT_TRUE(build_plan(key, kAmpleWorkspace, halves, &replay_plan));
      plan->set_replayed_plan(std::move(replay_plan));
      SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " algo " + std::to_string(algo) +
                   (replay_fits ? ", replay plan split" : ", replay plan over the workspace"));

      OpTensors sets[2] = {OpTensors(p, op), OpTensors(p, op)};
      ASSERT_TRUE(sets[0].allocated() && sets[1].allocated());
      // The algorithm may not run at a micro-batch size: not this test's concern (a capture of it
      // would fail and count as a refusal).
      const float one = 1.0f, zero = 0.0f;
      if (replay_fits && !plan->replayed_plan()
                              .execute(plain_, &one, &zero, {sets[0].x.get(), sets[0].w.get(), sets[0].y.get()},
                                       workspace.get(), kAmpleWorkspace)
                              .ok()) {
        continue;
      }
      const long long before = replayed(op);
      const long long split_before = split(op);
      bool runs = true;
      for (const Call& call : kCalls) {
        OpTensors& b = sets[call.set];
        b.fill_random(rng);  // fresh data every call: a graph must read it, not remember it
        const ucudnn::Status status =
            plan->execute(ucudnn::runtime::CallTarget{plain_, stream, true}, &call.alpha, &call.beta,
                          {b.x.get(), b.w.get(), b.y.get()}, workspace.get(), kAmpleWorkspace);
        if (!status.ok()) {  // the algorithm does not run at a micro-batch size: not this test's concern
          runs = false;
          break;
        }
        ASSERT_EQ(b.run_reference(plain_, algo, call.alpha, call.beta, workspace.get(), kAmpleWorkspace),
                  CUDNN_STATUS_SUCCESS);
        CUDA_OK(cudaStreamSynchronize(stream));
        EXPECT_LE(b.error(), tolerance(spec, true));
      }
      if (!runs) continue;
      ++plans;
      if (plan->replay_refused()) {
        ++refused;
        continue;
      }
      EXPECT_EQ(replayed(op) - before, kExpectedReplays);
      EXPECT_EQ(split(op) - split_before, replay_fits ? kExpectedReplays : 0)
          << "replayed calls run the replay plan where the workspace holds it, and only they";
    }
  }
  std::printf("[ replay ] seed %u: %d plans replayed over %zu calls each, %d refused capture\n", rng.first_seed,
              plans - refused, sizeof(kCalls) / sizeof(kCalls[0]), refused);
  EXPECT_GE(plans, 12);
  // cuDNN's legacy calls are capturable (PyTorch captures them too): a refusal is a regression.
  EXPECT_EQ(refused, 0);
  cudnnSetStream(plain_, nullptr);  // the fixture destroys plain_ after the stream is gone
  cudaStreamDestroy(stream);
}

// Through the handle: recurring calls replay, ucudnnSetGraphReplay(0) stops it, and a bad value is
// refused.
TEST_F(GraphReplay, HandleSwitchesReplayOnAndOff) {
  std::mt19937 rng(fresh_seed());
  const ConvSpec spec = square_conv_2d(8, 16, 32, 20, 3, 1);
  ConvProblem p(spec);
  ASSERT_TRUE(p.ok);
  int enabled = -1;
  CUDNN_OK(ucudnnGetGraphReplay(handle_, &enabled));
  EXPECT_EQ(enabled, 1);
  EXPECT_EQ(ucudnnSetGraphReplay(handle_, 2), CUDNN_STATUS_BAD_PARAM);

  DeviceArray x(extent(p.x_dims, p.x_strides), spec.data_type), y(extent(p.y_dims, p.y_strides), spec.data_type),
      w(product(p.w_dims), spec.data_type);
  x.fill_random(rng);
  w.fill_random(rng);
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[4];
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(handle_, p.x, p.w, p.conv, p.y, 4, &returned, perf));
  ASSERT_GE(returned, 1);
  size_t bytes = 0;
  CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(handle_, p.x, p.w, p.conv, p.y, perf[0].algo, &bytes));
  DeviceArray workspace(bytes / 4 + 1, CUDNN_DATA_FLOAT);
  const float one = 1.0f, zero = 0.0f;
  auto run = [&] {
    CUDNN_OK(cudnnConvolutionForward(handle_, &one, p.x, x.get(), p.w, w.get(), p.conv, perf[0].algo, workspace.get(),
                                     bytes, &zero, p.y, y.get()));
  };
  const long long start = replayed(UCUDNN_OP_FORWARD);
  for (int i = 0; i < 4; ++i) run();
  EXPECT_EQ(replayed(UCUDNN_OP_FORWARD) - start, 3);  // the first call runs directly
  CUDNN_OK(ucudnnSetGraphReplay(handle_, 0));
  for (int i = 0; i < 3; ++i) run();
  EXPECT_EQ(replayed(UCUDNN_OP_FORWARD) - start, 3);
  CUDA_OK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace ucudnn_test
