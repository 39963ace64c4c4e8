// Candidates: the setting's spelling, engine configuration ids, and planning over legacy and
// engine rows (gathered per kind, planned together, chosen by the WR and WD programs).

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>

#include "core/candidate_kinds.h"
#include "core/engine_config.h"
#include "core/env_config.h"
#include "measurement_rows.h"
#include "optimize/pareto.h"
#include "optimize/wr_optimizer.h"
#include "recorded_source.h"
#include "runtime/candidate_runtime.h"
#include "runtime/plan_builder.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using optimize::desirable_configurations;
using optimize::MicroBatchSplit;
using optimize::optimize_wr;
using runtime::CandidateKindRuntime;
using runtime::engine_candidates_runtime;
using runtime::kind_runtime;
using runtime::legacy_candidates_runtime;
using runtime::PlanBuilder;
using runtime::plannable_sizes;
using store::BenchmarkDatabase;
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(CandidateSetting, ParsesEachSpellingAndRefusesOthers) {
  EXPECT_EQ(*parse_candidate_set("legacy"), CandidateSet::kLegacy);
  EXPECT_EQ(*parse_candidate_set("Engines"), CandidateSet::kEngines);
  EXPECT_EQ(*parse_candidate_set("BOTH"), CandidateSet::kBoth);
  const auto bad = parse_candidate_set("graph");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("'graph'"), std::string::npos);
  for (CandidateSet set : {CandidateSet::kLegacy, CandidateSet::kEngines, CandidateSet::kBoth}) {
    EXPECT_EQ(*parse_candidate_set(to_string(set)), set);
  }
  EXPECT_EQ(kinds_of(CandidateSet::kBoth),
            (std::vector<CandidateKind>{CandidateKind::kLegacy, CandidateKind::kEngine}));
  EXPECT_EQ(kinds_of(CandidateSet::kEngines), std::vector<CandidateKind>{CandidateKind::kEngine});
}

