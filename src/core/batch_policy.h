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

}  // namespace ucudnn
