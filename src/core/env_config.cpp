#include "core/env_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iterator>
#include <map>
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

// The values as the parsers below read them (env_config.h's rule): surrounding whitespace (the
// size parser's set) trimmed, and a value left empty unset (dropped).
Expected<SettingValues> trimmed(const SettingValues& raw) {
  constexpr const char* kWhitespace = " \t\r\n";
  SettingValues values;
  for (const auto& entry : raw) {
    const std::string& name = entry.first;  // a variable, not a structured binding: the lambda captures it
    const std::string& text = entry.second;
    const bool known = std::any_of(setting_rows().begin(), setting_rows().end(),
                                   [&](const SettingRow& row) { return name == row.name; });
    if (!known) return Error::internal("no setting is named '" + name + "'");
    const auto first = text.find_first_not_of(kWhitespace);
    if (first == std::string::npos) continue;  // empty, or whitespace only: unset
    values[name] = text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
  }
  return values;
}

// The trimmed value of `name`, or null where it is unset.
const char* value_of(const SettingValues& values, const char* name) {
  const auto found = values.find(name);
  return found == values.end() ? nullptr : found->second.c_str();
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
Status parsed(const char* value, const SettingValues&, Settings* config) {
  if (value) {
    UCUDNN_TRY_ASSIGN(config->*Field, Parse(value));
  }
  return Status::success();
}

template <auto Field>
Status text(const char* value, const SettingValues&, Settings* config) {
  if (value) config->*Field = value;
  return Status::success();
}

template <auto Field>
Status switch_value(const char* value, const SettingValues&, Settings* config) {
  if (!value) return Status::success();
  const std::string given = value;
  if (given != "0" && given != "1") return Error{ErrorCode::kBadParam, "'" + given + "' is not 0 or 1"};
  config->*Field = given == "1";
  return Status::success();
}

Status forced_limit(const char* value, const SettingValues& all, Settings* config) {
  UCUDNN_TRY_ASSIGN(config->forced_workspace_limit,
                    parse_forced_workspace_limit(value, value_of(all, kDeprecatedForcedLimit), &config->deprecations));
  return Status::success();
}

Status benchmark_devices(const char* value, const SettingValues&, Settings* config) {
  if (!value) return Status::success();
  const auto checked = parse_device_list(value);  // device numbers are checked at cudnnCreate
  if (!checked) return checked.error().prefixed("UCUDNN_BENCHMARK_DEVICES='" + std::string(value) + "': ");
  config->benchmark_devices = value;
  return Status::success();
}

}  // namespace

