// The WR program over arrays (optimize/wr_recurrence.h) against the straightforward program it
// replaced, kept here as the reference: on fresh random tables, under both pricings, the plans
// and the Pareto fronts must be the same to the last bit, ties included.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/batch_policy.h"
#include "optimize/pareto.h"
#include "optimize/wr_optimizer.h"
#include "test_helpers.h"

namespace ucudnn {
using optimize::desirable_configurations;
using optimize::FrontWork;
using optimize::MicroBatchRun;
using optimize::MicroBatchSplit;
using optimize::optimize_wr;
using optimize::optimize_wr_over;
namespace {

// ---- the reference: the program as it was, one Measurement and one cost_ms per step ----------

std::optional<MicroBatchSplit> reference_wr_over(int batch, const std::vector<Measurement>& candidates,
                                                 CallPricing pricing) {
  if (batch <= 0) return std::nullopt;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<double> time(batch + 1, kInfinity);
  std::vector<int> calls(batch + 1, 0);
  std::vector<int> choice(batch + 1, -1);
  time[0] = 0.0;
  for (int b = 1; b <= batch; ++b) {
    for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
      const int size = candidates[i].micro_batch;
      if (size <= 0 || size > b || time[b - size] == kInfinity) continue;
      const double t = time[b - size] + candidates[i].cost_ms(pricing);
      const int n = calls[b - size] + 1;
      if (std::tie(t, n) < std::tie(time[b], calls[b])) {
        time[b] = t;
        calls[b] = n;
        choice[b] = i;
      }
    }
  }
  if (time[batch] == kInfinity) return std::nullopt;
  std::map<std::pair<int, Candidate>, MicroBatchRun, std::greater<>> grouped;
  for (int b = batch; b > 0; b -= candidates[choice[b]].micro_batch) {
    const Measurement& m = candidates[choice[b]];
    auto& run = grouped[{m.micro_batch, m.candidate}];
    run = MicroBatchRun{m, run.count + 1, m.cost_ms(pricing)};
  }
  MicroBatchSplit plan;
  plan.batch = batch;
  for (const auto& entry : grouped) {
    plan.runs.push_back(entry.second);
    plan.time_ms += entry.second.call_ms * entry.second.count;
    plan.workspace_bytes = std::max(plan.workspace_bytes, entry.second.row.workspace_bytes);
  }
  return plan;
}

// The fastest row of each allowed size within the limit (ties: less workspace, then the first).
std::vector<Measurement> reference_candidates(int batch, const std::vector<int>& allowed,
                                              const std::vector<Measurement>& rows, std::size_t limit,
                                              CallPricing pricing) {
  std::vector<Measurement> candidates;
  std::vector<int> seen;
  for (int size : allowed) {
    if (size <= 0 || size > batch || std::count(seen.begin(), seen.end(), size) > 0) continue;
    seen.push_back(size);
    std::optional<Measurement> best;
    for (const auto& row : rows) {
      if (row.micro_batch != size || row.workspace_bytes > limit) continue;
      if (!best || row.cost_ms(pricing) < best->cost_ms(pricing) ||
          (row.cost_ms(pricing) == best->cost_ms(pricing) && row.workspace_bytes < best->workspace_bytes)) {
        best = row;
      }
    }
    if (best) candidates.push_back(*best);
  }
  return candidates;
}

// The front as it was: the whole program solved again at each workspace that changes a size's
// fastest row, then pruned.
std::vector<MicroBatchSplit> reference_front(int batch, const std::vector<int>& allowed,
                                             const std::vector<Measurement>& rows, std::size_t* solves) {
  *solves = 0;
  if (batch <= 0) return {};
  std::vector<int> slot(batch + 1, -1);
  std::vector<std::optional<Measurement>> fastest;
  for (int size : allowed) {
    if (size <= 0 || size > batch || slot[size] >= 0) continue;
    slot[size] = static_cast<int>(fastest.size());
    fastest.emplace_back();
  }
  std::vector<Measurement> usable;
  for (const auto& row : rows) {
    if (row.micro_batch > 0 && row.micro_batch <= batch && slot[row.micro_batch] >= 0) usable.push_back(row);
  }
  std::stable_sort(usable.begin(), usable.end(), [](const Measurement& a, const Measurement& b) {
    return a.workspace_bytes < b.workspace_bytes;
  });
  std::vector<MicroBatchSplit> plans;
  for (std::size_t begin = 0; begin < usable.size();) {
    std::size_t end = begin;
    bool changed = false;
    for (; end < usable.size() && usable[end].workspace_bytes == usable[begin].workspace_bytes; ++end) {
      auto& best = fastest[slot[usable[end].micro_batch]];
      if (!best || usable[end].cost_ms() < best->cost_ms()) {
        best = usable[end];
        changed = true;
      }
    }
    begin = end;
    if (!changed) continue;
    ++*solves;
    std::vector<Measurement> candidates;
    for (const auto& best : fastest) {
      if (best) candidates.push_back(*best);
    }
    if (auto plan = reference_wr_over(batch, candidates, CallPricing::kIssued)) plans.push_back(*plan);
  }
  std::sort(plans.begin(), plans.end(), [](const MicroBatchSplit& a, const MicroBatchSplit& b) {
    return std::make_tuple(a.workspace_bytes, a.time_ms, a.micro_batch_count()) <
           std::make_tuple(b.workspace_bytes, b.time_ms, b.micro_batch_count());
  });
  std::vector<MicroBatchSplit> front;
  for (auto& plan : plans) {
    if (front.empty() || plan.time_ms < front.back().time_ms) front.push_back(plan);
  }
  return front;
}

// ---- comparing to the last bit ---------------------------------------------------------------

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_split(const MicroBatchSplit& got, const MicroBatchSplit& want) {
  EXPECT_EQ(got.batch, want.batch);
  EXPECT_TRUE(same_bits(got.time_ms, want.time_ms)) << got.time_ms << " ms, want " << want.time_ms;
  EXPECT_EQ(got.workspace_bytes, want.workspace_bytes);
  ASSERT_EQ(got.runs.size(), want.runs.size());
  for (std::size_t i = 0; i < got.runs.size(); ++i) {
    const MicroBatchRun& g = got.runs[i];
    const MicroBatchRun& w = want.runs[i];
    SCOPED_TRACE("run " + std::to_string(i));
    EXPECT_EQ(std::tie(g.row.micro_batch, g.row.candidate, g.count, g.row.workspace_bytes, g.row.deterministic),
              std::tie(w.row.micro_batch, w.row.candidate, w.count, w.row.workspace_bytes, w.row.deterministic));
    EXPECT_TRUE(same_bits(g.call_ms, w.call_ms));
    EXPECT_TRUE(same_bits(g.row.host_ms, w.row.host_ms));
  }
}

void expect_same_plan(const std::optional<MicroBatchSplit>& got, const std::optional<MicroBatchSplit>& want) {
  ASSERT_EQ(got.has_value(), want.has_value());
  if (got) expect_same_split(*got, *want);
}

// ---- random tables ---------------------------------------------------------------------------

struct RandomTables {
  std::mt19937 rng;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

