#pragma once
// Which micro-batch sizes the planner may use (the paper's §III-B batch-size policies).

#include <string>
#include <vector>

#include "core/expected.h"

namespace ucudnn {

enum class BatchSizePolicy {
  kAll,         ///< every size 1..batch
  kPowerOfTwo,  ///< 1, 2, 4, ... up to batch, plus batch itself
  kUndivided,   ///< batch only: plain cuDNN behaviour, with ucudnn's benchmarking
};

/// Parses "all", "powerOfTwo" (also "power_of_two", "power-of-two"), "undivided"; case-insensitive.
Expected<BatchSizePolicy> parse_batch_size_policy(const std::string& text);

/// The canonical spelling: "all", "powerOfTwo", "undivided".
const char* to_string(BatchSizePolicy policy);

/// Allowed micro-batch sizes for a mini-batch, ascending.
std::vector<int> allowed_micro_batch_sizes(BatchSizePolicy policy, int batch);

/// The sizes whose micro-batches start on `alignment`-byte boundaries wherever a plan puts them:
/// those for which size x bytes-per-sample is a multiple of the alignment for every tensor that
/// is split (the full batch always stays: it starts at offset 0). cuDNN falls back to far slower
/// kernels for misaligned pointers (measured on an H100: AlexNet conv1 backward data at odd
/// micro-batch offsets ran 200 times slower than benchmarked).
std::vector<int> aligned_micro_batch_sizes(const std::vector<int>& sizes, int batch,
                                           const std::vector<long long>& bytes_per_sample, long long alignment);

}  // namespace ucudnn
