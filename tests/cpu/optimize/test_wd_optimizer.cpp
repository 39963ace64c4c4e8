// Workspace division (the GLPK integer program) against exhaustive search on small instances, an
// exact dynamic program on the AlexNet table, and a ResNet-50-sized synthetic instance.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/batch_policy.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "optimize/pareto.h"
#include "optimize/wd_optimizer.h"
#include "optimize/wr_optimizer.h"
#include "test_helpers.h"

namespace ucudnn {
using optimize::desirable_configurations;
using optimize::fastest_within;
using optimize::MicroBatchSplit;
using optimize::optimize_wd;
using optimize::optimize_wr;
using optimize::WdKernel;
using optimize::WdSolution;
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

bool nearly_equal(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, b); }

MicroBatchSplit point(double time_ms, std::size_t workspace) {
  MicroBatchSplit plan;
  plan.time_ms = time_ms;
  plan.workspace_bytes = workspace;
  return plan;
}

// The fastest total over every choice of one configuration per kernel within the budget.
std::optional<double> brute_force(const std::vector<WdKernel>& kernels, std::size_t budget) {
  std::optional<double> best;
  std::function<void(std::size_t, double, std::size_t)> visit = [&](std::size_t k, double time,
                                                                    std::size_t workspace) {
    if (workspace > budget) return;
    if (k == kernels.size()) {
      if (!best || time < *best) best = time;
      return;
    }
    for (const auto& plan : kernels[k].front) {
      visit(k + 1, time + kernels[k].count * plan.time_ms, workspace + plan.workspace_bytes);
    }
  };
  visit(0, 0.0, 0);
  return best;
}

// Exact as well, and fast on real sizes: kernel by kernel, keep only the partial sums that no
// other partial sum beats in both workspace and time. A beaten partial sum extends into a beaten
// total, so the optimum survives; a knapsack over bytes would need ~1e8 states instead.
std::optional<double> pareto_sum_optimum(const std::vector<WdKernel>& kernels,
                                         std::size_t budget) {
  std::vector<std::pair<std::size_t, double>> sums = {{0, 0.0}};
  for (const auto& kernel : kernels) {
    std::vector<std::pair<std::size_t, double>> next;
    for (const auto& [workspace, time] : sums) {
      for (const auto& plan : kernel.front) {
        if (workspace + plan.workspace_bytes <= budget) {
          next.emplace_back(workspace + plan.workspace_bytes, time + kernel.count * plan.time_ms);
        }
      }
    }
    std::sort(next.begin(), next.end());
    sums.clear();
    for (const auto& sum : next) {
      if (sums.empty() || sum.second < sums.back().second) sums.push_back(sum);
    }
    if (sums.empty()) return std::nullopt;
  }
  return sums.back().second;  // the most workspace within the budget buys the least time
}

// The solution's own numbers agree with its choices and with the budget.
void expect_consistent(const WdSolution& solution, const std::vector<WdKernel>& kernels,
                       std::size_t budget) {
  ASSERT_EQ(solution.choice.size(), kernels.size());
  double time = 0.0;
  std::size_t workspace = 0;
  int variables = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    ASSERT_GE(solution.choice[k], 0);
    ASSERT_LT(solution.choice[k], static_cast<int>(kernels[k].front.size()));
    const MicroBatchSplit& plan = kernels[k].front[solution.choice[k]];
    time += kernels[k].count * plan.time_ms;
    workspace += plan.workspace_bytes;
    variables += static_cast<int>(kernels[k].front.size());
  }
  EXPECT_TRUE(nearly_equal(solution.time_ms, time));
  EXPECT_EQ(solution.workspace_bytes, workspace);
  EXPECT_LE(solution.workspace_bytes, budget);
  EXPECT_EQ(solution.variables, variables);
  EXPECT_GE(solution.solve_ms, 0.0);
}

