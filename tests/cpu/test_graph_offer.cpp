// Micro-batch offers (api/graph_offer.h): the heuristics' results with the offer placed second, fed
// by a stand-in for cuDNN's cudnnBackendGetAttribute (no cuDNN involved: a "configuration" is an
// int that the stand-in sets to the index of the result it copied in).

#include <gtest/gtest.h>

#include <cudnn.h>

#include <algorithm>
#include <vector>

#include "api/graph_offer.h"
#include "folder_namespaces.h"

namespace ucudnn {
namespace {

using api::get_results_with_offer;

// What the stand-in cuDNN has: this many results; and whether a query of one result fails.
int g_results = 0;
bool g_single_fails = false;
int g_calls = 0;

cudnnStatus_t fake_get(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                       int64_t requested, int64_t* count, void* values) {
  ++g_calls;
  if (name != CUDNN_ATTR_ENGINEHEUR_RESULTS || type != CUDNN_TYPE_BACKEND_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
  if (requested == 0) {
    *count = g_results;
    return CUDNN_STATUS_SUCCESS;
  }
  if (requested == 1 && g_single_fails) return CUDNN_STATUS_INTERNAL_ERROR;
  const int64_t n = std::min<int64_t>(requested, g_results);
  auto** slots = static_cast<cudnnBackendDescriptor_t*>(values);
  for (int64_t i = 0; i < n; ++i) *static_cast<int*>(static_cast<void*>(slots[i])) = static_cast<int>(i);
  *count = n;
  return CUDNN_STATUS_SUCCESS;
}

// A program's configurations: each slot starts at -1 (not filled).
struct Configurations {
  explicit Configurations(std::size_t n) : filled(n, -1) {
    for (int& f : filled) slots.push_back(static_cast<cudnnBackendDescriptor_t>(static_cast<void*>(&f)));
  }
  std::vector<int> filled;
  std::vector<cudnnBackendDescriptor_t> slots;
};

struct Fixture : ::testing::Test {
  void SetUp() override {
    g_results = 5;
    g_single_fails = false;
    g_calls = 0;
  }
  cudnnBackendDescriptor_t heuristics = reinterpret_cast<cudnnBackendDescriptor_t>(&storage);
  int storage = 0;
};

using GraphOffer = Fixture;

TEST_F(GraphOffer, TheCountAnswersOneMoreThanCudnnHasAndNoneStaysNone) {
  cudnnBackendDescriptor_t offer = nullptr;
  int64_t count = -1;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 0, &count, nullptr, &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 6);
  EXPECT_EQ(offer, nullptr);
  g_results = 0;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 0, &count, nullptr, &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 0);
}

TEST_F(GraphOffer, TheOfferIsACopyOfCudnnsFirstPlacedSecondWithEveryResultOfCudnnsInOrder) {
  Configurations c(6);
  cudnnBackendDescriptor_t offer = nullptr;
  int64_t count = -1;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 6, &count, c.slots.data(), &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 6);
  EXPECT_EQ(c.filled, (std::vector<int>{0, 0, 1, 2, 3, 4}));
  EXPECT_EQ(offer, c.slots[api::kOfferSlot]);
}

TEST_F(GraphOffer, MoreRoomThanResultsFillsTheResultsAndTheOfferOnly) {
  g_results = 2;
  Configurations c(5);
  cudnnBackendDescriptor_t offer = nullptr;
  int64_t count = -1;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 5, &count, c.slots.data(), &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(c.filled, (std::vector<int>{0, 0, 1, -1, -1}));
  EXPECT_EQ(offer, c.slots[1]);
}

TEST_F(GraphOffer, RoomForOneResultOrNoResultIsCudnnsOwnAnswer) {
  Configurations one(1);
  cudnnBackendDescriptor_t offer = nullptr;
  int64_t count = -1;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 1, &count, one.slots.data(), &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(one.filled, (std::vector<int>{0}));
  EXPECT_EQ(offer, nullptr);

  g_results = 0;
  Configurations three(3);
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 3, &count, three.slots.data(), &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(offer, nullptr);
}

TEST_F(GraphOffer, AFailedCopyGivesCudnnsAnswerUnchanged) {
  g_single_fails = true;
  Configurations c(6);
  cudnnBackendDescriptor_t offer = reinterpret_cast<cudnnBackendDescriptor_t>(&storage);
  int64_t count = -1;
  ASSERT_EQ(get_results_with_offer(fake_get, heuristics, 6, &count, c.slots.data(), &offer), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 5);
  // What the program reads (the first `count`) is cuDNN's answer; a slot past it may have been
  // filled on the way, as cuDNN fills the slots it is given.
  EXPECT_EQ(std::vector<int>(c.filled.begin(), c.filled.begin() + 5), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(offer, nullptr);
}

TEST_F(GraphOffer, TheOffersWorkspaceIsHalfOfWhatIsSurelyFree) {
  EXPECT_EQ(api::offer_workspace_limit(std::size_t{256} << 20), std::size_t{128} << 20);
  EXPECT_EQ(api::offer_workspace_limit(0), 0u);
}

}  // namespace
}  // namespace ucudnn
