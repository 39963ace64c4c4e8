// UCUDNN_MEMORY_BUDGET (core/memory_budget.h): how it is read, and what a graph-API plan may take
// under it. The GPU side (plans kept or micro-batched by it) is in tests/gpu/test_graph_api.cpp.
#include <gtest/gtest.h>

#include <cstddef>

#include "core/env_config.h"
#include "core/memory_budget.h"

namespace ucudnn {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;
constexpr std::size_t GiB = std::size_t{1} << 30;

TEST(MemoryBudget, ReadsFreeOffAndSizes) {
  auto budget = parse_memory_budget("free");
  ASSERT_TRUE(budget) << budget.message();
  EXPECT_EQ(budget->kind, MemoryBudget::Kind::kFree);
  budget = parse_memory_budget("OFF");
  ASSERT_TRUE(budget) << budget.message();
  EXPECT_EQ(budget->kind, MemoryBudget::Kind::kOff);
  budget = parse_memory_budget("6GiB");
  ASSERT_TRUE(budget) << budget.message();
  EXPECT_EQ(budget->kind, MemoryBudget::Kind::kSize);
  EXPECT_EQ(budget->bytes, 6 * GiB);
  EXPECT_EQ(to_string(*budget), "6 GiB");
}

TEST(MemoryBudget, RefusesNothingAndNonsenseSayingWhatItTakes) {
  auto budget = parse_memory_budget("0");
  ASSERT_FALSE(budget);
  EXPECT_NE(budget.message().find("0 bytes"), std::string::npos) << budget.message();
  budget = parse_memory_budget("6GB");
  ASSERT_FALSE(budget);
  EXPECT_NE(budget.message().find("not free, off or a size"), std::string::npos) << budget.message();
  EXPECT_NE(budget.message().find("6GiB"), std::string::npos) << "the size parser's advice\n" << budget.message();
  EXPECT_FALSE(parse_memory_budget("freely"));
  EXPECT_FALSE(parse_memory_budget("64"));  // a bare number below 1 MiB, as every size refuses
}

TEST(MemoryBudget, FreeKeepsWhatFitsTheMemoryLeftWhenTheHandleWasMade) {
  const MemoryBudget free_memory{MemoryBudget::Kind::kFree, 0};
  // 80 GiB card, 4 GiB in use at the handle's creation, 70 GiB in use now (much of it the
  // framework's cache, which it would reuse for a workspace).
  const BudgetLimits limits = budget_limits(free_memory, 4 * GiB, DeviceMemory{10 * GiB, 80 * GiB});
  EXPECT_EQ(limits.keep_within, 76 * GiB) << "only a plan the framework could never fit is replaced";
  EXPECT_EQ(limits.plan_under, 8 * GiB) << "a replaced plan fits what is free now, to a power of two";
}

// A later handle (a framework's backward thread, made at the peak of its activations) does not
// raise the baseline; one made while less was in use lowers it; devices are apart.
TEST(MemoryBudget, TheBaselineIsTheLeastInUseWhenAnyHandleOnTheDeviceWasMade) {
  InUseAtHandleCreation record;
  EXPECT_EQ(record.lowest(0), 0u);
  EXPECT_EQ(record.record(0, 3 * GiB), 3 * GiB);
  EXPECT_EQ(record.record(0, 5 * GiB), 3 * GiB);
  EXPECT_EQ(record.lowest(0), 3 * GiB);
  EXPECT_EQ(record.record(1, 7 * GiB), 7 * GiB);
  EXPECT_EQ(record.record(0, 2 * GiB), 2 * GiB);
  EXPECT_EQ(record.lowest(0), 2 * GiB);
  EXPECT_EQ(record.lowest(1), 7 * GiB);
  EXPECT_EQ(record.lowest(2), 0u);
}

TEST(MemoryBudget, ASizeCountsEverythingInUseOnTheDevice) {
  const MemoryBudget six{MemoryBudget::Kind::kSize, 6 * GiB};
  // 1 GiB in use at creation, 3 GiB now: keep up to 5 GiB, plan the rest under 2 GiB (3 left).
  BudgetLimits limits = budget_limits(six, 1 * GiB, DeviceMemory{77 * GiB, 80 * GiB});
  EXPECT_EQ(limits.keep_within, 5 * GiB);
  EXPECT_EQ(limits.plan_under, 2 * GiB);
  // The program may reach its cache too: what was left at creation (5 GiB) to a power of two,
  // never more than is free.
  EXPECT_EQ(limits.reachable, 4 * GiB);
  EXPECT_EQ(budget_limits(six, 1 * GiB, DeviceMemory{3 * GiB, 80 * GiB}).reachable, 2 * GiB);
  // More in use now than the budget: a replaced plan gets no workspace; more in use at creation
  // than the budget: every plan that needs workspace is replaced.
  limits = budget_limits(six, 1 * GiB, DeviceMemory{70 * GiB, 80 * GiB});
  EXPECT_EQ(limits.plan_under, 0u);
  limits = budget_limits(six, 7 * GiB, DeviceMemory{70 * GiB, 80 * GiB});
  EXPECT_EQ(limits.keep_within, 0u);
  EXPECT_EQ(limits.plan_under, 0u);
  // A budget beyond what the card has free: a replaced plan never gets more than is free.
  const MemoryBudget large{MemoryBudget::Kind::kSize, 100 * GiB};
  limits = budget_limits(large, 1 * GiB, DeviceMemory{1 * GiB + 5, 80 * GiB});
  EXPECT_EQ(limits.plan_under, 1 * GiB);
}

TEST(MemoryBudget, PlansUnderAPowerOfTwoSoFewLimitsArePlanned) {
  EXPECT_EQ(power_of_two_floor(0), 0u);
  EXPECT_EQ(power_of_two_floor(1), 1u);
  EXPECT_EQ(power_of_two_floor(64 * MiB), 64 * MiB);
  EXPECT_EQ(power_of_two_floor(64 * MiB + 1), 64 * MiB);
  EXPECT_EQ(power_of_two_floor(128 * MiB - 1), 64 * MiB);
  // Memory that comes and goes by a few MiB maps to one limit.
  EXPECT_EQ(power_of_two_floor(3 * GiB + 5 * MiB), power_of_two_floor(3 * GiB + 900 * MiB));
  EXPECT_EQ(power_of_two_floor(~std::size_t{0}), std::size_t{1} << 63);
}

TEST(MemoryBudget, TheVariableIsReadWithTheOthersAndABadValueNamesIt) {
  SettingValues values;
  auto config = parse_settings(values);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->memory_budget.kind, MemoryBudget::Kind::kFree) << "the default";
  values["UCUDNN_MEMORY_BUDGET"] = " 12GiB ";
  config = parse_settings(values);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->memory_budget.kind, MemoryBudget::Kind::kSize);
  EXPECT_EQ(config->memory_budget.bytes, 12 * GiB);
  values["UCUDNN_MEMORY_BUDGET"] = "plenty";
  config = parse_settings(values);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message().rfind("UCUDNN_MEMORY_BUDGET: ", 0), 0u) << config.message();
}

}  // namespace
}  // namespace ucudnn
