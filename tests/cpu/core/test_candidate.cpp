#include "core/candidate.h"

#include <gtest/gtest.h>

#include <map>

#include "core/candidate_kinds.h"

namespace ucudnn {
namespace {

TEST(Candidate, MakersSayTheKind) {
  const Candidate legacy = Candidate::legacy(3, 1);
  EXPECT_EQ(legacy.kind, CandidateKind::kLegacy);
  EXPECT_EQ(legacy.algorithm, 3);
  EXPECT_EQ(legacy.math_type, 1);
  EXPECT_TRUE(legacy.engine_id.empty());
  EXPECT_EQ(legacy.channel_pieces, 1);
  const Candidate engine = Candidate::engine("eng12:k3=1", 2);
  EXPECT_EQ(engine.kind, CandidateKind::kEngine);
  EXPECT_EQ(engine.algorithm, Candidate::kNoAlgorithm) << "the algo column an engine row stores";
  EXPECT_EQ(engine.math_type, 2);
  EXPECT_EQ(engine.engine_id, "eng12:k3=1");
  EXPECT_EQ(engine.in_channel_pieces(4).channel_pieces, 4);
  EXPECT_EQ(engine.in_channel_pieces(4).engine_id, engine.engine_id);
}

TEST(Candidate, EqualOnlyWhenEveryFieldIs) {
  const Candidate a = Candidate::legacy(1, 0);
  EXPECT_EQ(a, Candidate::legacy(1, 0));
  EXPECT_NE(a, Candidate::legacy(2, 0));
  EXPECT_NE(a, Candidate::legacy(1, 1));
  EXPECT_NE(a, a.in_channel_pieces(2)) << "a run in pieces is another candidate";
  EXPECT_NE(Candidate::engine("eng1", 0), Candidate::engine("eng2", 0));
  Candidate same_columns = Candidate::legacy(Candidate::kNoAlgorithm, 0);
  EXPECT_NE(same_columns, Candidate::engine("", 0)) << "the kind is compared, not told by the columns";
  same_columns.kind = CandidateKind::kEngine;
  EXPECT_EQ(same_columns, Candidate::engine("", 0));
}

TEST(Candidate, OrderedAsTheStoredColumnsAreThenByPieces) {
  // A plan lists runs of one size in descending order: legacy algorithms (0 and up) before
  // engines (algo -1), as the (algo, math_type, engine) columns always ordered them.
  EXPECT_LT(Candidate::engine("eng9", 1), Candidate::legacy(0, 0));
  EXPECT_LT(Candidate::legacy(0, 1), Candidate::legacy(1, 0));
  EXPECT_LT(Candidate::legacy(1, 0), Candidate::legacy(1, 1));
  EXPECT_LT(Candidate::engine("eng1", 0), Candidate::engine("eng2", 0));
  EXPECT_LT(Candidate::legacy(1, 0), Candidate::legacy(1, 0).in_channel_pieces(2));
  EXPECT_FALSE(Candidate::legacy(1, 0) < Candidate::legacy(1, 0));
  std::map<Candidate, int> grouped;
  ++grouped[Candidate::legacy(1, 0)];
  ++grouped[Candidate::legacy(1, 0)];
  ++grouped[Candidate::engine("eng1", 0)];
  EXPECT_EQ(grouped.size(), 2u);
  EXPECT_EQ(grouped.at(Candidate::legacy(1, 0)), 2);
}

TEST(Candidate, StoredColumnsTellTheCandidate) {
  const Candidate engine = candidate_from_columns(-1, 1, "eng12:k3=1");
  EXPECT_EQ(engine, Candidate::engine("eng12:k3=1", 1));
  EXPECT_EQ(engine.algorithm, -1) << "what the algo column gets back: an engine row's -1";
  EXPECT_EQ(candidate_from_columns(4, 0, ""), Candidate::legacy(4, 0));
  EXPECT_EQ(candidate_from_columns(4, 0, "eng1").kind, CandidateKind::kEngine) << "the engine column tells the kind";
  EXPECT_EQ(candidate_from_columns(4, 0, "eng1").algorithm, 4) << "kept as read, for the row's check to refuse";
}

}  // namespace
}  // namespace ucudnn
