// Reading recorded benchmark tables (the CSV format of tests/data/README.md).

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "core/candidate_kinds.h"
#include "core/measurement_csv.h"
#include "test_helpers.h"

namespace ucudnn {
using testing::bytes;
namespace {

const char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
const char kFullHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n";

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
  EXPECT_EQ(text.rfind(kFullHeader, 0), 0u);
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
      EXPECT_EQ(a.rows[r].candidate.algorithm, b.rows[r].candidate.algorithm);
      EXPECT_EQ(a.rows[r].candidate.math_type, b.rows[r].candidate.math_type);
      EXPECT_EQ(b.rows[r].candidate.engine_id, "");
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
  EXPECT_EQ(k.rows[0].candidate.algorithm, 3);
  EXPECT_EQ(k.rows[0].candidate.math_type, 1);
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

// A table whose lines end with CR alone was refused as one overlong line, or by a field
// that held the next line, without naming the CR.
TEST(MeasurementCsvParser, LinesEndingWithCrAloneAreNamedAsSuch) {
  std::string mac;
  for (int i = 1; i <= 4; ++i) mac += "a,fwd," + std::to_string(i) + ",0,0,0.5,0\r";
  expect_error(mac, 1, "a carriage return (CR) inside the line: the file's lines seem to end with CR alone");
  std::string long_mac;
  while (long_mac.size() <= kMaxTableLineBytes) long_mac += mac;
  expect_error(long_mac, 1, "line longer than 65536 bytes (the limit of a line): the file's lines seem to end with CR");
  // CR LF stays a line break, and a long line without CR says nothing of CR.
  ASSERT_TRUE(parse("a,fwd,1,0,0,0.5,0\r\na,fwd,2,0,0,0.5,0\r\n").ok());
  const auto long_line = parse("a" + std::string(kMaxTableLineBytes, 'b') + ",fwd,1,0,0,0.5,0\n");
  ASSERT_FALSE(long_line.ok());
  EXPECT_EQ(long_line.message().find("CR"), std::string::npos) << long_line.message();
}

// Every reader checks rows by one rule (core/row_rules.h): a math type beyond
// CUDNN_FMA_MATH, or forward's virtual algorithm, is refused here as in a database.
TEST(MeasurementCsvParser, MathTypesBeyondCudnnsAreRefused) {
  const std::string good = "a,fwd,1,0,0,0.5,0\n";
  expect_error(good + "a,fwd,2,0,4,0.5,0\n", 2, "math_type '4' (expected an integer from 0 to 3)");
  expect_error(good + "a,fwd,2," + std::to_string(algo_count(ConvOp::kForward)) + ",0,0.5,0\n", 2, "invalid algo");
  ASSERT_TRUE(parse(good + "a,fwd,2,0,3,0.5,0\n").ok());
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
  expect_error(good + "a,fwd,1,0,0,0.5,0,9\n", 2, "invalid engine");  // the eighth column is the engine
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

// ---- engine configurations: the eighth column ------------------------------------------------

// Legacy rows (engine empty or left out) and engine rows (algo -1), the ids quoted or not.
const char kMixed[] =
    "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine\n"
    "k,fwd,4,1,0,1.5,1024,\n"
    "k,fwd,4,-1,0,1.0,2048,\"eng12:k3=1,k17=0\"\n"
    "k,fwd,4,-1,0,0.5,4096,eng12:k3=0,k17=0\n"
    "k,fwd,2,-1,1,0.25,0, eng0 \r\n"
    "k,fwd,2,0,0,0.75,0\n";

TEST(MeasurementCsvParser, ReadsEngineRows) {
  const auto kernels = parse(kMixed);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->size(), 1u);
  const auto& rows = kernels->front().rows;
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].candidate.engine_id, "");
  EXPECT_EQ(rows[0].candidate.algorithm, 1);
  EXPECT_EQ(rows[1].candidate.engine_id, "eng12:k3=1,k17=0");
  EXPECT_EQ(rows[1].candidate.algorithm, -1);
  EXPECT_EQ(rows[1].workspace_bytes, 2048u);
  EXPECT_EQ(rows[2].candidate.engine_id, "eng12:k3=0,k17=0") << "one engine at other knob choices is another candidate";
  EXPECT_EQ(rows[3].candidate.engine_id, "eng0");
  EXPECT_EQ(rows[3].candidate.math_type, 1);
  EXPECT_EQ(rows[4].candidate.engine_id, "") << "seven columns: a legacy row";
  EXPECT_EQ(rows[1].candidate.kind, CandidateKind::kEngine);
  EXPECT_EQ(rows[4].candidate.kind, CandidateKind::kLegacy);
}