// Solves the program into `solution`, which must agree with its own numbers and be as fast as the
// exact optimum over the Pareto sums (no other choice within the budget is faster).
void solve_to_the_optimum(const std::vector<WdKernel>& kernels, std::size_t budget, WdSolution* solution) {
  const auto solved = optimize_wd(kernels, budget);
  ASSERT_TRUE(solved.ok()) << solved.message();
  expect_consistent(*solved, kernels, budget);
  const auto optimum = pareto_sum_optimum(kernels, budget);
  ASSERT_TRUE(optimum.has_value());
  EXPECT_TRUE(nearly_equal(solved->time_ms, *optimum)) << solved->time_ms << " ms, exact optimum " << *optimum << " ms";
  *solution = *solved;
}

TEST(WdOptimizer, MatchesBruteForceOnRandomInstances) {
  std::mt19937 rng(20180521);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int feasible = 0;
  int infeasible = 0;
  int exact_fits = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<WdKernel> kernels(uniform(2, 5));
    std::size_t most = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      kernels[k].name = "kernel " + std::to_string(k);
      kernels[k].count = uniform(1, 3);
      std::size_t largest = 0;
      for (int n = uniform(1, 5); n > 0; --n) {
        // Byte counts up to ~1e10, as real workspaces; any points, not only Pareto fronts.
        const std::size_t workspace =
            uniform(0, 3) == 0 ? 0 : static_cast<std::size_t>(uniform(1, 1000)) * 10000019;
        kernels[k].front.push_back(point(0.25 * uniform(1, 40), workspace));
        largest = std::max(largest, workspace);
      }
      most += largest;
    }
    // Budgets: anything up to every largest workspace; sometimes exactly a combination's sum,
    // or one byte short of it, where rounding in the solver would show.
    std::size_t budget = std::uniform_int_distribution<std::size_t>(0, most + 1)(rng);
    if (uniform(0, 2) == 0) {
      std::size_t sum = 0;
      for (const auto& kernel : kernels) {
        sum += kernel.front[uniform(0, static_cast<int>(kernel.front.size()) - 1)].workspace_bytes;
      }
      budget = uniform(0, 1) == 0 || sum == 0 ? sum : sum - 1;
      ++exact_fits;
    }
    SCOPED_TRACE("trial " + std::to_string(trial) + ", budget " + std::to_string(budget));

    const auto solution = optimize_wd(kernels, budget);
    const auto expected = brute_force(kernels, budget);
    ASSERT_EQ(solution.ok(), expected.has_value()) << (solution ? "" : solution.message());
    if (!solution) {
      ++infeasible;
      EXPECT_NE(solution.message().find("is infeasible: the kernels need at least"),
                std::string::npos)
          << solution.message();
      continue;
    }
    ++feasible;
    EXPECT_TRUE(nearly_equal(solution->time_ms, *expected))
        << solution->time_ms << " ms, brute force " << *expected << " ms";
    expect_consistent(*solution, kernels, budget);
  }
  EXPECT_GT(feasible, 800);
  EXPECT_GT(infeasible, 200);
  EXPECT_GT(exact_fits, 400);
}

