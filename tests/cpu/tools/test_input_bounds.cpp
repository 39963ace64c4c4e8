// Memory on hostile and large input: a table line and a name have a length limit,
// refused naming where and the limit; a network file has a size limit, refused before it is read;
// a network file nested 100,000 deep and fields megabytes long give one short error line, never a
// crash and never the whole field echoed; only regular files are read as tables and network files;
// import and export read a table a line at a time and a database a layer at a time, keeping the
// guarantees they had when they held everything (a bad row anywhere stores and writes nothing).

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/line_reader.h"
#include "core/measurement_csv.h"
#include "store/database.h"
#include "tools/build_info.h"
#include "tools/networks.h"

namespace ucudnn::testing {
using tools::kExitDataError;
namespace {

constexpr char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n";

// A valid row whose line has exactly `bytes` bytes: its host time is "0." and zeros.
std::string row_of_length(std::size_t bytes) {
  const std::string start = "k,fwd,1,0,0,1.0,0,,0.";
  return start + std::string(bytes - start.size(), '0');
}

Expected<std::vector<KernelMeasurements>> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_measurements_csv(in, "table.csv");
}

std::string network_json(const std::string& network_name, const std::string& layer_name) {
  return R"({"name": ")" + network_name + R"(", "batch": 2, "layers": [{"name": ")" + layer_name +
         R"(", "input": [3, 8, 8], "filters": 4, "kernel": [3, 3]}]})";
}

std::vector<std::string> import_args(const std::string& table, const std::string& database,
                                     const std::string& network = "alexnet") {
  return {"db", "import", "--measurements", table, "--database", database, "--network", network, "--gpu-name", "X",
          "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version", "13000"};
}

// ---- Lines -----------------------------------------------------------------------------------

TEST(LineReader, ReadsLinesOfUpToTheLimitWithTheirBytesAsTheyAre) {
  std::istringstream in(std::string("abcde\nab\0c\n\nxyz", 15));
  LineReader lines(in, "f.txt", 5);
  std::string line;
  for (const std::string& expected : {std::string("abcde"), std::string("ab\0c", 4), std::string(), std::string("xyz")}) {
    const auto more = lines.next(&line);
    ASSERT_TRUE(more.ok() && *more) << (more.ok() ? "end" : more.message());
    EXPECT_EQ(line, expected);
  }
  EXPECT_EQ(lines.line_number(), 4);
  const auto end = lines.next(&line);
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(*end);
}

TEST(LineReader, ALongLineIsRefusedWithItsNumberAndTheLimit) {
  std::istringstream in("ok\n" + std::string(1 << 20, 'x') + "\nnever read\n");
  LineReader lines(in, "f.txt", 5);
  std::string line;
  ASSERT_TRUE(lines.next(&line).value());
  const auto refused = lines.next(&line);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "f.txt:2: line longer than 5 bytes (the limit of a line)");
  // It read the limit of the long line, no further ("\r" before a line break counts, too).
  in.clear();
  EXPECT_EQ(static_cast<std::size_t>(in.tellg()), 3u + 5u);
  std::istringstream carriage("abcde\r\n");
  LineReader carriage_lines(carriage, "f.txt", 5);
  EXPECT_FALSE(carriage_lines.next(&line).ok());
}

TEST(InputBounds, ATableLineLongerThanTheLimitIsRefusedNamingTheLineAndTheLimit) {
  const auto longest = parse(kHeader + row_of_length(kMaxTableLineBytes) + "\n");
  ASSERT_TRUE(longest.ok()) << longest.message().substr(0, 200);
  EXPECT_EQ(longest->front().rows.size(), 1u);

  const auto longer = parse(std::string(kHeader) + "k,fwd,2,0,0,1.0,0\n" + row_of_length(kMaxTableLineBytes + 1) + "\n");
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.message(), "table.csv:3: line longer than 65536 bytes (the limit of a line)");

  // Through the command, a 1 MiB line: one short error line naming FILE:LINE and the limit.
  TempDir dir;
  const std::string table = dir.write("long.csv", kHeader + std::string(1 << 20, 'k') + ",fwd,1,0,0,1.0,0\n");
  expect_error({"plan", "--measurements", table, "--workspace-limit", "64MiB"}, kExitDataError,
               table + ":2: line longer than 65536 bytes");
  const std::string database = (dir.path() / "d.db").string();
  expect_error(import_args(table, database), kExitDataError, table + ":2: line longer than 65536 bytes");
  EXPECT_FALSE(exists(database)) << "a refused table creates no database";
}