  // Small batches, and batches of several hundred, where the scan by size works in blocks.
  int batch() { return uniform(0, 2) == 0 ? uniform(100, 700) : uniform(1, 40); }

  // Every size (the `all` policy, one too many), powers of two, or a random share of the sizes.
  std::vector<int> allowed(int batch) {
    switch (uniform(0, 3)) {
      case 0: {
        std::vector<int> sizes = allowed_micro_batch_sizes(BatchSizePolicy::kAll, batch);
        sizes.push_back(batch + 1);  // must be ignored
        return sizes;
      }
      case 1: return allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, batch);
      default: {
        const int share = uniform(1, 10);
        std::vector<int> sizes;
        for (int size = 1; size <= batch; ++size) {
          if (uniform(1, 10) <= share) sizes.push_back(size);
        }
        std::shuffle(sizes.begin(), sizes.end(), rng);  // the order breaks ties
        return sizes;
      }
    }
  }

  // A call's time: quarter milliseconds (sums are exact, so plans tie), a fixed part plus one per
  // sample in quarters (every split ties but for its number of calls), or any real number
  // (sums round, so the order of additions shows).
  double time(int size, int kind) {
    switch (kind) {
      case 0: return 0.25 * uniform(1, 40);
      case 1: return 0.25 * (uniform(1, 2) + size);
      default: return real(0.001, 0.01) + 0.0001 * size * real(0.97, 1.03);
    }
  }

  std::vector<Measurement> rows(int batch) {
    const int kind = uniform(0, 2);
    const int present = uniform(3, 10);  // in tenths of the sizes
    std::vector<Measurement> rows;
    for (int size = 1; size <= batch + 2; ++size) {
      if (uniform(1, 10) > present) continue;
      for (int n = uniform(1, 3); n > 0; --n) {
        Measurement m;
        m.micro_batch = size;
        m.candidate.algorithm = uniform(0, 7);
        m.time_ms = time(size, kind);
        m.workspace_bytes = uniform(0, 2) == 0 ? 0 : 100 * static_cast<std::size_t>(uniform(1, 8));
        m.deterministic = uniform(0, 1) == 0;
        if (uniform(0, 3) == 0) {  // an engine id beside an algorithm: still another candidate
          m.candidate.kind = CandidateKind::kEngine;
          m.candidate.engine_id = "eng" + std::to_string(uniform(0, 3));
        }
        if (uniform(0, 2) == 0) m.host_ms = time(size, kind);  // longer or shorter than the GPU's
        rows.push_back(m);
      }
    }
    return rows;
  }
};

