// The graph-API front-end's records of a program's backend descriptors, fed the calls a program
// makes (no cuDNN involved: descriptors are stand-in addresses), and the ConvKey made from them.

#include <gtest/gtest.h>

#include <cudnn.h>

#include <array>
#include <utility>
#include <vector>

#include "api/graph/conv_key.h"
#include "api/graph/records.h"

namespace ucudnn {
using api::GraphConvolution;
using api::GraphRecords;
namespace {

using api::GraphConvolution;
using api::GraphRecords;

// Distinct stand-in descriptor addresses.
struct Addresses {
  std::array<char, 64> storage{};
  cudnnBackendDescriptor_t at(int i) { return &storage[static_cast<std::size_t>(i)]; }
};

enum Slot { kX, kW, kY, kConv, kOp, kGraph, kHeur, kConfig, kConfig2, kPlan, kPack, kOp2, kGraph2, kPlan2, kEngine };

// The calls a framework makes for one forward convolution, N 8, C 16 -> K 32, 10x10, 3x3, pad 1,
// channels last (NHWC strides), and a plan made from the first heuristics result.
class ProgramCalls {
 public:
  explicit ProgramCalls(GraphRecords& records) : r(records) {}

  void tensor(int slot, std::int64_t uid, std::vector<std::int64_t> dims, std::vector<std::int64_t> strides,
              cudnnDataType_t type = CUDNN_DATA_HALF) {
    const std::int64_t alignment = 16;
    r.on_create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, a.at(slot));
    r.on_set(a.at(slot), CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    r.on_set(a.at(slot), CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
    r.on_set(a.at(slot), CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
    r.on_set(a.at(slot), CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    r.on_set(a.at(slot), CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  }

  void tensors() {
    tensor(kX, 'x', {8, 16, 10, 10}, {1600, 1, 160, 16});
    tensor(kW, 'w', {32, 16, 3, 3}, {144, 1, 48, 16});
    tensor(kY, 'y', {8, 32, 10, 10}, {3200, 1, 320, 32});
    for (int slot : {kX, kW, kY}) r.on_finalize(a.at(slot));
  }

  void convolution(std::int64_t post_pad = 1) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const std::int64_t spatial = 2, pads[2] = {1, 1}, post[2] = {post_pad, post_pad}, ones[2] = {1, 1};
    r.on_create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, a.at(kConv));
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, ones);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, ones);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
    r.on_set(a.at(kConv), CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, post);
    r.on_finalize(a.at(kConv));
  }

  void forward_operation(int slot, float alpha = 1.0f, float beta = 0.0f) {
    cudnnBackendDescriptor_t x = a.at(kX), w = a.at(kW), y = a.at(kY), conv = a.at(kConv);
    r.on_create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, a.at(slot));
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    r.on_finalize(a.at(slot));
  }

  void graph(int slot, std::vector<cudnnBackendDescriptor_t> ops) {
    r.on_create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, a.at(slot));
    r.on_set(a.at(slot), static_cast<cudnnBackendAttributeName_t>(800), CUDNN_TYPE_HANDLE, 1, &handle);
    r.on_set(a.at(slot), CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
             static_cast<std::int64_t>(ops.size()), ops.data());
    r.on_finalize(a.at(slot));
  }

