// Desirable configurations (the Pareto front of WR plans) against an exhaustive search over every
// way to cover the batch, and on the recorded AlexNet table; their cost bounded by the rows, not by
// how many distinct workspaces the rows have.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/batch_policy.h"
#include "core/measurement_csv.h"
#include "optimize/pareto.h"
#include "optimize/wr_optimizer.h"
#include "measurement_rows.h"
#include "test_helpers.h"

namespace ucudnn {
using optimize::desirable_configurations;
using optimize::FrontWork;
using optimize::MicroBatchSplit;
using optimize::optimize_wr;
namespace {

using testing::legacy_row;
using testing::seconds_since;

constexpr std::size_t kMiB = std::size_t{1} << 20;


bool is_allowed(const std::vector<int>& allowed, int size) {
  return std::find(allowed.begin(), allowed.end(), size) != allowed.end();
}

// (time, workspace) -> the fewest micro-batches of any cover with exactly that time and workspace.
using Points = std::map<std::pair<double, std::size_t>, int>;

// Every multiset of usable rows whose sizes add up to the batch: time = sum, workspace = max.
// Nothing is shared with the WR dynamic program.
Points all_covers(int batch, const std::vector<int>& allowed,
                  const std::vector<Measurement>& rows) {
  std::vector<Measurement> items;
  for (const auto& m : rows) {
    if (is_allowed(allowed, m.micro_batch) && m.micro_batch <= batch) items.push_back(m);
  }
  Points points;
  // Items are taken in non-decreasing index order, so every multiset is visited exactly once.
  std::function<void(std::size_t, int, double, std::size_t, int)> visit =
      [&](std::size_t first, int remaining, double time, std::size_t workspace, int count) {
        if (remaining == 0) {
          auto [it, inserted] = points.emplace(std::make_pair(time, workspace), count);
          if (!inserted) it->second = std::min(it->second, count);
          return;
        }
        for (std::size_t i = first; i < items.size(); ++i) {
          if (items[i].micro_batch <= remaining) {
            visit(i, remaining - items[i].micro_batch, time + std::max(items[i].time_ms, items[i].host_ms),
                  std::max(workspace, items[i].workspace_bytes), count + 1);
          }
        }
      };
  visit(0, batch, 0.0, 0, 0);
  return points;
}

// The points no other point beats: none has time <= and workspace <= with one of them strictly.
Points pareto_front(const Points& points) {
  Points front;
  for (const auto& entry : points) {
    const auto& point = entry.first;  // not a structured binding: C++17 lambdas cannot capture those
    const bool dominated = std::any_of(points.begin(), points.end(), [&](const auto& other) {
      const auto& [t, w] = other.first;
      return t <= point.first && w <= point.second && (t < point.first || w < point.second);
    });
    if (!dominated) front.emplace(point, entry.second);
  }
  return front;
}

// A returned configuration really is a way to run the batch with measured rows.
void expect_valid_cover(const MicroBatchSplit& plan, int batch, const std::vector<int>& allowed,
                        const std::vector<Measurement>& rows) {
  EXPECT_EQ(plan.batch, batch);
  int covered = 0;
  double time = 0.0;
  std::size_t workspace = 0;
  for (const auto& run : plan.runs) {
    EXPECT_GE(run.count, 1);
    EXPECT_TRUE(is_allowed(allowed, run.size())) << "size " << run.size();
    const bool measured = std::any_of(rows.begin(), rows.end(), [&](const Measurement& m) {
      return m.micro_batch == run.size() && m.candidate.algorithm == run.candidate().algorithm &&
             std::max(m.time_ms, m.host_ms) == run.call_ms && m.workspace_bytes == run.row.workspace_bytes;
    });
    EXPECT_TRUE(measured) << run.count << " x " << run.size() << " algo " << run.candidate().algorithm;
    covered += run.size() * run.count;
    time += run.call_ms * run.count;
    workspace = std::max(workspace, run.row.workspace_bytes);
  }
  EXPECT_EQ(covered, batch);
  EXPECT_DOUBLE_EQ(plan.time_ms, time);
  EXPECT_EQ(plan.workspace_bytes, workspace);
}

TEST(DesirableConfigurations, MatchTheBruteForceFrontOnRandomTables) {
  std::mt19937 rng(20180404);
  // Few workspace values, so equal workspaces happen too.
  const auto workspace = [](std::mt19937& r) -> std::size_t {
    return testing::uniform(r, 0, 2) == 0 ? 0 : 100 * testing::uniform(r, 1, 8);
  };
  int empty = 0;
  int multi_point = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int batch = testing::uniform(rng, 1, 10);
    const std::vector<int> allowed = testing::random_allowed_sizes(rng, batch);
    const std::vector<Measurement> rows = testing::random_rows(rng, batch, 1, 24, workspace);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", batch " + std::to_string(batch));

