// `ucudnn db merge`: copies one benchmark database (a user's) into another (a shared system one).
#include <optional>
#include <ostream>
#include <utility>
#include <string>

#include "core/journal_mode.h"
#include "store/database.h"
#include "store/file_state.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/db_subcommands.h"
#include "tools/new_database.h"

namespace ucudnn::tools::db_subcommands {

int run_merge(const DbOptions& options, std::ostream& out, std::ostream& err) {
  const auto journal = parse_journal_mode(options.journal);
  if (!journal) return report_error(err, kExitUsageError, "--journal: " + journal.message());
  if (options.from.empty()) return report_error(err, kExitUsageError, "--from: the path is empty");
  if (options.into.empty()) return report_error(err, kExitUsageError, "--into: the path is empty");
  // Before either is opened: opening the target for writing could upgrade the source's file.
  if (options.from == options.into || store::same_file(options.from, options.into)) {
    return report_error(err, kExitUsageError,
                        "--from '" + options.from + "' and --into '" + options.into +
                            "' are the same file: merge a database into another one");
  }
  BenchmarkDatabase::Options reading;
  reading.create = false;
  reading.read_only = true;
  const auto source = BenchmarkDatabase::open(options.from, reading);
  if (!source) return report_error(err, kExitDataError, "--from: " + source.message());

  // The target is created only where asked: a mistyped path must not become an empty database
  // that everyone then looks up in vain.
  bool is_directory = false;
  if (!options.create && !store::file_exists(options.into, &is_directory)) {
    return report_error(
        err, kExitDataError,
        "--into: benchmark database '" + options.into + "' does not exist (give --create to make a new one)");
  }
  BenchmarkDatabase::Options writing;
  writing.create = options.create;
  writing.journal = *journal;
  writing.journal_named_by = "--journal";
  // A new target is made under a temporary name, and named only once the merge is whole.
  std::optional<NewDatabaseFile> fresh;
  if (options.create && nothing_at(options.into)) {
    auto reserved = NewDatabaseFile::reserve(options.into);
    if (!reserved) return report_error(err, kExitDataError, "--into: " + reserved.message());
    fresh.emplace(std::move(reserved).value());
    report_leftovers_removed(*fresh, out);  // now: what this command removed, whatever comes after
    writing.shown_as = options.into;
  }
  auto target = BenchmarkDatabase::open(fresh ? fresh->temporary() : options.into, writing);
  if (!target) return report_error(err, kExitDataError, "--into: " + target.message());
  if ((*target)->read_only()) {
    return report_error(err, kExitDataError,
                        "--into: benchmark database '" + options.into + "' is read-only (" +
                            (*target)->read_only_reason() + "): nothing merged");
  }

  const auto merged = (*target)->merge_from(**source);
  if (!merged) return report_error(err, kExitDataError, merged.message());
  if (fresh) {
    const Status named = fresh->publish(std::move(target).value());
    if (!named) return report_error(err, kExitDataError, "--into: " + named.message() + ": nothing merged");
  }
  out << "merged '" << options.from << "' into '" << options.into << "': " << merged->rows_added << " rows added, "
      << merged->rows_present << " already there, " << merged->coverage_raised << " coverage bounds raised\n";
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands
