#include "core/env_config.h"

#include <cstdlib>

#include "core/units.h"

namespace ucudnn {

Expected<EnvConfig> parse_env_config(const char* policy, const char* default_workspace_limit) {
  EnvConfig config;
  if (policy && *policy) {
    auto parsed = parse_batch_size_policy(policy);
    if (!parsed) return Error{"UCUDNN_BATCH_SIZE_POLICY: " + parsed.error()};
    config.policy = *parsed;
  }
  if (default_workspace_limit && *default_workspace_limit) {
    auto parsed = parse_byte_size(default_workspace_limit);
    if (!parsed) return Error{"UCUDNN_DEFAULT_WORKSPACE_LIMIT: " + parsed.error()};
    config.default_workspace_limit = *parsed;
  }
  return config;
}

const Expected<EnvConfig>& env_config() {
  static const Expected<EnvConfig> config =
      parse_env_config(std::getenv("UCUDNN_BATCH_SIZE_POLICY"), std::getenv("UCUDNN_DEFAULT_WORKSPACE_LIMIT"));
  return config;
}

}  // namespace ucudnn
