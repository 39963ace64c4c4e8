// The micro-batch sizes a kernel may be split into (runtime/plan_builder.h's plannable_sizes).
#include <gtest/gtest.h>

#include <vector>

#include "runtime/plan_builder.h"

namespace {

// Every precision's backward filter splits as its other operations do: a half-precision filter
// gradient's micro-batches are summed in FP32 (optimize/filter_sums.h).
TEST(PlannableSizes, BackwardFilterSplitsInEveryPrecision) {
  ucudnn::ConvKey key;
  key.x.data_type = key.y.data_type = key.w.data_type = CUDNN_DATA_HALF;
  key.x.dims = {64, 16, 8, 8};
  key.x.strides = {1024, 64, 8, 1};
  key.y.dims = {64, 16, 8, 8};
  key.y.strides = {1024, 64, 8, 1};
  key.w.dims = {16, 16, 3, 3};
  for (cudnnDataType_t type : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    key.x.data_type = key.y.data_type = key.w.data_type = type;
    key.op = ucudnn::ConvOp::kBackwardFilter;
    const auto filter_sizes = ucudnn::runtime::plannable_sizes(key, ucudnn::BatchSizePolicy::kPowerOfTwo);
    key.op = ucudnn::ConvOp::kBackwardData;
    const auto data_sizes = ucudnn::runtime::plannable_sizes(key, ucudnn::BatchSizePolicy::kPowerOfTwo);
    EXPECT_EQ(data_sizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64})) << type;
    EXPECT_EQ(filter_sizes, data_sizes) << type;
  }
}

}  // namespace
