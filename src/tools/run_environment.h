#pragma once
// The environment `ucudnn run` gives the program: the preload library first on LD_PRELOAD, the
// program's cuDNN folder first on LD_LIBRARY_PATH, statistics on, and the UCUDNN_* variables its
// options name. Variables already set are kept unless an option replaces them.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"

namespace ucudnn {
struct Settings;
}

namespace ucudnn::tools {

/// The preload library's file name, as the build and the install put it.
inline constexpr const char* kPreloadLibraryName = "libucudnn_preload.so";

/// The symbol the preload layer exports to be known as itself (preload/preload.cpp defines it): a
/// library without it is not ucudnn's preload layer, whatever its name.
inline constexpr const char* kPreloadMarkerSymbol = "ucudnn_preload_layer";

/// Refuses a preload library that is not ucudnn's preload layer (a file that is not a shared
/// library for this machine, or one that does not export kPreloadMarkerSymbol), saying which and
/// naming `path` and where it was named (`given_by`: "--preload", "UCUDNN_PRELOAD_LIBRARY", ...).
Status check_preload_layer(const std::string& path, const std::string& given_by);

/// Where the preload library is: `option` (--preload) if given, else `variable`
/// (UCUDNN_PRELOAD_LIBRARY) if set, else beside `executable` (this command's own file):
/// <its folder>/../lib/ as installed, then <its folder>/ as built. An error naming every place
/// looked at where no file is there.
Expected<std::string> locate_preload_library(const std::string& option, const std::string& variable,
                                             const std::string& executable);

/// One change to the environment: NAME set to a value, or removed.
struct EnvChange {
  std::string name;
  std::optional<std::string> value;  ///< empty: NAME is removed
};

/// What the options ask of the child's environment, checked already; empty strings are options
/// not given.
struct ChildSettings {
  std::string preload_library;
  std::string cudnn_folder;
  bool statistics = true;       ///< false: --no-stats
  std::string workspace_limit;  ///< --workspace-limit, as written
  std::string memory_budget;    ///< --memory-budget, as written
  std::string micro_batch_offers;  ///< "1": --micro-batch-offers, "0": --no-micro-batch-offers
  std::string database;         ///< --database
  std::string policy;           ///< --policy, canonical spelling
  std::string candidates;       ///< --candidates, canonical spelling
  /// Which words of the current LD_PRELOAD are ucudnn layers, left out of the child's (one layer
  /// per process: preload/layer_order.h); null: only preload_library itself is.
  std::function<bool(const std::string&)> is_preload_layer;
};

/// Reads one variable of the current environment (null: unset); std::getenv, or a map in tests.
using EnvLookup = std::function<const char*(const char* name)>;

/// Whether an LD_PRELOAD word names a ucudnn preload layer: a file named kPreloadLibraryName, or a
/// library that exports kPreloadMarkerSymbol (any ucudnn's, installed anywhere).
bool names_a_preload_layer(const std::string& word);

/// The words of the current LD_PRELOAD that the child's leaves out as ucudnn layers other than
/// `settings.preload_library`, for the command to say so.
std::vector<std::string> preload_layers_left_out(const ChildSettings& settings, const EnvLookup& current);

/// The changes that make the child's environment from the current one, in the order printed:
/// LD_PRELOAD (the preload library first, other ucudnn layers left out), LD_LIBRARY_PATH, UCUDNN_STATS (only where it
/// changes; set to 1 where it is unset or empty), then the options'. A forced workspace limit removes the deprecated
/// UCUDNN_WORKSPACE_LIMIT, which would contradict it.
std::vector<EnvChange> child_environment_changes(const ChildSettings& settings, const EnvLookup& current);

/// `environment` ("NAME=value" strings, as environ holds them) with `changes` applied.
std::vector<std::string> with_changes(const std::vector<std::string>& environment,
                                      const std::vector<EnvChange>& changes);

/// The end of the line `run` writes before the program starts, where a GPU is found: what the
/// program's convolutions are planned under. A forced workspace limit (the option's, else
/// `config`'s), else the memory budget graph-API plans are kept within and whether micro-batched
/// plans are offered (the option's, else `config`'s), else the default limit.
std::string what_plans_are_held_to(const ChildSettings& settings, const Settings& config);

/// That line's end where no GPU is found: nothing is planned there, so limits and budgets mean nothing.
inline constexpr const char* kNothingPlannedWithoutAGpu = "no GPU found, so nothing will be planned";

/// One line, without a newline, that a POSIX shell runs to make the change: "export NAME=value"
/// with the value shell-quoted, or "unset NAME".
std::string describe(const EnvChange& change);

}  // namespace ucudnn::tools
