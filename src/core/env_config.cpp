#include "core/env_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iterator>
#include <sstream>

#include "core/spelling.h"
#include "core/units.h"

namespace ucudnn {
namespace {

const Spelling<LogLevel> kLogLevels[] = {
    {"off", LogLevel::kOff},       {"error", LogLevel::kError},    {"warn", LogLevel::kWarn},
    {"info", LogLevel::kInfo},     {"debug", LogLevel::kDebug},    {"warning", LogLevel::kWarn, false},
    {"0", LogLevel::kOff, false},  {"1", LogLevel::kError, false}, {"2", LogLevel::kWarn, false},
    {"3", LogLevel::kInfo, false}, {"4", LogLevel::kDebug, false}};

Expected<LogLevel> parse_log_level(const std::string& text) {
  return parse_spelling<LogLevel>(text, kLogLevels, "log level");
}

const Spelling<OfferMode> kOfferModes[] = {{"0", OfferMode::kOff}, {"1", OfferMode::kOn}, {"auto", OfferMode::kAuto}};

constexpr const char* kForcedLimit = "UCUDNN_FORCE_WORKSPACE_LIMIT";
constexpr const char* kDeprecatedForcedLimit = "UCUDNN_WORKSPACE_LIMIT";

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
    return Error::invalid(std::string(kForcedLimit) + "='" + forced + "' and " + kDeprecatedForcedLimit + "='" +
                          deprecated + "' (its deprecated name) disagree: unset " + kDeprecatedForcedLimit);
  }
  deprecations->push_back(std::string(kDeprecatedForcedLimit) + " is deprecated and will be removed: set " +
                          kForcedLimit + " instead (the same per-kernel limit, imposed on every call)");
  return std::optional<std::size_t>(*parsed);
}

// How a row reads its value: by a parser of the value's type into a field, as text, as 0 or 1.
template <auto Field, auto Parse>
Status parsed(const char* value, const EnvValues&, EnvConfig* config) {
  if (value) {
    UCUDNN_TRY_ASSIGN(config->*Field, Parse(value));
  }
  return Status::success();
}

template <auto Field>
Status text(const char* value, const EnvValues&, EnvConfig* config) {
  if (value) config->*Field = value;
  return Status::success();
}

template <auto Field>
Status switch_value(const char* value, const EnvValues&, EnvConfig* config) {
  if (!value) return Status::success();
  const std::string given = value;
  if (given != "0" && given != "1") return Error{ErrorCode::kBadParam, "'" + given + "' is not 0 or 1"};
  config->*Field = given == "1";
  return Status::success();
}

Status forced_limit(const char* value, const EnvValues& all, EnvConfig* config) {
  UCUDNN_TRY_ASSIGN(config->forced_workspace_limit,
                    parse_forced_workspace_limit(value, all.deprecated_workspace_limit, &config->deprecations));
  return Status::success();
}

Status benchmark_devices(const char* value, const EnvValues&, EnvConfig* config) {
  if (!value) return Status::success();
  const auto checked = parse_device_list(value);  // device numbers are checked at cudnnCreate
  if (!checked) return checked.error().prefixed("UCUDNN_BENCHMARK_DEVICES='" + std::string(value) + "': ");
  config->benchmark_devices = value;
  return Status::success();
}

}  // namespace

