// The executor on arbitrary splits: for random convolutions, a plan that cuts the batch into
// random micro-batches (all with one algorithm that plain cuDNN runs) must equal plain cuDNN with
// that algorithm on the whole batch. This reaches every layout, data type, group count, dilation,
// 5-d tensors and alpha/beta, whether or not splitting would pay on this GPU.

#include "conv_check.h"
#include "core/conv_key.h"
#include "runtime/descriptors.h"
#include "runtime/executor.h"
#include "folder_namespaces.h"

namespace ucudnn_test {
namespace {

constexpr size_t kWorkspace = size_t{256} << 20;

class ForcedSplits : public GpuTest {};

TEST_F(ForcedSplits, RandomMicroBatchesOfOneAlgorithmMatchPlainCudnn) {
  const std::uint32_t seed = fresh_seed();
  SCOPED_TRACE("UCUDNN_TEST_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);
  cudnnHandle_t plain;
  CUDNN_OK(cudnnCreate(&plain));
  DeviceArray workspace(kWorkspace / 4, CUDNN_DATA_FLOAT);
  ASSERT_TRUE(workspace.get());
  static const float kScales[][2] = {{1.0f, 0.0f}, {0.5f, 0.25f}, {1.0f, 1.0f}};
  int checked = 0, skipped = 0;
  for (int i = 0; i < 40; ++i) {
    ConvSpec spec = random_spec(rng);
    spec.n = std::max(spec.n, 2);  // something to split
    ConvProblem p(spec);
    if (!p.ok) continue;
    for (int op_index = 0; op_index < 3; ++op_index) {
      const auto op = static_cast<UcudnnConvolutionOp_t>(op_index);
      const int algo = plain_heuristic_algo(plain, p, op, kWorkspace);
      if (algo < 0) {
        ++skipped;
        continue;
      }
      ucudnn::ConvKey key;
      ASSERT_TRUE(
          ucudnn::runtime::read_conv_key(static_cast<ucudnn::ConvOp>(op), 0, {p.x, p.w, p.conv, p.y}, &key).ok());
      // Cut the batch into random micro-batches, at least two.
      ucudnn::optimize::MicroBatchSplit wr;
      wr.batch = spec.n;
      for (int left = spec.n; left > 0;) {
        const int size = std::uniform_int_distribution<int>(1, left == spec.n ? left - 1 : left)(rng);
        wr.runs.push_back({size, algo, static_cast<int>(spec.math), 1, 0.0, 0, true, ""});
        left -= size;
      }
      std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan;
      ASSERT_TRUE(ucudnn::runtime::ExecutablePlan::build(key, kWorkspace, ucudnn::BatchSizePolicy::kAll, wr,
                                                         std::nullopt, &plan)
                      .ok());
      const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
      SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " algo " + std::to_string(algo) + " into " +
                   std::to_string(wr.runs.size()) + " micro-batches, beta " + std::to_string(scale[1]));

      const cudnnDataType_t type = spec.data_type;
      DeviceArray x(extent(p.x_dims, p.x_strides), type), y(extent(p.y_dims, p.y_strides), type),
          w(product(p.w_dims), type);
      ASSERT_TRUE(x.get() && y.get() && w.get());
      x.fill_random(rng);
      y.fill_random(rng);
      w.fill_random(rng);
      DeviceArray& out = op == UCUDNN_OP_FORWARD ? y : op == UCUDNN_OP_BACKWARD_DATA ? x : w;
      DeviceArray reference(out.elements(), type);
      reference.copy_from(out);

      const ucudnn::Status split =
          plan->execute(plain, &scale[0], &scale[1], {x.get(), w.get(), y.get()}, workspace.get(), kWorkspace);
      if (!split.ok()) {  // the algorithm does not run at some micro-batch size
        ++skipped;
        continue;
      }
      void* rx = op == UCUDNN_OP_BACKWARD_DATA ? reference.get() : x.get();
      void* rw = op == UCUDNN_OP_BACKWARD_FILTER ? reference.get() : w.get();
      void* ry = op == UCUDNN_OP_FORWARD ? reference.get() : y.get();
      ASSERT_EQ(plain_convolution(plain, p, op, algo, scale[0], scale[1], rx, rw, ry, workspace.get(), kWorkspace),
                CUDNN_STATUS_SUCCESS);
      CUDA_OK(cudaDeviceSynchronize());
      const double error = output_error(p, op, out, reference);
      EXPECT_LE(error, tolerance(spec, true));
      ++checked;
    }
  }
  std::printf("[ forced ] seed %u: %d split executions checked, %d skipped\n", seed, checked, skipped);
  EXPECT_GE(checked, 60);
  cudnnDestroy(plain);
}

}  // namespace
}  // namespace ucudnn_test
