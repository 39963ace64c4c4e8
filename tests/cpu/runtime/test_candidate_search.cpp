// The one search loop over a kind's candidates at one size (runtime/candidate_search.h), with
// candidates whose times are given: which it times, in what order, against which contenders, and
// where the fast search's patience ends it. What the GPU measurers do around it needs a GPU.

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "runtime/candidate_search.h"

namespace ucudnn::runtime {
using runtime::Contenders;
using runtime::SizeRequest;
namespace {

Measurement candidate(int algo, double ms, std::size_t workspace = 0) {
  Measurement m;
  m.micro_batch = 8;
  m.candidate.algorithm = algo;
  m.time_ms = ms;
  m.workspace_bytes = workspace;
  return m;
}

// Candidates 0..n-1 with the given times; records what was timed and the bound each was given.
struct Searched {
  std::vector<int> timed;
  std::vector<std::optional<TimingBound>> bounds;
  std::vector<Measurement> rows;
};

Searched search(const std::vector<Measurement>& candidates, const SizeRequest& request, bool fast,
                const std::set<int>& passed_over = {}) {
  Searched out;
  const Status searched = search_candidates(
      candidates.size(), request, fast, ConvOp::kForward,
      [&](std::size_t i, const Measurement& row) {
        return row.candidate.algorithm == candidates[i].candidate.algorithm;
      },
      [&](std::size_t i) { return passed_over.count(static_cast<int>(i)) > 0; },
      [&](std::size_t i, const Contenders& contenders, std::optional<Measurement>* timed) {
        out.timed.push_back(static_cast<int>(i));
        out.bounds.push_back(contenders.bound_for(candidates[i].workspace_bytes));
        *timed = candidates[i];
        return Status::success();
      },
      &out.rows);
  EXPECT_TRUE(searched.ok()) << searched.message();
  return out;
}

TEST(CandidateSearch, TheExhaustiveSearchTimesEveryCandidateButThosePassedOver) {
  const std::vector<Measurement> candidates = {candidate(0, 1.0), candidate(1, 2.0), candidate(2, 3.0),
                                               candidate(3, 4.0), candidate(4, 5.0), candidate(5, 6.0),
                                               candidate(6, 0.5)};
  const Searched all = search(candidates, SizeRequest{}, /*fast=*/false, {2});
  EXPECT_EQ(all.timed, (std::vector<int>{0, 1, 3, 4, 5, 6}));
  EXPECT_EQ(all.rows.size(), 6u);
}

TEST(CandidateSearch, TheFastSearchStopsAfterFourCandidatesInARowThatDoNotImprove) {
  // The first improves (nothing to beat), the next four do not: the fastest, last, is never timed.
  const std::vector<Measurement> candidates = {candidate(0, 1.0), candidate(1, 2.0), candidate(2, 2.0),
                                               candidate(3, 2.0), candidate(4, 2.0), candidate(5, 0.5)};
  EXPECT_EQ(search(candidates, SizeRequest{}, /*fast=*/true).timed, (std::vector<int>{0, 1, 2, 3, 4}));
  // A candidate passed over is no miss: the patience reaches one candidate further.
  EXPECT_EQ(search(candidates, SizeRequest{}, /*fast=*/true, {2}).timed, (std::vector<int>{0, 1, 3, 4, 5}));
  // One that improves starts the count again.
  const std::vector<Measurement> improving = {candidate(0, 1.0), candidate(1, 2.0), candidate(2, 2.0),
                                              candidate(3, 0.8), candidate(4, 2.0), candidate(5, 2.0),
                                              candidate(6, 2.0), candidate(7, 0.1)};
  EXPECT_EQ(search(improving, SizeRequest{}, /*fast=*/true).timed, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(CandidateSearch, TheLargerSizesFrontGoesFirstAndItsCandidatesNeverSpendThePatience) {
  // A contender measured before beats every candidate. Candidates 5..9 were on the next larger
  // size's front (each faster with more workspace): they are timed first, all of them although
  // none improves, and then the rest until four in a row miss.
  std::vector<Measurement> candidates;
  for (int i = 0; i < 10; ++i) candidates.push_back(candidate(i, 1.0 + i, std::size_t(10 - i) * 100));
  std::vector<Measurement> larger;
  for (int i = 5; i < 10; ++i) larger.push_back(candidate(i, 10.0 - i, std::size_t(i) * 100));
  const std::vector<Measurement> before = {candidate(42, 0.1)};
  SizeRequest request;
  request.larger_size_rows = &larger;
  request.measured_before = &before;
  EXPECT_EQ(search(candidates, request, /*fast=*/true).timed, (std::vector<int>{5, 6, 7, 8, 9, 0, 1, 2, 3}));
  // The exhaustive search keeps the kind's own order.
  EXPECT_EQ(search(candidates, request, /*fast=*/false).timed, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(CandidateSearch, EachCandidateIsBoundByTheBestContenderItCompetesWith) {
  // Other kinds' rows at this size: a fast one needing much workspace, a slower one needing none.
  const std::vector<Measurement> others = {candidate(100, 0.2, 1000), candidate(101, 0.9, 0)};
  SizeRequest request;
  request.other_kinds_rows = &others;
  request.workspace_limit = 500;
  const std::vector<Measurement> candidates = {candidate(0, 0.5, 0), candidate(1, 0.3, 2000)};
  const Searched searched = search(candidates, request, /*fast=*/true);
  ASSERT_EQ(searched.bounds.size(), 2u);
  // Within the limit, the first competes with the row needing none: 0.9 ms.
  ASSERT_TRUE(searched.bounds[0]);
  EXPECT_DOUBLE_EQ(searched.bounds[0]->gpu_ms, 0.9);
  // Needing 2000 bytes, the second competes with every row, its predecessor's 0.5 ms included.
  ASSERT_TRUE(searched.bounds[1]);
  EXPECT_DOUBLE_EQ(searched.bounds[1]->gpu_ms, 0.2);
}

TEST(CandidateSearch, ACandidateLeftOutIsNoRowAndAnErrorEndsTheSearch) {
  const std::vector<Measurement> candidates = {candidate(0, 1.0), candidate(1, 2.0), candidate(2, 3.0)};
  std::vector<Measurement> rows;
  std::vector<int> timed;
  const Status searched = search_candidates(
      candidates.size(), SizeRequest{}, false, ConvOp::kForward,
      [&](std::size_t i, const Measurement& row) {
        return row.candidate.algorithm == candidates[i].candidate.algorithm;
      },
      [](std::size_t) { return false; },
      [&](std::size_t i, const Contenders&, std::optional<Measurement>* out) -> Status {
        timed.push_back(static_cast<int>(i));
        if (i == 0) return Status::success();  // left out: cuDNN refused it
        if (i == 1) *out = candidates[i];
        if (i == 2) return Error(ErrorCode::kExecutionFailed, "the device failed");
        return Status::success();
      },
      &rows);
  EXPECT_FALSE(searched.ok());
  EXPECT_EQ(timed, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].candidate.algorithm, 1);
}

}  // namespace
}  // namespace ucudnn::runtime
