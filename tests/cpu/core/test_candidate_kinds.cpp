// The registry of candidate kinds (core/candidate_kinds.h): each kind declared once, every row
// recognised as exactly one kind, and what each kind's entry says about its rows.

#include <gtest/gtest.h>

#include <string>

#include "core/candidate_kinds.h"

namespace ucudnn {
namespace {

// The candidate of a stored row with these columns.
Candidate row(int algo, const std::string& engine) { return candidate_from_columns(algo, 0, engine); }

TEST(CandidateKinds, EachKindIsDeclaredOnceInEnumOrder) {
  const auto& kinds = candidate_kinds();
  ASSERT_EQ(kinds.size(), static_cast<std::size_t>(kCandidateKindCount));
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const CandidateKindInfo& info = kinds[i];
    EXPECT_EQ(static_cast<std::size_t>(info.kind), i) << info.name;
    EXPECT_EQ(&kind_info(info.kind), &info);
    EXPECT_STREQ(to_string(info.kind), info.name);
    // The set of the kind alone: spelled by the entry, holding that kind only.
    const auto alone = parse_candidate_set(info.set_name);
    ASSERT_TRUE(alone.ok()) << alone.message();
    EXPECT_STREQ(to_string(*alone), info.set_name);
    EXPECT_EQ(kinds_of(*alone), std::vector<CandidateKind>{info.kind});
    EXPECT_TRUE(includes(CandidateSet::kBoth, info.kind));
  }
  EXPECT_STREQ(kind_info(CandidateKind::kLegacy).name, "legacy");
  EXPECT_STREQ(kind_info(CandidateKind::kEngine).set_name, "engines");
  EXPECT_EQ(parse_candidate_set("graph").message(),
            "unknown candidate set 'graph' (expected legacy, engines or both)");
}

TEST(CandidateKinds, EveryRowIsRecognisedAsExactlyOneKind) {
  for (const std::string& engine : {std::string(), std::string("eng0"), std::string("eng12:k3=1,k17=0")}) {
    int recognised = 0;
    for (const CandidateKindInfo& info : candidate_kinds()) recognised += info.recognises(engine) ? 1 : 0;
    EXPECT_EQ(recognised, 1) << "'" << engine << "'";
  }
  EXPECT_EQ(row(3, "").kind, CandidateKind::kLegacy);
  EXPECT_EQ(row(-1, "eng7:k3=1").kind, CandidateKind::kEngine);
}

TEST(CandidateKinds, EachKindSaysWhatItsRowsMayBe) {
  const CandidateKindInfo& legacy = kind_info(CandidateKind::kLegacy);
  const CandidateKindInfo& engine = kind_info(CandidateKind::kEngine);
  EXPECT_TRUE(legacy.algo_allowed(ConvOp::kForward, 0));
  EXPECT_TRUE(legacy.algo_allowed(ConvOp::kForward, algo_count(ConvOp::kForward) - 1));
  EXPECT_FALSE(legacy.algo_allowed(ConvOp::kForward, algo_count(ConvOp::kForward)));
  EXPECT_FALSE(legacy.algo_allowed(ConvOp::kBackwardData, -1));
  EXPECT_TRUE(engine.algo_allowed(ConvOp::kBackwardFilter, -1));
  EXPECT_FALSE(engine.algo_allowed(ConvOp::kBackwardFilter, 0));
  EXPECT_EQ(legacy.expected_algo(ConvOp::kBackwardData), "an algorithm of bwdd from 0 to 5, or -1 with an engine");
  EXPECT_EQ(engine.expected_algo(ConvOp::kForward), "-1 in an engine row");

  EXPECT_TRUE(legacy.check_row(row(0, "")).ok());
  EXPECT_EQ(legacy.check_row(row(-1, "")).message(), "a legacy row needs an algorithm >= 0, not -1");
  EXPECT_TRUE(engine.check_row(row(-1, "eng12:k3=1")).ok());
  EXPECT_EQ(engine.check_row(row(2, "eng12")).message(), "an engine row has algo -1, not 2");
  EXPECT_EQ(engine.check_row(row(-1, "eng01:k2=1")).message(),
            "engine configuration 'eng01:k2=1' is not canonical ('eng1:k2=1')");
  EXPECT_FALSE(engine.check_row(row(-1, "engine1")).ok());

  EXPECT_EQ(describe_candidate(row(3, "")), "algo 3");
  EXPECT_EQ(describe_candidate(row(-1, "eng7:k3=1")), "eng7:k3=1");
  EXPECT_EQ(describe_candidate(Candidate::legacy(1, 0).in_channel_pieces(1)), "algo 1");
  EXPECT_EQ(describe_candidate(Candidate::engine("eng71", 0).in_channel_pieces(2)), "eng71 in 2 channel pieces");
}

TEST(CandidateKinds, EnginesAreAnAdditionAndOnlyLegacyRowsAreAlgorithmNumbers) {
  EXPECT_FALSE(kind_info(CandidateKind::kLegacy).supplementary);
  EXPECT_TRUE(kind_info(CandidateKind::kEngine).supplementary);
  EXPECT_TRUE(kind_info(CandidateKind::kLegacy).numbered);
  EXPECT_FALSE(kind_info(CandidateKind::kEngine).numbered);
  EXPECT_EQ(kind_info(CandidateKind::kEngine).described, std::string("graph-API engines"));
}

}  // namespace
}  // namespace ucudnn
