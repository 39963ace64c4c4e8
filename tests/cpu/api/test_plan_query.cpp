// The plan query's writing side (api/plan_query.h) on plans made by hand: the caller's sizes,
// arrays and capacities are respected, nothing is cut, and a count query needs no arrays.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/plan_query.h"

namespace ucudnn {
using api::check_plan_info;
using api::kMicroBatchRunSizeV1;
using api::kMicroBatchRunSizeV2;
using api::PlanSummary;
using api::write_plan_info;
using optimize::MicroBatchRun;
using optimize::MicroBatchSplit;
namespace {

MicroBatchRun run(int size, int count, int algo, const std::string& engine = "") {
  MicroBatchRun r;
  r.row.candidate = engine.empty() ? Candidate::legacy(algo, 1) : Candidate::engine(engine, 1);
  r.row.candidate.algorithm = algo;  // as given: the copy must carry it whatever the kind
  r.row.micro_batch = size;
  r.count = count;
  r.call_ms = 0.25 * size;
  r.row.workspace_bytes = std::size_t{1} << size;
  return r;
}

MicroBatchSplit plan_of(std::vector<MicroBatchRun> runs) {
  MicroBatchSplit plan;
  plan.runs = std::move(runs);
  for (const auto& r : plan.runs) plan.batch += r.size() * r.count;
  return plan;
}

PlanSummary summary() {
  PlanSummary s;
  s.op = UCUDNN_OP_BACKWARD_DATA;
  s.batch = 40;
  s.policy = UCUDNN_BATCH_SIZE_POLICY_ALL;
  s.workspace_limit = 8 << 20;
  s.workspace_bytes = 1 << 20;
  s.predicted_time_ms = 1.5f;
  s.undivided_time_ms = 2.5f;
  return s;
}

TEST(PlanQuery, WritesTheSummaryAndBothPlansRuns) {
  const MicroBatchSplit issued = plan_of({run(16, 2, 1), run(8, 1, -1, "eng12:k3=1,k17=0")});
  const MicroBatchSplit replayed = plan_of({run(8, 5, 0)});
  UcudnnMicroBatchRun runs[4], replayed_runs[2];
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, runs, 4, replayed_runs, 2);
  ASSERT_TRUE(check_plan_info(&info).ok());
  const Status written = write_plan_info(summary(), issued, &replayed, &info);
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(info.op, UCUDNN_OP_BACKWARD_DATA);
  EXPECT_EQ(info.batch, 40);
  EXPECT_EQ(info.policy, UCUDNN_BATCH_SIZE_POLICY_ALL);
  EXPECT_EQ(info.workspaceLimit, std::size_t{8} << 20);
  EXPECT_EQ(info.workspaceBytes, std::size_t{1} << 20);
  EXPECT_FLOAT_EQ(info.predictedTimeMs, 1.5f);
  EXPECT_FLOAT_EQ(info.undividedTimeMs, 2.5f);
  EXPECT_EQ(info.runCount, 2);
  EXPECT_EQ(info.replayedRunCount, 1);
  EXPECT_EQ(info.microBatchCount, 3);
  EXPECT_EQ(runs[0].size, 16);
  EXPECT_EQ(runs[0].count, 2);
  EXPECT_EQ(runs[0].algo, 1);
  EXPECT_EQ(runs[0].mathType, CUDNN_TENSOR_OP_MATH);
  EXPECT_FLOAT_EQ(runs[0].timeMs, 4.0f);
  EXPECT_EQ(runs[0].workspaceBytes, std::size_t{1} << 16);
  EXPECT_STREQ(runs[0].engine, "");
  EXPECT_EQ(runs[1].algo, -1);
  EXPECT_STREQ(runs[1].engine, "eng12:k3=1,k17=0");
  EXPECT_EQ(replayed_runs[0].count, 5);

  // The same plan replayed as issued: no replayed runs.
  ucudnnInitPlanInfo(&info, runs, 4, replayed_runs, 2);
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  EXPECT_EQ(info.replayedRunCount, 0);
}

TEST(PlanQuery, WithoutArraysItCountsAndWithTooSmallOnesItFailsWritingNone) {
  const MicroBatchSplit issued = plan_of({run(16, 1, 1), run(8, 1, 2), run(4, 2, 3)});
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, nullptr, 0, nullptr, 0);
  ASSERT_TRUE(write_plan_info(summary(), issued, &issued, &info).ok());
  EXPECT_EQ(info.runCount, 3);
  EXPECT_EQ(info.replayedRunCount, 3);
  EXPECT_EQ(info.microBatchCount, 4);

  UcudnnMicroBatchRun runs[2];
  std::memset(runs, 0x5a, sizeof runs);
  ucudnnInitPlanInfo(&info, runs, 2, nullptr, 0);
  const Status small = write_plan_info(summary(), issued, nullptr, &info);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.error().code, ErrorCode::kBadParam);
  EXPECT_NE(small.message().find("the plan has 3 runs but the array holds 2"), std::string::npos) << small.message();
  EXPECT_EQ(info.runCount, 3) << "the count says how large the array must be";
  EXPECT_EQ(runs[0].size, 0x5a5a5a5a) << "nothing written";
}