// Every row, in the README's order; the meanings are one line each for `ucudnn --help` (the README
// says more), the defaults as the README writes them (tests/cpu/project/test_settings_table.cpp).
const std::vector<SettingRow>& setting_rows() {
  static const std::vector<SettingRow> rows = {
      {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "per-kernel workspace limit, a SIZE, where a call gives none", "64MiB",
       parsed<&Settings::default_workspace_limit, parse_byte_size>},
      {"UCUDNN_MEMORY_BUDGET", "what a graph-API plan may take: free (the GPU's memory), a SIZE, or off", "free",
       parsed<&Settings::memory_budget, parse_memory_budget>},
      {"UCUDNN_MICRO_BATCH_OFFERS",
       "under a memory budget, offer ucudnn's plan to a graph-API autotuner: auto (PyTorch), 1 or 0", "auto",
       parsed<&Settings::micro_batch_offers, parse_offer_mode>},
      {kForcedLimit, "per-kernel limit, a SIZE, imposed on every call whatever it asks", "none", forced_limit, true},
      {kDeprecatedForcedLimit, "deprecated name of UCUDNN_FORCE_WORKSPACE_LIMIT", "none", nullptr, false, kForcedLimit},
      {"UCUDNN_TOTAL_WORKSPACE_SIZE", "WD: one budget, a SIZE, for all kernels instead of a limit per kernel", "off",
       parsed<&Settings::total_workspace, parse_total_workspace>},
      {"UCUDNN_WD_TIME_LIMIT", "seconds WD's integer program may search; then the best plan found", "10",
       parsed<&Settings::wd_time_limit_seconds, parse_time_limit_seconds>},
      {"UCUDNN_JOB_WAIT", "seconds to wait for another process's benchmark of the same kernel", "300",
       parsed<&Settings::job_wait_seconds, parse_time_limit_seconds>},
      {"UCUDNN_BATCH_SIZE_POLICY", "micro-batch sizes: all, powerOfTwo or undivided", "powerOfTwo",
       parsed<&Settings::policy, parse_batch_size_policy>},
      {"UCUDNN_CANDIDATES", "what plans are made of: legacy, engines (graph API) or both", "both",
       parsed<&Settings::candidates, parse_candidate_set>},
      {"UCUDNN_GRAPH_REPLAY", "1: replay recurring calls as CUDA graphs; 0: not", "1",
       switch_value<&Settings::graph_replay>},
      {"UCUDNN_DATABASE", "SQLite benchmark database shared by processes", "none", text<&Settings::database>},
      {"UCUDNN_SYSTEM_DATABASES", "read-only databases looked up after UCUDNN_DATABASE, ':'-separated (at most 32)",
       "none", parsed<&Settings::system_databases, parse_system_databases>},
      {"UCUDNN_SEARCH", "how new kernels are benchmarked: fast or exhaustive", "fast",
       parsed<&Settings::search, parse_search_mode>},
      {"UCUDNN_ENGINE_KNOBS",
       "which configurations of each graph-API engine are measured: heuristics (the knob values cuDNN's "
       "heuristics choose), refine (also those one knob away from the fastest at each size) or sweep (those "
       "one knob away from every engine's, and heuristic mode B)",
       "heuristics", parsed<&Settings::engine_knobs, parse_knob_search>},
      {"UCUDNN_DATABASE_JOURNAL", "the database's journal: auto, wal, delete, truncate or persist", "auto",
       parsed<&Settings::database_journal, parse_journal_mode>},
      {"UCUDNN_BENCHMARK_DEVICES", "benchmark on several GPUs of one model: all, or distinct ordinals 0,2,3",
       "the handle's GPU", benchmark_devices, true},
      {"UCUDNN_STATS", "1: per-operation statistics on stderr at exit", "0", switch_value<&Settings::print_statistics>},
      {"UCUDNN_LOG_LEVEL", "off, error, warn, info or debug (or 0-4)", "warn",
       parsed<&Settings::log_level, parse_log_level>},
      {"UCUDNN_LOG_FILE", "append log lines to this file", "stderr", text<&Settings::log_file>},
      {"UCUDNN_PRELOAD_LIBRARY", "`ucudnn run` only: the preload library where --preload is not given",
       "the one beside ucudnn", text<&Settings::preload_library>},
  };
  return rows;
}

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

Expected<Settings> parse_settings(const SettingValues& raw) {
  UCUDNN_TRY_ASSIGN(const SettingValues values, trimmed(raw));  // from here, nothing is empty
  Settings settings;
  for (const SettingRow& row : setting_rows()) {
    if (!row.apply) continue;
    const Status applied = row.apply(value_of(values, row.name), values, &settings);
    if (!applied) return row.names_itself ? applied.error() : applied.error().prefixed(std::string(row.name) + ": ");
  }
  return settings;
}

const Expected<Settings>& env_config() {
  static const Expected<Settings> settings = [] {
    SettingValues values;
    for (const SettingRow& row : setting_rows()) {
      if (const char* value = std::getenv(row.name)) values[row.name] = value;
    }
    Expected<Settings> parsed = parse_settings(values);
    // Before anything logs: where the settings are invalid the log keeps its defaults (warn, on
    // stderr), and cudnnCreate and the tools report the error.
    if (parsed) configure_logging(parsed->log_level, parsed->log_file);
    return parsed;
  }();
  return settings;
}

const Settings& process_settings() {
  static const Settings defaults;
  const Expected<Settings>& settings = env_config();
  return settings ? *settings : defaults;
}

}  // namespace ucudnn
