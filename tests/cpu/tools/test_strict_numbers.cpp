// Numbers and settings read as the user wrote them, or refused. Every integer option of the `ucudnn` command is strictly decimal (CLI11 alone read
// "0132" as octal 90 and "0x5A" as 90, and `db import` filed rows under a GPU that does not exist).
// The UCUDNN_* variables follow one rule each for an empty value (unset), for surrounding
// whitespace (trimmed) and for device lists (no empty entries, no leading zeros); sizes keep
// refusing KB/MB/GB/TB and name the accepted units. Each test failed before its fix, but those
// marked as guards of a property that already held (and the helper's own test, StrictDecimal).

#include <gtest/gtest.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/env_config.h"
#include "core/units.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::kExitOk;
using tools::kExitUsageError;
namespace {

// ---- integer options are strictly decimal ----------------------------------------------

// Spellings that strtol (base 0) or a lenient reader would take for another number, or for one.
const char* const kNotDecimal[] = {"0132", "013000", "00", "0x5A", "0X5a", "0b1011010", "0o132", " 90", "90 ",
                                   "\t90", "+90", "9O", "90abc", "90.0", "1e2", "", "0x"};

const char* const kIdentityNumbers[] = {"--compute-capability", "--sm-count", "--cudnn-version", "--cuda-version"};

class StrictIntegerOptions : public ::testing::Test {
 protected:
  // db import with every identity number right but `option`, which is given as `value`.
  std::vector<std::string> import_args(const std::string& option, const std::string& value) const {
    std::vector<std::string> args = {"db", "import", "--measurements", alexnet_, "--database", db_,
                                     "--network", "alexnet", "--gpu-name", "NVIDIA H100 80GB HBM3"};
    const std::map<std::string, std::string> numbers = {{"--compute-capability", "90"},
                                                        {"--sm-count", "132"},
                                                        {"--cudnn-version", "91400"},
                                                        {"--cuda-version", "13000"}};
    for (const auto& [name, number] : numbers) args.push_back(name + "=" + (name == option ? value : number));
    return args;
  }

