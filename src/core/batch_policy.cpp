#include "core/batch_policy.h"

#include <algorithm>
#include "core/spelling.h"

namespace ucudnn {

namespace {
const Spelling<BatchSizePolicy> kPolicies[] = {{"all", BatchSizePolicy::kAll},
                                               {"powerOfTwo", BatchSizePolicy::kPowerOfTwo},
                                               {"undivided", BatchSizePolicy::kUndivided}};
}  // namespace

Expected<BatchSizePolicy> parse_batch_size_policy(const std::string& text) {
  return parse_spelling<BatchSizePolicy>(text, kPolicies, "batch-size policy");
}

const char* to_string(BatchSizePolicy policy) { return word_of(policy, kPolicies, "unknown"); }

std::vector<int> allowed_micro_batch_sizes(BatchSizePolicy policy, int batch) {
  std::vector<int> sizes;
  if (batch <= 0) return sizes;
  switch (policy) {
    case BatchSizePolicy::kAll:
      for (int b = 1; b <= batch; ++b) sizes.push_back(b);
      break;
    case BatchSizePolicy::kPowerOfTwo:
      for (int b = 1; b < batch; b *= 2) sizes.push_back(b);
      sizes.push_back(batch);
      break;
    case BatchSizePolicy::kUndivided:
      sizes.push_back(batch);
      break;
  }
  return sizes;
}

}  // namespace ucudnn

namespace ucudnn {

std::vector<int> aligned_micro_batch_sizes(const std::vector<int>& sizes, int batch,
                                           const std::vector<long long>& bytes_per_sample, long long alignment) {
  std::vector<int> aligned;
  for (int size : sizes) {
    bool ok = true;
    for (long long bytes : bytes_per_sample) ok = ok && (size * bytes) % alignment == 0;
    if (ok || size == batch) aligned.push_back(size);
  }
  return aligned;
}

}  // namespace ucudnn
