// The environment's settings (core/env_config.h): each variable read strictly, a bad value
// refused naming the variable, deprecated names taken with a warning.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/env_config.h"
#include "test_helpers.h"

namespace {

using ucudnn::EnvValues;
using ucudnn::ErrorCode;
using ucudnn::parse_env_config;
using ucudnn::testing::kHugeNumber;

TEST(EnvConfig, ParsesPolicyAndLimitStrictly) {
  auto defaults = ucudnn::parse_env_config(nullptr, nullptr);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->policy, ucudnn::BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(defaults->default_workspace_limit, size_t{64} << 20);

  auto set = ucudnn::parse_env_config("UNDIVIDED", "8MiB");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->policy, ucudnn::BatchSizePolicy::kUndivided);
  EXPECT_EQ(set->default_workspace_limit, size_t{8} << 20);

  auto bad_policy = ucudnn::parse_env_config("fastest", nullptr);
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_NE(bad_policy.message().find("UCUDNN_BATCH_SIZE_POLICY"), std::string::npos);
  auto bad_size = ucudnn::parse_env_config(nullptr, "64 parsecs");
  ASSERT_FALSE(bad_size.ok());
  EXPECT_NE(bad_size.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos);
}

TEST(EnvConfig, ForcedWorkspaceLimitTakesItsNewNameAndItsDeprecatedOne) {
  ucudnn::EnvValues values;
  values.forced_workspace_limit = "8MiB";  // UCUDNN_FORCE_WORKSPACE_LIMIT
  auto forced = ucudnn::parse_env_config(values);
  ASSERT_TRUE(forced.ok()) << forced.message();
  EXPECT_EQ(forced->forced_workspace_limit, size_t{8} << 20);
  EXPECT_TRUE(forced->deprecations.empty());

  ucudnn::EnvValues old_name;
  old_name.deprecated_workspace_limit = "16MiB";  // UCUDNN_WORKSPACE_LIMIT
  auto deprecated = ucudnn::parse_env_config(old_name);
  ASSERT_TRUE(deprecated.ok()) << deprecated.message();
  EXPECT_EQ(deprecated->forced_workspace_limit, size_t{16} << 20) << "the old name still works";
  ASSERT_EQ(deprecated->deprecations.size(), 1u);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_WORKSPACE_LIMIT is deprecated"), std::string::npos);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_FORCE_WORKSPACE_LIMIT"), std::string::npos);

  values.deprecated_workspace_limit = "8388608";  // the same size, spelt otherwise: no conflict
  auto agreeing = ucudnn::parse_env_config(values);
  ASSERT_TRUE(agreeing.ok()) << agreeing.message();
  EXPECT_EQ(agreeing->forced_workspace_limit, size_t{8} << 20);
  EXPECT_EQ(agreeing->deprecations.size(), 1u);

  values.deprecated_workspace_limit = "16MiB";
  auto disagreeing = ucudnn::parse_env_config(values);
  ASSERT_FALSE(disagreeing.ok());
  EXPECT_NE(disagreeing.message().find(
                "UCUDNN_FORCE_WORKSPACE_LIMIT='8MiB' and UCUDNN_WORKSPACE_LIMIT='16MiB' (its deprecated name) disagree"),
            std::string::npos)
      << disagreeing.message();

  old_name.deprecated_workspace_limit = "lots";
  auto bad = ucudnn::parse_env_config(old_name);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().rfind("UCUDNN_WORKSPACE_LIMIT: ", 0), 0u) << bad.message();
}