TEST(MeasurementCsvParser, SevenColumnTablesOfEarlierToolsStillRead) {
  const auto kernels = parse(std::string(kHeader) + "a,bwdd,2,1,0,0.5,64\na,bwdd,1,0,0,0.25,0\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  ASSERT_EQ(kernels->front().rows.size(), 2u);
  for (const Measurement& m : kernels->front().rows) EXPECT_EQ(m.candidate.kind, CandidateKind::kLegacy);
  EXPECT_EQ(kernels->front().rows[0].workspace_bytes, 64u);
}

// ---- host times: the ninth column -------------------------------------------------------------

// host_ms after an empty engine, a quoted id with commas, an id without commas, and left out.
const char kWithHostTimes[] =
    "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n"
    "k,fwd,4,1,0,1.5,1024,,0.025\n"
    "k,fwd,4,-1,0,1.0,2048,\"eng12:k3=1,k17=0\" , 0.004\n"
    "k,fwd,4,-1,0,0.5,0,eng7:k2=1,0.0035\n"
    "k,fwd,2,-1,0,0.25,0,eng0\n";

TEST(MeasurementCsvParser, ReadsHostTimesAfterTheEngine) {
  const auto kernels = parse(kWithHostTimes);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  const auto& rows = kernels->front().rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].candidate.engine_id, "");
  EXPECT_DOUBLE_EQ(rows[0].host_ms, 0.025);
  EXPECT_DOUBLE_EQ(rows[0].cost_ms(), 1.5) << "the GPU's time is the longer";
  EXPECT_EQ(rows[1].candidate.engine_id, "eng12:k3=1,k17=0");
  EXPECT_DOUBLE_EQ(rows[1].host_ms, 0.004);
  EXPECT_EQ(rows[2].candidate.engine_id, "eng7:k2=1");
  EXPECT_DOUBLE_EQ(rows[2].host_ms, 0.0035);
  EXPECT_EQ(rows[3].candidate.engine_id, "eng0");
  EXPECT_EQ(rows[3].host_ms, 0.0) << "left out: not measured";
}

TEST(MeasurementCsvParser, BadHostTimesAreRefusedNamingTheLine) {
  const std::string good = std::string(kFullHeader) + "a,fwd,1,0,0,0.5,0,,0.01\n";
  expect_error(good + "a,fwd,2,0,0,0.5,0,,-1\n", 3, "invalid host_ms '-1'");
  expect_error(good + "a,fwd,2,0,0,0.5,0,,nan\n", 3, "invalid host_ms 'nan'");
  expect_error(good + "a,fwd,2,0,0,0.5,0,,0.1,7\n", 3, "invalid host_ms '0.1,7'");
  expect_error(good + "a,fwd,2,-1,0,0.5,0,\"eng1:k2=1\"x,0.1\n", 3, "invalid engine");
  // An unquoted id with commas is the rest of the line, so a host time after it is a bad knob.
  expect_error(good + "a,fwd,2,-1,0,0.5,0,eng1:k2=1,k3=0,0.1\n", 3, "invalid engine");
}

TEST(MeasurementCsvWriter, RoundTripsHostTimes) {
  const auto kernels = parse(kWithHostTimes);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  const auto again = parse(format_measurements_csv(*kernels));
  ASSERT_TRUE(again.ok()) << again.message();
  ASSERT_EQ(again->front().rows.size(), kernels->front().rows.size());
  for (std::size_t r = 0; r < again->front().rows.size(); ++r) {
    EXPECT_TRUE(kernels->front().rows[r].candidate == again->front().rows[r].candidate);
    EXPECT_DOUBLE_EQ(kernels->front().rows[r].host_ms, again->front().rows[r].host_ms);
  }
}

