#include "optimize/filter_sums.h"

#include "core/cudnn_values.h"

namespace ucudnn::optimize {

namespace {

std::size_t filter_elements(const ConvKey& key) {
  std::size_t elements = 1;
  for (int d : key.w.dims) elements *= static_cast<std::size_t>(d > 0 ? d : 0);
  return elements;
}

// Launch latency of a small kernel, and the bandwidth an elementwise pass over a few MiB gets.
constexpr double kPassLaunchMs = 0.003;
constexpr double kPassBytesPerMs = 1.5e9;
// Bytes one pass moves per element: the half value read, the FP32 sum read and written.
constexpr double kPassBytesPerElement = 2.0 + 4.0 + 4.0;

}  // namespace

bool sums_in_fp32(const ConvKey& key) {
  return key.op == ConvOp::kBackwardFilter &&
         (key.w.data_type == cudnn_values::kDataHalf || key.w.data_type == cudnn_values::kDataBfloat16);
}

std::size_t fp32_sum_bytes(const ConvKey& key) {
  if (!sums_in_fp32(key)) return 0;
  constexpr std::size_t kAlign = 256;
  const std::size_t bytes = filter_elements(key) * sizeof(float);
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

double fp32_sum_pass_ms(const ConvKey& key) {
  return kPassLaunchMs + static_cast<double>(filter_elements(key)) * kPassBytesPerElement / kPassBytesPerMs;
}

std::vector<Measurement> priced_for_split_sums(const ConvKey& key, std::vector<Measurement> rows) {
  if (!sums_in_fp32(key)) return rows;
  const double pass_ms = fp32_sum_pass_ms(key);
  const std::size_t accumulator = fp32_sum_bytes(key);
  for (Measurement& row : rows) {
    if (row.micro_batch >= key.batch()) continue;
    row.time_ms = 2.0 * row.time_ms + 3.0 * pass_ms;
    if (row.host_ms > 0.0) row.host_ms = 2.0 * row.host_ms + 3.0 * kFp32SumPassHostMs;
    row.workspace_bytes += accumulator;
  }
  return rows;
}

}  // namespace ucudnn::optimize