  // Heuristics over `graph`, whose results cuDNN copies into two configurations, then a plan.
  void plan_from_heuristics(int graph_slot, int plan_slot) {
    cudnnBackendDescriptor_t graph = a.at(graph_slot);
    r.on_create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, a.at(kHeur));
    r.on_set(a.at(kHeur), CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    r.on_finalize(a.at(kHeur));
    cudnnBackendDescriptor_t configs[2] = {a.at(kConfig), a.at(kConfig2)};
    for (auto c : configs) r.on_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, c);
    r.on_get_descriptors(a.at(kHeur), CUDNN_ATTR_ENGINEHEUR_RESULTS, 2, configs);
    r.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, a.at(plan_slot));
    r.on_set(a.at(plan_slot), static_cast<cudnnBackendAttributeName_t>(400), CUDNN_TYPE_HANDLE, 1, &handle);
    r.on_set(a.at(plan_slot), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &configs[1]);
    r.on_finalize(a.at(plan_slot));
  }

  // The tensors, the convolution, its forward operation and a graph of it.
  void forward_graph(float alpha = 1.0f, float beta = 0.0f) {
    tensors();
    convolution();
    forward_operation(kOp, alpha, beta);
    graph(kGraph, {a.at(kOp)});
  }

  void whole_forward() {
    forward_graph(0.5f, 0.25f);
    plan_from_heuristics(kGraph, kPlan);
  }

  GraphRecords& r;
  Addresses a;
  cudnnHandle_t handle = reinterpret_cast<cudnnHandle_t>(&handle_storage);
  int handle_storage = 0;
};

TEST(GraphRecords, AOneConvolutionPlanCarriesItsConvolutionByValue) {
  GraphRecords records;
  ProgramCalls p(records);
  p.whole_forward();
  // A framework destroys the tensors, operation and graph once the plan is made.
  for (int slot : {kX, kW, kY, kConv, kOp, kGraph, kHeur}) records.on_destroy(p.a.at(slot));
  const auto facts = records.plan(p.a.at(kPlan));
  ASSERT_TRUE(facts.has_value());
  ASSERT_NE(facts->convolution, nullptr);
  const GraphConvolution& c = *facts->convolution;
  EXPECT_EQ(c.op, ConvOp::kForward);
  EXPECT_EQ(c.x.uid, 'x');
  EXPECT_EQ(c.w.uid, 'w');
  EXPECT_EQ(c.y.uid, 'y');
  EXPECT_EQ(c.x.dims, (std::vector<std::int64_t>{8, 16, 10, 10}));
  EXPECT_EQ(c.w.strides, (std::vector<std::int64_t>{144, 1, 48, 16}));
  EXPECT_EQ(c.x.data_type, CUDNN_DATA_HALF);
  EXPECT_EQ(c.compute_type, CUDNN_DATA_FLOAT);
  EXPECT_EQ(c.pre_pads, (std::vector<std::int64_t>{1, 1}));
  EXPECT_DOUBLE_EQ(c.alpha, 0.5);
  EXPECT_DOUBLE_EQ(c.beta, 0.25);
  EXPECT_EQ(facts->handle, p.handle);
}

// A configuration copied out of the heuristics and finalized again with knobs of the program's
// choosing still leads to the convolution.
TEST(GraphRecords, AHeuristicsConfigurationFinalizedAgainKeepsItsConvolution) {
  GraphRecords records;
  ProgramCalls p(records);
  p.forward_graph();
  p.plan_from_heuristics(kGraph, kPlan);
  cudnnBackendDescriptor_t config = p.a.at(kConfig2), knob = p.a.at(kEngine);
  records.on_set(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &knob);
  records.on_finalize(config);
  records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(kPlan2));
  records.on_set(p.a.at(kPlan2), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
  records.on_finalize(p.a.at(kPlan2));
  ASSERT_TRUE(records.plan(p.a.at(kPlan2)).has_value());
  EXPECT_NE(records.plan(p.a.at(kPlan2))->convolution, nullptr);
}