// ---- Names -----------------------------------------------------------------------------------

TEST(InputBounds, ALayerNameLongerThanTheLimitIsRefusedInATable) {
  const std::string longest(kMaxLayerNameBytes, 'n');
  const auto kept = parse(longest + ",fwd,1,0,0,1.0,0\n");
  ASSERT_TRUE(kept.ok()) << kept.message().substr(0, 200);
  EXPECT_EQ(kept->front().layer, longest);

  const auto refused = parse("k,fwd,1,0,0,1.0,0\n" + longest + "n,fwd,1,0,0,1.0,0\n");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "table.csv:2: layer name of 1025 bytes is longer than the limit of 1024 bytes");
}

TEST(InputBounds, ANameLongerThanTheLimitIsRefusedInANetworkFile) {
  const std::string longest(kMaxLayerNameBytes, 'n');
  const auto kept = tools::parse_network_json(network_json(longest, longest), "n.json", "n");
  ASSERT_TRUE(kept.ok()) << kept.message().substr(0, 200);
  EXPECT_EQ(kept->layers.front().name, longest);

  const auto long_layer = tools::parse_network_json(network_json("n", longest + "n"), "n.json", "n");
  ASSERT_FALSE(long_layer.ok());
  EXPECT_EQ(long_layer.message(), "n.json: layer 1: \"name\" of 1025 bytes is longer than the limit of 1024 bytes");
  const auto long_network = tools::parse_network_json(network_json(longest + "n", "c1"), "n.json", "n");
  ASSERT_FALSE(long_network.ok());
  EXPECT_EQ(long_network.message(), "n.json: \"name\" of 1025 bytes is longer than the limit of 1024 bytes");
}

TEST(InputBounds, ANetworkFileAboveTheLimitIsRefusedBeforeItIsRead) {
  TempDir dir;
  // A valid network padded with blanks to one byte over the limit: refused by its size alone.
  std::string text = network_json("n", "c1");
  const std::string at_limit = dir.write("at.json", text + std::string(tools::kMaxNetworkFileBytes - text.size(), ' '));
  const auto read = tools::load_network_file(at_limit);
  EXPECT_TRUE(read.ok()) << read.message();
  const std::string above = dir.write("above.json", text + std::string(tools::kMaxNetworkFileBytes + 1 - text.size(), ' '));
  const auto refused = tools::load_network_file(above);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "network file '" + above + "' is larger than 2 MiB (the limit of a network file)");

  const std::string table = dir.write("t.csv", "c1,fwd,2,0,0,1.0,0\n");
  const std::string database = (dir.path() / "d.db").string();
  expect_error(import_args(table, database, above), kExitDataError, "is larger than 2 MiB");
  EXPECT_FALSE(exists(database));
}

// ---- Nesting and long fields: one short error line -------------------------------------------

constexpr std::size_t kShortLine = 300;  // what a one-line error may take, whatever the input