TEST(CandidateSetting, EnvironmentVariableIsParsedStrictlyAndNamed) {
  SettingValues values;
  EXPECT_EQ(parse_settings(values)->candidates, CandidateSet::kBoth) << "the default";
  values["UCUDNN_CANDIDATES"] = "legacy";
  EXPECT_EQ(parse_settings(values)->candidates, CandidateSet::kLegacy);
  values["UCUDNN_CANDIDATES"] = "all";
  const auto bad = parse_settings(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_CANDIDATES"), std::string::npos);
}

TEST(EngineConfigIds, RoundTripCanonically) {
  EngineConfigId id;
  id.engine = 12;
  id.knobs = {{17, 0}, {3, 1}, {5, -2}};
  const std::string text = format_engine_config(id);
  EXPECT_EQ(text, "eng12:k3=1,k5=-2,k17=0");
  const auto parsed = parse_engine_config(text);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(parsed->engine, 12);
  EXPECT_EQ(format_engine_config(*parsed), text);
  EXPECT_EQ(format_engine_config(*parse_engine_config("eng0")), "eng0");
}

TEST(EngineConfigIds, RefuseMalformedIdsSayingWhy) {
  for (const char* bad : {"", "eng", "engx", "12", "eng1:", "eng1:k", "eng1:k3", "eng1:k3=", "eng1:k3=x",
                          "eng1:k3=1,", "eng1:k3=1,k3=2", "eng1:k5=1,k3=2", "eng1;k3=1", "eng99999999999999999999",
                          "eng1:k3=1 ", "eng-1"}) {
    const auto parsed = parse_engine_config(bad);
    EXPECT_FALSE(parsed.ok()) << "'" << bad << "' was accepted";
    if (!parsed.ok()) {
      EXPECT_NE(parsed.message().find("engine configuration"), std::string::npos);
    }
  }
}

TEST(CandidateKinds, EveryKindHasItsRuntimeHalf) {
  for (const CandidateKindInfo& info : candidate_kinds()) {
    const CandidateKindRuntime& runtime = kind_runtime(info.kind);
    EXPECT_NE(runtime.make_measurer, nullptr) << info.name;
    EXPECT_NE(runtime.make_runner, nullptr) << info.name;
  }
  EXPECT_EQ(&kind_runtime(CandidateKind::kLegacy), &legacy_candidates_runtime());
  EXPECT_EQ(&kind_runtime(CandidateKind::kEngine), &engine_candidates_runtime());
}

TEST(WrOverBothKinds, EngineRowsWinWhereFasterAndCarryTheirId) {
  // Batch 8: legacy algo 1 needs 100 MiB undivided; an engine runs micro-batches of 4 in 2 MiB.
  const std::vector<Measurement> rows = {
      legacy_row(8, 0, 10.0, 0), legacy_row(8, 1, 4.0, 100 * kMiB), legacy_row(4, 0, 5.0, 0),
      engine_row(4, "eng7:k3=1", 1.5, 2 * kMiB), engine_row(8, "eng9", 2.5, 64 * kMiB)};
  auto small = optimize_wr(8, {4, 8}, rows, 8 * kMiB);
  ASSERT_TRUE(small);
  ASSERT_EQ(small->runs.size(), 1u);
  EXPECT_EQ(small->runs[0].candidate().engine_id, "eng7:k3=1");
  EXPECT_EQ(small->runs[0].candidate().algorithm, -1);
  EXPECT_EQ(small->runs[0].count, 2);
  EXPECT_DOUBLE_EQ(small->time_ms, 3.0);
  // With 64 MiB the undivided engine is within the split margin of the split plan: it is kept.
  auto large = optimize_wr(8, {4, 8}, rows, 64 * kMiB);
  ASSERT_TRUE(large);
  const MicroBatchSplit kept = prefer_undivided_within_margin(*large, rows, 64 * kMiB);
  ASSERT_EQ(kept.runs.size(), 1u);
  EXPECT_EQ(kept.runs[0].candidate().engine_id, large->runs[0].candidate().engine_id);
  // Without engine rows the legacy plan is what remains.
  std::vector<Measurement> legacy_only;
  for (const auto& m : rows) {
    if (m.candidate.kind == CandidateKind::kLegacy) legacy_only.push_back(m);
  }
  auto legacy = optimize_wr(8, {4, 8}, legacy_only, 8 * kMiB);
  ASSERT_TRUE(legacy);
  EXPECT_TRUE(legacy->runs[0].candidate().engine_id.empty());
  EXPECT_DOUBLE_EQ(legacy->time_ms, 10.0);
}

TEST(WrOverBothKinds, ParetoFrontKeepsEngineConfigurations) {
  const std::vector<Measurement> rows = {legacy_row(8, 0, 10.0, 0), engine_row(8, "eng2", 3.0, 32 * kMiB),
                                         engine_row(4, "eng5", 1.0, 4 * kMiB)};
  const auto front = desirable_configurations(8, {4, 8}, rows);
  ASSERT_GE(front.size(), 2u);
  bool engine_seen = false;
  for (const MicroBatchSplit& p : front) {
    for (const auto& r : p.runs) engine_seen |= r.candidate().kind == CandidateKind::kEngine;
  }
  EXPECT_TRUE(engine_seen);
  EXPECT_DOUBLE_EQ(front.back().time_ms, 2.0) << "the fastest configuration: two engine micro-batches";
}

// The recorded AlexNet table plus engine rows for conv1 forward at every size, faster than any
// legacy algorithm.
class EngineKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    key = alexnet_keys()[0];
    std::vector<Measurement> rows;
    for (int size : plannable_sizes(key, BatchSizePolicy::kPowerOfTwo)) {
      for (const Measurement& m : source->rows_at(key, size)) rows.push_back(m);
      rows.push_back(engine_row(size, "eng42:k1=3", 0.001 * size, kMiB));
    }
    engine_source->add(key, rows);
  }
  std::shared_ptr<RecordedSource> source = RecordedSource::alexnet();
  std::shared_ptr<RecordedSource> engine_source = std::make_shared<RecordedSource>();
  ConvKey key;
};

TEST_F(EngineKinds, EachKindIsMeasuredOnceAndOnlyWhenAsked) {
  PlanBuilder builder{engine_source, nullptr};
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  ASSERT_TRUE(
      builder.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &sizes, &rows).ok());
  EXPECT_EQ(engine_source->calls_for(CandidateKind::kLegacy), 1);
  EXPECT_EQ(engine_source->calls_for(CandidateKind::kEngine), 0);
  for (const auto& m : rows) EXPECT_EQ(m.candidate.kind, CandidateKind::kLegacy);
  const std::size_t legacy_rows = rows.size();

  ASSERT_TRUE(
      builder.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kBoth, &sizes, &rows).ok());
  EXPECT_EQ(engine_source->calls_for(CandidateKind::kLegacy), 1) << "legacy rows were complete already";
  EXPECT_EQ(engine_source->calls_for(CandidateKind::kEngine), 1);
  EXPECT_EQ(rows.size(), legacy_rows + sizes.size());

  ASSERT_TRUE(
      builder.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kEngines, &sizes, &rows).ok());
  EXPECT_EQ(engine_source->calls(), 2) << "nothing measured again";
  EXPECT_EQ(rows.size(), sizes.size());
  for (const auto& m : rows) EXPECT_EQ(m.candidate.engine_id, "eng42:k1=3");
}