TEST(WdOptimizer, CountWeighsTheTimeButNotTheWorkspace) {
  // 100 bytes for one kernel: the one that runs three times gains 3 ms, the other 2 ms.
  std::vector<WdKernel> kernels = {
      {"once", 1, {point(4.0, 0), point(2.0, 100)}},
      {"thrice", 3, {point(2.0, 0), point(1.0, 100)}},
  };
  const auto solution = optimize_wd(kernels, 150);
  ASSERT_TRUE(solution.ok()) << solution.message();
  EXPECT_EQ(solution->choice, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(solution->time_ms, 4.0 + 3 * 1.0);
  EXPECT_EQ(solution->workspace_bytes, 100u);
  EXPECT_EQ(solution->variables, 4);

  const auto roomy = optimize_wd(kernels, 200);
  ASSERT_TRUE(roomy.ok()) << roomy.message();
  EXPECT_EQ(roomy->choice, (std::vector<int>{1, 1}));
  EXPECT_EQ(roomy->workspace_bytes, 200u);  // the exact fit is allowed
}

TEST(WdOptimizer, ErrorsNameTheKernelOrTheMinimum) {
  const std::vector<WdKernel> empty_front = {{"kernel a fwd", 1, {point(1.0, 0)}},
                                             {"kernel b bwdd", 1, {}}};
  const auto no_front = optimize_wd(empty_front, kMiB);
  ASSERT_FALSE(no_front.ok());
  EXPECT_NE(no_front.message().find("kernel b bwdd"), std::string::npos) << no_front.message();

  const std::vector<WdKernel> hungry = {{"a", 1, {point(1.0, 3 * kMiB), point(0.5, 9 * kMiB)}},
                                        {"b", 1, {point(1.0, kMiB)}}};
  const auto tight = optimize_wd(hungry, 4 * kMiB - 1);
  ASSERT_FALSE(tight.ok());
  EXPECT_EQ(tight.message(), "total workspace of " + format_byte_size(4 * kMiB - 1) +
                               " is infeasible: the kernels need at least 4 MiB");
  EXPECT_TRUE(optimize_wd(hungry, 4 * kMiB).ok());

  const auto nothing = optimize_wd({}, 0);
  ASSERT_TRUE(nothing.ok()) << nothing.message();
  EXPECT_TRUE(nothing->choice.empty());
  EXPECT_EQ(nothing->time_ms, 0.0);
}

std::string describe(const MicroBatchSplit& plan) {
  std::string text;
  for (const auto& run : plan.runs) {
    if (!text.empty()) text += " + ";
    text += std::to_string(run.count) + " x " + std::to_string(run.size()) + " algo " +
            std::to_string(run.candidate().algorithm);
  }
  return text;
}

TEST(WdOptimizer, AlexNetAt120MiBBeatsEightMiBPerKernel) {
  const auto table = read_measurements_csv(testing::alexnet_csv_path());
  ASSERT_TRUE(table.ok()) << table.message();
  ASSERT_EQ(table->size(), 15u);
  const std::size_t budget = 120 * kMiB;
  const std::size_t per_kernel = budget / table->size();  // 8 MiB: the same memory, reused
  std::vector<WdKernel> kernels;
  double wr_total = 0.0;
  double undivided_total = 0.0;
  for (const auto& kernel : *table) {
    const std::string name = kernel.layer + " " + short_name(kernel.op);
    const auto allowed = allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, kernel.batch);
    kernels.push_back({name, 1, desirable_configurations(kernel.batch, allowed, kernel.rows)});
    const auto wr = optimize_wr(kernel.batch, allowed, kernel.rows, per_kernel);
    const auto undivided = fastest_within(kernel.rows, kernel.batch, per_kernel);
    ASSERT_TRUE(wr && undivided) << name;
    wr_total += wr->time_ms;
    undivided_total += undivided->time_ms;
  }

  WdSolution solution;
  ASSERT_NO_FATAL_FAILURE(solve_to_the_optimum(kernels, budget, &solution));
  EXPECT_LT(solution.time_ms, wr_total);
  EXPECT_LT(wr_total, undivided_total);

  std::printf("AlexNet WD at 120 MiB: %.3f ms, %s used, %d variables, solved in %.3f ms\n", solution.time_ms,
              format_byte_size(solution.workspace_bytes).c_str(), solution.variables, solution.solve_ms);
  std::printf("  WR at 8 MiB per kernel: %.3f ms; undivided within 8 MiB: %.3f ms\n", wr_total,
              undivided_total);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const MicroBatchSplit& plan = kernels[k].front[solution.choice[k]];
    std::printf("  %-16s %8.3f ms %10s  (%2zu configurations)  %s\n", kernels[k].name.c_str(),
                plan.time_ms, format_byte_size(plan.workspace_bytes).c_str(),
                kernels[k].front.size(), describe(plan).c_str());
  }
}

// A front like the ones cuDNN gives: from a slow algorithm without workspace to fast ones that
// need up to hundreds of MiB, time falling by a few percent per step.
std::vector<MicroBatchSplit> synthetic_front(std::mt19937& rng, int points) {
  std::uniform_real_distribution<double> undivided(0.2, 4.0), speedup(0.80, 0.99),
      largest_log2(26.0, 30.0);  // 64 MiB .. 1 GiB
  std::uniform_real_distribution<double> log2_workspace(14.0, largest_log2(rng));  // from 16 KiB
  std::vector<std::size_t> workspaces;
  for (int i = 1; i < points; ++i) {
    workspaces.push_back(static_cast<std::size_t>(std::exp2(log2_workspace(rng))));
  }
  std::sort(workspaces.begin(), workspaces.end());
  std::vector<MicroBatchSplit> front = {point(undivided(rng), 0)};
  for (std::size_t workspace : workspaces) {
    front.push_back(point(front.back().time_ms * speedup(rng), workspace));
  }
  return front;
}