const EnvVariable kEnvVariables[] = {
    {&EnvValues::policy, "UCUDNN_BATCH_SIZE_POLICY", parsed<&EnvConfig::policy, parse_batch_size_policy>},
    {&EnvValues::default_workspace_limit, "UCUDNN_DEFAULT_WORKSPACE_LIMIT",
     parsed<&EnvConfig::default_workspace_limit, parse_byte_size>},
    {&EnvValues::forced_workspace_limit, kForcedLimit, forced_limit, true},
    {&EnvValues::deprecated_workspace_limit, kDeprecatedForcedLimit},  // read by forced_limit
    {&EnvValues::memory_budget, "UCUDNN_MEMORY_BUDGET", parsed<&EnvConfig::memory_budget, parse_memory_budget>},
    {&EnvValues::total_workspace, "UCUDNN_TOTAL_WORKSPACE_SIZE",
     parsed<&EnvConfig::total_workspace, parse_total_workspace>},
    {&EnvValues::wd_time_limit, "UCUDNN_WD_TIME_LIMIT",
     parsed<&EnvConfig::wd_time_limit_seconds, parse_time_limit_seconds>},
    {&EnvValues::job_wait, "UCUDNN_JOB_WAIT", parsed<&EnvConfig::job_wait_seconds, parse_time_limit_seconds>},
    {&EnvValues::candidates, "UCUDNN_CANDIDATES", parsed<&EnvConfig::candidates, parse_candidate_set>},
    {&EnvValues::database, "UCUDNN_DATABASE", text<&EnvConfig::database>},
    {&EnvValues::search, "UCUDNN_SEARCH", parsed<&EnvConfig::search, parse_search_mode>},
    {&EnvValues::database_journal, "UCUDNN_DATABASE_JOURNAL", parsed<&EnvConfig::database_journal, parse_journal_mode>},
    {&EnvValues::system_databases, "UCUDNN_SYSTEM_DATABASES",
     parsed<&EnvConfig::system_databases, parse_system_databases>},
    {&EnvValues::benchmark_devices, "UCUDNN_BENCHMARK_DEVICES", benchmark_devices, true},
    {&EnvValues::statistics, "UCUDNN_STATS", switch_value<&EnvConfig::print_statistics>},
    {&EnvValues::graph_replay, "UCUDNN_GRAPH_REPLAY", switch_value<&EnvConfig::graph_replay>},
    {&EnvValues::micro_batch_offers, "UCUDNN_MICRO_BATCH_OFFERS",
     parsed<&EnvConfig::micro_batch_offers, parse_offer_mode>},
    {&EnvValues::log_level, "UCUDNN_LOG_LEVEL", parsed<&EnvConfig::log_level, parse_log_level>},
    {&EnvValues::log_file, "UCUDNN_LOG_FILE", text<&EnvConfig::log_file>},
    {&EnvValues::preload_library, "UCUDNN_PRELOAD_LIBRARY", text<&EnvConfig::preload_library>},
};

Expected<OfferMode> parse_offer_mode(const std::string& text) {
  return parse_spelling<OfferMode>(text, kOfferModes, "micro-batch offer mode");
}

Expected<DeviceList> parse_device_list(const std::string& text) {
  DeviceList list;
  if (spelling_key(text) == "all") {  // a word, read as every setting's words are (ALL, All)
    list.all = true;
    return list;
  }
  if (text.empty()) return Error::invalid("no device is named (use all or 0,1,...)");
  // Every entry between commas, the last one included: "0," ends in an empty one.
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return Error::invalid("an empty entry between commas (use all or 0,1,...)");
    const bool digits = item.size() <= 6 &&
                        std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits) return Error::invalid("'" + item + "' is not a device number (use all or 0,1,...)");
    if (item.size() > 1 && item.front() == '0') {
      return Error::invalid("'" + item + "' has a leading zero: write the device number in decimal without it");
    }
    int device = 0;
    std::from_chars(item.data(), item.data() + item.size(), device);  // at most 6 digits: fits
    if (std::find(list.devices.begin(), list.devices.end(), device) != list.devices.end()) {
      return Error::invalid("device " + item + " is named twice");
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
    return Error::invalid("names " + std::to_string(paths.size()) + " databases; at most " +
                          std::to_string(kMaxSystemDatabases) +
                          " are looked up (each stays open): merge them with `ucudnn db merge`");
  }
  return paths;
}

Expected<EnvConfig> parse_env_config(const EnvValues& raw) {
  TrimmedTexts texts;
  const EnvValues values = trimmed(raw, &texts);  // from here, null is unset and nothing else is empty
  EnvConfig config;
  for (const EnvVariable& variable : kEnvVariables) {
    if (!variable.apply) continue;
    const Status applied = variable.apply(values.*variable.field, values, &config);
    if (!applied)
      return variable.names_itself ? applied.error() : applied.error().prefixed(std::string(variable.name) + ": ");
  }
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