std::string nested_list(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

std::string network_with_batch(const std::string& batch) {
  return R"({"name": "n", "batch": )" + batch +
         R"(, "layers": [{"name": "c1", "input": [3, 8, 8], "filters": 4, "kernel": [3, 3]}]})";
}

TEST(InputBounds, ADeeplyNestedNetworkValueIsAnErrorNotACrash) {
  for (int depth : {1, 100, 100'000}) {
    SCOPED_TRACE("depth " + std::to_string(depth));
    const auto result = tools::parse_network_json(network_with_batch(nested_list(depth)), "deep.json", "deep");
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.message().find("\"batch\" must be an integer"), std::string::npos) << result.message();
    EXPECT_LT(result.message().size(), kShortLine) << result.message().substr(0, 400);
  }
  // Deep in a layer's field, and as a layer itself.
  const std::string deep = nested_list(100'000);
  const auto in_layer = tools::parse_network_json(
      R"({"name": "n", "batch": 2, "layers": [{"name": "c1", "input": )" + deep + "}]}", "deep.json", "deep");
  ASSERT_FALSE(in_layer.ok());
  EXPECT_LT(in_layer.message().size(), kShortLine);
  const auto as_layer =
      tools::parse_network_json(R"({"name": "n", "batch": 2, "layers": [)" + deep + "]}", "deep.json", "deep");
  ASSERT_FALSE(as_layer.ok());
  EXPECT_LT(as_layer.message().size(), kShortLine);
}

TEST(InputBounds, TheCommandsThatReadNetworkFilesRefuseADeepOneInOneLine) {
  TempDir dir;
  const auto file = dir.path() / "deep.json";
  std::ofstream(file) << network_with_batch(nested_list(100'000));
  std::ofstream(dir.path() / "rows.csv") << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n"
                                            "c1,fwd,2,0,0,1.0,0\n";
  const std::string network = " --network '" + file.string() + "'";
  const std::string database = " --database '" + (dir.path() / "new.db").string() + "'";
  std::vector<std::string> commands = {
      "db import --measurements '" + (dir.path() / "rows.csv").string() + "'" + network + database +
      " --gpu-name X --compute-capability 90 --sm-count 132 --cudnn-version 91400 --cuda-version 13000"};
  if (tools::compiled_versions()) commands.push_back("bench" + network + database);  // a CUDA build has `bench`
  // Each command in a process of its own, as a user runs it: a crash is a signal, not a status.
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto result = run_binary(dir, command);
    EXPECT_GE(result.status, 1) << result.err;
    EXPECT_LE(result.status, 2) << "a crash or a hang: " << result.err;
    EXPECT_LT(result.err.size(), kShortLine) << result.err.substr(0, 400);
    EXPECT_NE(result.err.find("\"batch\" must be an integer"), std::string::npos) << result.err.substr(0, 400);
  }
}

TEST(InputBounds, AMegabyteLongFieldIsQuotedShort) {
  const std::string huge(1 << 20, 'q');
  // A table's field as long as its line may be (a longer line is refused for its length alone:
  // above).
  const std::string wide(kMaxTableLineBytes - 100, 'q');
  {
    std::istringstream csv("layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\nconv1," + wide +
                           ",8,0,0,1.0,0\n");
    const auto parsed = parse_measurements_csv(csv, "t.csv");
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.message().find("unknown op"), std::string::npos);
    EXPECT_LT(parsed.message().size(), kShortLine) << parsed.message().substr(0, 400);
  }
  {
    std::istringstream csv("layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\nconv1,fwd,8,0,0," + wide +
                           ",0\n");
    const auto parsed = parse_measurements_csv(csv, "t.csv");
    ASSERT_FALSE(parsed.ok());
    EXPECT_LT(parsed.message().size(), kShortLine) << parsed.message().substr(0, 400);
  }
  {
    // A layer name of a megabyte whose layer is wrong: the error names the layer, briefly.
    const auto network = tools::parse_network_json(
        R"({"name": "n", "batch": 2, "layers": [{"name": ")" + huge + R"(", "input": [3, 8, 8], "filters": 0,
             "kernel": [3, 3]}]})",
        "long.json", "long");
    ASSERT_FALSE(network.ok());
    EXPECT_LT(network.message().size(), kShortLine) << network.message().substr(0, 400);
  }
  {
    const auto network = tools::parse_network_json(network_with_batch("\"" + huge + "\""), "long.json", "long");
    ASSERT_FALSE(network.ok());
    EXPECT_LT(network.message().size(), kShortLine) << network.message().substr(0, 400);
  }
}