TEST(WdOptimizer, ResNet50SizedProgramSolvesQuickly) {
  // ResNet-50 has 23 distinct convolution kernels (the paper: 562 variables, 5.46 ms); the
  // repeated bottleneck blocks run some of them several times per iteration.
  std::mt19937 rng(50);
  std::uniform_int_distribution<int> points(20, 30), count(1, 3);
  std::vector<WdKernel> kernels;
  std::size_t smallest = 0;
  std::size_t largest = 0;
  for (int k = 0; k < 23; ++k) {
    const int runs = count(rng);
    kernels.push_back({"kernel " + std::to_string(k), runs, synthetic_front(rng, points(rng))});
    smallest += kernels.back().front.front().workspace_bytes;
    largest += kernels.back().front.back().workspace_bytes;
  }
  const std::size_t budget = smallest + (largest - smallest) / 10;

  WdSolution solution;
  ASSERT_NO_FATAL_FAILURE(solve_to_the_optimum(kernels, budget, &solution));
  std::printf("ResNet-50-sized WD: %zu kernels, %d variables, budget %s, solved in %.3f ms\n", kernels.size(),
              solution.variables, format_byte_size(budget).c_str(), solution.solve_ms);
  EXPECT_GT(solution.variables, 450);
  EXPECT_LT(solution.solve_ms, 1000.0);  // a sanity bound, not a timing target
}

}  // namespace
}  // namespace ucudnn

namespace ucudnn {
namespace {

// 40 kernels of two configurations with workspaces of about a terabyte each, and
// an odd budget: a knapsack whose branch and bound ran past 300 s. Within a time limit the
// solver answers with the best choice it found and its gap, or says which limit stopped it.
std::vector<WdKernel> terabyte_knapsack(std::mt19937& rng, std::size_t* budget) {
  // Each kernel saves the same time with its fast configuration, whose extra workspace is 1 to 2
  // TiB: which kernels fit is a subset sum, which branch and bound cannot prune.
  std::uniform_int_distribution<std::uint64_t> extra(std::uint64_t{1} << 40, std::uint64_t{1} << 41);
  std::vector<WdKernel> kernels;
  std::size_t smallest = 0, extras = 0;
  for (int k = 0; k < 40; ++k) {
    const std::size_t small = (std::size_t{1} << 30) + static_cast<std::size_t>(k), more = extra(rng);
    kernels.push_back({"kernel " + std::to_string(k), 1, {point(100.0, small + more), point(1100.0, small)}});
    smallest += small;
    extras += more;
  }
  *budget = (smallest + extras / 2) | 1;
  return kernels;
}

TEST(WdOptimizer, AHostileProgramStopsAtTheTimeLimitWithItsBestChoiceAndGap) {
  std::mt19937 rng(29);
  std::size_t budget = 0;
  const std::vector<WdKernel> kernels = terabyte_knapsack(rng, &budget);
  const auto started = std::chrono::steady_clock::now();
  const auto solution = optimize_wd(kernels, budget, 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 30.0) << "a hang: the limit was 0.5 s";
  if (solution.ok()) {
    expect_consistent(*solution, kernels, budget);
    if (!solution->optimal) {
      EXPECT_GE(solution->gap, 0.0);
      EXPECT_LT(solution->gap, 1.0);
    }
    std::printf("terabyte knapsack: %s, gap %.4f, %.3f s\n", solution->optimal ? "optimal" : "stopped at the limit",
                solution->gap, seconds);
  } else {
    EXPECT_NE(solution.message().find("time limit"), std::string::npos) << solution.message();
  }
}

}  // namespace
}  // namespace ucudnn
