// The environment's settings (core/env_config.h): each variable read strictly, a bad value
// refused naming the variable, deprecated names taken with a warning.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/env_config.h"
#include "test_helpers.h"

namespace {

using ucudnn::ErrorCode;
using ucudnn::parse_settings;
using ucudnn::SettingValues;
using ucudnn::testing::kHugeNumber;

TEST(Settings, ParsesPolicyAndLimitStrictly) {
  auto defaults = ucudnn::parse_settings({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->policy, ucudnn::BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(defaults->default_workspace_limit, size_t{64} << 20);

  auto set =
      ucudnn::parse_settings({{"UCUDNN_BATCH_SIZE_POLICY", "UNDIVIDED"}, {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "8MiB"}});
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->policy, ucudnn::BatchSizePolicy::kUndivided);
  EXPECT_EQ(set->default_workspace_limit, size_t{8} << 20);

  auto bad_policy = ucudnn::parse_settings({{"UCUDNN_BATCH_SIZE_POLICY", "fastest"}});
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_NE(bad_policy.message().find("UCUDNN_BATCH_SIZE_POLICY"), std::string::npos);
  auto bad_size = ucudnn::parse_settings({{"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "64 parsecs"}});
  ASSERT_FALSE(bad_size.ok());
  EXPECT_NE(bad_size.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos);
}

TEST(Settings, ForcedWorkspaceLimitTakesItsNewNameAndItsDeprecatedOne) {
  ucudnn::SettingValues values;
  values["UCUDNN_FORCE_WORKSPACE_LIMIT"] = "8MiB";  // UCUDNN_FORCE_WORKSPACE_LIMIT
  auto forced = ucudnn::parse_settings(values);
  ASSERT_TRUE(forced.ok()) << forced.message();
  EXPECT_EQ(forced->forced_workspace_limit, size_t{8} << 20);
  EXPECT_TRUE(forced->deprecations.empty());

  ucudnn::SettingValues old_name;
  old_name["UCUDNN_WORKSPACE_LIMIT"] = "16MiB";  // UCUDNN_WORKSPACE_LIMIT
  auto deprecated = ucudnn::parse_settings(old_name);
  ASSERT_TRUE(deprecated.ok()) << deprecated.message();
  EXPECT_EQ(deprecated->forced_workspace_limit, size_t{16} << 20) << "the old name still works";
  ASSERT_EQ(deprecated->deprecations.size(), 1u);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_WORKSPACE_LIMIT is deprecated"), std::string::npos);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_FORCE_WORKSPACE_LIMIT"), std::string::npos);

  values["UCUDNN_WORKSPACE_LIMIT"] = "8388608";  // the same size, spelt otherwise: no conflict
  auto agreeing = ucudnn::parse_settings(values);
  ASSERT_TRUE(agreeing.ok()) << agreeing.message();
  EXPECT_EQ(agreeing->forced_workspace_limit, size_t{8} << 20);
  EXPECT_EQ(agreeing->deprecations.size(), 1u);

  values["UCUDNN_WORKSPACE_LIMIT"] = "16MiB";
  auto disagreeing = ucudnn::parse_settings(values);
  ASSERT_FALSE(disagreeing.ok());
  EXPECT_NE(disagreeing.message().find(
                "UCUDNN_FORCE_WORKSPACE_LIMIT='8MiB' and UCUDNN_WORKSPACE_LIMIT='16MiB' (its deprecated name) disagree"),
            std::string::npos)
      << disagreeing.message();

  old_name["UCUDNN_WORKSPACE_LIMIT"] = "lots";
  auto bad = ucudnn::parse_settings(old_name);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().rfind("UCUDNN_WORKSPACE_LIMIT: ", 0), 0u) << bad.message();
}

TEST(Settings, StatisticsSwitchIsZeroOrOne) {
  ucudnn::SettingValues values;
  values["UCUDNN_STATS"] = "1";
  auto on = ucudnn::parse_settings(values);
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->print_statistics);
  values["UCUDNN_STATS"] = "0";
  EXPECT_FALSE(ucudnn::parse_settings(values)->print_statistics);
  values["UCUDNN_STATS"] = "yes";
  auto bad = ucudnn::parse_settings(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_STATS: 'yes' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(Settings, GraphReplayIsOnByDefaultAndZeroOrOne) {
  ucudnn::SettingValues values;
  EXPECT_TRUE(ucudnn::parse_settings(values)->graph_replay);
  values["UCUDNN_GRAPH_REPLAY"] = "0";
  EXPECT_FALSE(ucudnn::parse_settings(values)->graph_replay);
  values["UCUDNN_GRAPH_REPLAY"] = "1";
  EXPECT_TRUE(ucudnn::parse_settings(values)->graph_replay);
  values["UCUDNN_GRAPH_REPLAY"] = "off";
  auto bad = ucudnn::parse_settings(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_GRAPH_REPLAY: 'off' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(Settings, LogLevelJournalAndDevicesAreParsedStrictlyWithTheVariableNamed) {
  auto parse = [](void (*set)(ucudnn::SettingValues&)) {
    ucudnn::SettingValues values;
    set(values);
    return ucudnn::parse_settings(values);
  };
  const auto level = parse([](ucudnn::SettingValues& v) { v["UCUDNN_LOG_LEVEL"] = "loud"; });
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.message().find("UCUDNN_LOG_LEVEL"), std::string::npos) << level.message();
  const auto devices = parse([](ucudnn::SettingValues& v) { v["UCUDNN_BENCHMARK_DEVICES"] = "0,,1"; });
  ASSERT_FALSE(devices.ok());
  EXPECT_NE(devices.message().find("UCUDNN_BENCHMARK_DEVICES"), std::string::npos) << devices.message();
  const auto journal = parse([](ucudnn::SettingValues& v) { v["UCUDNN_DATABASE_JOURNAL"] = "fast"; });
  ASSERT_FALSE(journal.ok());
  EXPECT_NE(journal.message().find("UCUDNN_DATABASE_JOURNAL"), std::string::npos) << journal.message();

  const auto good = parse([](ucudnn::SettingValues& v) {
    v["UCUDNN_LOG_LEVEL"] = "DEBUG";
    v["UCUDNN_BENCHMARK_DEVICES"] = "all";
    v["UCUDNN_DATABASE_JOURNAL"] = "wal";
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

TEST(Settings, HugeSizeInTheEnvironmentNamesTheVariable) {
  SettingValues values;
  values["UCUDNN_DEFAULT_WORKSPACE_LIMIT"] = kHugeNumber.c_str();
  const auto config = parse_settings(values);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, ErrorCode::kBadParam);
  EXPECT_NE(config.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT: "), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("out of range"), std::string::npos) << config.message();
}

TEST(Settings, BareSmallSizesInTheEnvironmentAreRefusedNamingTheVariable) {
  const struct {
    const char* name;
  } sizes[] = {{"UCUDNN_DEFAULT_WORKSPACE_LIMIT"},
               {"UCUDNN_FORCE_WORKSPACE_LIMIT"},
               {"UCUDNN_WORKSPACE_LIMIT"},
               {"UCUDNN_TOTAL_WORKSPACE_SIZE"}};
  for (const auto& size : sizes) {
    SettingValues values;
    values[size.name] = "64";
    const auto config = parse_settings(values);
    ASSERT_FALSE(config.ok()) << size.name;
    EXPECT_EQ(config.message().rfind(std::string(size.name) + ": ", 0), 0u) << config.message();
    EXPECT_NE(config.message().find("did you mean 64MiB?"), std::string::npos) << config.message();
    values[size.name] = "8MiB";
    EXPECT_TRUE(parse_settings(values).ok()) << size.name;
  }
  SettingValues zero;
  zero["UCUDNN_FORCE_WORKSPACE_LIMIT"] = "0";  // a limit of no workspace means something
  ASSERT_TRUE(parse_settings(zero).ok());
  EXPECT_EQ(*parse_settings(zero)->forced_workspace_limit, 0u);
  zero["UCUDNN_TOTAL_WORKSPACE_SIZE"] = "0";  // a budget of nothing does not
  const auto config = parse_settings(zero);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.message().find("UCUDNN_TOTAL_WORKSPACE_SIZE: "), std::string::npos) << config.message();
}

}  // namespace