    const auto front = desirable_configurations(batch, allowed, rows);
    const Points expected = pareto_front(all_covers(batch, allowed, rows));
    ASSERT_EQ(front.size(), expected.size());
    if (front.empty()) {
      ++empty;
      continue;
    }
    if (front.size() > 1) ++multi_point;
    for (std::size_t i = 0; i < front.size(); ++i) {
      const MicroBatchSplit& plan = front[i];
      expect_valid_cover(plan, batch, allowed, rows);
      const auto match = expected.find({plan.time_ms, plan.workspace_bytes});
      ASSERT_NE(match, expected.end())
          << "(" << plan.time_ms << " ms, " << plan.workspace_bytes << " B) is not on the front";
      EXPECT_EQ(plan.micro_batch_count(), match->second) << "not the fewest micro-batches";
      if (i > 0) {
        EXPECT_GT(plan.workspace_bytes, front[i - 1].workspace_bytes);
        EXPECT_LT(plan.time_ms, front[i - 1].time_ms);
      }
    }
  }
  // Empty fronts and fronts with a real trade-off must both occur for the test to mean anything.
  EXPECT_GT(empty, 50);
  EXPECT_GT(multi_point, 300);
}

TEST(DesirableConfigurations, KeepOneOfEquallyGoodPlans) {
  // 1 x 4 and 2 x 2 both take 2 ms with no workspace: one configuration, the single call.
  const std::vector<Measurement> rows = {legacy_row(2, 0, 1.0, 0), legacy_row(4, 0, 2.0, 0), legacy_row(4, 1, 1.0, 50),
                                         legacy_row(2, 1, 0.25, 100)};
  const auto front = desirable_configurations(4, {2, 4}, rows);
  ASSERT_EQ(front.size(), 3u);
  EXPECT_EQ(front[0].workspace_bytes, 0u);
  EXPECT_EQ(front[0].micro_batch_count(), 1);
  EXPECT_DOUBLE_EQ(front[0].time_ms, 2.0);
  EXPECT_EQ(front[1].workspace_bytes, 50u);
  EXPECT_DOUBLE_EQ(front[1].time_ms, 1.0);
  EXPECT_EQ(front[2].workspace_bytes, 100u);
  EXPECT_DOUBLE_EQ(front[2].time_ms, 0.5);
  EXPECT_EQ(front[2].micro_batch_count(), 2);
}

TEST(DesirableConfigurations, EmptyWhenNothingCoversTheBatch) {
  const std::vector<Measurement> rows = {legacy_row(4, 0, 1.0, 0), legacy_row(8, 0, 1.0, 0)};
  EXPECT_TRUE(desirable_configurations(6, {4, 8}, rows).empty());
  EXPECT_TRUE(desirable_configurations(8, {4}, {}).empty());
  EXPECT_TRUE(desirable_configurations(0, {4}, rows).empty());
}