TEST_F(EngineKinds, DatabaseKeepsEachKindsCoverageApart) {
  TempDir dir;
  auto opened = BenchmarkDatabase::open((dir.path() / "db.sqlite").string());
  ASSERT_TRUE(opened.ok()) << opened.message();
  std::shared_ptr<BenchmarkDatabase> db(std::move(opened.value()));
  {
    PlanBuilder builder{engine_source, db};
    std::vector<int> sizes;
    std::vector<Measurement> rows;
    ASSERT_TRUE(
        builder.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &sizes, &rows).ok());
  }
  // A second process with the same database: legacy rows come from it, engines are measured.
  auto second_source = std::make_shared<RecordedSource>();
  std::vector<Measurement> all;
  for (int size : plannable_sizes(key, BatchSizePolicy::kPowerOfTwo)) {
    for (const Measurement& m : engine_source->rows_at(key, size)) all.push_back(m);
  }
  second_source->add(key, all);
  PlanBuilder second{second_source, db};
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  ASSERT_TRUE(
      second.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kBoth, &sizes, &rows).ok());
  EXPECT_EQ(second_source->calls_for(CandidateKind::kLegacy), 0);
  EXPECT_GT(second_source->calls_for(CandidateKind::kEngine), 0);
  EXPECT_EQ(sorted(second_source->sizes_asked_for(key)), plannable_sizes(key, BatchSizePolicy::kPowerOfTwo))
      << "engines measured at each size once";
  // A third finds both kinds stored.
  auto third_source = std::make_shared<RecordedSource>();
  PlanBuilder third{third_source, db};
  std::vector<Measurement> third_rows;
  ASSERT_TRUE(
      third.measured_rows(nullptr, key, BatchSizePolicy::kPowerOfTwo, CandidateSet::kBoth, &sizes, &third_rows).ok());
  EXPECT_EQ(third_source->calls(), 0);
  EXPECT_EQ(third_rows.size(), rows.size());
}

// A 3-D convolution key (5-d tensors), strides and dilations as given.
ConvKey volume_key(ConvOp op, std::vector<int> strides, std::vector<int> dilations) {
  ConvKey key;
  key.op = op;
  key.x.dims = {8, 3, 8, 8, 5};
  key.w.dims = {5, 3, 3, 3, 3};
  key.y.dims = {8, 5, 3, 4, 3};
  key.conv.pads = {1, 1, 2};
  key.conv.strides = std::move(strides);
  key.conv.dilations = std::move(dilations);
  return key;
}

TEST(KnownDefectiveEngines, Engine73IsRefusedOnlyForStridedDilatedVolumeBackwardData) {
  EXPECT_TRUE(known_defective_engine(volume_key(ConvOp::kBackwardData, {3, 2, 2}, {1, 2, 2}), 73));
  // Other engines, other operations, no dilation or no stride, 2-D: all stay offered.
  EXPECT_FALSE(known_defective_engine(volume_key(ConvOp::kBackwardData, {3, 2, 2}, {1, 2, 2}), 72));
  EXPECT_FALSE(known_defective_engine(volume_key(ConvOp::kForward, {3, 2, 2}, {1, 2, 2}), 73));
  EXPECT_FALSE(known_defective_engine(volume_key(ConvOp::kBackwardFilter, {3, 2, 2}, {1, 2, 2}), 73));
  EXPECT_FALSE(known_defective_engine(volume_key(ConvOp::kBackwardData, {1, 1, 1}, {1, 2, 2}), 73));
  EXPECT_FALSE(known_defective_engine(volume_key(ConvOp::kBackwardData, {3, 2, 2}, {1, 1, 1}), 73));
  ConvKey flat = volume_key(ConvOp::kBackwardData, {2, 2}, {2, 2});
  flat.x.dims = {8, 3, 14, 14};
  EXPECT_FALSE(known_defective_engine(flat, 73));
}

}  // namespace
}  // namespace ucudnn::testing
