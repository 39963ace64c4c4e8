// A mistyped word on the command line is named where it stands, with the spelling meant.
#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "tools/cli_suggest.h"

namespace ucudnn {
using tools::kExitUsageError;
namespace {

using testing::expect_error;

TEST(CliSuggestions, AMistypedSubcommandOrOptionIsNamedWithTheSpellingMeant) {
  expect_error({"plna"}, kExitUsageError, "unknown subcommand 'plna': did you mean plan?");
  expect_error({"db", "stat", "--database", "x.db"}, kExitUsageError,
               "unknown subcommand 'stat' of `db`: did you mean stats?");
  expect_error({"plan", "--measurments", "a.csv", "--workspace-limit", "64MiB"}, kExitUsageError,
               "unknown option '--measurments' of `plan`: did you mean --measurements?");
  expect_error({"plan", "--measurements=a.csv", "--workspce-limit=8MiB"}, kExitUsageError,
               "unknown option '--workspce-limit' of `plan`: did you mean --workspace-limit?");
  expect_error({"db", "merge", "--form", "a.db", "--into", "b.db"}, kExitUsageError,
               "unknown option '--form' of `db merge`: did you mean --from?");
  expect_error({"--verison"}, kExitUsageError, "unknown option '--verison': did you mean --version?");
}

TEST(CliSuggestions, AWordFarFromAnyIsNamedWithoutAGuessAndAStrayWordToo) {
  expect_error({}, kExitUsageError, "a subcommand is required: plan, db, bench, run or version (see --help)");
  expect_error({"compile"}, kExitUsageError, "unknown subcommand 'compile' (see --help)");
  expect_error({"plan", "--zzzzzzzz", "1"}, kExitUsageError, "unknown option '--zzzzzzzz' of `plan` (see --help)");
  expect_error({"db", "stats", "--database", "x.db", "extra"}, kExitUsageError,
               "unexpected word 'extra' of `db stats` (it takes options only)");
}

TEST(CliSuggestions, AnOptionsValueIsNotTakenForAWord) {
  // "stats" here is the value of --database, not a subcommand; the file is simply missing.
  const testing::CliResult result = testing::run({"db", "verify", "--database", "stat"});
  EXPECT_EQ(result.err.find("unknown"), std::string::npos) << result.err;
}

TEST(CliSuggestions, EditDistanceCountsOneTranspositionAsOneEdit) {
  EXPECT_EQ(tools::edit_distance("plan", "plan"), 0u);
  EXPECT_EQ(tools::edit_distance("plna", "plan"), 1u);
  EXPECT_EQ(tools::edit_distance("stat", "stats"), 1u);
  EXPECT_EQ(tools::edit_distance("", "abc"), 3u);
  EXPECT_EQ(tools::edit_distance("--measurments", "--measurements"), 1u);
}

}  // namespace
}  // namespace ucudnn