// nlohmann's own messages quote the last token read: an unterminated megabyte-long string.
TEST(InputBounds, InvalidJsonIsReportedWithoutItsWholeLastToken) {
  const auto network = tools::parse_network_json(R"({"name": ")" + std::string(1 << 20, 'n'), "broken.json", "broken");
  ASSERT_FALSE(network.ok());
  EXPECT_NE(network.message().find("invalid JSON"), std::string::npos);
  EXPECT_LT(network.message().size(), kShortLine) << network.message().substr(0, 400);
}

// ---- Files that are not regular files --------------------------------------------------------

// Items 6 and 12: a FIFO without a writer blocked open() forever, /dev/zero was read for gigabytes.
// Only regular files are read as tables and network files.
TEST(InputBounds, AFifoOrADeviceIsRefusedAsATableOrNetworkFile) {
  TempDir dir;
  const auto fifo = dir.path() / "table.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string arguments, expected;
  };
  std::vector<Case> cases = {
      {"plan --measurements '" + fifo.string() + "' --workspace-limit 64MiB", "is a FIFO, not a regular file"},
      {"plan --measurements /dev/zero --workspace-limit 64MiB", "'/dev/zero' is a character device"},
      {"db import --measurements '" + fifo.string() + "' --network alexnet --database '" +
           (dir.path() / "d.db").string() +
           "' --gpu-name X --compute-capability 90 --sm-count 132 --cudnn-version 91400 --cuda-version 13000",
       "is a FIFO, not a regular file"},
  };
  if (tools::compiled_versions()) {  // a CUDA build has `bench`
    cases.push_back({"bench --network '" + fifo.string() + "' --database '" + (dir.path() / "d.db").string() + "'",
                     "network file '" + fifo.string() + "' is a FIFO"});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.arguments);
    // Bounded: the old behaviour was to wait forever.
    const auto result = run_binary(dir, c.arguments, "timeout 20");
    EXPECT_EQ(result.status, 1) << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << result.err;
    EXPECT_LT(result.err.size(), kShortLine) << result.err;
  }
}

// ---- Import: streamed, still all or nothing ---------------------------------------------------

class StreamedImportExport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv("UCUDNN_DATABASE")) saved_ = value;
    unsetenv("UCUDNN_DATABASE");
  }
  void TearDown() override {
    if (!saved_.empty()) setenv("UCUDNN_DATABASE", saved_.c_str(), 1);
  }

  long long stored_rows() const {
    auto database = store::BenchmarkDatabase::open(db_);
    EXPECT_TRUE(database.ok()) << database.message();
    if (!database) return -1;
    const auto stats = (*database)->stats();
    EXPECT_TRUE(stats.ok()) << stats.message();
    return stats ? stats->rows : -1;
  }

  TempDir dir_;
  const std::string db_ = (dir_.path() / "bench.db").string();
  const std::string alexnet_ = testing::alexnet_csv_path();
  std::string saved_;
};