// A micro-batch offer (api/graph/offer.h) marks the plan made from it, and only that plan; the
// heuristics and configurations answer which convolution they are for.
TEST(GraphRecords, OnlyAPlanMadeFromTheOfferedConfigurationIsAnOffer) {
  GraphRecords records;
  ProgramCalls p(records);
  p.whole_forward();  // its plan is made from kConfig2
  EXPECT_EQ(records.plan(p.a.at(kPlan))->offer, -1);
  ASSERT_NE(records.convolution_of(p.a.at(kHeur)), nullptr);
  EXPECT_EQ(records.convolution_of(p.a.at(kHeur))->y.uid, 'y');
  EXPECT_EQ(records.convolution_of(p.a.at(kPack)), nullptr);

  records.mark_offer(p.a.at(kConfig2), 2);
  records.mark_offer(p.a.at(kX), 1);  // not a configuration: nothing happens
  cudnnBackendDescriptor_t offered = p.a.at(kConfig2), other = p.a.at(kConfig);
  for (auto [slot, config] : {std::pair{kPlan2, offered}, std::pair{kPlan, other}}) {
    records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(slot));
    records.on_set(p.a.at(slot), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
    records.on_finalize(p.a.at(slot));
  }
  ASSERT_TRUE(records.plan(p.a.at(kPlan2)).has_value());
  EXPECT_EQ(records.plan(p.a.at(kPlan2))->offer, 2);
  EXPECT_NE(records.plan(p.a.at(kPlan2))->convolution, nullptr);
  EXPECT_EQ(records.plan(p.a.at(kPlan))->offer, -1);
  EXPECT_FALSE(records.plan(p.a.at(kX)).has_value());

  // cuDNN filling the configuration again (another heuristics query) makes it cuDNN's.
  cudnnBackendDescriptor_t refilled[1] = {offered};
  records.on_get_descriptors(p.a.at(kHeur), CUDNN_ATTR_ENGINEHEUR_RESULTS, 1, refilled);
  records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(kPlan2));
  records.on_set(p.a.at(kPlan2), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &offered);
  records.on_finalize(p.a.at(kPlan2));
  EXPECT_EQ(records.plan(p.a.at(kPlan2))->offer, -1);
}

TEST(GraphRecords, AFusedGraphIsNotAConvolution) {
  GraphRecords records;
  ProgramCalls p(records);
  p.tensors();
  p.convolution();
  p.forward_operation(kOp);
  p.forward_operation(kOp2);
  p.graph(kGraph2, {p.a.at(kOp), p.a.at(kOp2)});
  p.plan_from_heuristics(kGraph2, kPlan2);
  const auto facts = records.plan(p.a.at(kPlan2));
  ASSERT_TRUE(facts.has_value());
  EXPECT_EQ(facts->convolution, nullptr);
}

TEST(GraphRecords, AVirtualTensorOrAnUnknownAttributeLeavesTheGraphToCudnn) {
  {
    GraphRecords records;
    ProgramCalls p(records);
    p.tensors();
    const bool yes = true;
    records.on_set(p.a.at(kY), CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
    records.on_finalize(p.a.at(kY));
    p.convolution();
    p.forward_operation(kOp);
    p.graph(kGraph, {p.a.at(kOp)});
    p.plan_from_heuristics(kGraph, kPlan);
    ASSERT_TRUE(records.plan(p.a.at(kPlan)).has_value());
    EXPECT_EQ(records.plan(p.a.at(kPlan))->convolution, nullptr);
  }
  {
    GraphRecords records;
    ProgramCalls p(records);
    p.tensors();
    p.convolution();
    const std::int64_t anything = 3;
    records.on_set(p.a.at(kConv), static_cast<cudnnBackendAttributeName_t>(199), CUDNN_TYPE_INT64, 1, &anything);
    records.on_finalize(p.a.at(kConv));
    p.forward_operation(kOp);
    p.graph(kGraph, {p.a.at(kOp)});
    p.plan_from_heuristics(kGraph, kPlan);
    EXPECT_EQ(records.plan(p.a.at(kPlan))->convolution, nullptr);
  }
}

TEST(GraphRecords, AnEngineMadeByIndexAndAConfigurationsEngineCopyFollowTheGraph) {
  GraphRecords records;
  ProgramCalls p(records);
  p.forward_graph();
  cudnnBackendDescriptor_t graph = p.a.at(kGraph), engine = p.a.at(kEngine), config = p.a.at(kConfig);
  const std::int64_t index = 3;
  records.on_create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, engine);
  records.on_set(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  records.on_set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
  records.on_finalize(engine);
  records.on_create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, config);
  records.on_set(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &engine);
  records.on_finalize(config);
  records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(kPlan));
  records.on_set(p.a.at(kPlan), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
  records.on_finalize(p.a.at(kPlan));
  const auto facts = records.plan(p.a.at(kPlan));
  ASSERT_TRUE(facts.has_value());
  ASSERT_NE(facts->convolution, nullptr);
  EXPECT_EQ(facts->handle, p.handle) << "the graph's handle, where the plan names none";
}