TEST(DesirableConfigurations, AlexNetFrontsAgreeWithWorkspaceReuse) {
  const auto kernels = read_measurements_csv(testing::alexnet_csv_path());
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  int points = 0;
  for (const auto& kernel : *kernels) {
    SCOPED_TRACE(kernel.layer + " " + short_name(kernel.op));
    const auto allowed = allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, kernel.batch);
    const auto front = desirable_configurations(kernel.batch, allowed, kernel.rows);
    ASSERT_FALSE(front.empty());
    points += static_cast<int>(front.size());
    for (const auto& plan : front) expect_valid_cover(plan, kernel.batch, allowed, kernel.rows);
    // Under any limit, WR finds exactly the fastest configuration of the front that fits.
    for (std::size_t limit : {std::size_t{0}, std::size_t{1024}, kMiB, 8 * kMiB, 64 * kMiB,
                              std::numeric_limits<std::size_t>::max()}) {
      const auto wr = optimize_wr(kernel.batch, allowed, kernel.rows, limit);
      double best = std::numeric_limits<double>::infinity();
      for (const auto& plan : front) {
        if (plan.workspace_bytes <= limit) best = std::min(best, plan.time_ms);
      }
      ASSERT_EQ(wr.has_value(), best < std::numeric_limits<double>::infinity()) << limit;
      if (wr) {
        EXPECT_DOUBLE_EQ(wr->time_ms, best) << limit;
      }
    }
  }
  std::printf("AlexNet, powerOfTwo: %d desirable configurations over %zu kernels\n", points,
              kernels->size());
}

// ---- planning cost is bounded by the rows, not the distinct workspaces --------------------------

// One kernel, micro-batches 1..64, every row with its own workspace and a random time.
std::vector<Measurement> rows_with_distinct_workspaces(int count) {
  std::mt19937 random(12);
  std::uniform_real_distribution<double> time(0.1, 10.0);
  std::vector<Measurement> rows;
  for (int i = 0; i < count; ++i) {
    Measurement m;
    m.micro_batch = 1 << (i % 7);
    m.candidate.algorithm = i % 8;
    m.time_ms = time(random) * m.micro_batch;
    m.workspace_bytes = static_cast<std::size_t>(i) * 4096;
    rows.push_back(m);
  }
  return rows;
}

TEST(DesirableConfigurations, ParetoFrontOfHundredThousandDistinctWorkspacesIsQuick) {
  // Used to solve the dynamic program once per distinct workspace, each time scanning every row:
  // more than a minute. Sorting once and sweeping takes well under a second; the bound is generous.
  const auto rows = rows_with_distinct_workspaces(100000);
  const auto start = std::chrono::steady_clock::now();
  const auto front = desirable_configurations(64, {1, 2, 4, 8, 16, 32, 64}, rows);
  EXPECT_LT(seconds_since(start), 20.0);
  ASSERT_FALSE(front.empty());
  for (std::size_t i = 1; i < front.size(); ++i) {
    EXPECT_GT(front[i].workspace_bytes, front[i - 1].workspace_bytes);
    EXPECT_LT(front[i].time_ms, front[i - 1].time_ms);
  }
}

// The WR program is solved once per row that makes its size faster than every row of that size
// with less workspace: never more often than there are rows, whatever their workspaces.
TEST(DesirableConfigurations, FrontSolvesTheProgramOnlyWhereARowImprovesItsSize) {
  const auto rows = rows_with_distinct_workspaces(100000);
  FrontWork work;
  desirable_configurations(64, {1, 2, 4, 8, 16, 32, 64}, rows, &work);
  EXPECT_EQ(work.rows_used, rows.size());
  // Independently: rows that are faster than every earlier row of their size (workspaces ascend).
  std::map<int, double> fastest;
  std::size_t improving = 0;
  for (const auto& row : rows) {
    const auto it = fastest.find(row.micro_batch);
    if (it == fastest.end() || row.time_ms < it->second) {
      fastest[row.micro_batch] = row.time_ms;
      ++improving;
    }
  }
  EXPECT_EQ(work.wr_solves, improving);
  EXPECT_LT(work.wr_solves, 1000u);  // random times: a few records per size, not 100,000 solves

  // Worst case: every row faster than the last; one solve per row, and every row on the front.
  std::vector<Measurement> descending;
  for (int i = 0; i < 100000; ++i) {
    Measurement m;
    m.micro_batch = 4;
    m.time_ms = 200000.0 - i;
    m.workspace_bytes = static_cast<std::size_t>(i) * 512;
    descending.push_back(m);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto front = desirable_configurations(4, {1, 2, 4}, descending, &work);
  EXPECT_LT(seconds_since(start), 20.0);
  EXPECT_EQ(work.wr_solves, descending.size());
  EXPECT_EQ(front.size(), descending.size());
}

}  // namespace
}  // namespace ucudnn