  testing::TempDir dir_;
  const std::string db_ = (dir_.path() / "bench.db").string();
  const std::string alexnet_ = testing::alexnet_csv_path();
  // Tests pass --database; inherited settings must not change what they see.
  testing::ScopedVariable no_database_{"UCUDNN_DATABASE", std::nullopt};
  testing::ScopedVariable no_journal_{"UCUDNN_DATABASE_JOURNAL", std::nullopt};
};

TEST_F(StrictIntegerOptions, DbImportRefusesEveryNonDecimalSpellingNamingOptionAndValue) {
  for (const char* option : kIdentityNumbers) {
    for (const char* value : kNotDecimal) {
      SCOPED_TRACE(std::string(option) + "='" + value + "'");
      expect_error(import_args(option, value), kExitUsageError, option);
      const CliResult result = run(import_args(option, value));
      // "--sm-count=" is a missing value to CLI11, which names the option only.
      if (*value != '\0') {
        EXPECT_NE(result.err.find("'" + std::string(value) + "'"), std::string::npos) << result.err;
      }
      EXPECT_FALSE(testing::exists(db_)) << "nothing is filed under a refused identity";
    }
  }
}

TEST_F(StrictIntegerOptions, DbImportRefusesOctalAndHexThatLookLikeRealGpus) {
  // Each of these three used to be stored as another number, the import exiting 0.
  expect_error(import_args("--sm-count", "0132"), kExitUsageError, "--sm-count");
  expect_error(import_args("--cuda-version", "013000"), kExitUsageError, "--cuda-version");
  expect_error(import_args("--compute-capability", "0x5A"), kExitUsageError, "--compute-capability");
  EXPECT_FALSE(testing::exists(db_));
}

TEST_F(StrictIntegerOptions, DbImportRefusesNegativesAndNumbersOutOfRange) {
  expect_error(import_args("--sm-count", "-132"), kExitUsageError, "--sm-count");
  expect_error(import_args("--sm-count", "-0"), kExitUsageError, "--sm-count");
  expect_error(import_args("--cudnn-version", "99999999999"), kExitUsageError, "--cudnn-version");
  expect_error(import_args("--cudnn-version", "99999999999"), kExitUsageError, "out of range");
  EXPECT_FALSE(testing::exists(db_));
}

TEST_F(StrictIntegerOptions, DbImportStillTakesPlainDecimals) {  // a guard: held before
  const CliResult result = run(import_args("--sm-count", "132"));
  ASSERT_EQ(result.status, kExitOk) << result.err;
  const CliResult exported = run({"db", "export", "--database", db_, "--sm-count", "132", "--cuda-version=13000"});
  ASSERT_EQ(exported.status, kExitOk) << exported.err;
  EXPECT_NE(exported.out.find("layer,op,microbatch"), std::string::npos);
}

TEST_F(StrictIntegerOptions, DbExportRefusesEveryNonDecimalSpellingNamingOptionAndValue) {
  for (const char* option : kIdentityNumbers) {
    for (const char* value : kNotDecimal) {
      SCOPED_TRACE(std::string(option) + "='" + value + "'");
      const std::vector<std::string> args = {"db", "export", "--database", db_, std::string(option) + "=" + value};
      expect_error(args, kExitUsageError, option);
      if (*value != '\0') {
        EXPECT_NE(run(args).err.find("'" + std::string(value) + "'"), std::string::npos);
      }
    }
    // The value as a word of its own, "-" first or empty, is the option's value too.
    for (const char* value : {"", "-5", "0x5A"}) {
      expect_error({"db", "export", "--database", db_, option, value}, kExitUsageError,
                   std::string(option) + ": '" + value + "'");
    }
  }
}

TEST(StrictDecimal, SaysWhatIsWrongAndAcceptsOnlyPlainDecimals) {
  EXPECT_EQ(tools::decimal_integer_error("0", false), "");
  EXPECT_EQ(tools::decimal_integer_error("90", false), "");
  EXPECT_EQ(tools::decimal_integer_error("2147483647", false), "");
  EXPECT_EQ(tools::decimal_integer_error("-5", true), "");
  EXPECT_EQ(tools::decimal_integer_error("-2147483648", true), "");
  for (const char* value : kNotDecimal) {
    EXPECT_NE(tools::decimal_integer_error(value, false), "") << "'" << value << "'";
    EXPECT_NE(tools::decimal_integer_error(value, true), "") << "'" << value << "'";
  }
  for (const char* value : {"-5", "-0", "-05", "--5", "-", "2147483648", "-2147483649"}) {
    EXPECT_NE(tools::decimal_integer_error(value, false), "") << "'" << value << "'";
  }
  for (const char* value : {"-0", "-05", "--5", "-", "+5", "-2147483649"}) {
    EXPECT_NE(tools::decimal_integer_error(value, true), "") << "'" << value << "'";
  }
  EXPECT_NE(tools::decimal_integer_error("0x5A", false).find("decimal"), std::string::npos);
  EXPECT_NE(tools::decimal_integer_error("0132", false).find("leading zero"), std::string::npos);
}

// ---- the UCUDNN_* variables -------------------------------------------------------------

// Every variable, from the one table env_config reads them by.
const auto& kVariables = setting_rows();
using Variable = SettingRow;

// Everything a configuration holds, as one comparable line.
std::string describe(const Settings& config) {
  std::ostringstream text;
  text << static_cast<int>(config.policy) << '|' << config.default_workspace_limit << '|'
       << (config.forced_workspace_limit ? std::to_string(*config.forced_workspace_limit) : "none") << '|'
       << to_string(config.memory_budget) << '|' << config.total_workspace << '|' << static_cast<int>(config.candidates)
       << '|' << config.database << '|' << config.wd_time_limit_seconds << '|' << config.job_wait_seconds << '|'
       << static_cast<int>(config.search) << '|' << static_cast<int>(config.engine_knobs) << '|'
       << static_cast<int>(config.database_journal) << '|';
  for (const auto& path : config.system_databases) text << path << ':';
  text << '|' << config.benchmark_devices << '|' << config.print_statistics << '|' << config.graph_replay << '|'
       << static_cast<int>(config.micro_batch_offers) << '|'
       << static_cast<int>(config.log_level) << '|' << config.log_file << '|' << config.preload_library << '|'
       << config.deprecations.size();
  return text.str();
}

std::string parsed_config(const SettingValues& values) {
  const auto config = parse_settings(values);
  EXPECT_TRUE(config.ok()) << config.message();
  return config.ok() ? describe(*config) : "refused: " + config.message();
}

TEST(StrictEnvironment, BenchmarkDevicesRefuseEmptyEntriesAndLeadingZeros) {
  for (const char* text : {"0,", "01", "00", "1,01", ",0", "0,,1", ",", "0,1,"}) {
    SCOPED_TRACE(std::string("UCUDNN_BENCHMARK_DEVICES='") + text + "'");
    EXPECT_FALSE(parse_device_list(text).ok());
    SettingValues values;
    values["UCUDNN_BENCHMARK_DEVICES"] = text;
    const auto config = parse_settings(values);
    ASSERT_FALSE(config.ok());
    EXPECT_EQ(config.message().rfind("UCUDNN_BENCHMARK_DEVICES", 0), 0u) << config.message();
  }
  const auto empty_entry = parse_device_list("0,");
  ASSERT_FALSE(empty_entry.ok());
  EXPECT_NE(empty_entry.message().find("empty"), std::string::npos) << empty_entry.message();
  const auto leading_zero = parse_device_list("01");
  ASSERT_FALSE(leading_zero.ok());
  EXPECT_NE(leading_zero.message().find("'01'"), std::string::npos) << leading_zero.message();

  for (const char* text : {"0", "10", "0,2,3", "all"}) {  // still taken
    EXPECT_TRUE(parse_device_list(text).ok()) << text;
  }
  EXPECT_EQ(parse_device_list("10,0")->devices, (std::vector<int>{10, 0}));
}

// The rule: an empty value is the variable unset, for every variable.
TEST(StrictEnvironment, AnEmptyValueIsUnsetForEveryVariable) {  // a guard: held before
  const std::string unset = parsed_config(SettingValues{});
  for (const Variable& variable : kVariables) {
    SCOPED_TRACE(variable.name);
    SettingValues values;
    values[variable.name] = "";
    EXPECT_EQ(parsed_config(values), unset);
  }
}

// The rule: surrounding whitespace is trimmed, for every variable; so a value of whitespace only is
// empty, and unset.
TEST(StrictEnvironment, AValueOfWhitespaceOnlyIsUnsetForEveryVariable) {
  const std::string unset = parsed_config(SettingValues{});
  for (const Variable& variable : kVariables) {
    SCOPED_TRACE(variable.name);
    for (const char* blank : {" ", "  \t ", "\n"}) {
      SettingValues values;
      values[variable.name] = blank;
      EXPECT_EQ(parsed_config(values), unset);
    }
  }
}

// A row's documented default (what the README and `ucudnn --help` say) is what the variable unset
// gives: where that default is a value, not a description ("none", "stderr"), it parses to it.
TEST(StrictEnvironment, EveryDocumentedDefaultValueIsTheDefault) {
  const std::set<std::string> described = {"UCUDNN_FORCE_WORKSPACE_LIMIT",
                                           "UCUDNN_WORKSPACE_LIMIT",
                                           "UCUDNN_TOTAL_WORKSPACE_SIZE",
                                           "UCUDNN_DATABASE",
                                           "UCUDNN_SYSTEM_DATABASES",
                                           "UCUDNN_BENCHMARK_DEVICES",
                                           "UCUDNN_LOG_FILE",
                                           "UCUDNN_PRELOAD_LIBRARY"};
  const std::string unset = parsed_config(SettingValues{});
  for (const Variable& variable : kVariables) {
    SCOPED_TRACE(variable.name);
    if (described.count(variable.name)) continue;
    EXPECT_EQ(parsed_config({{variable.name, variable.default_text}}), unset);
  }
}

TEST(StrictEnvironment, SurroundingWhitespaceIsTrimmedForEveryVariable) {
  // A plain value of each variable, by name: a variable added without one fails below.
  const std::map<std::string, const char*> plain_values = {
      {"UCUDNN_BATCH_SIZE_POLICY", "undivided"},
      {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "8MiB"},
      {"UCUDNN_FORCE_WORKSPACE_LIMIT", "16MiB"},
      {"UCUDNN_WORKSPACE_LIMIT", "16MiB"},
      {"UCUDNN_MEMORY_BUDGET", "6GiB"},
      {"UCUDNN_TOTAL_WORKSPACE_SIZE", "120MiB"},
      {"UCUDNN_WD_TIME_LIMIT", "2.5"},
      {"UCUDNN_JOB_WAIT", "30"},
      {"UCUDNN_CANDIDATES", "legacy"},
      {"UCUDNN_DATABASE", "/tmp/a.db"},
      {"UCUDNN_SEARCH", "exhaustive"},
      {"UCUDNN_ENGINE_KNOBS", "sweep"},
      {"UCUDNN_DATABASE_JOURNAL", "wal"},
      {"UCUDNN_SYSTEM_DATABASES", "/a.db:/b.db"},
      {"UCUDNN_BENCHMARK_DEVICES", "0,2"},
      {"UCUDNN_STATS", "1"},
      {"UCUDNN_GRAPH_REPLAY", "0"},
      {"UCUDNN_MICRO_BATCH_OFFERS", "1"},
      {"UCUDNN_LOG_LEVEL", "debug"},
      {"UCUDNN_LOG_FILE", "/tmp/ucudnn.log"},
      {"UCUDNN_PRELOAD_LIBRARY", "/opt/libucudnn_preload.so"},
  };
  struct Case {
    const Variable& variable;
    const char* plain;
  };
  std::vector<Case> cases;
  for (const Variable& variable : kVariables) {
    const auto found = plain_values.find(variable.name);
    ASSERT_NE(found, plain_values.end()) << variable.name << " has no plain value in this test";
    cases.push_back({variable, found->second});
  }
  ASSERT_EQ(cases.size(), plain_values.size());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable.name);
    SettingValues plain;
    plain[c.variable.name] = c.plain;
    const std::string expected = parsed_config(plain);
    EXPECT_NE(expected, parsed_config(SettingValues{})) << "the plain value changes something";
    for (const std::string& padded : {" " + std::string(c.plain), std::string(c.plain) + " ",
                                      "\t" + std::string(c.plain) + "\n", "  " + std::string(c.plain) + "  "}) {
      SettingValues values;
      values[c.variable.name] = padded;
      EXPECT_EQ(parsed_config(values), expected) << "'" << padded << "'";
    }
  }
  // What the issue saw: sizes were trimmed, UCUDNN_STATS="1 " was refused.
  SettingValues statistics;
  statistics["UCUDNN_STATS"] = "1 ";
  const auto config = parse_settings(statistics);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_TRUE(config->print_statistics);
}