TEST(GraphRecords, APlanIsOnlyAPlanOnceFinalizedAndADestroyedAddressStartsOver) {
  GraphRecords records;
  ProgramCalls p(records);
  p.forward_graph();
  records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(kPlan));
  EXPECT_FALSE(records.plan(p.a.at(kPlan)).has_value()) << "not finalized";
  p.plan_from_heuristics(kGraph, kPlan);
  ASSERT_NE(records.plan(p.a.at(kPlan))->convolution, nullptr);
  records.on_destroy(p.a.at(kPlan));
  EXPECT_FALSE(records.tracks(p.a.at(kPlan)));
  records.on_create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, p.a.at(kPlan));
  records.on_finalize(p.a.at(kPlan));
  EXPECT_EQ(records.plan(p.a.at(kPlan))->convolution, nullptr) << "a new plan at a reused address is not the old one";
  records.on_reset(p.a.at(kGraph));
  EXPECT_TRUE(records.tracks(p.a.at(kGraph)));
}

TEST(GraphRecords, UntrackedDescriptorTypesCostNoRecord) {
  GraphRecords records;
  Addresses a;
  records.on_create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, a.at(0));
  records.on_create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, a.at(1));
  EXPECT_EQ(records.size(), 0u);
  EXPECT_FALSE(api::graph_records_track(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR));
  EXPECT_TRUE(api::graph_records_track(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
}

TEST(GraphRecords, AVariantPackGivesEachTensorsPointer) {
  GraphRecords records;
  Addresses a;
  cudnnBackendDescriptor_t pack = a.at(kPack);
  int buffers[4] = {};
  const std::int64_t uids[3] = {'y', 'x', 'w'};
  void* pointers[3] = {&buffers[0], &buffers[1], &buffers[2]};
  void* workspace = &buffers[3];
  records.on_create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, pack);
  records.on_set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
  records.on_set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  records.on_set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
  const std::int64_t wanted[3] = {'x', 'w', 'y'};
  void* got[3] = {};
  void* got_workspace = nullptr;
  EXPECT_FALSE(records.pack_pointers(pack, wanted, got, &got_workspace)) << "not finalized";
  records.on_finalize(pack);
  ASSERT_TRUE(records.pack_pointers(pack, wanted, got, &got_workspace));
  EXPECT_EQ(got[0], &buffers[1]);
  EXPECT_EQ(got[1], &buffers[2]);
  EXPECT_EQ(got[2], &buffers[0]);
  EXPECT_EQ(got_workspace, &buffers[3]);
  // Shape overrides make it something other than a plain call.
  const std::int64_t shape[4] = {4, 16, 10, 10};
  records.on_set(pack, CUDNN_ATTR_VARIANT_PACK_OVERRIDE_SHAPES, CUDNN_TYPE_INT64, 4, shape);
  EXPECT_FALSE(records.pack_pointers(pack, wanted, got, &got_workspace));
}

TEST(GraphConvKey, TheGraphsConvolutionKeyedAsTheLegacyPathKeysIt) {
  GraphRecords records;
  ProgramCalls p(records);
  p.whole_forward();
  const auto facts = records.plan(p.a.at(kPlan));
  ASSERT_TRUE(facts && facts->convolution);
  ConvKey key;
  ASSERT_TRUE(api::graph_conv_key(*facts->convolution, 2, CUDNN_TENSOR_OP_MATH, &key).ok());
  EXPECT_EQ(key.device, 2);
  EXPECT_EQ(key.op, ConvOp::kForward);
  EXPECT_EQ(key.batch(), 8);
  EXPECT_EQ(key.w.format, CUDNN_TENSOR_NHWC);
  EXPECT_EQ(key.w.dims, (std::vector<int>{32, 16, 3, 3}));
  EXPECT_EQ(key.x.strides, (std::vector<int>{1600, 1, 160, 16}));
  EXPECT_EQ(key.conv.group_count, 1);
  EXPECT_EQ(key.conv.pads, (std::vector<int>{1, 1}));
  EXPECT_EQ(key.conv.math_type, CUDNN_TENSOR_OP_MATH);
}

