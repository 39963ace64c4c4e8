// Hostile input: a network file nested 100,000 deep, and fields megabytes
// long, give one short error line, never a crash and never the whole field echoed.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/measurement_csv.h"
#include "core/message_text.h"
#include "tools/build_info.h"
#include "tools/networks.h"

namespace ucudnn {
namespace {

using testing::run_binary;
using testing::TempDir;

constexpr std::size_t kShortLine = 300;  // what a one-line error may take, whatever the input

std::string nested_list(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

std::string network_with_batch(const std::string& batch) {
  return R"({"name": "n", "batch": )" + batch +
         R"(, "layers": [{"name": "c1", "input": [3, 8, 8], "filters": 4, "kernel": [3, 3]}]})";
}

TEST(HostileFields, ExcerptCutsLongTextAtACharacterBoundaryAndSaysHowLong) {
  EXPECT_EQ(excerpt("conv1"), "conv1");
  EXPECT_EQ(excerpt(std::string(64, 'a')), std::string(64, 'a'));
  const std::string cut = excerpt(std::string(10'000'000, 'a'));
  EXPECT_LT(cut.size(), 100u);
  EXPECT_NE(cut.find("(10000000 bytes)"), std::string::npos) << cut;
  // "é" is two bytes: a cut at byte 4 of "aaaé..." keeps the character whole or drops it.
  const std::string accents = "aaa" + std::string(100, 'x');
  std::string with_accent = "aaa\xC3\xA9" + std::string(100, 'x');
  const std::string short_cut = excerpt(with_accent, 4);
  EXPECT_EQ(short_cut.rfind("aaa...", 0), 0u) << short_cut;
  EXPECT_EQ(excerpt(accents, 4).rfind("aaax...", 0), 0u);
}

TEST(HostileFields, ADeeplyNestedNetworkValueIsAnErrorNotACrash) {
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

TEST(HostileFields, TheCommandsThatReadNetworkFilesRefuseADeepOneInOneLine) {
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

TEST(HostileFields, AMegabyteLongFieldIsQuotedShort) {
  const std::string huge(1 << 20, 'q');
  // A table's field as long as its line may be (a longer line is refused for its length alone:
  // test_input_bounds.cpp).
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
TEST(HostileFields, InvalidJsonIsReportedWithoutItsWholeLastToken) {
  const auto network =
      tools::parse_network_json(R"({"name": ")" + std::string(1 << 20, 'n'), "broken.json", "broken");
  ASSERT_FALSE(network.ok());
  EXPECT_NE(network.message().find("invalid JSON"), std::string::npos);
  EXPECT_LT(network.message().size(), kShortLine) << network.message().substr(0, 400);
}

// Item 9: what import accepts, export writes and the table reader reads back (a quote in a name).
TEST(HostileFields, ALayerNameWithAQuoteRoundTripsThroughTheDatabase) {
  TempDir dir;
  const auto table = dir.path() / "quoted.csv";
  std::ofstream(table) << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n"
                          "conv\"1,fwd,8,0,0,1.5,0\nconv\"1,fwd,4,1,0,0.5,1048576\n";
  std::ofstream(dir.path() / "q.json") << R"({"name": "q", "batch": 8, "layers": [{"name": "conv\"1",
                                            "input": [3, 8, 8], "filters": 4, "kernel": [3, 3]}]})";
  const std::string network = " --network '" + (dir.path() / "q.json").string() + "'";
  const std::string database = " --database '" + (dir.path() / "q.db").string() + "'";
  const auto imported = run_binary(dir, "db import --measurements '" + table.string() + "'" + network + database +
                                            " --gpu-name X --compute-capability 90 --sm-count 132"
                                            " --cudnn-version 91400 --cuda-version 13000");
  ASSERT_EQ(imported.status, 0) << imported.err;
  const auto exported = dir.path() / "exported.csv";
  const auto exporting =
      run_binary(dir, "db export" + network + database + " --measurements '" + exported.string() + "'");
  ASSERT_EQ(exporting.status, 0) << exporting.err;
  const std::string text = testing::read_text_file(exported);
  EXPECT_NE(text.find("conv\"1,fwd,8,"), std::string::npos) << text;
  const auto planned = run_binary(dir, "plan --measurements '" + exported.string() + "' --workspace-limit 64MiB");
  EXPECT_EQ(planned.status, 0) << planned.err;
  EXPECT_NE(planned.out.find("conv\"1"), std::string::npos) << planned.out;
}

// Items 6 and 12: a FIFO without a writer blocked open() forever, /dev/zero was read for gigabytes.
// Only regular files are read as tables and network files.
TEST(HostileFields, AFifoOrADeviceIsRefusedAsATableOrNetworkFile) {
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

}  // namespace
}  // namespace ucudnn
