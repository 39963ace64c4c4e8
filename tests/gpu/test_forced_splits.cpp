// The executor on arbitrary splits: for random convolutions, a plan that cuts the batch into
// random micro-batches (all with one algorithm that plain cuDNN runs) must equal plain cuDNN with
// that algorithm on the whole batch. This reaches every layout, data type, group count, dilation,
// 5-d tensors and alpha/beta, whether or not splitting would pay on this GPU.

#include "conv_check.h"
#include "core/conv_key.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

class ForcedSplits : public PlanExecutionTest {};

TEST_F(ForcedSplits, RandomMicroBatchesOfOneAlgorithmMatchPlainCudnn) {
  SeededRng rng;
  int checked = 0, skipped = 0;
  for (int i = 0; i < 40; ++i) {
    ConvSpec spec = random_spec(rng);
    spec.n = std::max(spec.n, 2);  // something to split
    ConvProblem p(spec);
    if (!p.ok) continue;
    const std::vector<ReferenceKernel> kernels = reference_kernels(plain_, p, kAmpleWorkspace);
    skipped += 3 - static_cast<int>(kernels.size());
    for (const auto& [op, algo, key] : kernels) {
      // Cut the batch into random micro-batches, at least two.
      ucudnn::optimize::MicroBatchSplit wr;
      wr.batch = spec.n;
      for (int left = spec.n; left > 0;) {
        const int size = std::uniform_int_distribution<int>(1, left == spec.n ? left - 1 : left)(rng);
        wr.runs.push_back(run_of(size, algo, spec.math));
        left -= size;
      }
      std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan;
      ASSERT_TRUE(build_plan(key, kAmpleWorkspace, wr, &plan));
      const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
      SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " algo " + std::to_string(algo) + " into " +
                   std::to_string(wr.runs.size()) + " micro-batches, beta " + std::to_string(scale[1]));

      OpTensors t(p, op);
      ASSERT_TRUE(t.allocated());
      t.fill_random(rng);

      const ucudnn::Status split = plan->execute(plain_, &scale[0], &scale[1], {t.x.get(), t.w.get(), t.y.get()},
                                                 workspace_->get(), kAmpleWorkspace);
      if (!split.ok()) {  // the algorithm does not run at some micro-batch size
        ++skipped;
        continue;
      }
      ASSERT_EQ(t.run_reference(plain_, algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
                CUDNN_STATUS_SUCCESS);
      CUDA_OK(cudaDeviceSynchronize());
      EXPECT_LE(t.error(), tolerance(spec, true));
      ++checked;
    }
  }
  std::printf("[ forced ] seed %u: %d split executions checked, %d skipped\n", rng.first_seed, checked, skipped);
  EXPECT_GE(checked, 60);
}

}  // namespace
}  // namespace ucudnn_test