TEST(StrictEnvironment, WhitespaceInsideAValueIsNotTrimmed) {
  SettingValues values;
  values["UCUDNN_BENCHMARK_DEVICES"] = "0, 1";
  EXPECT_FALSE(parse_settings(values).ok());
  values = SettingValues{};
  values["UCUDNN_STATS"] = "1 1";
  EXPECT_FALSE(parse_settings(values).ok());
  values = SettingValues{};
  values["UCUDNN_DATABASE"] = " /tmp/my db.sqlite ";
  const auto config = parse_settings(values);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->database, "/tmp/my db.sqlite");
}

// 64MB is never 64,000,000 bytes: refused as ambiguous wherever sizes are read; 64m is 64 MiB.
TEST(StrictSizes, DecimalUnitsAreRefusedAndSingleLettersAreBinary) {  // a guard: held before
  EXPECT_EQ(*parse_byte_size("64m"), std::size_t{64} << 20);
  EXPECT_EQ(*parse_byte_size("64M"), std::size_t{64} << 20);
  EXPECT_EQ(*parse_byte_size("64k"), std::size_t{64} << 10);
  for (const char* text : {"64MB", "64mb", "64Mb", "64KB", "64kb", "1GB", "1TB"}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text << " parsed as " << *size;
    EXPECT_NE(size.message().find("is ambiguous"), std::string::npos) << size.message();
    SettingValues values;
    values["UCUDNN_DEFAULT_WORKSPACE_LIMIT"] = text;
    const auto config = parse_settings(values);
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_NE(config.message().find("is ambiguous"), std::string::npos) << config.message();
  }
}

TEST(StrictSizes, AnUnknownUnitListsTheAcceptedUnits) {  // a guard: held before
  for (const char* text : {"64XB", "64 parsecs", "64mi", "64Mbit"}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    for (const char* unit : {"B,", "KiB", "MiB", "GiB", "TiB", "K, M, G, T"}) {
      EXPECT_NE(size.message().find(unit), std::string::npos) << size.message();
    }
  }
}

}  // namespace
}  // namespace ucudnn::testing
