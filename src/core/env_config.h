#pragma once
// The environment variables ucudnn reads: declared here once, typed, parsed strictly, read once
// per process. A handle's API setters override them.
//
// | variable                        | meaning                                          | default    |
// |---------------------------------|--------------------------------------------------|------------|
// | UCUDNN_BATCH_SIZE_POLICY        | all, powerOfTwo or undivided (case-insensitive)  | powerOfTwo |
// | UCUDNN_DEFAULT_WORKSPACE_LIMIT  | per-kernel limit where a call gives none         | 64MiB      |
// | UCUDNN_FORCE_WORKSPACE_LIMIT    | per-kernel limit imposed on every call, whatever  | none       |
// |                                 | it asks (for programs that cannot be changed)    |            |
// | UCUDNN_WORKSPACE_LIMIT          | deprecated name of UCUDNN_FORCE_WORKSPACE_LIMIT   | none       |
// | UCUDNN_MEMORY_BUDGET            | what a graph-API plan may take (it names no     | free       |
// |                                 | limit): free (the device's free memory), a SIZE |            |
// |                                 | (the program's budget on the device) or off     |            |
// |                                 | (the default limit); core/memory_budget.h       |            |
// | UCUDNN_TOTAL_WORKSPACE_SIZE     | WD mode: one budget for all kernels (units!)     | off (WR)   |
// | UCUDNN_WD_TIME_LIMIT            | seconds WD's integer program may search; then    | 10         |
// |                                 | the best plan found (its gap logged) or an error |            |
// | UCUDNN_CANDIDATES               | legacy, engines (graph API) or both              | both       |
// | UCUDNN_DATABASE                 | SQLite benchmark database shared by processes    | none       |
// | UCUDNN_SEARCH                   | fast or exhaustive benchmarking of new kernels   | fast       |
// | UCUDNN_DATABASE_JOURNAL         | auto, wal, delete, truncate, persist             | auto       |
// | UCUDNN_SYSTEM_DATABASES         | read-only benchmark databases looked up after    | none       |
// |                                 | UCUDNN_DATABASE, ':'-separated as PATH, in order |            |
// |                                 | (at most kMaxSystemDatabases, 32)                |            |
// | UCUDNN_BENCHMARK_DEVICES        | all, or distinct device ordinals "0,2,3" (no     | the handle's|
// |                                 | empty entry, no leading zero: "0," and "01" are  |            |
// |                                 | refused)                                         |            |
// | UCUDNN_STATS                    | 1: print per-operation statistics at exit        | 0          |
// | UCUDNN_GRAPH_REPLAY             | 1: replay recurring calls as CUDA graphs; 0: not  | 1          |
// | UCUDNN_MICRO_BATCH_OFFERS       | 1: offer a graph-API program's autotuner ucudnn's | auto       |
// |                                 | plan beside cuDNN's under a budget (api/graph/offer.h)|            |
// |                                 | 0: never; auto: where the program is PyTorch      |            |
// | UCUDNN_LOG_LEVEL                | off, error, warn, info, debug (or 0-4)           | warn       |
// | UCUDNN_LOG_FILE                 | append log lines to this file                    | stderr     |
// | UCUDNN_PRELOAD_LIBRARY          | `ucudnn run` only: the libucudnn_preload.so to   | beside the |
// |                                 | preload where --preload is not given             | command    |
//
// Every variable alike: surrounding whitespace (space, tab, CR, LF) is trimmed from its value, and
// a value that is then empty (VAR= or VAR=" ") means the variable is unset, its default applying.
// Whitespace inside a value is the value's own ("0, 1" is refused; a path keeps it). A word is read
// as core/spelling.h reads every word: case, '-' and '_' ignored (POWER_OF_TWO is powerOfTwo).
// Each variable is one row of kEnvVariables (env_config.cpp): its name, its EnvValues field and how
// its value goes into EnvConfig.
// Sizes take binary units ("8MiB"; B, K or KiB, M or MiB, G or GiB, T or TiB; KB, MB, GB and TB
// are refused as ambiguous, never read as powers of ten); a bare number below 1 MiB is refused (except 0 for the
// limits: no workspace), as is a total workspace of 0. A bad value of any of them fails cudnnCreate with
// CUDNN_STATUS_BAD_PARAM and the `ucudnn` command with a usage error, naming the variable.
// UCUDNN_WORKSPACE_LIMIT still works in this release, with one deprecation warning at the first
// cudnnCreate; set together with UCUDNN_FORCE_WORKSPACE_LIMIT to another size, it is an error.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidates.h"
#include "core/expected.h"
#include "core/journal_mode.h"
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

struct EnvConfig {
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

struct EnvValues {
  const char* policy = nullptr;
  const char* default_workspace_limit = nullptr;
  const char* forced_workspace_limit = nullptr;     ///< UCUDNN_FORCE_WORKSPACE_LIMIT
  const char* deprecated_workspace_limit = nullptr;  ///< UCUDNN_WORKSPACE_LIMIT, its old name
  const char* memory_budget = nullptr;
  const char* total_workspace = nullptr;
  const char* wd_time_limit = nullptr;
  const char* job_wait = nullptr;
  const char* candidates = nullptr;
  const char* database = nullptr;
  const char* search = nullptr;
  const char* database_journal = nullptr;
  const char* system_databases = nullptr;
  const char* benchmark_devices = nullptr;
  const char* statistics = nullptr;
  const char* graph_replay = nullptr;
  const char* micro_batch_offers = nullptr;
  const char* log_level = nullptr;
  const char* log_file = nullptr;
  const char* preload_library = nullptr;
};

/// One UCUDNN_* variable, declared once: where its value is in EnvValues, its name, and how the
/// value (never empty; null where unset) goes into EnvConfig. `apply`'s errors are prefixed with
/// the name unless `names_itself`; a null `apply` is a variable another row reads (an old name).
struct EnvVariable {
  const char* EnvValues::*field;
  const char* name;
  Status (*apply)(const char* value, const EnvValues& all, EnvConfig* config) = nullptr;
  bool names_itself = false;
};
/// Every variable, in the table's order: what env_config() reads, trims and empties alike.
extern const EnvVariable kEnvVariables[20];

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

/// Parses the given values (null = unset), trimmed and emptied as the table's rule says.
Expected<EnvConfig> parse_env_config(const EnvValues& values);
inline Expected<EnvConfig> parse_env_config(const char* policy, const char* default_workspace_limit) {
  EnvValues values;
  values.policy = policy;
  values.default_workspace_limit = default_workspace_limit;
  return parse_env_config(values);
}

/// The process's configuration, read from the environment once, on first use.
const Expected<EnvConfig>& env_config();

}  // namespace ucudnn
