// Every setting and option that takes a word reads it one way (core/spelling.h): case, '-' and
// '_' ignored, and an unknown word named with the words that are taken.

#include <gtest/gtest.h>

#include <string>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_op.h"
#include "core/env_config.h"
#include "core/journal_mode.h"
#include "core/memory_budget.h"
#include "core/search_mode.h"
#include "core/spelling.h"

namespace ucudnn {
namespace {

TEST(Spelling, EveryWordTakingSettingIgnoresCaseDashesAndUnderscores) {
  EXPECT_EQ(parse_batch_size_policy("POWER_OF_TWO").value(), BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(parse_batch_size_policy("power-of-two").value(), BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(parse_search_mode("Exhaustive").value(), SearchMode::kExhaustive);
  EXPECT_EQ(parse_journal_mode("WAL").value(), JournalMode::kWal);
  EXPECT_EQ(parse_candidate_set("Engines").value(), CandidateSet::kEngines);
  EXPECT_EQ(parse_memory_budget("FREE").value().kind, MemoryBudget::Kind::kFree);
  EXPECT_EQ(parse_conv_op("BWD_F"), ConvOp::kBackwardFilter);  // was case-sensitive
  EXPECT_EQ(parse_offer_mode("AUTO").value(), OfferMode::kAuto);
  SettingValues values;
  values["UCUDNN_LOG_LEVEL"] = "Warning";  // an alias, taken but not offered
  const auto config = parse_settings(values);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->log_level, LogLevel::kWarn);
}

// A '-' or '_' joins words; next to a digit it is part of the value: UCUDNN_MICRO_BATCH_OFFERS=-1
// turned offers on, UCUDNN_LOG_LEVEL=-4 or _2 set a level, as the 1, 4 and 2 left once they were dropped.
TEST(Spelling, DashesAndUnderscoresAreIgnoredOnlyBetweenLetters) {
  EXPECT_EQ(spelling_key("POWER__OF-_two"), "poweroftwo");
  EXPECT_EQ(spelling_key("-1"), "-1");
  EXPECT_EQ(spelling_key("_2"), "_2");
  EXPECT_EQ(spelling_key("1_"), "1_");
  EXPECT_EQ(spelling_key("-auto"), "-auto");
  EXPECT_EQ(spelling_key("a_1"), "a_1");
  for (const char* bad : {"-1", "_1", "1-", "-0", "+1", "1_0"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parse_offer_mode(bad).ok());
    SettingValues values;
    values["UCUDNN_MICRO_BATCH_OFFERS"] = bad;
    EXPECT_FALSE(parse_settings(values).ok());
  }
  for (const char* bad : {"-1", "-4", "_2", "4-", "-debug"}) {
    SCOPED_TRACE(bad);
    SettingValues values;
    values["UCUDNN_LOG_LEVEL"] = bad;
    const auto config = parse_settings(values);
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.message().find("UCUDNN_LOG_LEVEL: unknown log level '" + std::string(bad) + "'"),
              std::string::npos)
        << config.message();
  }
  SettingValues values;
  values["UCUDNN_LOG_LEVEL"] = "4";
  values["UCUDNN_MICRO_BATCH_OFFERS"] = "1";
  const auto config = parse_settings(values);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->log_level, LogLevel::kDebug);
  EXPECT_EQ(config->micro_batch_offers, OfferMode::kOn);
}

TEST(Spelling, AnUnknownWordIsNamedWithTheWordsThatAreTaken) {
  const auto policy = parse_batch_size_policy("half");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.message(), "unknown batch-size policy 'half' (expected all, powerOfTwo or undivided)");
  EXPECT_EQ(policy.error().code, ErrorCode::kBadParam);
  SettingValues values;
  values["UCUDNN_LOG_LEVEL"] = "loud";
  const auto config = parse_settings(values);
  ASSERT_FALSE(config.ok());
  // Aliases (warning, 0-4) are not offered.
  EXPECT_EQ(config.message(), "UCUDNN_LOG_LEVEL: unknown log level 'loud' (expected off, error, warn, info or debug)");
  EXPECT_FALSE(parse_conv_op("forward").has_value());
}

TEST(Spelling, ListsHaveOneTwoOrManyWords) {
  const Spelling<int> one[] = {{"a", 1}};
  const Spelling<int> two[] = {{"a", 1}, {"b", 2}, {"hidden", 3, false}};
  const Spelling<int> three[] = {{"a", 1}, {"b", 2}, {"c", 3}};
  EXPECT_EQ(listed_words<int>(one), "a");
  EXPECT_EQ(listed_words<int>(two), "a or b");
  EXPECT_EQ(listed_words<int>(three), "a, b or c");
  EXPECT_EQ(find_spelling<int>("HIDDEN", two), 3);
}

}  // namespace
}  // namespace ucudnn
