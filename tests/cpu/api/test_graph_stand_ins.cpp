// Which plan of a kernel stands in for it under a memory budget (api/graph/stand_ins.h): the rule
// that keeps a framework's benchmark free of copies of ucudnn's plan.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/graph/stand_ins.h"
#include "database_test_support.h"

namespace ucudnn::api {
using api::GraphStandIns;
namespace {

using testing::layer_key;

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(GraphStandIns, TheFirstPlanOfAKernelStandsInAndItsRebuildsToo) {
  GraphStandIns stand_ins;
  const ConvKey kernel = layer_key(0, 64);
  EXPECT_EQ(stand_ins.stands_in(kernel, std::string("engine 7, knobs a"), 64 * kMiB), 64 * kMiB);
  EXPECT_FALSE(stand_ins.stands_in(kernel, std::string("engine 12"), 64 * kMiB)) << "another engine of the kernel";
  EXPECT_FALSE(stand_ins.stands_in(kernel, std::nullopt, 64 * kMiB)) << "unreadable: not the same configuration";
  EXPECT_EQ(stand_ins.stands_in(kernel, std::string("engine 7, knobs a"), 8 * kMiB), 64 * kMiB)
      << "a rebuild (XLA's at run time) is planned under the first's limit, whatever memory is free now";
  EXPECT_FALSE(stand_ins.stands_in(kernel, std::string("engine 7, knobs b"), 64 * kMiB)) << "knobs count";
}

TEST(GraphStandIns, EachKernelHasItsOwn) {
  GraphStandIns stand_ins;
  EXPECT_TRUE(stand_ins.stands_in(layer_key(0, 64), std::string("engine 7"), kMiB));
  EXPECT_EQ(stand_ins.stands_in(layer_key(1, 64), std::string("engine 12"), 2 * kMiB), 2 * kMiB);
  EXPECT_TRUE(stand_ins.stands_in(layer_key(0, 32), std::string("engine 12"), kMiB)) << "another batch, another kernel";
  EXPECT_FALSE(stand_ins.stands_in(layer_key(1, 64), std::string("engine 7"), kMiB));
}

TEST(GraphStandIns, AnUnreadableFirstPlanStandsInAloneAndNothingMatchesIt) {
  GraphStandIns stand_ins;
  const ConvKey kernel = layer_key(2, 16);
  EXPECT_TRUE(stand_ins.stands_in(kernel, std::nullopt, kMiB));
  EXPECT_FALSE(stand_ins.stands_in(kernel, std::nullopt, kMiB));
  EXPECT_FALSE(stand_ins.stands_in(kernel, std::string(""), kMiB));
}

TEST(GraphStandIns, RacingThreadsAgreeOnOneStandInPerKernel) {
  GraphStandIns stand_ins;
  const ConvKey kernel = layer_key(3, 8);
  std::atomic<int> chosen{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (stand_ins.stands_in(kernel, "engine " + std::to_string(t), kMiB)) ++chosen;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(chosen.load(), 1);
}

}  // namespace
}  // namespace ucudnn::api