// An FP32 3x3 convolution (padding 1) of 4 x 64 x 8 x 8 NCHW into 32 channels, its filter as given.
GraphConvolution fp32_3x3_from_64_channels(std::vector<std::int64_t> w_dims, std::vector<std::int64_t> w_strides) {
  GraphConvolution c;
  c.x = {'x', CUDNN_DATA_FLOAT, {4, 64, 8, 8}, {4096, 64, 8, 1}};
  c.w = {'w', CUDNN_DATA_FLOAT, std::move(w_dims), std::move(w_strides)};
  c.y = {'y', CUDNN_DATA_FLOAT, {4, 32, 8, 8}, {2048, 64, 8, 1}};
  c.compute_type = CUDNN_DATA_FLOAT;
  c.pre_pads = c.post_pads = {1, 1};
  c.strides = c.dilations = {1, 1};
  return c;
}

TEST(GraphConvKey, GroupsComeFromTheChannelsAndPackedNchwFiltersAreNchw) {
  const GraphConvolution c = fp32_3x3_from_64_channels({32, 16, 3, 3}, {144, 9, 3, 1});
  ConvKey key;
  ASSERT_TRUE(api::graph_conv_key(c, 0, CUDNN_FMA_MATH, &key).ok());
  EXPECT_EQ(key.conv.group_count, 4);
  EXPECT_EQ(key.w.format, CUDNN_TENSOR_NCHW);
}

TEST(GraphConvKey, WhatTheLegacyDescriptorsCannotSayIsRefusedWithAReason) {
  const GraphConvolution c = fp32_3x3_from_64_channels({32, 64, 3, 3}, {576, 9, 3, 1});
  ConvKey key;
  GraphConvolution asymmetric = c;
  asymmetric.post_pads = {0, 0};
  const Status padded = api::graph_conv_key(asymmetric, 0, CUDNN_FMA_MATH, &key);
  ASSERT_FALSE(padded.ok());
  EXPECT_EQ(padded.error().code, ErrorCode::kNotSupported);
  EXPECT_NE(padded.message().find("asymmetric padding"), std::string::npos);

  GraphConvolution strided_filter = c;
  strided_filter.w.strides = {1, 32, 2048, 64 * 32};  // K innermost: no legacy filter format
  EXPECT_NE(api::graph_conv_key(strided_filter, 0, CUDNN_FMA_MATH, &key).message().find("filter"), std::string::npos);

  GraphConvolution batch = c;
  batch.y.dims[0] = 2;
  EXPECT_NE(api::graph_conv_key(batch, 0, CUDNN_FMA_MATH, &key).message().find("batch"), std::string::npos);

  GraphConvolution three_d = c;
  three_d.x.dims = {4, 64, 8};
  EXPECT_FALSE(api::graph_conv_key(three_d, 0, CUDNN_FMA_MATH, &key).ok());
}

TEST(GraphConvKey, FloatKeepsTf32OnlyWhereTheProgramsEngineUsesIt) {
  EXPECT_EQ(api::graph_math_type(CUDNN_DATA_FLOAT, false), CUDNN_FMA_MATH);
  EXPECT_EQ(api::graph_math_type(CUDNN_DATA_FLOAT, true), CUDNN_DEFAULT_MATH);
  EXPECT_EQ(api::graph_math_type(CUDNN_DATA_HALF, false), CUDNN_TENSOR_OP_MATH);
  EXPECT_EQ(api::graph_math_type(CUDNN_DATA_BFLOAT16, true), CUDNN_TENSOR_OP_MATH);
  EXPECT_EQ(api::graph_math_type(CUDNN_DATA_DOUBLE, false), CUDNN_DEFAULT_MATH);
}

}  // namespace
}  // namespace ucudnn
