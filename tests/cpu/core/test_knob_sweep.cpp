// The knob sweep (core/knob_sweep.h): which configurations of an engine are tried besides the
// one cuDNN's heuristics chose.

#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/knob_sweep.h"

namespace ucudnn {
namespace {

std::vector<std::string> ids(const std::vector<EngineConfigId>& configs) {
  std::vector<std::string> out;
  for (const EngineConfigId& c : configs) out.push_back(format_engine_config(c));
  return out;
}

TEST(KnobSweep, EachKnobTakesItsOtherValuesWithTheOthersAsChosen) {
  const EngineConfigId chosen{12, {{3, 1}, {17, 0}}};
  // Knob 17 takes 0..2; knob 3 takes 1 and 2 (stride 1). Listed out of order: sorted by type.
  const auto variants = knob_variants(chosen, {{17, 0, 2, 1}, {3, 1, 2, 1}});
  EXPECT_EQ(ids(variants), (std::vector<std::string>{"eng12:k3=2,k17=0", "eng12:k3=1,k17=1", "eng12:k3=1,k17=2"}));
}

TEST(KnobSweep, AKnobTheChoiceLeavesOutIsSetAndStridesAreKept) {
  const EngineConfigId chosen{5, {{20, 4}}};
  const auto variants = knob_variants(chosen, {{8, 0, 6, 3}});
  EXPECT_EQ(ids(variants), (std::vector<std::string>{"eng5:k8=0,k20=4", "eng5:k8=3,k20=4", "eng5:k8=6,k20=4"}));
}

TEST(KnobSweep, AWideRangeIsSpreadWithBothEndsAndTheSweepIsBounded) {
  const EngineConfigId chosen{1, {}};
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  const auto wide = knob_variants(chosen, {{2, 0, huge, 1}});
  ASSERT_EQ(wide.size(), kSweptValuesPerKnob);
  EXPECT_EQ(wide.front().knobs, (std::vector<std::pair<int, std::int64_t>>{{2, 0}}));
  EXPECT_EQ(wide.back().knobs, (std::vector<std::pair<int, std::int64_t>>{{2, huge}})) << "no overflow at the end";
  std::vector<KnobRange> many;
  for (int type = 0; type < 20; ++type) many.push_back({type, 0, 100, 1});
  const auto bounded = knob_variants(chosen, many);
  EXPECT_EQ(bounded.size(), kMaxSweptConfigs);
  // Twenty knobs share the bound: each at both ends (not the first four at six values each).
  EXPECT_EQ(format_engine_config(bounded[0]), "eng1:k0=0");
  EXPECT_EQ(format_engine_config(bounded[1]), "eng1:k0=100");
  EXPECT_EQ(format_engine_config(bounded[2]), "eng1:k1=0");
  EXPECT_EQ(format_engine_config(bounded.back()), "eng1:k11=100");
  const std::vector<std::string> named = ids(bounded);
  EXPECT_EQ(std::set<std::string>(named.begin(), named.end()).size(), bounded.size()) << "no twice";
}

TEST(KnobSweep, NothingToSweepGivesNoVariantAndNeverTheChoiceItself) {
  const EngineConfigId chosen{7, {{1, 3}}};
  EXPECT_TRUE(knob_variants(chosen, {}).empty());
  EXPECT_TRUE(knob_variants(chosen, {{1, 3, 3, 1}}).empty()) << "a knob of one value is the choice";
  EXPECT_TRUE(knob_variants(chosen, {{4, 5, 2, 1}}).empty()) << "an empty range";
  const auto zero_stride = knob_variants(chosen, {{1, 2, 4, 0}});
  EXPECT_EQ(ids(zero_stride), (std::vector<std::string>{"eng7:k1=2", "eng7:k1=4"})) << "stride 0 read as 1";
}

TEST(KnobSweep, TheSettingsWordsAreRead) {
  EXPECT_EQ(*parse_knob_search("sweep"), KnobSearch::kSweep);
  EXPECT_EQ(*parse_knob_search("Heuristics"), KnobSearch::kHeuristics);
  EXPECT_EQ(*parse_knob_search("refine"), KnobSearch::kRefine);
  for (KnobSearch search : {KnobSearch::kHeuristics, KnobSearch::kRefine, KnobSearch::kSweep}) {
    EXPECT_EQ(*parse_knob_search(to_string(search)), search) << "each spelled as it is read";
  }
  EXPECT_FALSE(parse_knob_search("all").ok());
  EXPECT_STREQ(to_string(KnobSearch::kSweep), "sweep");
}

}  // namespace
}  // namespace ucudnn
