#include "core/env_config.h"

#include <cstdlib>

#include "core/units.h"
#include "store/database.h"

namespace ucudnn {

Expected<EnvConfig> parse_env_config(const EnvValues& values) {
  const char* policy = values.policy;
  const char* default_workspace_limit = values.default_workspace_limit;
  EnvConfig config;
  if (policy && *policy) {
    auto parsed = parse_batch_size_policy(policy);
    if (!parsed) return parsed.error().prefixed("UCUDNN_BATCH_SIZE_POLICY: ");
    config.policy = *parsed;
  }
  if (default_workspace_limit && *default_workspace_limit) {
    auto parsed = parse_byte_size(default_workspace_limit);
    if (!parsed) return parsed.error().prefixed("UCUDNN_DEFAULT_WORKSPACE_LIMIT: ");
    config.default_workspace_limit = *parsed;
  }
  if (values.imposed_workspace_limit && *values.imposed_workspace_limit) {
    auto parsed = parse_byte_size(values.imposed_workspace_limit);
    if (!parsed) return parsed.error().prefixed("UCUDNN_WORKSPACE_LIMIT: ");
    config.imposed_workspace_limit = *parsed;
  }
  if (values.total_workspace && *values.total_workspace) {
    auto parsed = parse_total_workspace(values.total_workspace);
    if (!parsed) return parsed.error().prefixed("UCUDNN_TOTAL_WORKSPACE_SIZE: ");
    config.total_workspace = *parsed;
  }
  if (values.database) config.database = values.database;
  if (values.database_journal && *values.database_journal) {
    auto parsed = parse_journal_mode(values.database_journal);
    if (!parsed) return parsed.error().prefixed("UCUDNN_DATABASE_JOURNAL: ");
    config.database_journal = values.database_journal;
  }
  if (values.benchmark_devices) config.benchmark_devices = values.benchmark_devices;
  if (values.statistics && *values.statistics) {
    const std::string text = values.statistics;
    if (text != "0" && text != "1") return Error{"UCUDNN_STATS: '" + text + "' is not 0 or 1"};
    config.print_statistics = text == "1";
  }
  return config;
}

const Expected<EnvConfig>& env_config() {
  static const Expected<EnvConfig> config = [] {
    EnvValues values;
    values.policy = std::getenv("UCUDNN_BATCH_SIZE_POLICY");
    values.default_workspace_limit = std::getenv("UCUDNN_DEFAULT_WORKSPACE_LIMIT");
    values.imposed_workspace_limit = std::getenv("UCUDNN_WORKSPACE_LIMIT");
    values.total_workspace = std::getenv("UCUDNN_TOTAL_WORKSPACE_SIZE");
    values.database = std::getenv("UCUDNN_DATABASE");
    values.database_journal = std::getenv("UCUDNN_DATABASE_JOURNAL");
    values.benchmark_devices = std::getenv("UCUDNN_BENCHMARK_DEVICES");
    values.statistics = std::getenv("UCUDNN_STATS");
    return parse_env_config(values);
  }();
  return config;
}

}  // namespace ucudnn
