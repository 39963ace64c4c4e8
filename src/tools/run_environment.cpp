#include "tools/run_environment.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/env_config.h"
#include "core/memory_budget.h"
#include "core/units.h"
#include "tools/beside_command.h"
#include "tools/elf_symbols.h"
#include "tools/subprocess.h"

namespace ucudnn::tools {
namespace {

// The words of a list separated by any of `separators`, empty ones dropped.
std::vector<std::string> words_of(const std::string& list, const char* separators) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find_first_of(separators, start), list.size());
    if (end > start) words.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::string value_of(const EnvLookup& current, const char* name) {
  const char* value = current(name);
  return value ? value : "";
}

// The words of the current LD_PRELOAD (split at spaces and colons, as the dynamic linker splits
// it), each with whether the child's leaves it out: the preload library itself (put first
// instead), or another ucudnn layer.
std::vector<std::pair<std::string, bool>> preload_words(const ChildSettings& settings, const EnvLookup& current) {
  std::vector<std::pair<std::string, bool>> words;
  for (const std::string& word : words_of(value_of(current, "LD_PRELOAD"), ": ")) {
    const bool layer = settings.is_preload_layer && settings.is_preload_layer(word);
    words.emplace_back(word, word == settings.preload_library || layer);
  }
  return words;
}

// What the status line says of micro-batch offers (the option's, else the environment's), which
// are made under a memory budget only.
std::string what_offers_are_made(const ChildSettings& settings, const Settings& config) {
  // The option's value was spelled by checked_settings ("1" or "0"), so it parses.
  const OfferMode mode =
      settings.micro_batch_offers.empty() ? config.micro_batch_offers : *parse_offer_mode(settings.micro_batch_offers);
  switch (mode) {
    case OfferMode::kAuto: return "; micro-batched plans offered to the program's autotuner if it is PyTorch";
    case OfferMode::kOn: return "; micro-batched plans offered to the program's autotuner";
    case OfferMode::kOff: break;
  }
  return "; no micro-batched plans offered";
}

}  // namespace

Expected<std::string> locate_preload_library(const std::string& option, const std::string& variable,
                                             const std::string& executable) {
  if (!option.empty()) {
    if (is_file(option)) return option;
    return Error::invalid("--preload: no preload library at '" + option + "'");
  }
  if (!variable.empty()) {
    if (is_file(variable)) return variable;
    return Error::invalid("UCUDNN_PRELOAD_LIBRARY: no preload library at '" + variable + "'");
  }
  auto beside = library_beside(kPreloadLibraryName, executable);
  if (!beside) return Error::invalid(beside.message() + ": name it with --preload or UCUDNN_PRELOAD_LIBRARY");
  return beside;
}

Status check_preload_layer(const std::string& path, const std::string& given_by) {
  const std::string which = given_by + ": '" + path + "' is not ucudnn's preload layer: ";
  const Expected<bool> marked = exports_symbol(path, kPreloadMarkerSymbol);
  if (!marked) return marked.error().prefixed(which);
  if (!*marked) {
    return Error::invalid(which + "it is a shared library, but does not export " + std::string(kPreloadMarkerSymbol) +
                          " (name " + kPreloadLibraryName + " of this ucudnn)");
  }
  return Status::success();
}

bool names_a_preload_layer(const std::string& word) {
  if (std::filesystem::path(word).filename() == kPreloadLibraryName) return true;
  if (word.find('/') == std::string::npos) return false;  // a name the linker looks up: only by name
  const Expected<bool> marked = exports_symbol(word, kPreloadMarkerSymbol);
  return marked && *marked;
}

std::vector<std::string> preload_layers_left_out(const ChildSettings& settings, const EnvLookup& current) {
  std::vector<std::string> left_out;
  for (const auto& [word, left] : preload_words(settings, current)) {
    if (left && word != settings.preload_library) left_out.push_back(word);
  }
  return left_out;
}

std::vector<EnvChange> child_environment_changes(const ChildSettings& settings, const EnvLookup& current) {
  std::vector<EnvChange> changes;
  std::string preload = settings.preload_library;
  for (const auto& [word, left] : preload_words(settings, current)) {
    if (!left) preload += ":" + word;
  }
  changes.push_back({"LD_PRELOAD", preload});
  // The rest of the search path untouched: an empty entry there means the working folder.
  const std::string library_path = value_of(current, "LD_LIBRARY_PATH");
  changes.push_back({"LD_LIBRARY_PATH", settings.cudnn_folder + (library_path.empty() ? "" : ":" + library_path)});
  if (!settings.statistics) {
    changes.push_back({"UCUDNN_STATS", "0"});
  } else if (value_of(current, "UCUDNN_STATS").find_first_not_of(" \t\r\n") == std::string::npos) {
    // Unset, or empty (which means unset): statistics on.
    changes.push_back({"UCUDNN_STATS", "1"});
  }
  if (!settings.workspace_limit.empty()) {
    changes.push_back({"UCUDNN_FORCE_WORKSPACE_LIMIT", settings.workspace_limit});
    if (current("UCUDNN_WORKSPACE_LIMIT") != nullptr) changes.push_back({"UCUDNN_WORKSPACE_LIMIT", std::nullopt});
  }
  if (!settings.memory_budget.empty()) changes.push_back({"UCUDNN_MEMORY_BUDGET", settings.memory_budget});
  if (!settings.micro_batch_offers.empty()) {
    changes.push_back({"UCUDNN_MICRO_BATCH_OFFERS", settings.micro_batch_offers});
  }
  if (!settings.database.empty()) changes.push_back({"UCUDNN_DATABASE", settings.database});
  if (!settings.policy.empty()) changes.push_back({"UCUDNN_BATCH_SIZE_POLICY", settings.policy});
  if (!settings.candidates.empty()) changes.push_back({"UCUDNN_CANDIDATES", settings.candidates});
  return changes;
}

std::vector<std::string> with_changes(const std::vector<std::string>& environment,
                                      const std::vector<EnvChange>& changes) {
  std::vector<std::string> changed;
  for (const std::string& entry : environment) {
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const EnvChange& change : changes) replaced = replaced || change.name == name;
    if (!replaced) changed.push_back(entry);
  }
  for (const EnvChange& change : changes) {
    if (change.value) changed.push_back(change.name + "=" + *change.value);
  }
  return changed;
}

std::string describe(const EnvChange& change) {
  if (!change.value) return "unset " + change.name;
  return "export " + change.name + "=" + shell_quote(*change.value);
}

std::string what_plans_are_held_to(const ChildSettings& settings, const Settings& config) {
  if (!settings.workspace_limit.empty()) {
    return "workspace limit " + format_byte_size(*parse_byte_size(settings.workspace_limit));
  }
  if (config.forced_workspace_limit) return "workspace limit " + format_byte_size(*config.forced_workspace_limit);
  switch (config.memory_budget.kind) {
    case MemoryBudget::Kind::kFree:
      return "graph-API plans kept as the program built them unless their workspace exceeds the GPU's memory left when "
             "the program made its first cuDNN handle" +
             what_offers_are_made(settings, config);
    case MemoryBudget::Kind::kSize:
      return "graph-API plans kept as the program built them unless their workspace exceeds what was left of a " +
             to_string(config.memory_budget) + " budget when the program made its first cuDNN handle" +
             what_offers_are_made(settings, config);
    case MemoryBudget::Kind::kOff: break;
  }
  return "default workspace limit " + format_byte_size(config.default_workspace_limit) +
         " for graph-API plans, the program's own for legacy calls";
}

}  // namespace ucudnn::tools