TEST(MeasurementCsvWriter, RoundTripsEngineRowsQuotingIdsWithCommas) {
  const auto kernels = parse(kMixed);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  const std::string text = format_measurements_csv(*kernels);
  EXPECT_EQ(text.rfind(kFullHeader, 0), 0u) << text;
  EXPECT_NE(text.find(",2048,\"eng12:k3=1,k17=0\",0.000000\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",0,eng0,0.000000\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",1024,,0.000000\n"), std::string::npos) << "a legacy row's engine is empty: " << text;
  const auto again = parse(text);
  ASSERT_TRUE(again.ok()) << again.message();
  ASSERT_EQ(again->front().rows.size(), kernels->front().rows.size());
  for (std::size_t r = 0; r < again->front().rows.size(); ++r) {
    const Measurement& a = kernels->front().rows[r];
    const Measurement& b = again->front().rows[r];
    EXPECT_TRUE(a.candidate == b.candidate) << a.candidate.engine_id << " / " << b.candidate.engine_id;
    EXPECT_EQ(a.micro_batch, b.micro_batch);
    EXPECT_EQ(a.workspace_bytes, b.workspace_bytes);
    EXPECT_DOUBLE_EQ(a.time_ms, b.time_ms);
  }
}

TEST(MeasurementCsvParser, BadEngineIdIsRefusedNamingTheLineAndTheId) {
  const std::string good = "k,fwd,1,-1,0,0.5,0,eng1\n";
  expect_error(good + "k,fwd,1,-1,0,0.5,0,engine1\n", 2, "invalid engine: engine configuration 'engine1'");
  expect_error(good + "k,fwd,1,-1,0,0.5,0,eng1:k2\n", 2, "'eng1:k2'");
  expect_error(good + "k,fwd,1,-1,0,0.5,0,\"eng1:k3=1,k2=0\"\n", 2, "ascending");
  expect_error(good + "k,fwd,1,-1,0,0.5,0,eng1, k2=0\n", 2, "invalid engine");
  expect_error(good + "k,fwd,1,-1,0,0.5,0,\"eng2\n", 2, "'\"eng2'");
  expect_error(kHeader + good + "\n" + "k,fwd,2,-1,0,0.5,0,9\n", 4, "invalid engine: engine configuration '9'");
}

TEST(MeasurementCsvParser, EngineRowsHaveAlgoMinusOneAndLegacyRowsAnAlgorithm) {
  expect_error("k,fwd,1,0,0,0.5,0,eng1\n", 1, "invalid algo '0' (expected -1 in an engine row)");
  expect_error("k,fwd,1,-1,0,0.5,0\n", 1, "invalid algo '-1' (expected an algorithm of fwd from 0 to");
  expect_error("k,fwd,1,-1,0,0.5,0,\n", 1, "or -1 with an engine");
}