// A run on a padded input says its channel count; a caller of version 2's run size keeps the bytes
// after channelPieces.
TEST(PlanQuery, PaddedChannelsAreWrittenWhereTheCallersRunStructHoldsThem) {
  MicroBatchRun padded = run(8, 1, 4);
  padded.row.candidate.padded_channels = 4;
  const MicroBatchSplit issued = plan_of({padded});
  UcudnnMicroBatchRun runs[1];
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, runs, 1, nullptr, 0);
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  EXPECT_EQ(runs[0].paddedChannels, 4);

  std::vector<unsigned char> v2_runs(kMicroBatchRunSizeV2 + 8, 0x5a);
  ucudnnInitPlanInfo(&info, reinterpret_cast<UcudnnMicroBatchRun*>(v2_runs.data()), 1, nullptr, 0);
  info.runStructSize = kMicroBatchRunSizeV2;
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  for (std::size_t i = kMicroBatchRunSizeV2; i < v2_runs.size(); ++i) EXPECT_EQ(v2_runs[i], 0x5a) << i;
}

// A client compiled with a later header whose run struct is larger: its stride is used, and the
// bytes this version does not know are left alone.
TEST(PlanQuery, ALargerRunStructIsWrittenAtItsStride) {
  struct LaterRun {
    UcudnnMicroBatchRun v1;
    long long added_later;
  };
  const MicroBatchSplit issued = plan_of({run(16, 1, 1), run(8, 2, 2, "eng3")});
  LaterRun runs[2];
  runs[0].added_later = runs[1].added_later = 77;
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, reinterpret_cast<UcudnnMicroBatchRun*>(runs), 2, nullptr, 0);
  info.runStructSize = sizeof(LaterRun);
  ASSERT_TRUE(check_plan_info(&info).ok());
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  EXPECT_EQ(runs[0].v1.size, 16);
  EXPECT_EQ(runs[1].v1.size, 8);
  EXPECT_STREQ(runs[1].v1.engine, "eng3");
  EXPECT_EQ(runs[0].added_later, 77);
  EXPECT_EQ(runs[1].added_later, 77);
}

// A run's output-channel pieces, written where the caller's run struct holds them; an older caller's
// (version 1's size) keeps its bytes beyond what it knows.
TEST(PlanQuery, ChannelPiecesAreWrittenWhereTheCallersRunStructHoldsThem) {
  MicroBatchRun pieced = run(8, 4, 1);
  pieced.row.candidate.channel_pieces = 4;
  const MicroBatchSplit issued = plan_of({pieced, run(4, 1, 0)});
  UcudnnMicroBatchRun runs[2];
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, runs, 2, nullptr, 0);
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  EXPECT_EQ(runs[0].channelPieces, 4);
  EXPECT_EQ(runs[1].channelPieces, 1);
  EXPECT_EQ(runs[0].paddedChannels, 0);

  std::vector<unsigned char> v1_runs(2 * kMicroBatchRunSizeV1 + 16, 0x5a);
  ucudnnInitPlanInfo(&info, reinterpret_cast<UcudnnMicroBatchRun*>(v1_runs.data()), 2, nullptr, 0);
  info.runStructSize = kMicroBatchRunSizeV1;
  ASSERT_TRUE(check_plan_info(&info).ok());
  ASSERT_TRUE(write_plan_info(summary(), issued, nullptr, &info).ok());
  UcudnnMicroBatchRun second{};
  std::memcpy(&second, v1_runs.data() + kMicroBatchRunSizeV1, kMicroBatchRunSizeV1);
  EXPECT_EQ(second.size, 4) << "the second run at the older stride";
  for (std::size_t i = 2 * kMicroBatchRunSizeV1; i < v1_runs.size(); ++i) {
    EXPECT_EQ(v1_runs[i], 0x5a) << "nothing written past the caller's runs, byte " << i;
  }
}

TEST(PlanQuery, AnEngineIdThatDoesNotFitFailsRatherThanBeingCut) {
  const std::string longest(UCUDNN_ENGINE_ID_MAX - 1, '7');
  UcudnnMicroBatchRun runs[1];
  UcudnnPlanInfo info;
  ucudnnInitPlanInfo(&info, runs, 1, nullptr, 0);
  ASSERT_TRUE(write_plan_info(summary(), plan_of({run(8, 1, -1, "eng" + longest.substr(3))}), nullptr, &info).ok());
  EXPECT_EQ(std::strlen(runs[0].engine), std::size_t{UCUDNN_ENGINE_ID_MAX - 1});

  std::memset(runs, 0x5a, sizeof runs);
  const Status too_long = write_plan_info(summary(), plan_of({run(8, 1, -1, "eng" + longest)}), nullptr, &info);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, ErrorCode::kNotSupported);
  EXPECT_NE(too_long.message().find("UcudnnMicroBatchRun::engine holds 511 (UCUDNN_ENGINE_ID_MAX)"), std::string::npos)
      << too_long.message();
  EXPECT_EQ(runs[0].size, 0x5a5a5a5a) << "nothing written";
}

}  // namespace
}  // namespace ucudnn