TEST(EnvConfig, StatisticsSwitchIsZeroOrOne) {
  ucudnn::EnvValues values;
  values.statistics = "1";
  auto on = ucudnn::parse_env_config(values);
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->print_statistics);
  values.statistics = "0";
  EXPECT_FALSE(ucudnn::parse_env_config(values)->print_statistics);
  values.statistics = "yes";
  auto bad = ucudnn::parse_env_config(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_STATS: 'yes' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(EnvConfig, GraphReplayIsOnByDefaultAndZeroOrOne) {
  ucudnn::EnvValues values;
  EXPECT_TRUE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "0";
  EXPECT_FALSE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "1";
  EXPECT_TRUE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "off";
  auto bad = ucudnn::parse_env_config(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_GRAPH_REPLAY: 'off' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(EnvConfig, LogLevelJournalAndDevicesAreParsedStrictlyWithTheVariableNamed) {
  auto parse = [](void (*set)(ucudnn::EnvValues&)) {
    ucudnn::EnvValues values;
    set(values);
    return ucudnn::parse_env_config(values);
  };
  const auto level = parse([](ucudnn::EnvValues& v) { v.log_level = "loud"; });
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.message().find("UCUDNN_LOG_LEVEL"), std::string::npos) << level.message();
  const auto devices = parse([](ucudnn::EnvValues& v) { v.benchmark_devices = "0,,1"; });
  ASSERT_FALSE(devices.ok());
  EXPECT_NE(devices.message().find("UCUDNN_BENCHMARK_DEVICES"), std::string::npos) << devices.message();
  const auto journal = parse([](ucudnn::EnvValues& v) { v.database_journal = "fast"; });
  ASSERT_FALSE(journal.ok());
  EXPECT_NE(journal.message().find("UCUDNN_DATABASE_JOURNAL"), std::string::npos) << journal.message();

  const auto good = parse([](ucudnn::EnvValues& v) {
    v.log_level = "DEBUG";
    v.benchmark_devices = "all";
    v.database_journal = "wal";
  });
  ASSERT_TRUE(good.ok()) << good.message();
  EXPECT_EQ(good->log_level, ucudnn::LogLevel::kDebug);
  EXPECT_EQ(good->database_journal, ucudnn::JournalMode::kWal);
  EXPECT_EQ(good->benchmark_devices, "all");
  for (const char* all : {"ALL", "All"}) {  // a word like every other setting's
    const auto list = ucudnn::parse_device_list(all);
    ASSERT_TRUE(list.ok()) << all << ": " << list.message();
    EXPECT_TRUE(list->all) << all;
  }
  EXPECT_FALSE(ucudnn::parse_device_list("-all").ok());
}

TEST(EnvConfig, HugeSizeInTheEnvironmentNamesTheVariable) {
  EnvValues values;
  values.default_workspace_limit = kHugeNumber.c_str();
  const auto config = parse_env_config(values);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, ErrorCode::kBadParam);
  EXPECT_NE(config.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT: "), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("out of range"), std::string::npos) << config.message();
}

TEST(EnvConfig, BareSmallSizesInTheEnvironmentAreRefusedNamingTheVariable) {
  const struct {
    const char* EnvValues::*field;
    const char* name;
  } sizes[] = {{&EnvValues::default_workspace_limit, "UCUDNN_DEFAULT_WORKSPACE_LIMIT"},
               {&EnvValues::forced_workspace_limit, "UCUDNN_FORCE_WORKSPACE_LIMIT"},
               {&EnvValues::deprecated_workspace_limit, "UCUDNN_WORKSPACE_LIMIT"},
               {&EnvValues::total_workspace, "UCUDNN_TOTAL_WORKSPACE_SIZE"}};
  for (const auto& size : sizes) {
    EnvValues values;
    values.*size.field = "64";
    const auto config = parse_env_config(values);
    ASSERT_FALSE(config.ok()) << size.name;
    EXPECT_EQ(config.message().rfind(std::string(size.name) + ": ", 0), 0u) << config.message();
    EXPECT_NE(config.message().find("did you mean 64MiB?"), std::string::npos) << config.message();
    values.*size.field = "8MiB";
    EXPECT_TRUE(parse_env_config(values).ok()) << size.name;
  }
  EnvValues zero;
  zero.forced_workspace_limit = "0";  // a limit of no workspace means something
  ASSERT_TRUE(parse_env_config(zero).ok());
  EXPECT_EQ(*parse_env_config(zero)->forced_workspace_limit, 0u);
  zero.total_workspace = "0";  // a budget of nothing does not
  const auto config = parse_env_config(zero);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.message().find("UCUDNN_TOTAL_WORKSPACE_SIZE: "), std::string::npos) << config.message();
}

}  // namespace