TEST(MeasurementCsvParser, DuplicatesAreJudgedWithTheEngine) {
  // The same (layer, op, micro-batch, algo, math type) at two engine configurations: two rows.
  const auto distinct = parse("k,fwd,1,-1,0,0.5,0,eng1:k2=0\nk,fwd,1,-1,0,0.5,0,eng1:k2=1\nk,fwd,1,-1,0,0.5,0,eng2\n");
  ASSERT_TRUE(distinct.ok()) << distinct.message();
  EXPECT_EQ(distinct->front().rows.size(), 3u);
  // One configuration spelt twice (quoted, or with leading zeros) is one candidate.
  expect_error("k,fwd,1,-1,0,0.5,0,eng1:k2=0,k5=1\nk,fwd,1,-1,0,0.75,0,\"eng1:k2=0,k5=1\"\n", 2,
               "duplicate row for k fwd micro-batch 1 algo -1 math_type 0 engine eng1:k2=0,k5=1 (first at line 1)");
  expect_error("k,fwd,1,-1,0,0.5,0,eng12\nk,fwd,1,-1,0,0.75,0,eng012\n", 2, "engine eng12 (first at line 1)");
  const auto canonical = parse("k,fwd,1,-1,0,0.5,0,eng012:k03=1\n");
  ASSERT_TRUE(canonical.ok()) << canonical.message();
  EXPECT_EQ(canonical->front().rows[0].candidate.engine_id, "eng12:k3=1") << "kept in the canonical spelling";
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

// Inputs that used to hang, exhaust memory or read as nonsense.

TEST(MeasurementCsvParser, MicroBatchAboveTheMaximumIsRefusedNamingTheMaximum) {
  // 2^30 made `plan` allocate 16 GiB for its dynamic program.
  expect_error("k,fwd,1073741824,0,0,1.0,0\n", 1, "at most 65536");
  expect_error("k,fwd,1,0,0,1.0,0\nk,fwd,65537,0,0,1.0,0\n", 2, "invalid microbatch '65537'");
  const auto largest = parse("k,fwd,65536,0,0,1.0,0\n");
  ASSERT_TRUE(largest.ok()) << largest.message();
  EXPECT_EQ(largest->front().batch, 65536);
}

TEST(MeasurementCsvParser, LayerNameThatIsNotUtf8IsRefusedNamingTheLine) {
  expect_error("ok,fwd,1,0,0,1.0,0\nconv\xff,fwd,1,0,0,1.0,0\n", 2, "layer name is not valid UTF-8");
  expect_error("conv\xc3,fwd,1,0,0,1.0,0\n", 1, "not valid UTF-8");          // truncated sequence
  expect_error("conv\xc0\xaf,fwd,1,0,0,1.0,0\n", 1, "not valid UTF-8");      // overlong '/'
  expect_error("conv\xed\xa0\x80,fwd,1,0,0,1.0,0\n", 1, "not valid UTF-8");  // surrogate
  const auto accented = parse("conv_\xc3\xa9t\xc3\xa9_\xe2\x82\xac,fwd,1,0,0,1.0,0\n");
  ASSERT_TRUE(accented.ok()) << accented.message();
  EXPECT_EQ(accented->front().layer, "conv_\xc3\xa9t\xc3\xa9_\xe2\x82\xac");
}

TEST(MeasurementCsvParser, TimesMustBeFiniteAndAtMostABillionMilliseconds) {
  expect_error("k,fwd,1,0,0,1.7e308,0\n", 1, "invalid time_ms '1.7e308'");
  expect_error("k,fwd,1,0,0,1e400,0\n", 1, "invalid time_ms '1e400'");
  expect_error("k,fwd,1,0,0,1000000001,0\n", 1, "at most 1e9");
  expect_error("k,fwd,1,0,0,inf,0\n", 1, "invalid time_ms 'inf'");
  expect_error("k,fwd,1,0,0,nan,0\n", 1, "invalid time_ms 'nan'");
  expect_error("k,fwd,1,0,0,-0.5,0\n", 1, "invalid time_ms '-0.5'");
  const auto largest = parse("k,fwd,1,0,0,1e9,0\n");
  ASSERT_TRUE(largest.ok()) << largest.message();
  EXPECT_EQ(largest->front().rows.front().time_ms, 1e9);
}

TEST(MeasurementCsvParser, ByteOrderMarkAtTheStartIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  const auto with_header = parse(bom + kHeader + "k,fwd,1,0,0,1.0,0\n");
  ASSERT_TRUE(with_header.ok()) << with_header.message();
  EXPECT_EQ(with_header->front().layer, "k");
  const auto without_header = parse(bom + "k,fwd,1,0,0,1.0,0\n");
  ASSERT_TRUE(without_header.ok()) << without_header.message();
  EXPECT_EQ(without_header->front().layer, "k");
  // Only at the start of the file: elsewhere it is a name's first bytes, and no header.
  const auto later = parse(std::string(kHeader) + bom + "k,fwd,1,0,0,1.0,0\n");
  ASSERT_TRUE(later.ok()) << later.message();
  EXPECT_EQ(later->front().layer, bom + "k");
}

TEST(MeasurementCsvParser, DuplicateRowIsRefusedWithTheLinesOfBoth) {
  expect_error(std::string(kHeader) +
                   "k,fwd,4,1,0,2.0,0\n"
                   "k,fwd,2,1,0,1.0,0\n"
                   "k,fwd,4,1,0,1.5,0\n",
               4, "duplicate row for k fwd micro-batch 4 algo 1 math_type 0 (first at line 2)");
  // Another math type, op or layer is another row.
  const auto distinct = parse("k,fwd,4,1,0,2.0,0\nk,fwd,4,1,1,2.0,0\nk,bwdd,4,1,0,2.0,0\nj,fwd,4,1,0,2.0,0\n");
  EXPECT_TRUE(distinct.ok()) << distinct.message();
}

TEST(MeasurementCsvParser, NegativeZeroTimeIsReadAsZero) {
  const auto kernels = parse("k,fwd,1,0,0,-0,0\n");
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  EXPECT_EQ(kernels->front().rows.front().time_ms, 0.0);
  EXPECT_FALSE(std::signbit(kernels->front().rows.front().time_ms));
}

TEST(MeasurementCsvParser, NulByteInALineIsAnErrorNamingFileAndLine) {
  expect_error(bytes("k,fwd,1,0,0,5\0"
                     "999,0\n"),
               1, "NUL byte");
  expect_error(bytes("k,fwd,1,0,0,1.0,0\nk\0x,fwd,2,0,0,1.0,0\n"), 2, "NUL byte");
}

}  // namespace
}  // namespace ucudnn
