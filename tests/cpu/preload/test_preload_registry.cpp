// The LD_PRELOAD layer's bookkeeping, without cuDNN: a handle's state outlives every call still
// using it when another thread destroys the handle, and a cuDNN symbol that is not there yet is
// looked up again later rather than remembered as missing.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "preload/handle_registry.h"
#include "preload/real_symbol.h"

namespace ucudnn::preload {
using preload::HandleRegistry;
using preload::RealSymbol;
namespace {

TEST(PreloadHandleRegistry, RemovalWaitsForACallStillUsingTheHandle) {
  HandleRegistry<int, int> registry;
  int state = 42;
  ASSERT_TRUE(registry.add(7, &state));
  EXPECT_FALSE(registry.add(7, &state)) << "a registered handle is never replaced";

  std::atomic<bool> lease_taken{false};
  std::atomic<bool> call_finished{false};
  std::thread call([&] {
    auto lease = registry.find(7);
    ASSERT_NE(lease, nullptr);
    lease_taken = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(*lease, 42);  // still the live state
    call_finished = true;
  });
  while (!lease_taken) std::this_thread::yield();
  int* removed = registry.remove(7);  // the racing cudnnDestroy
  EXPECT_TRUE(call_finished) << "the state was handed out for destruction while a call still used it";
  EXPECT_EQ(removed, &state);
  call.join();
  EXPECT_EQ(registry.find(7), nullptr);
  EXPECT_EQ(registry.remove(7), nullptr);
}

TEST(PreloadHandleRegistry, ManyThreadsLookingUpWhileHandlesComeAndGo) {
  HandleRegistry<int, std::atomic<int>> registry;
  std::atomic<bool> stop{false};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      while (!stop) {
        for (int key = 0; key < 8; ++key) {
          if (auto lease = registry.find(key)) {
            EXPECT_GE(lease->fetch_add(1), 0) << "a call saw a destroyed state";
          }
        }
        std::this_thread::yield();  // glibc's reader-preferring lock would starve the writer
      }
    });
  }
  for (int round = 0; round < 100; ++round) {
    std::atomic<int> state{0};
    const int key = round % 8;
    ASSERT_TRUE(registry.add(key, &state));
    std::this_thread::yield();
    ASSERT_EQ(registry.remove(key), &state);
    state = -1000000;  // what a destroyed state looks like: no caller may see it
  }
  stop = true;
  for (auto& caller : callers) caller.join();
}

int stand_in() { return 5; }

TEST(PreloadRealSymbol, AMissingSymbolIsLookedUpAgainAndAFoundOneIsKept) {
  RealSymbol<int (*)()> symbol;
  int lookups = 0;
  bool loaded = false;
  auto resolve = [&](const char*) -> void* {
    ++lookups;
    return loaded ? reinterpret_cast<void*>(&stand_in) : nullptr;
  };
  testing::internal::CaptureStderr();
  EXPECT_EQ(symbol.get("cudnnStandIn", resolve), nullptr);
  EXPECT_EQ(symbol.get("cudnnStandIn", resolve), nullptr);
  const std::string messages = testing::internal::GetCapturedStderr();
  EXPECT_NE(messages.find("cannot find cuDNN's cudnnStandIn"), std::string::npos) << messages;
  EXPECT_EQ(messages.find("cudnnStandIn"), messages.rfind("cudnnStandIn")) << "one message, not one per call";

  loaded = true;  // the program dlopens cuDNN after its first call
  auto function = symbol.get("cudnnStandIn", resolve);
  ASSERT_NE(function, nullptr);
  EXPECT_EQ(function(), 5);
  EXPECT_EQ(lookups, 3);
  symbol.get("cudnnStandIn", resolve);
  EXPECT_EQ(lookups, 3) << "a found symbol is not looked up again";
}

}  // namespace
}  // namespace ucudnn::preload
