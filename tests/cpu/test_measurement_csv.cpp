// Reading recorded benchmark tables (the CSV format of tests/data/README.md).

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/measurement_csv.h"
#include "test_helpers.h"

namespace ucudnn {
namespace {

const char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";

Expected<std::vector<KernelMeasurements>> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_measurements_csv(in, "table.csv");
}

// Asserts a parse error that names the line and contains `detail`.
void expect_error(const std::string& text, int line, const std::string& detail) {
  const auto kernels = parse(text);
  ASSERT_FALSE(kernels.ok()) << "parsed: " << text;
  const std::string where = "table.csv:" + std::to_string(line) + ":";
  EXPECT_EQ(kernels.message().rfind(where, 0), 0u) << kernels.message();
  EXPECT_NE(kernels.message().find(detail), std::string::npos) << kernels.message();
}

TEST(MeasurementCsvWriter, RoundTripsTheRecordedTable) {
  const auto recorded = read_measurements_csv(testing::alexnet_csv_path());
  ASSERT_TRUE(recorded.ok()) << recorded.message();
  const std::string text = format_measurements_csv(*recorded);
  EXPECT_EQ(text.rfind(kHeader, 0), 0u);
  const auto again = parse(text);
  ASSERT_TRUE(again.ok()) << again.message();
  ASSERT_EQ(again->size(), recorded->size());
  std::size_t rows = 0;
  for (std::size_t k = 0; k < recorded->size(); ++k) {
    const auto& a = (*recorded)[k];
    const auto& b = (*again)[k];
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.batch, b.batch);
    ASSERT_EQ(a.rows.size(), b.rows.size()) << a.layer;
    for (std::size_t r = 0; r < a.rows.size(); ++r, ++rows) {
      EXPECT_EQ(a.rows[r].micro_batch, b.rows[r].micro_batch);
      EXPECT_EQ(a.rows[r].algo, b.rows[r].algo);
      EXPECT_EQ(a.rows[r].math_type, b.rows[r].math_type);
      EXPECT_EQ(a.rows[r].workspace_bytes, b.rows[r].workspace_bytes);
      EXPECT_NEAR(a.rows[r].time_ms, b.rows[r].time_ms, 1e-6);
    }
  }
  EXPECT_GT(rows, 500u);
}

