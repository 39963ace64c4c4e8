#include "core/env_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iterator>
#include <sstream>

#include "core/units.h"

namespace ucudnn {
namespace {

Expected<LogLevel> parse_log_level(const std::string& text) {
  std::string v;
  for (unsigned char c : text) v.push_back(static_cast<char>(std::tolower(c)));
  if (v == "off" || v == "0") return LogLevel::kOff;
  if (v == "error" || v == "1") return LogLevel::kError;
  if (v == "warn" || v == "warning" || v == "2") return LogLevel::kWarn;
  if (v == "info" || v == "3") return LogLevel::kInfo;
  if (v == "debug" || v == "4") return LogLevel::kDebug;
  return Error{"'" + text + "' is not off, error, warn, info or debug"};
}

constexpr const char* kForcedLimit = "UCUDNN_FORCE_WORKSPACE_LIMIT";
constexpr const char* kDeprecatedForcedLimit = "UCUDNN_WORKSPACE_LIMIT";

}  // namespace

const EnvVariable kEnvVariables[] = {
    {&EnvValues::policy, "UCUDNN_BATCH_SIZE_POLICY"},
    {&EnvValues::default_workspace_limit, "UCUDNN_DEFAULT_WORKSPACE_LIMIT"},
    {&EnvValues::forced_workspace_limit, kForcedLimit},
    {&EnvValues::deprecated_workspace_limit, kDeprecatedForcedLimit},
    {&EnvValues::memory_budget, "UCUDNN_MEMORY_BUDGET"},
    {&EnvValues::total_workspace, "UCUDNN_TOTAL_WORKSPACE_SIZE"},
    {&EnvValues::wd_time_limit, "UCUDNN_WD_TIME_LIMIT"},
    {&EnvValues::job_wait, "UCUDNN_JOB_WAIT"},
    {&EnvValues::candidates, "UCUDNN_CANDIDATES"},
    {&EnvValues::database, "UCUDNN_DATABASE"},
    {&EnvValues::search, "UCUDNN_SEARCH"},
    {&EnvValues::database_journal, "UCUDNN_DATABASE_JOURNAL"},
    {&EnvValues::system_databases, "UCUDNN_SYSTEM_DATABASES"},
    {&EnvValues::benchmark_devices, "UCUDNN_BENCHMARK_DEVICES"},
    {&EnvValues::statistics, "UCUDNN_STATS"},
    {&EnvValues::graph_replay, "UCUDNN_GRAPH_REPLAY"},
    {&EnvValues::micro_batch_offers, "UCUDNN_MICRO_BATCH_OFFERS"},
    {&EnvValues::log_level, "UCUDNN_LOG_LEVEL"},
    {&EnvValues::log_file, "UCUDNN_LOG_FILE"},
    {&EnvValues::preload_library, "UCUDNN_PRELOAD_LIBRARY"},
};

namespace {

using TrimmedTexts = std::array<std::string, std::size(kEnvVariables)>;

// The values as the parsers below read them (env_config.h's rule): surrounding whitespace (the
// size parser's set) trimmed, and a value left empty unset. `texts` holds the trimmed strings.
EnvValues trimmed(const EnvValues& raw, TrimmedTexts* texts) {
  constexpr const char* kWhitespace = " \t\r\n";
  EnvValues values;
  for (std::size_t i = 0; i < std::size(kEnvVariables); ++i) {
    const char* value = raw.*kEnvVariables[i].field;
    if (value == nullptr) continue;
    const std::string text = value;
    const auto first = text.find_first_not_of(kWhitespace);
    if (first == std::string::npos) continue;  // empty, or whitespace only: unset
    (*texts)[i] = text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
    values.*kEnvVariables[i].field = (*texts)[i].c_str();
  }
  return values;
}

// UCUDNN_FORCE_WORKSPACE_LIMIT, or its old name UCUDNN_WORKSPACE_LIMIT (with a deprecation
// warning); both set to different sizes is an error rather than a silent choice.
Expected<std::optional<std::size_t>> parse_forced_workspace_limit(const char* forced, const char* deprecated,
                                                                 std::vector<std::string>* deprecations) {
  std::optional<std::size_t> limit;
  if (forced) {
    auto parsed = parse_byte_size(forced);
    if (!parsed) return parsed.error().prefixed(std::string(kForcedLimit) + ": ");
    limit = *parsed;
  }
  if (!deprecated) return limit;
  auto parsed = parse_byte_size(deprecated);
  if (!parsed) return parsed.error().prefixed(std::string(kDeprecatedForcedLimit) + ": ");
  if (limit && *limit != *parsed) {
    return Error{std::string(kForcedLimit) + "='" + forced + "' and " + kDeprecatedForcedLimit + "='" + deprecated +
                 "' (its deprecated name) disagree: unset " + kDeprecatedForcedLimit};
  }
  deprecations->push_back(std::string(kDeprecatedForcedLimit) + " is deprecated and will be removed: set " +
                          kForcedLimit + " instead (the same per-kernel limit, imposed on every call)");
  return std::optional<std::size_t>(*parsed);
}

}  // namespace

Expected<OfferMode> parse_offer_mode(const std::string& text) {
  if (text == "1") return OfferMode::kOn;
  if (text == "0") return OfferMode::kOff;
  if (text == "auto") return OfferMode::kAuto;
  return Error{"'" + text + "' is not 0, 1 or auto"};
}

Expected<DeviceList> parse_device_list(const std::string& text) {
  DeviceList list;
  if (text == "all") {
    list.all = true;
    return list;
  }
  if (text.empty()) return Error{"no device is named (use all or 0,1,...)"};
  // Every entry between commas, the last one included: "0," ends in an empty one.
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return Error{"an empty entry between commas (use all or 0,1,...)"};
    const bool digits = item.size() <= 6 &&
                        std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits) return Error{"'" + item + "' is not a device number (use all or 0,1,...)"};
    if (item.size() > 1 && item.front() == '0') {
      return Error{"'" + item + "' has a leading zero: write the device number in decimal without it"};
    }
    int device = 0;
    std::from_chars(item.data(), item.data() + item.size(), device);  // at most 6 digits: fits
    if (std::find(list.devices.begin(), list.devices.end(), device) != list.devices.end()) {
      return Error{"device " + item + " is named twice"};
    }
    list.devices.push_back(device);
  }
  return list;
}