TEST(WrRecurrence, AgreesWithTheReferenceProgramOnRandomTables) {
  RandomTables random{std::mt19937(29)};
  int planned = 0;
  int split = 0;
  for (int trial = 0; trial < testing::trials(600); ++trial) {
    const int batch = random.batch();
    const std::vector<int> allowed = random.allowed(batch);
    const std::vector<Measurement> rows = random.rows(batch);
    const std::size_t limit = 100 * static_cast<std::size_t>(random.uniform(0, 9));
    for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", batch " + std::to_string(batch) + ", limit " +
                   std::to_string(limit) + (pricing == CallPricing::kIssued ? ", issued" : ", replayed"));
      const auto plan = optimize_wr(batch, allowed, rows, limit, pricing);
      const auto want = reference_wr_over(batch, reference_candidates(batch, allowed, rows, limit, pricing), pricing);
      expect_same_plan(plan, want);
      if (plan) {
        ++planned;
        if (plan->micro_batch_count() > 1) ++split;
      }
    }
  }
  // Plans must be found, and split, for the comparison to mean anything.
  EXPECT_GT(planned, testing::trials(400));
  EXPECT_GT(split, testing::trials(200));
}

TEST(WrRecurrence, AgreesWithTheReferenceOnRepeatedAndUnusableSizes) {
  // Several candidates of one size (the scan in order breaks their ties), and sizes no plan can
  // use: 0, negative, larger than the batch.
  RandomTables random{std::mt19937(5)};
  for (int trial = 0; trial < testing::trials(300); ++trial) {
    const int batch = random.batch();
    std::vector<Measurement> candidates = random.rows(batch);
    std::shuffle(candidates.begin(), candidates.end(), random.rng);
    if (!candidates.empty()) candidates.front().micro_batch = random.uniform(-2, 0);
    for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", batch " + std::to_string(batch));
      expect_same_plan(optimize_wr_over(batch, candidates, pricing), reference_wr_over(batch, candidates, pricing));
    }
  }
}

TEST(WrRecurrence, AgreesWithTheReferenceOnCostsThatAreNotTimes) {
  // No table holds these (times are refused outside 0..1e9), but the program takes any number:
  // NaN and negative costs are scanned in order, as the reference does.
  RandomTables random{std::mt19937(1)};
  for (int trial = 0; trial < testing::trials(300); ++trial) {
    const int batch = random.batch();
    std::vector<Measurement> candidates;
    for (int size = 1; size <= batch; ++size) {
      Measurement m;
      m.micro_batch = size;
      m.candidate.algorithm = size;
      m.time_ms = random.time(size, random.uniform(0, 1));
      candidates.push_back(m);
    }
    for (int n = random.uniform(1, 3); n > 0; --n) {
      Measurement& odd = candidates[random.uniform(0, batch - 1)];
      odd.time_ms = random.uniform(0, 1) == 0 ? std::numeric_limits<double>::quiet_NaN() : -odd.time_ms;
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", batch " + std::to_string(batch));
    expect_same_plan(optimize_wr_over(batch, candidates, CallPricing::kReplayed),
                     reference_wr_over(batch, candidates, CallPricing::kReplayed));
  }
}

TEST(WrRecurrence, EveryMicroBatchSizeAgreesWithTheReference) {
  // The `all` policy's case: one candidate at each of 2,000 sizes, real-valued times.
  RandomTables random{std::mt19937(65536)};
  const int batch = 2000;
  std::vector<Measurement> candidates;
  for (int size = 1; size <= batch; ++size) {
    Measurement m;
    m.micro_batch = size;
    m.time_ms = random.time(size, 2);
    m.host_ms = random.time(size, 2);
    candidates.push_back(m);
  }
  std::shuffle(candidates.begin(), candidates.end(), random.rng);
  for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
    const auto plan = optimize_wr_over(batch, candidates, pricing);
    ASSERT_TRUE(plan.has_value());
    EXPECT_GT(plan->micro_batch_count(), 1) << "the table should make splitting pay";
    expect_same_plan(plan, reference_wr_over(batch, candidates, pricing));
  }
}

TEST(WrRecurrence, ParetoFrontsAgreeWithTheReferenceSweep) {
  RandomTables random{std::mt19937(404)};
  int multi_point = 0;
  for (int trial = 0; trial < testing::trials(300); ++trial) {
    const int batch = random.batch();
    const std::vector<int> allowed = random.allowed(batch);
    const std::vector<Measurement> rows = random.rows(batch);
    SCOPED_TRACE("trial " + std::to_string(trial) + ", batch " + std::to_string(batch));
    FrontWork work;
    const auto front = desirable_configurations(batch, allowed, rows, &work);
    std::size_t solves = 0;
    const auto want = reference_front(batch, allowed, rows, &solves);
    EXPECT_EQ(work.wr_solves, solves);
    ASSERT_EQ(front.size(), want.size());
    for (std::size_t i = 0; i < front.size(); ++i) {
      SCOPED_TRACE("point " + std::to_string(i));
      expect_same_split(front[i], want[i]);
    }
    if (front.size() > 1) ++multi_point;
  }
  EXPECT_GT(multi_point, testing::trials(100));
}

}  // namespace
}  // namespace ucudnn
