// core/bounded_cache.h: the plan builder's cache. Least recently used first out at the capacity,
// one build per entry however many threads ask, failures kept like any value.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/bounded_cache.h"

namespace ucudnn {
namespace {

using Cache = BoundedCache<std::string, std::hash<std::string>, int, std::string>;

std::string built(const std::string& key, int settings) { return key + "@" + std::to_string(settings); }

TEST(BoundedCache, BuildsOnceAndFindsWhatItBuiltUnderTheSameSettingsOnly) {
  Cache cache(8);
  int builds = 0;
  auto build = [&](const std::string& key, int settings) {
    return cache.get_or_build(key, settings, [&] {
      ++builds;
      return built(key, settings);
    });
  };
  EXPECT_FALSE(cache.find("conv1", 64).has_value());
  EXPECT_EQ(build("conv1", 64), "conv1@64");
  EXPECT_EQ(build("conv1", 64), "conv1@64");
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(build("conv1", 8), "conv1@8") << "other settings of the same kernel are another entry";
  EXPECT_EQ(builds, 2);
  ASSERT_TRUE(cache.find("conv1", 64).has_value());
  EXPECT_EQ(*cache.find("conv1", 64), "conv1@64");
  EXPECT_FALSE(cache.find("conv2", 64).has_value());
  EXPECT_EQ(cache.size(), 2u);
}

TEST(BoundedCache, DropsTheLeastRecentlyUsedBeyondItsCapacity) {
  Cache cache(3);
  for (const char* key : {"a", "b", "c"}) cache.get_or_build(key, 0, [&] { return std::string(key); });
  ASSERT_TRUE(cache.find("a", 0).has_value());  // a is now the most recently used; b the least
  cache.get_or_build("d", 0, [] { return std::string("d"); });
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_FALSE(cache.find("b", 0).has_value()) << "the least recently used goes first";
  EXPECT_TRUE(cache.find("a", 0).has_value());
  EXPECT_TRUE(cache.find("c", 0).has_value());
  EXPECT_TRUE(cache.find("d", 0).has_value());
  // A dropped entry is built again when asked.
  int builds = 0;
  cache.get_or_build("b", 0, [&] {
    ++builds;
    return std::string("b");
  });
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(cache.size(), 3u);
}

// Eight threads ask for the same entry while its build is held open: one builds, all get its value.
TEST(BoundedCache, ThreadsAskingForAnEntryBeingBuiltWaitForThatBuild) {
  Cache cache(4);
  std::atomic<int> builds{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::future<std::string>> results;
  for (int t = 0; t < 8; ++t) {
    results.push_back(std::async(std::launch::async, [&] {
      return cache.get_or_build("conv", 1, [&] {
        ++builds;
        released.wait();
        return std::string("plan");
      });
    }));
  }
  // Every thread but the builder waits inside the cache before the build ends (no sleep to guess by).
  while (cache.waiting() < 7) std::this_thread::yield();
  EXPECT_EQ(builds.load(), 1);
  release.set_value();
  for (auto& result : results) EXPECT_EQ(result.get(), "plan");
  EXPECT_EQ(builds.load(), 1);
}

// A build that throws leaves nothing behind: the next ask builds again.
TEST(BoundedCache, AThrowingBuildLeavesNoEntry) {
  Cache cache(2);
  EXPECT_THROW(cache.get_or_build("conv", 1, []() -> std::string { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.get_or_build("conv", 1, [] { return std::string("second"); }), "second");
}

TEST(BoundedCache, ACapacityOfNothingStillHoldsOne) {
  Cache cache(0);
  EXPECT_EQ(cache.capacity(), 1u);
  cache.get_or_build("a", 0, [] { return std::string("a"); });
  cache.get_or_build("b", 0, [] { return std::string("b"); });
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_TRUE(cache.find("b", 0).has_value());
}

}  // namespace
}  // namespace ucudnn