TEST_F(StreamedImportExport, AnImportWhoseLastRowIsBadStoresNothing) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const long long before = stored_rows();
  ASSERT_EQ(before, 648);
  // New rows first (another GPU's would do; here a new micro-batch), the bad row last.
  std::string table = kHeader;
  for (int micro = 1; micro <= 100; ++micro) table += "alex_conv1,fwd," + std::to_string(300 + micro) + ",1,0,1.0,0,,0\n";
  table += "alex_conv1,fwd,401,1,0,soon,0,,0\n";
  const std::string bad = dir_.write("bad_last.csv", table);
  expect_error(import_args(bad, db_), kExitDataError, bad + ":102: invalid time_ms 'soon'");
  EXPECT_EQ(stored_rows(), before);
  // A duplicate at the end is a bad row too, even where its first came in an earlier run of lines
  // of its layer (the reader then reads the table again keeping every layer's rows).
  const std::string interleaved = dir_.write("interleaved.csv", std::string(kHeader) +
                                                                    "alex_conv1,fwd,300,1,0,1.0,0,,0\n"
                                                                    "alex_conv2,fwd,300,1,0,1.0,0,,0\n"
                                                                    "alex_conv1,fwd,301,1,0,1.0,0,,0\n"
                                                                    "alex_conv1,fwd,300,1,0,2.0,0,,0\n");
  expect_error(import_args(interleaved, db_), kExitDataError,
               interleaved + ":5: duplicate row for alex_conv1 fwd micro-batch 300 algo 1 math_type 0 (first at line 2)");
  EXPECT_EQ(stored_rows(), before);
  // Without the duplicate, the interleaved table is read whole.
  const std::string fine = dir_.write("fine.csv", std::string(kHeader) +
                                                      "alex_conv1,fwd,300,1,0,1.0,0,,0\n"
                                                      "alex_conv2,fwd,300,1,0,1.0,0,,0\n"
                                                      "alex_conv1,fwd,301,1,0,1.0,0,,0\n"
                                                      "alex_conv2,fwd,301,1,0,2.0,0,,0\n");
  const CliResult imported = run(import_args(fine, db_));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "4 rows read, 4 new\n");
  EXPECT_EQ(stored_rows(), before + 4);
}

// ---- Export: streamed, whole or nothing ------------------------------------------------------

// A row that the table format cannot hold, stored after good ones: the export, which writes as it
// reads, shows nothing and leaves no file, not even its temporary one.
TEST_F(StreamedImportExport, AnExportThatMeetsABadRowLeavesNoOutput) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  {
    auto database = store::BenchmarkDatabase::open(db_);
    ASSERT_TRUE(database.ok()) << database.message();
    store::StoredRow row;
    row.identity = DeviceIdentity{"X", 90, 132, 91400, 13000};
    row.layer = "zz after every alexnet layer";  // exported last: by layer, then op
    row.measurement.micro_batch = 4;
    row.measurement.time_ms = 1.0;
    row.measured_at = "2026-11-24T00:00:00Z";
    ASSERT_TRUE((*database)->store_rows({row}).ok());
  }
  // Out of range as another program left it (the store refuses such a row itself).
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  const std::string update =
      "UPDATE measurements SET micro_batch = " + std::to_string(kMaxMicroBatch * 2) + " WHERE layer = 'zz after every alexnet layer'";
  EXPECT_EQ(sqlite3_exec(raw, update.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  const std::string output = (dir_.path() / "out.csv").string();
  expect_error({"db", "export", "--database", db_, "--output", output}, kExitDataError,
               "do not make a table that plan and db import read: exported table:650: invalid microbatch");
  EXPECT_FALSE(exists(output));
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find("ucudnn-table"), std::string::npos) << entry.path();
  }
  // To standard output: nothing at all (expect_error checks that nothing was printed).
  expect_error({"db", "export", "--database", db_}, kExitDataError, "exported table:650: invalid microbatch");
}

TEST_F(StreamedImportExport, AnExportReadsBackAsTheTableImported) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string output = (dir_.path() / "out.csv").string();
  const CliResult exported = run({"db", "export", "--database", db_, "--network", "alexnet", "--output", output});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto original = read_measurements_csv(alexnet_);
  const auto again = read_measurements_csv(output);
  ASSERT_TRUE(original.ok() && again.ok()) << again.message();
  ASSERT_EQ(original->size(), again->size());
  for (std::size_t k = 0; k < original->size(); ++k) {
    EXPECT_EQ((*again)[k].layer, (*original)[k].layer);
    EXPECT_EQ((*again)[k].rows.size(), (*original)[k].rows.size()) << (*original)[k].layer;
  }
  const std::string fresh = (dir_.path() / "fresh.db").string();
  const CliResult reimported = run(import_args(output, fresh));
  ASSERT_EQ(reimported.status, 0) << reimported.err;
  EXPECT_EQ(reimported.out, "648 rows read, 648 new\n");
  EXPECT_EQ(run({"db", "export", "--database", fresh, "--network", "alexnet"}).out, read_bytes(output));
}

}  // namespace
}  // namespace ucudnn::testing