std::vector<std::string> split_path_list(const std::string& text) {
  std::vector<std::string> paths;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ':')) {
    if (!item.empty()) paths.push_back(item);
  }
  return paths;
}

Expected<std::vector<std::string>> parse_system_databases(const std::string& text) {
  std::vector<std::string> paths = split_path_list(text);
  if (paths.size() > kMaxSystemDatabases) {
    return Error{"names " + std::to_string(paths.size()) + " databases; at most " +
                 std::to_string(kMaxSystemDatabases) + " are looked up (each stays open): merge them with `ucudnn db merge`"};
  }
  return paths;
}

Expected<EnvConfig> parse_env_config(const EnvValues& raw) {
  TrimmedTexts texts;
  const EnvValues values = trimmed(raw, &texts);  // from here, null is unset and nothing else is empty
  const char* policy = values.policy;
  const char* default_workspace_limit = values.default_workspace_limit;
  EnvConfig config;
  if (policy) {
    auto parsed = parse_batch_size_policy(policy);
    if (!parsed) return parsed.error().prefixed("UCUDNN_BATCH_SIZE_POLICY: ");
    config.policy = *parsed;
  }
  if (default_workspace_limit) {
    auto parsed = parse_byte_size(default_workspace_limit);
    if (!parsed) return parsed.error().prefixed("UCUDNN_DEFAULT_WORKSPACE_LIMIT: ");
    config.default_workspace_limit = *parsed;
  }
  UCUDNN_TRY_ASSIGN(config.forced_workspace_limit,
                    parse_forced_workspace_limit(values.forced_workspace_limit, values.deprecated_workspace_limit,
                                                 &config.deprecations));
  if (values.memory_budget) {
    auto parsed = parse_memory_budget(values.memory_budget);
    if (!parsed) return parsed.error().prefixed("UCUDNN_MEMORY_BUDGET: ");
    config.memory_budget = *parsed;
  }
  if (values.total_workspace) {
    auto parsed = parse_total_workspace(values.total_workspace);
    if (!parsed) return parsed.error().prefixed("UCUDNN_TOTAL_WORKSPACE_SIZE: ");
    config.total_workspace = *parsed;
  }
  if (values.wd_time_limit) {
    auto parsed = parse_time_limit_seconds(values.wd_time_limit);
    if (!parsed) return parsed.error().prefixed("UCUDNN_WD_TIME_LIMIT: ");
    config.wd_time_limit_seconds = *parsed;
  }
  if (values.job_wait) {
    auto parsed = parse_time_limit_seconds(values.job_wait);
    if (!parsed) return parsed.error().prefixed("UCUDNN_JOB_WAIT: ");
    config.job_wait_seconds = *parsed;
  }
  if (values.candidates) {
    auto parsed = parse_candidate_set(values.candidates);
    if (!parsed) return parsed.error().prefixed("UCUDNN_CANDIDATES: ");
    config.candidates = *parsed;
  }
  if (values.database) config.database = values.database;
  if (values.search) {
    auto parsed = parse_search_mode(values.search);
    if (!parsed) return parsed.error().prefixed("UCUDNN_SEARCH: ");
    config.search = *parsed;
  }
  if (values.database_journal) {
    auto parsed = parse_journal_mode(values.database_journal);
    if (!parsed) return parsed.error().prefixed("UCUDNN_DATABASE_JOURNAL: ");
    config.database_journal = *parsed;
  }
  if (values.system_databases) {
    auto parsed = parse_system_databases(values.system_databases);
    if (!parsed) return parsed.error().prefixed("UCUDNN_SYSTEM_DATABASES: ");
    config.system_databases = std::move(parsed).value();
  }
  if (values.benchmark_devices) {
    const auto checked = parse_device_list(values.benchmark_devices);
    if (!checked) {
      return checked.error().prefixed("UCUDNN_BENCHMARK_DEVICES='" + std::string(values.benchmark_devices) + "': ");
    }
    config.benchmark_devices = values.benchmark_devices;
  }
  if (values.statistics) {
    const std::string text = values.statistics;
    if (text != "0" && text != "1") return Error{"UCUDNN_STATS: '" + text + "' is not 0 or 1"};
    config.print_statistics = text == "1";
  }
  if (values.graph_replay) {
    const std::string text = values.graph_replay;
    if (text != "0" && text != "1") return Error{"UCUDNN_GRAPH_REPLAY: '" + text + "' is not 0 or 1"};
    config.graph_replay = text == "1";
  }
  if (values.micro_batch_offers) {
    auto mode = parse_offer_mode(values.micro_batch_offers);
    if (!mode) return mode.error().prefixed("UCUDNN_MICRO_BATCH_OFFERS: ");
    config.micro_batch_offers = *mode;
  }
  if (values.log_level) {
    auto parsed = parse_log_level(values.log_level);
    if (!parsed) return parsed.error().prefixed("UCUDNN_LOG_LEVEL: ");
    config.log_level = *parsed;
  }
  if (values.log_file) config.log_file = values.log_file;
  if (values.preload_library) config.preload_library = values.preload_library;
  return config;
}

const Expected<EnvConfig>& env_config() {
  static const Expected<EnvConfig> config = [] {
    EnvValues values;
    for (const EnvVariable& variable : kEnvVariables) values.*variable.field = std::getenv(variable.name);
    return parse_env_config(values);
  }();
  return config;
}

}  // namespace ucudnn
