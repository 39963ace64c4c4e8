// Micro-batch offers (api/graph/offer.h): the heuristics' results with the offers after the first, fed
// by a stand-in for cuDNN's cudnnBackendGetAttribute (no cuDNN involved: a "configuration" is an
// int that the stand-in sets to the index of the result it copied in).

#include <gtest/gtest.h>

#include <cudnn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/graph/offer.h"
#include "core/env_config.h"

namespace ucudnn {
namespace {

using api::get_results_with_offers;
using api::kOffers;
using Offers = cudnnBackendDescriptor_t[kOffers];

// What the stand-in cuDNN has: this many results; how many one-result queries succeed before one
// fails (-1: none fails).
int g_results = 0;
int g_single_successes = -1;
// Second fills of a program's configuration: none may happen (a build that filled cuDNN's first
// twice, to read its workspace, broke every offer on the H100: PyTorch found no engine at all).
std::vector<int>* g_fills = nullptr;

constexpr std::size_t MiB = std::size_t{1} << 20;

cudnnStatus_t fake_get(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                       int64_t requested, int64_t* count, void* values) {
  if (name != CUDNN_ATTR_ENGINEHEUR_RESULTS || type != CUDNN_TYPE_BACKEND_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
  if (requested == 0) {
    *count = g_results;
    return CUDNN_STATUS_SUCCESS;
  }
  if (requested == 1 && g_single_successes >= 0 && g_single_successes-- == 0) return CUDNN_STATUS_INTERNAL_ERROR;
  const int64_t n = std::min<int64_t>(requested, g_results);
  auto** slots = static_cast<cudnnBackendDescriptor_t*>(values);
  for (int64_t i = 0; i < n; ++i) {
    int* config = static_cast<int*>(static_cast<void*>(slots[i]));
    if (*config != -1 && g_fills) ++(*g_fills)[0];  // a second fill
    *config = static_cast<int>(i);
  }
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
    g_single_successes = -1;
    g_fills = &refills;
  }
  void TearDown() override { g_fills = nullptr; }
  /// The count get_results_with_offers answers into `c`'s slots (null: the count query) with
  /// `wanted` offers, which it leaves in `offers`; -1 where it fails.
  int64_t answer(Configurations* c, int wanted) {
    int64_t count = -1;
    const int64_t room = c ? static_cast<int64_t>(c->slots.size()) : 0;
    const cudnnStatus_t status =
        get_results_with_offers(fake_get, heuristics, room, &count, c ? c->slots.data() : nullptr, wanted, offers);
    return status == CUDNN_STATUS_SUCCESS ? count : -1;
  }
  Offers offers;
  std::vector<int> refills{0};
  cudnnBackendDescriptor_t heuristics = reinterpret_cast<cudnnBackendDescriptor_t>(&storage);
  int storage = 0;
};

using GraphOffer = Fixture;

TEST_F(GraphOffer, TheCountAnswersThreeMoreThanCudnnHasAndNoneStaysNone) {
  EXPECT_EQ(answer(nullptr, kOffers), 5 + kOffers);
  g_results = 0;
  EXPECT_EQ(answer(nullptr, kOffers), 0);
}

TEST_F(GraphOffer, TheOffersAreCopiesOfCudnnsFirstRightAfterItWithEveryResultOfCudnnsInOrder) {
  Configurations c(8);
  EXPECT_EQ(answer(&c, kOffers), 8);
  EXPECT_EQ(c.filled, (std::vector<int>{0, 0, 0, 0, 1, 2, 3, 4}));
  for (int i = 0; i < kOffers; ++i) EXPECT_EQ(offers[i], c.slots[static_cast<std::size_t>(1 + i)]) << i;
  EXPECT_EQ(refills[0], 0) << "a configuration of the program's was filled twice";
}

// cuDNN's first needs 100 MiB of the 256 reachable: it fits the 256 and 128 MiB sizes, so only the
// 64 MiB offer is made; needing 10 MiB it fits all three, and the answer is cuDNN's alone.
TEST_F(GraphOffer, OnlySizesCudnnsFirstConfigurationDoesNotFitAreOffered) {
  constexpr std::size_t reachable = 256 * MiB;
  EXPECT_EQ(api::offers_wanted(reachable, 1024 * MiB), 3);
  EXPECT_EQ(api::offers_wanted(reachable, 200 * MiB), 2);
  EXPECT_EQ(api::offers_wanted(reachable, 128 * MiB), 1) << "it fits 128 MiB exactly";
  EXPECT_EQ(api::offers_wanted(reachable, 64 * MiB), 0);
  EXPECT_EQ(api::offers_wanted(0, 1), 3) << "nothing reachable: every size is smaller";

  EXPECT_EQ(answer(nullptr, 1), 6);
  Configurations one(6);
  EXPECT_EQ(answer(&one, 1), 6);
  EXPECT_EQ(one.filled, (std::vector<int>{0, 0, 1, 2, 3, 4}));
  EXPECT_EQ(offers[0], nullptr);
  EXPECT_EQ(offers[1], nullptr);
  EXPECT_EQ(offers[2], one.slots[1]) << "the offer made is the smallest size's";

  EXPECT_EQ(answer(nullptr, 0), 5);
  Configurations none(5);
  EXPECT_EQ(answer(&none, 0), 5);
  EXPECT_EQ(none.filled, (std::vector<int>{0, 1, 2, 3, 4}));
  for (auto* offer : offers) EXPECT_EQ(offer, nullptr);
  EXPECT_EQ(refills[0], 0) << "a configuration of the program's was filled twice";
}

TEST_F(GraphOffer, MoreRoomThanResultsFillsTheResultsAndTheOffersOnly) {
  g_results = 2;
  Configurations c(7);
  EXPECT_EQ(answer(&c, kOffers), 2 + kOffers);
  EXPECT_EQ(c.filled, (std::vector<int>{0, 0, 0, 0, 1, -1, -1}));
  EXPECT_EQ(offers[0], c.slots[1]);
}

TEST_F(GraphOffer, TooLittleRoomOrNoResultIsCudnnsOwnAnswer) {
  Configurations three(3);
  EXPECT_EQ(answer(&three, kOffers), 3);
  EXPECT_EQ(three.filled, (std::vector<int>{0, 1, 2}));
  for (auto* offer : offers) EXPECT_EQ(offer, nullptr);

  g_results = 0;
  Configurations six(6);
  EXPECT_EQ(answer(&six, kOffers), 0);
  for (auto* offer : offers) EXPECT_EQ(offer, nullptr);
}

// A failed copy on the way: cuDNN's answer unchanged.
TEST_F(GraphOffer, AFailedCopyOnTheWayGivesCudnnsAnswerUnchanged) {
  for (int successes : {0, 1, 2}) {
    g_single_successes = successes;
    Configurations c(8);
    EXPECT_EQ(answer(&c, kOffers), 5) << successes;
    // What the program reads (the first `count`) is cuDNN's answer; a slot past it may have been
    // filled on the way, as cuDNN fills the slots it is given.
    EXPECT_EQ(std::vector<int>(c.filled.begin(), c.filled.begin() + 5), (std::vector<int>{0, 1, 2, 3, 4}))
        << successes;
    for (auto* offer : offers) EXPECT_EQ(offer, nullptr);
  }
}

TEST_F(GraphOffer, EachOfferHalvesTheWorkspaceOfTheOneBefore) {
  const std::size_t reachable = std::size_t{256} << 20;
  EXPECT_EQ(api::offer_workspace_limit(reachable, 0), reachable);
  EXPECT_EQ(api::offer_workspace_limit(reachable, 1), std::size_t{128} << 20);
  EXPECT_EQ(api::offer_workspace_limit(reachable, 2), std::size_t{64} << 20);
}

// auto (the default): offers where PyTorch's CUDA library is loaded, never beside XLA's, JAX's or
// TensorFlow's libraries, which rebuild plans from engine and knobs.
TEST(GraphOfferMode, AutoOffersToPyTorchAloneAndTheVariableSaysOnOffOrAuto) {
  using Names = std::vector<std::string>;
  EXPECT_TRUE(api::program_takes_offers(Names{"", "libc.so.6", "libtorch_cuda.so", "libcudnn.so.9"}));
  EXPECT_FALSE(api::program_takes_offers(Names{"libc.so.6", "libtorch_cpu.so", "libcudnn.so.9"}));
  EXPECT_FALSE(api::program_takes_offers(Names{"libtorch_cuda.so", "xla_cuda_plugin.so"}));
  EXPECT_FALSE(api::program_takes_offers(Names{"libjax_common.so", "libtorch_cuda.so"}));
  EXPECT_FALSE(api::program_takes_offers(Names{"libtorch_cuda.so", "libtensorflow_framework.so.2"}));
  EXPECT_FALSE(api::program_takes_offers(Names{}));
  // This test binary is no PyTorch program; its own objects are listed, itself included.
  const Names here = api::loaded_object_names();
  EXPECT_GE(here.size(), 2u);
  EXPECT_TRUE(std::any_of(here.begin(), here.end(), [](const std::string& n) { return n.rfind("libc.so", 0) == 0; }));
  EXPECT_FALSE(api::program_takes_offers(here));

  SettingValues values;
  EXPECT_EQ(parse_settings(values)->micro_batch_offers, OfferMode::kAuto);
  values["UCUDNN_MICRO_BATCH_OFFERS"] = "auto";
  EXPECT_EQ(parse_settings(values)->micro_batch_offers, OfferMode::kAuto);
  values["UCUDNN_MICRO_BATCH_OFFERS"] = "1";
  EXPECT_EQ(parse_settings(values)->micro_batch_offers, OfferMode::kOn);
  values["UCUDNN_MICRO_BATCH_OFFERS"] = "0";
  EXPECT_EQ(parse_settings(values)->micro_batch_offers, OfferMode::kOff);
  values["UCUDNN_MICRO_BATCH_OFFERS"] = "yes";
  const auto bad = parse_settings(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_MICRO_BATCH_OFFERS: unknown micro-batch offer mode 'yes' (expected 0, 1 or auto)"), std::string::npos)
      << bad.message();
}

}  // namespace
}  // namespace ucudnn
