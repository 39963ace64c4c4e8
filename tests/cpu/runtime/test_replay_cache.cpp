// When a plan's calls are captured and replayed (runtime/replay_cache.h): only a signature that
// recurs (back to back or not) is captured, graphs are kept per signature up to the capacity, most recently used
// last to go, and a refused plan runs everything directly.

#include <gtest/gtest.h>

#include "runtime/replay_cache.h"

namespace {

using ucudnn::runtime::CallSignature;
using ucudnn::runtime::ReplayAction;
using ucudnn::runtime::ReplayCache;

CallSignature signature(int buffers, float beta = 0.0f) {
  CallSignature s;
  s.x = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(0x1000 * buffers));
  s.y = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(0x1000 * buffers + 0x100));
  s.w = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(0x1000 * buffers + 0x200));
  s.workspace = reinterpret_cast<const void*>(std::uintptr_t{0x900000});
  s.workspace_bytes = 1 << 20;
  const float alpha = 1.0f;
  s.alpha_bits = ucudnn::runtime::scalar_bits(&alpha, false);
  s.beta_bits = ucudnn::runtime::scalar_bits(&beta, false);
  return s;
}

// Plays the decision as GraphReplay does: capture stores a new graph (numbered in order).
ReplayAction call(ReplayCache<int>& cache, const CallSignature& s, int* graph_run, int* next_graph) {
  int* graph = nullptr;
  const ReplayAction action = cache.decide(s, &graph);
  if (action == ReplayAction::kLaunch) *graph_run = *graph;
  if (action == ReplayAction::kCapture) *graph_run = *cache.store(s, (*next_graph)++);
  if (action == ReplayAction::kRunDirectly) *graph_run = -1;
  return action;
}

TEST(ReplayCache, CapturesOnlyWhatRecursAndLaunchesItsOwnGraph) {
  ReplayCache<int> cache(4);
  int graph = -1, next = 0;
  EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kRunDirectly);
  EXPECT_EQ(call(cache, signature(2), &graph, &next), ReplayAction::kRunDirectly);  // no recurrence yet
  EXPECT_EQ(call(cache, signature(2), &graph, &next), ReplayAction::kCapture);
  EXPECT_EQ(graph, 0);
  EXPECT_EQ(call(cache, signature(2), &graph, &next), ReplayAction::kLaunch);
  EXPECT_EQ(graph, 0);
  // signature(1) was seen once before signature(2)'s calls: its second sight captures it.
  EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kCapture);
  EXPECT_EQ(graph, 1);
  // Alternating two buffer sets: each launches its own graph.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(call(cache, signature(2), &graph, &next), ReplayAction::kLaunch);
    EXPECT_EQ(graph, 0);
    EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kLaunch);
    EXPECT_EQ(graph, 1);
  }
  EXPECT_EQ(next, 2);  // nothing captured twice
}

// Layers of one shape share a plan: their calls interleave within each step (ResNet-50's third
// stage has six such layers). The second step captures each, the third launches each.
TEST(ReplayCache, LayersSharingAPlanAreEachCapturedAtTheirSecondSight) {
  ReplayCache<int> cache(8);
  int graph = -1, next = 0;
  for (int layer = 1; layer <= 6; ++layer) {
    EXPECT_EQ(call(cache, signature(layer), &graph, &next), ReplayAction::kRunDirectly) << layer;
  }
  for (int layer = 1; layer <= 6; ++layer) {
    EXPECT_EQ(call(cache, signature(layer), &graph, &next), ReplayAction::kCapture) << layer;
  }
  for (int layer = 1; layer <= 6; ++layer) {
    EXPECT_EQ(call(cache, signature(layer), &graph, &next), ReplayAction::kLaunch) << layer;
    EXPECT_EQ(graph, layer - 1);
  }
  EXPECT_EQ(next, 6);
}

// What never recurs is forgotten beyond the capacity: more distinct signatures between two sights
// than the capacity run directly again.
TEST(ReplayCache, ASignatureSeenTooLongAgoRunsDirectlyAgain) {
  ReplayCache<int> cache(3);
  int graph = -1, next = 0;
  for (int set = 1; set <= 4; ++set) call(cache, signature(set), &graph, &next);
  EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kRunDirectly);
  EXPECT_EQ(call(cache, signature(4), &graph, &next), ReplayAction::kCapture);
  EXPECT_EQ(next, 1);
}

TEST(ReplayCache, AnyChangeOfBuffersWorkspaceOrScalarsIsAnotherSignature) {
  const CallSignature base = signature(1);
  EXPECT_EQ(base, signature(1));
  EXPECT_NE(base, signature(1, 1.0f));  // beta
  CallSignature s = base;
  s.alpha_bits = base.alpha_bits ^ 1;
  EXPECT_NE(base, s);
  for (int field = 0; field < 5; ++field) {
    s = base;
    const void* moved = reinterpret_cast<const void*>(std::uintptr_t{0x7777});
    if (field == 0) s.x = moved;
    if (field == 1) s.y = moved;
    if (field == 2) s.w = moved;
    if (field == 3) s.workspace = moved;
    if (field == 4) s.workspace_bytes += 256;
    EXPECT_NE(base, s) << "field " << field;
  }
  // Double scalars keep all eight bytes.
  const double a = 1.0, b = 1.0 + 1e-12;
  EXPECT_NE(ucudnn::runtime::scalar_bits(&a, true), ucudnn::runtime::scalar_bits(&b, true));
  EXPECT_EQ(ucudnn::runtime::scalar_bits(nullptr, true), 0u);

  ReplayCache<int> cache(4);
  int graph = -1, next = 0;
  call(cache, signature(1), &graph, &next);
  EXPECT_EQ(call(cache, signature(1, 0.5f), &graph, &next), ReplayAction::kRunDirectly);  // not signature(1)'s
}

TEST(ReplayCache, KeepsTheMostRecentlyUsedGraphsUpToItsCapacity) {
  ReplayCache<int> cache(2);
  int graph = -1, next = 0;
  for (int set : {1, 2}) {
    call(cache, signature(set), &graph, &next);
    ASSERT_EQ(call(cache, signature(set), &graph, &next), ReplayAction::kCapture);
  }
  EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kLaunch);  // 1 is now the most recent
  call(cache, signature(3), &graph, &next);
  ASSERT_EQ(call(cache, signature(3), &graph, &next), ReplayAction::kCapture);  // evicts 2, not 1
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kLaunch);
  EXPECT_EQ(call(cache, signature(2), &graph, &next), ReplayAction::kRunDirectly);
}

TEST(ReplayCache, ARefusedPlanRunsEverythingDirectly) {
  ReplayCache<int> cache(4);
  int graph = -1, next = 0;
  call(cache, signature(1), &graph, &next);
  call(cache, signature(1), &graph, &next);
  cache.refuse();
  EXPECT_TRUE(cache.refused());
  EXPECT_EQ(cache.size(), 0u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(call(cache, signature(1), &graph, &next), ReplayAction::kRunDirectly);
}

}  // namespace
