#pragma once
// The settings: every UCUDNN_* environment variable, declared once as a row of setting_rows()
// (env_config.cpp): its name, what it means, its default as the documents write it, and how its
// value goes into Settings. The parser, `ucudnn --help`'s settings list and the README's settings
// table (checked against the rows by tests/cpu/project/test_settings_table.cpp) all come from the rows;
// read them there, not here. env_config() is the one reader of the process's environment; the
// front-ends and tools hand what it read down (a handle copies Settings at creation, the runtime
// gets values through constructors, the logger through configure_logging).
//
// Every variable alike: surrounding whitespace (space, tab, CR, LF) is trimmed from its value, and
// a value that is then empty (VAR= or VAR=" ") means the variable is unset, its default applying.
// Whitespace inside a value is the value's own ("0, 1" is refused; a path keeps it). A word is read
// as core/spelling.h reads every word: case, '-' and '_' ignored (POWER_OF_TWO is powerOfTwo).
// Sizes take binary units ("8MiB"; B, K or KiB, M or MiB, G or GiB, T or TiB; KB, MB, GB and TB
// are refused as ambiguous, never read as powers of ten); a bare number below 1 MiB is refused (except 0 for the
// limits: no workspace), as is a total workspace of 0. A bad value of any of them fails cudnnCreate with
// CUDNN_STATUS_BAD_PARAM and the `ucudnn` command with a usage error, naming the variable.
// UCUDNN_WORKSPACE_LIMIT still works in this release, with one deprecation warning at the first
// cudnnCreate; set together with UCUDNN_FORCE_WORKSPACE_LIMIT to another size, it is an error.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/expected.h"
#include "core/journal_mode.h"
#include "core/knob_sweep.h"
#include "core/logging.h"
#include "core/memory_budget.h"
#include "core/search_mode.h"
#include "core/units.h"

namespace ucudnn {

/// UCUDNN_DEFAULT_WORKSPACE_LIMIT's default: Caffe2's per-layer limit.
inline constexpr std::size_t kDefaultWorkspaceLimit = std::size_t{64} << 20;

/// UCUDNN_MICRO_BATCH_OFFERS: whether a graph-API program's heuristics also offer ucudnn's plan
/// (api/graph/offer.h); kAuto: where the program is PyTorch (api::program_takes_offers).
enum class OfferMode { kAuto, kOn, kOff };

/// UCUDNN_JOB_WAIT's default: longer than one kernel's benchmark with every engine.
inline constexpr double kDefaultJobWaitSeconds = 300.0;

/// Every setting's value: what setting_rows() parse into, a handle copies and the runtime is
/// built from. Default-constructed, every setting's default.
struct Settings {
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::size_t default_workspace_limit = kDefaultWorkspaceLimit;
  std::optional<std::size_t> forced_workspace_limit;  ///< UCUDNN_FORCE_WORKSPACE_LIMIT: caps every call's limit
  MemoryBudget memory_budget;       ///< UCUDNN_MEMORY_BUDGET: what graph-API plans may take
  std::size_t total_workspace = 0;  ///< WD budget; 0: WR mode
  double wd_time_limit_seconds = kDefaultWdTimeLimitSeconds;  ///< UCUDNN_WD_TIME_LIMIT
  /// UCUDNN_JOB_WAIT: how long a process waits for another's benchmark of the same kernel (the
  /// database's claim, store/measurement_claims.h) before it measures on its own.
  double job_wait_seconds = kDefaultJobWaitSeconds;
  CandidateSet candidates = CandidateSet::kBoth;  ///< UCUDNN_CANDIDATES
  std::string database;           ///< empty: no database
  SearchMode search = SearchMode::kFast;  ///< UCUDNN_SEARCH
  KnobSearch engine_knobs = KnobSearch::kHeuristics;  ///< UCUDNN_ENGINE_KNOBS
  JournalMode database_journal = JournalMode::kAuto;
  std::vector<std::string> system_databases;  ///< UCUDNN_SYSTEM_DATABASES, in lookup order
  std::string benchmark_devices;  ///< "all" or "0,2,3" (syntax checked here, device numbers at
                                  ///< cudnnCreate); empty: the handle's own
  bool print_statistics = false;  ///< UCUDNN_STATS
  bool graph_replay = true;       ///< UCUDNN_GRAPH_REPLAY
  OfferMode micro_batch_offers = OfferMode::kAuto;  ///< UCUDNN_MICRO_BATCH_OFFERS
  LogLevel log_level = LogLevel::kWarn;
  std::string log_file;  ///< empty: stderr
  std::string preload_library;  ///< UCUDNN_PRELOAD_LIBRARY (read by `ucudnn run`); empty: not set
  /// One warning per deprecated variable that is set, naming its replacement; logged once per
  /// process at the first cudnnCreate.
  std::vector<std::string> deprecations;
};

/// The variables' values by name (an absent name is unset), as the environment gives them:
/// parse_settings trims them.
using SettingValues = std::map<std::string, std::string>;

/// One UCUDNN_* variable, declared once: its name, its meaning and default as `ucudnn --help` and
/// the README write them, and how its value (trimmed, never empty; null where unset) goes into
/// Settings. `apply`'s errors are prefixed with the name unless `names_itself`. An old name
/// (`old_name_of` set) has no `apply`: its new name's row reads it from `all`.
struct SettingRow {
  const char* name;
  const char* meaning;
  const char* default_text;
  Status (*apply)(const char* value, const SettingValues& all, Settings* settings) = nullptr;
  bool names_itself = false;
  const char* old_name_of = nullptr;
};
/// Every variable, in the order the documents list them: what env_config() reads.
const std::vector<SettingRow>& setting_rows();

/// UCUDNN_BENCHMARK_DEVICES: "all", or distinct device numbers ("0,2,3"). Whether they exist is
/// checked against the visible devices by runtime/device_info.h.
struct DeviceList {
  bool all = false;
  std::vector<int> devices;
};
Expected<DeviceList> parse_device_list(const std::string& text);

/// UCUDNN_MICRO_BATCH_OFFERS's spelling: "1", "0" or "auto" (the error names no variable).
Expected<OfferMode> parse_offer_mode(const std::string& text);

/// The paths of a ':'-separated list, as PATH separates them, in order; empty entries are
/// ignored (UCUDNN_SYSTEM_DATABASES, ucudnnSetSystemDatabases).
std::vector<std::string> split_path_list(const std::string& text);

/// The most system databases a process looks rows up in: each stays open (a descriptor or three)
/// for the process's life, and a longer list is a mistake, not a layout.
inline constexpr std::size_t kMaxSystemDatabases = 32;

/// split_path_list of UCUDNN_SYSTEM_DATABASES or ucudnnSetSystemDatabases' argument, refused
/// where it names more than kMaxSystemDatabases files (the error says how many and the bound).
Expected<std::vector<std::string>> parse_system_databases(const std::string& text);

/// Parses the given values, trimmed and emptied as the rule above says. A name that is no row's
/// is an internal error (a caller's typo, never the environment's: env_config() asks by row).
Expected<Settings> parse_settings(const SettingValues& values);

/// The process's settings, read from the environment once, on first use; the first read hands
/// the log level and file to the logger (configure_logging) where the settings are valid.
const Expected<Settings>& env_config();

/// env_config(), or every default where the environment is invalid: what the process's objects
/// are built from. An invalid environment fails cudnnCreate itself (and the tools), so the
/// defaults only ever serve calls that need no handle (ucudnnSetDatabase before cudnnCreate).
const Settings& process_settings();

}  // namespace ucudnn