TEST(MeasurementCsvParser, ReadsEveryField) {
  const auto kernels = parse(std::string(kHeader) + "conv1,bwdf,8,3,1,0.125,4096\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->size(), 1u);
  const KernelMeasurements& k = kernels->front();
  EXPECT_EQ(k.layer, "conv1");
  EXPECT_EQ(k.op, ConvOp::kBackwardFilter);
  EXPECT_EQ(k.batch, 8);
  ASSERT_EQ(k.rows.size(), 1u);
  EXPECT_EQ(k.rows[0].micro_batch, 8);
  EXPECT_EQ(k.rows[0].algo, 3);
  EXPECT_EQ(k.rows[0].math_type, 1);
  EXPECT_DOUBLE_EQ(k.rows[0].time_ms, 0.125);
  EXPECT_EQ(k.rows[0].workspace_bytes, 4096u);
}

TEST(MeasurementCsvParser, HeaderIsOptional) {
  const std::string body = "a,fwd,1,0,0,0.5,0\na,fwd,2,1,0,0.75,64\n";
  const auto with_header = parse(kHeader + body);
  const auto without_header = parse(body);
  ASSERT_TRUE(with_header.ok()) << with_header.message();
  ASSERT_TRUE(without_header.ok()) << without_header.message();
  ASSERT_EQ(with_header->size(), 1u);
  ASSERT_EQ(without_header->size(), 1u);
  EXPECT_EQ(with_header->front().rows.size(), 2u);
  EXPECT_EQ(without_header->front().rows.size(), 2u);
  EXPECT_EQ(with_header->front().batch, without_header->front().batch);
}

TEST(MeasurementCsvParser, KeepsKernelsInOrderOfFirstAppearance) {
  const auto kernels = parse(
      "b,fwd,1,0,0,1,0\n"
      "a,fwd,1,0,0,1,0\n"
      "b,bwdd,1,0,0,1,0\n"
      "a,fwd,2,0,0,1,0\n"
      "b,fwd,2,0,0,1,0\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].layer, "b");
  EXPECT_EQ((*kernels)[0].op, ConvOp::kForward);
  EXPECT_EQ((*kernels)[0].rows.size(), 2u);
  EXPECT_EQ((*kernels)[1].layer, "a");
  EXPECT_EQ((*kernels)[1].rows.size(), 2u);
  EXPECT_EQ((*kernels)[2].layer, "b");
  EXPECT_EQ((*kernels)[2].op, ConvOp::kBackwardData);
}

TEST(MeasurementCsvParser, BatchIsTheLargestMicroBatch) {
  const auto kernels = parse("a,fwd,4,0,0,1,0\na,fwd,16,0,0,1,0\na,fwd,8,0,0,1,0\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  EXPECT_EQ(kernels->front().batch, 16);
}

TEST(MeasurementCsvParser, ToleratesSpacesCarriageReturnsAndBlankLines) {
  const auto kernels = parse("a , fwd ,2, 1,0 ,0.5,  8\r\n\n   \na,fwd,1,0,0,0.25,0\r\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->front().rows.size(), 2u);
  EXPECT_EQ(kernels->front().layer, "a");
  EXPECT_EQ(kernels->front().rows[0].workspace_bytes, 8u);
}

TEST(MeasurementCsvParser, MalformedRowsNameFileLineAndColumn) {
  const std::string good = "a,fwd,1,0,0,0.5,0\n";
  expect_error(good + "a,fwd,x,0,0,0.5,0\n", 2, "microbatch 'x'");
  expect_error(good + "a,fwd,0,0,0,0.5,0\n", 2, "microbatch '0'");
  expect_error(good + "a,fwd,1,99,0,0.5,0\n", 2, "algo '99'");
  expect_error(good + "a,fwd,1,0,zero,0.5,0\n", 2, "math_type 'zero'");
  expect_error(good + "a,fwd,1,0,0,-1,0\n", 2, "time_ms '-1'");
  expect_error(good + "a,fwd,1,0,0,fast,0\n", 2, "time_ms 'fast'");
  expect_error(good + "a,fwd,1,0,0,0.5,-8\n", 2, "workspace_bytes '-8'");
  expect_error(good + "a,fwd,1,0,0,0.5,\n", 2, "workspace_bytes ''");
  expect_error(good + "a,fwd,1,0,0,0.5\n", 2, "got 6");
  expect_error(good + "a,fwd,1,0,0,0.5,0,9\n", 2, "got 8");
  expect_error(good + ",fwd,1,0,0,0.5,0\n", 2, "layer");
  // Blank lines still count, so the number matches what an editor shows.
  expect_error(kHeader + good + "\n" + "a,fwd,1,0,0,0.5,big\n", 4, "workspace_bytes 'big'");
}

TEST(MeasurementCsvParser, RejectsUnknownOp) {
  expect_error("a,forward,1,0,0,0.5,0\n", 1, "unknown op 'forward'");
}

TEST(MeasurementCsvParser, RejectsTablesWithoutRows) {
  EXPECT_FALSE(parse("").ok());
  EXPECT_FALSE(parse(kHeader).ok());
}

TEST(MeasurementCsvParser, ReadsAFileAndNamesItInErrors) {
  testing::TempDir dir;
  const std::string good = dir.write("good.csv", std::string(kHeader) + "a,fwd,1,0,0,0.5,0\n");
  const auto kernels = read_measurements_csv(good);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  EXPECT_EQ(kernels->size(), 1u);

  const std::string bad = dir.write("bad.csv", "a,fwd,1,0,0,slow,0\n");
  const auto failed = read_measurements_csv(bad);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.message().rfind(bad + ":1:", 0), 0u) << failed.message();
  EXPECT_NE(failed.message().find("time_ms"), std::string::npos) << failed.message();
}

TEST(MeasurementCsvParser, MissingFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  const std::string missing = (dir.path() / "missing.csv").string();
  const auto kernels = read_measurements_csv(missing);
  ASSERT_FALSE(kernels.ok());
  EXPECT_NE(kernels.message().find(missing), std::string::npos) << kernels.message();
}

TEST(MeasurementCsvParser, ReadsTheRecordedAlexNetTable) {
  const auto kernels = read_measurements_csv(testing::alexnet_csv_path());
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->size(), 15u);
  const ConvOp ops[] = {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter};
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    const KernelMeasurements& k = (*kernels)[i];
    EXPECT_EQ(k.layer, "alex_conv" + std::to_string(i / 3 + 1));
    EXPECT_EQ(k.op, ops[i % 3]);
    EXPECT_EQ(k.batch, 256);
    EXPECT_FALSE(k.rows.empty());
  }
}

}  // namespace
}  // namespace ucudnn
