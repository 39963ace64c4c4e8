#pragma once
// The environment variables ucudnn reads: declared here once, typed, parsed strictly, read once
// per process. A handle's API setters override them.
//
// | variable                        | meaning                                          | default    |
// |---------------------------------|--------------------------------------------------|------------|
// | UCUDNN_BATCH_SIZE_POLICY        | all, powerOfTwo or undivided (case-insensitive)  | powerOfTwo |
// | UCUDNN_DEFAULT_WORKSPACE_LIMIT  | per-kernel limit where a call gives none         | 64MiB      |
// | UCUDNN_LOG_LEVEL / _FILE        | see core/logging.h                               | warn/stderr|

#include <cstddef>

#include "core/batch_policy.h"
#include "core/expected.h"

namespace ucudnn {

struct EnvConfig {
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::size_t default_workspace_limit = std::size_t{64} << 20;
};

/// Parses the given values (null = unset).
Expected<EnvConfig> parse_env_config(const char* policy, const char* default_workspace_limit);

/// The process's configuration, read from the environment on first use.
const Expected<EnvConfig>& env_config();

}  // namespace ucudnn
