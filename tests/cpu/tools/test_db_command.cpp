// `ucudnn db`: import a recorded table, export it again, stats, verify, and the errors; what it
// reads and writes beside its database: an export onto the database itself, an export that plan and
// db import could not read back, a database of several devices, verify on a damaged schema and a
// killed import.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "store/database.h"
#include "test_helpers.h"
#include "tools/cli.h"
#include "tools/networks.h"
#include "version_1_database.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::kSchemaVersion;
using store::StoredRow;
using tools::builtin_network;
using tools::find_layer;
using tools::kExitDataError;
using tools::kExitUsageError;
using tools::load_network_file;
namespace {

namespace fs = std::filesystem;

// RFC 4180, written independently of the exporter: quoted fields may hold commas, quotes
// (doubled) and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n') {
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(field.empty() && record.empty()) << "the export must end with a line break";
  return records;
}

// The table format of tests/data/README.md: what plan and db import read.
const std::vector<std::string> kExportHeader = {"layer",   "op",   "microbatch",      "algo",  "math_type",
                                                "time_ms", "workspace_bytes", "engine", "host_ms"};

// What identifies a row and what it measured, as numbers: equal values, not equal spellings.
using RowValues = std::tuple<std::string, std::string, int, int, int, double, long long>;

// `db import` of `csv` into `db` as `network`, measured on `gpu` (with the H100's other numbers).
std::vector<std::string> db_import_args(const std::string& csv, const std::string& db, const std::string& network,
                                        const std::string& gpu) {
  return {"db",         "import", "--measurements",  csv,     "--database",           db,
          "--network",  network,  "--gpu-name",      gpu,     "--compute-capability", "90",
          "--sm-count", "132",    "--cudnn-version", "91400", "--cuda-version",       "13000"};
}

class DbCommand : public ::testing::Test {
 protected:
  std::vector<std::string> import_args(const std::string& csv, const std::string& network = "alexnet",
                                       const std::string& gpu = "NVIDIA H100 80GB HBM3") const {
    return db_import_args(csv, db_, network, gpu);
  }

  CliResult export_csv() const { return run({"db", "export", "--database", db_}); }

  testing::TempDir dir_;
  const std::string db_ = (dir_.path() / "bench.db").string();
  const std::string alexnet_ = testing::alexnet_csv_path();
  // Tests pass --database; inherited settings must not change what they see. (The tools read
  // the environment once per process: this holds where each test runs in a process of its own.)
  testing::ScopedVariable no_database_{"UCUDNN_DATABASE", std::nullopt};
  testing::ScopedVariable no_journal_{"UCUDNN_DATABASE_JOURNAL", std::nullopt};
};

std::size_t csv_row_count(const std::string& path) {
  const auto kernels = read_measurements_csv(path);
  EXPECT_TRUE(kernels.ok()) << kernels.message();
  std::size_t rows = 0;
  for (const auto& kernel : *kernels) rows += kernel.rows.size();
  return rows;
}

TEST_F(DbCommand, ImportThenExportGivesBackEveryRowOnce) {
  const std::size_t rows = csv_row_count(alexnet_);
  ASSERT_EQ(rows, 648u);
  const CliResult imported = run(import_args(alexnet_));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_TRUE(imported.err.empty()) << imported.err;
  EXPECT_EQ(imported.out, "648 rows read, 648 new\n");

  const CliResult exported = export_csv();
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_TRUE(exported.err.empty()) << exported.err;
  const auto records = parse_csv(exported.out);
  ASSERT_EQ(records.size(), rows + 1);
  EXPECT_EQ(records[0], kExportHeader);

  // The table's rows, named as the database names them: op and layer signature.
  const auto network = builtin_network("alexnet");
  ASSERT_TRUE(network.ok()) << network.message();
  const auto kernels = read_measurements_csv(alexnet_);
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  std::multiset<RowValues> expected;
  for (const auto& kernel : *kernels) {
    const auto key = to_conv_key(*find_layer(*network, kernel.layer), kernel.op);
    ASSERT_TRUE(key.ok()) << key.message();
    for (const auto& m : kernel.rows) {
      expected.emplace(short_name(kernel.op), key->layer_signature(), m.micro_batch, m.candidate.algorithm,
                       m.candidate.math_type, m.time_ms, static_cast<long long>(m.workspace_bytes));
    }
  }
  std::multiset<RowValues> actual;
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& r = records[i];
    ASSERT_EQ(r.size(), kExportHeader.size()) << exported.out;
    EXPECT_EQ(r[7], "") << "a legacy row has no engine";
    actual.emplace(r[1], r[0], std::stoi(r[2]), std::stoi(r[3]), std::stoi(r[4]), std::stod(r[5]), std::stoll(r[6]));
  }
  EXPECT_TRUE(actual == expected) << "exported rows differ from the imported table";
}

TEST_F(DbCommand, ImportingTwiceAddsNothing) {
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const CliResult again = run(import_args(alexnet_));
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, "648 rows read, 0 new\n");
  EXPECT_EQ(parse_csv(export_csv().out).size(), 649u);

  // The same table from another GPU is new.
  const CliResult other = run(import_args(alexnet_, "alexnet", "NVIDIA H200"));
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_EQ(other.out, "648 rows read, 648 new\n");
}

// The table's coverage: complete for any workspace size unless --measured-up-to says otherwise.
TEST_F(DbCommand, ImportRecordsHowCompleteTheTableIs) {
  const auto network = builtin_network("alexnet");
  ASSERT_TRUE(network.ok()) << network.message();
  const auto key = to_conv_key(*find_layer(*network, "alex_conv2"), ConvOp::kBackwardFilter);
  ASSERT_TRUE(key.ok()) << key.message();
  DeviceIdentity h100{"NVIDIA H100 80GB HBM3", 90, 132, 91400, 13000};
  DeviceIdentity h200 = h100;
  h200.gpu_name = "NVIDIA H200";
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const CliResult bounded = run(with(import_args(alexnet_, "alexnet", h200.gpu_name), {"--measured-up-to", "4GiB"}));
  ASSERT_EQ(bounded.status, 0) << bounded.err;

  auto database = BenchmarkDatabase::open(db_);
  ASSERT_TRUE(database.ok()) << database.message();
  const auto unbounded = (*database)->lookup(h100, key->with_batch(64), CandidateKind::kLegacy);
  ASSERT_TRUE(unbounded.ok()) << unbounded.message();
  ASSERT_TRUE(unbounded->has_value());
  EXPECT_EQ((*unbounded)->measured_up_to, SIZE_MAX);
  EXPECT_FALSE((*unbounded)->rows.empty());
  const auto four_gib = (*database)->lookup(h200, key->with_batch(64), CandidateKind::kLegacy);
  ASSERT_TRUE(four_gib.ok()) << four_gib.message();
  ASSERT_TRUE(four_gib->has_value());
  EXPECT_EQ((*four_gib)->measured_up_to, std::size_t{4} << 30);
  EXPECT_EQ((*four_gib)->rows.size(), (*unbounded)->rows.size());

  expect_error(with(import_args(alexnet_), {"--measured-up-to", "lots"}), kExitUsageError, "--measured-up-to");
}

TEST_F(DbCommand, StatsCountRowsKernelsGpusAndVersions) {
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const CliResult json = run({"db", "stats", "--json", "--database", db_});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto stats = nlohmann::json::parse(json.out);
  EXPECT_EQ(stats["rows"], 648);
  EXPECT_EQ(stats["kernels"], 15);
  ASSERT_EQ(stats["gpus"].size(), 1u) << json.out;
  EXPECT_NE(stats["gpus"][0].get<std::string>().find("H100"), std::string::npos) << json.out;
  EXPECT_EQ(stats["cudnn_versions"], nlohmann::json::parse("[91400]"));

  const CliResult text = run({"db", "stats", "--database", db_});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.rfind("rows: 648\nkernels: 15\nGPUs: 1 (", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("cuDNN versions: 1 (91400)\n"), std::string::npos) << text.out;
}

// A count of rows as a person reads it: 1350 as "1,350".
std::string grouped_digits(long long count) {
  const std::string digits = std::to_string(count);
  std::string text;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

long long count_rows(const std::string& db, const std::string& table) {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(raw, ("SELECT count(*) FROM " + table).c_str(), -1, &count, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_step(count), SQLITE_ROW);
  const long long rows = sqlite3_column_int64(count, 0);
  sqlite3_finalize(count);
  sqlite3_close(raw);
  return rows;
}

// Not a bare "ok": which file, its schema and what was read, so that a look at the wrong file or
// an empty one shows.
TEST_F(DbCommand, VerifySaysWhatItCheckedInOneLine) {
  // More than a thousand rows: every layer and op of AlexNet, five algorithms, two math types.
  std::string table = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int layer = 1; layer <= 5; ++layer) {
    for (const char* op : {"fwd", "bwdd", "bwdf"}) {
      for (int size = 1; size <= 256; size *= 2) {
        for (int algo = 0; algo < 5; ++algo) {
          for (int math = 0; math < 2; ++math) {
            table += "alex_conv" + std::to_string(layer) + "," + op + "," + std::to_string(size) + "," +
                     std::to_string(algo) + "," + std::to_string(math) + ",1.5,0\n";
          }
        }
      }
    }
  }
  ASSERT_EQ(run(import_args(dir_.write("many.csv", table))).status, 0);
  const long long rows = count_rows(db_, "measurements");
  const long long bounds = count_rows(db_, "coverage");
  ASSERT_GT(rows, 999);
  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_EQ(verified.status, 0) << verified.err;
  EXPECT_EQ(verified.out, "ok: " + db_ + ", schema " + std::to_string(kSchemaVersion) + ", " + grouped_digits(rows) +
                              " rows and " + grouped_digits(bounds) +
                              " coverage bounds, every one valid; integrity and schema checked\n");
  EXPECT_TRUE(verified.err.empty()) << verified.err;
}

TEST_F(DbCommand, ANonDatabaseFileIsRefusedUntouched) {
  const std::string text = "layer,op\nnot a database\n";
  const std::string path = dir_.write("notes.db", text);
  for (const auto& command : std::vector<std::vector<std::string>>{
           {"db", "verify", "--database", path},
           {"db", "stats", "--database", path},
           {"db", "export", "--csv", "--database", path},
           import_args(alexnet_)}) {
    auto args = command;
    const auto option = std::find(args.begin(), args.end(), "--database");
    *(option + 1) = path;
    expect_error(args, kExitDataError, path);
  }
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), text);
}

TEST_F(DbCommand, LookingAtAMissingDatabaseCreatesNothing) {
  expect_error({"db", "export", "--csv", "--database", db_}, kExitDataError, db_);
  expect_error({"db", "stats", "--database", db_}, kExitDataError, db_);
  expect_error({"db", "verify", "--database", db_}, kExitDataError, db_);
  EXPECT_FALSE(std::filesystem::exists(db_));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()), std::filesystem::directory_iterator()),
            0) << "no file at all, journals included";
}

TEST_F(DbCommand, ExportToAFile) {
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const std::string file = (dir_.path() / "out.csv").string();
  const CliResult to_file = run({"db", "export", "--output", file, "--database", db_});
  ASSERT_EQ(to_file.status, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty()) << to_file.out;
  std::ifstream in(file);
  const std::string written{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(written, export_csv().out);
  const auto records = parse_csv(written);
  ASSERT_EQ(records.size(), 649u);
  EXPECT_EQ(records[0], kExportHeader);
  EXPECT_EQ(records[1].size(), kExportHeader.size());

  expect_error({"db", "export", "--output", dir_.path().string(), "--database", db_}, kExitDataError,
               "cannot write");
}

TEST_F(DbCommand, NetworkFilesNameTheLayers) {
  const std::string network = dir_.write("tiny.json", R"({"batch": 4, "layers": [
      {"name": "c1", "input": [8, 16, 16], "filters": 8, "kernel": [3, 3], "pad": 1, "layout": "NHWC"}]})");
  const std::string csv = dir_.write("tiny.csv", "c1,fwd,2,1,0,0.5,1024\nc1,bwdf,4,3,1,0.25,0\n");
  const CliResult imported = run(import_args(csv, network));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "2 rows read, 2 new\n");
  const auto records = parse_csv(export_csv().out);
  ASSERT_EQ(records.size(), 3u);
  const auto loaded = load_network_file(network);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  const ConvLayerSpec* spec = find_layer(*loaded, "c1");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(records[1][0], to_conv_key(*spec, ConvOp::kForward)->layer_signature());
}

TEST_F(DbCommand, DataErrors) {
  const std::string unknown = dir_.write("unknown.csv", "alex_conv1,fwd,1,0,0,0.5,0\nalex_conv9,fwd,1,0,0,0.5,0\n");
  expect_error(import_args(unknown), kExitDataError, "'alex_conv9'");
  expect_error(import_args(unknown), kExitDataError, "'alexnet'");
  EXPECT_FALSE(std::filesystem::exists(db_)) << "a failed import creates no database";

  const std::string missing = (dir_.path() / "none.csv").string();
  expect_error(import_args(missing), kExitDataError, missing);
  expect_error(import_args(dir_.path().string()), kExitDataError, "directory");
  const std::string bad = dir_.write("bad.csv", "alex_conv1,fwd,1,0,0,soon,0\n");
  expect_error(import_args(bad), kExitDataError, bad + ":1: invalid time_ms 'soon'");
  expect_error(import_args(alexnet_, "lenet"), kExitDataError, "'lenet'");
  const std::string broken = dir_.write("broken.json", R"({"batch": 4, "layers": [{"name": "c1"}]})");
  expect_error(import_args(alexnet_, broken), kExitDataError, broken + ": layer 'c1': missing \"input\"");
  EXPECT_FALSE(std::filesystem::exists(db_));
}

TEST_F(DbCommand, UsageErrors) {
  const int usage = kExitUsageError;
  expect_error({"db"}, usage, "subcommand");
  expect_error({"db", "bogus", "--database", db_}, usage, "bogus");
  expect_error({"db", "stats"}, usage, "--database");
  expect_error({"db", "import", "--database", db_}, usage, "");
  auto no_network = import_args(alexnet_);
  const auto network_option = std::find(no_network.begin(), no_network.end(), "--network");
  no_network.erase(network_option, network_option + 2);
  expect_error(no_network, usage, "--network");
  auto zero_sms = import_args(alexnet_);
  *(std::find(zero_sms.begin(), zero_sms.end(), "--sm-count") + 1) = "0";
  expect_error(zero_sms, usage, "--sm-count");
  auto words = import_args(alexnet_);
  *(std::find(words.begin(), words.end(), "--cudnn-version") + 1) = "nine";
  expect_error(words, usage, "nine");
  expect_error(import_args(alexnet_, "alexnet", ""), usage, "--gpu-name");
  expect_error({"db", "stats", "--database", db_, "--csv"}, usage, "--csv");
  EXPECT_FALSE(std::filesystem::exists(db_));

  const CliResult help = run({"db", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* word : {"import", "export", "stats", "verify"}) {
    EXPECT_NE(help.out.find(word), std::string::npos) << help.out;
  }
}

// ---- one name for the table: --measurements ------------------------------------------------------

TEST_F(DbCommand, ImportTakesTheTableAsMeasurementsAndStillAsAWordAlone) {
  auto positional = import_args(alexnet_);
  positional.erase(std::find(positional.begin(), positional.end(), "--measurements"));  // 0.1's spelling
  ASSERT_EQ(positional[2], alexnet_);
  const CliResult old_spelling = run(positional);
  ASSERT_EQ(old_spelling.status, 0) << old_spelling.err;
  EXPECT_TRUE(old_spelling.err.empty()) << "no warning: " << old_spelling.err;
  EXPECT_EQ(old_spelling.out, "648 rows read, 648 new\n");
  const std::string first = export_csv().out;

  ASSERT_TRUE(std::filesystem::remove(db_));
  const CliResult new_spelling = run(import_args(alexnet_));
  ASSERT_EQ(new_spelling.status, 0) << new_spelling.err;
  EXPECT_EQ(new_spelling.out, "648 rows read, 648 new\n");
  EXPECT_EQ(export_csv().out, first);
  ASSERT_TRUE(std::filesystem::remove(db_));

  // Both, or neither: a usage error before anything is read or created.
  expect_error(with(import_args(alexnet_), {alexnet_}), kExitUsageError,
               "the table is given twice ('" + alexnet_ + "' and --measurements '" + alexnet_ + "')");
  auto without_table = import_args(alexnet_);
  without_table.erase(std::find(without_table.begin(), without_table.end(), "--measurements"),
                      std::find(without_table.begin(), without_table.end(), "--database"));
  expect_error(without_table, kExitUsageError, "--measurements FILE is required");
  EXPECT_FALSE(std::filesystem::exists(db_));

  // Help shows the one current spelling, not the old word ("[]" was CLI11's trace of it).
  const CliResult help = run({"db", "import", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--measurements FILE"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Usage: ucudnn db import [OPTIONS]\n"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("[]"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("\n\n\n"), std::string::npos) << help.out;
}

TEST_F(DbCommand, ExportNeedsNoCsvFlagAndNamesItsFileAsMeasurementsToo) {
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const CliResult plain = export_csv();
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(parse_csv(plain.out).size(), 649u);
  const CliResult with_csv = run({"db", "export", "--csv", "--database", db_});  // 0.1's spelling
  ASSERT_EQ(with_csv.status, 0) << with_csv.err;
  EXPECT_TRUE(with_csv.err.empty()) << with_csv.err;
  EXPECT_EQ(with_csv.out, plain.out);

  const std::string output = (dir_.path() / "output.csv").string();
  const std::string measurements = (dir_.path() / "measurements.csv").string();
  ASSERT_EQ(run({"db", "export", "--database", db_, "--output", output}).status, 0);
  ASSERT_EQ(run({"db", "export", "--database", db_, "--measurements", measurements}).status, 0);
  EXPECT_EQ(testing::read_text_file(output), plain.out);
  EXPECT_EQ(testing::read_text_file(measurements), plain.out);
  // One option with two names: given twice, and an existing file, are refused as for --output.
  expect_error({"db", "export", "--database", db_, "--output", output + "2", "--measurements", output + "3"},
               kExitUsageError, "--output");
  expect_error({"db", "export", "--database", db_, "--measurements", measurements}, kExitDataError,
               "exists; it is not overwritten");

  // What export writes, plan reads under the same option name.
  const CliResult planned = run({"plan", "--measurements", measurements, "--workspace-limit", "64MiB"});
  EXPECT_EQ(planned.status, 0) << planned.err;

  const CliResult help = run({"db", "export", "--help"});
  EXPECT_NE(help.out.find("--output,--measurements FILE"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Accepted and ignored"), std::string::npos) << help.out;
}

TEST_F(DbCommand, MeasuredUpToTakesBinaryUnitsAndRefusesGB) {
  expect_error(with(import_args(alexnet_), {"--measured-up-to", "4GB"}), kExitUsageError,
               "--measured-up-to: '4GB' is ambiguous");
  expect_error(with(import_args(alexnet_), {"--measured-up-to", "4GB"}), kExitUsageError,
               "write 4GiB (4294967296 bytes)");
  EXPECT_FALSE(std::filesystem::exists(db_));
  const CliResult imported = run(with(import_args(alexnet_), {"--measured-up-to", "4G"}));
  ASSERT_EQ(imported.status, 0) << imported.err;
  const auto network = builtin_network("alexnet");
  ASSERT_TRUE(network.ok()) << network.message();
  const auto key = to_conv_key(*find_layer(*network, "alex_conv2"), ConvOp::kForward);
  ASSERT_TRUE(key.ok()) << key.message();
  auto database = BenchmarkDatabase::open(db_);
  ASSERT_TRUE(database.ok()) << database.message();
  const DeviceIdentity h100{"NVIDIA H100 80GB HBM3", 90, 132, 91400, 13000};
  const auto stored = (*database)->lookup(h100, key->with_batch(64), CandidateKind::kLegacy);
  ASSERT_TRUE(stored.ok()) << stored.message();
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->measured_up_to, std::size_t{4} << 30) << "4G is 4 GiB";
  EXPECT_NE(run({"db", "import", "--help"}).out.find("MB is refused as ambiguous"), std::string::npos);
}

// ---- engine configurations and version-1 databases ---------------------------------------------

const char kTinyNetwork[] = R"({"batch": 4, "layers": [
    {"name": "c1", "input": [8, 16, 16], "filters": 8, "kernel": [3, 3], "pad": 1}]})";

// Legacy rows and engine rows of one kernel, the ids quoted where they hold a comma.
const char kEngineTable[] =
    "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine\n"
    "c1,fwd,4,1,0,2.0,1024,\n"
    "c1,fwd,4,-1,0,1.0,2048,\"eng12:k3=1,k17=0\"\n"
    "c1,fwd,4,-1,0,1.5,0,\"eng12:k3=0,k17=0\"\n"
    "c1,fwd,2,-1,0,0.25,0,eng0\n"
    "c1,fwd,2,0,0,0.75,0,\n";

TEST_F(DbCommand, EngineRowsGoThroughImportExportAndStats) {
  const std::string network = dir_.write("tiny.json", kTinyNetwork);
  const std::string csv = dir_.write("engines.csv", kEngineTable);
  const CliResult imported = run(import_args(csv, network));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "5 rows read, 5 new\n");

  // Stored as engine rows, not known to be deterministic, covered per kind.
  const auto loaded = load_network_file(network);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  const auto key = to_conv_key(*find_layer(*loaded, "c1"), ConvOp::kForward);
  ASSERT_TRUE(key.ok()) << key.message();
  {
    auto database = BenchmarkDatabase::open(db_);
    ASSERT_TRUE(database.ok()) << database.message();
    const DeviceIdentity h100{"NVIDIA H100 80GB HBM3", 90, 132, 91400, 13000};
    const auto engines = (*database)->lookup(h100, key->with_batch(4), CandidateKind::kEngine);
    ASSERT_TRUE(engines.ok() && engines->has_value()) << engines.message();
    EXPECT_EQ((*engines)->rows.size(), 2u);
    EXPECT_EQ((*engines)->measured_up_to, SIZE_MAX);
    for (const Measurement& m : (*engines)->rows) EXPECT_FALSE(m.deterministic) << m.candidate.engine_id;
    const auto legacy = (*database)->lookup(h100, key->with_batch(4), CandidateKind::kLegacy);
    ASSERT_TRUE(legacy.ok() && legacy->has_value()) << legacy.message();
    ASSERT_EQ((*legacy)->rows.size(), 1u);
    EXPECT_EQ((*legacy)->rows[0].candidate.algorithm, 1);
  }

  // The export has the engine and host_ms columns; RFC 4180 readers see nine fields in every record.
  const CliResult exported = export_csv();
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto records = parse_csv(exported.out);
  ASSERT_EQ(records.size(), 6u) << exported.out;
  EXPECT_EQ(records[0], kExportHeader);
  std::multiset<std::tuple<int, int, std::string>> candidates;
  for (std::size_t i = 1; i < records.size(); ++i) {
    ASSERT_EQ(records[i].size(), 9u) << exported.out;
    EXPECT_EQ(records[i][0], key->layer_signature());
    candidates.emplace(std::stoi(records[i][2]), std::stoi(records[i][3]), records[i][7]);
  }
  EXPECT_EQ(candidates,
            (std::multiset<std::tuple<int, int, std::string>>{
                {4, 1, ""}, {4, -1, "eng12:k3=1,k17=0"}, {4, -1, "eng12:k3=0,k17=0"}, {2, -1, "eng0"}, {2, 0, ""}}));

  // It reads back into another database whole, and exports the same again.
  const std::string table = (dir_.path() / "export.csv").string();
  ASSERT_EQ(run({"db", "export", "--csv", "--database", db_, "--network", network, "--output", table}).status, 0);
  const std::string other = (dir_.path() / "other.db").string();
  auto again = import_args(table, network);
  *(std::find(again.begin(), again.end(), "--database") + 1) = other;
  const CliResult reimported = run(again);
  ASSERT_EQ(reimported.status, 0) << reimported.err;
  EXPECT_EQ(reimported.out, "5 rows read, 5 new\n");
  EXPECT_EQ(run({"db", "export", "--csv", "--database", other}).out, exported.out);

  const CliResult stats = run({"db", "stats", "--json", "--database", db_});
  ASSERT_EQ(stats.status, 0) << stats.err;
  const auto json = nlohmann::json::parse(stats.out);
  EXPECT_EQ(json["rows"], 5);
  EXPECT_EQ(json["engine_rows"], 3);
  const CliResult text = run({"db", "stats", "--database", db_});
  EXPECT_NE(text.out.find("\nengine rows: 3\n"), std::string::npos) << text.out;
}

TEST_F(DbCommand, BadEngineRowsInATableAreRefusedNamingTheLine) {
  const std::string network = dir_.write("tiny.json", kTinyNetwork);
  const std::string csv = dir_.write("bad.csv", "c1,fwd,4,1,0,2.0,1024,\nc1,fwd,4,-1,0,1.0,0,eng1:k=2\n");
  expect_error(import_args(csv, network), kExitDataError, csv + ":2: invalid engine: engine configuration 'eng1:k=2'");
  const std::string algo = dir_.write("algo.csv", "c1,fwd,4,3,0,1.0,0,eng1\n");
  expect_error(import_args(algo, network), kExitDataError,
               algo + ":1: invalid algo '3' (expected -1 in an engine row)");
  EXPECT_FALSE(std::filesystem::exists(db_));
}

// A database of ucudnn's schema version 1: the looking commands read it as it is and leave it
// byte-identical; an import upgrades it and keeps its rows.
TEST_F(DbCommand, Version1DatabaseIsReadAsItIsAndUpgradedByAnImport) {
  const std::string network = dir_.write("tiny.json", kTinyNetwork);
  const auto loaded = load_network_file(network);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  const std::string signature = to_conv_key(*find_layer(*loaded, "c1"), ConvOp::kForward)->layer_signature();
  const DeviceIdentity h100{"NVIDIA H100 80GB HBM3", 90, 132, 91400, 13000};
  const std::int64_t unbounded = std::numeric_limits<std::int64_t>::max();
  ASSERT_TRUE(testing::write_version_1_database(db_, h100,
                                                {testing::Version1Row{"fwd", signature, 2, 0, 0, 1, 2.5, 0},
                                                 testing::Version1Row{"fwd", signature, 4, 0, 0, 1, 3.0, 0}},
                                                {testing::Version1Coverage{"fwd", signature, 2, unbounded},
                                                 testing::Version1Coverage{"fwd", signature, 4, unbounded}}));
  const std::string bytes = testing::read_bytes(db_);

  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_EQ(verified.status, 0) << verified.err;
  EXPECT_TRUE(says_verified(verified.out, db_)) << verified.out;
  EXPECT_NE(verified.out.find(", schema 1 (read as it is; a write upgrades it to "), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find(", 2 rows and 2 coverage bounds,"), std::string::npos) << verified.out;
  const CliResult stats = run({"db", "stats", "--json", "--database", db_});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["rows"], 2);
  EXPECT_EQ(nlohmann::json::parse(stats.out)["engine_rows"], 0);
  const CliResult exported = export_csv();
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto records = parse_csv(exported.out);
  ASSERT_EQ(records.size(), 3u) << exported.out;
  EXPECT_EQ(records[1], (std::vector<std::string>{signature, "fwd", "2", "0", "0", "2.5", "0", "", "0"}))
      << "a version-1 row has no host time";
  EXPECT_EQ(testing::read_bytes(db_), bytes) << "looking never upgrades";

  const std::string csv = dir_.write("engines.csv", kEngineTable);
  const CliResult imported = run(import_args(csv, network));
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "5 rows read, 4 new\n") << "micro-batch 2 algo 0 was stored by version 1";
  const auto all = parse_csv(export_csv().out);
  EXPECT_EQ(all.size(), 1u + 2u + 4u) << "the header, version 1's rows and the new ones";
  EXPECT_TRUE(says_verified(run({"db", "verify", "--database", db_}).out, db_));
}

// The tools read the process configuration (core/env_config.h) once per process, as the library
// does: each setting is tried in a process of its own.
TEST_F(DbCommand, TheEnvironmentNamesTheDatabase) {
  ASSERT_EQ(run(import_args(alexnet_)).status, 0);
  const std::string unset = "env -u UCUDNN_DATABASE -u UCUDNN_DATABASE_JOURNAL";
  const std::string named = unset + " UCUDNN_DATABASE='" + db_ + "'";
  const ProcessResult verified = run_binary(dir_, "db verify", named);
  EXPECT_EQ(verified.status, 0) << verified.err;
  EXPECT_TRUE(says_verified(verified.out, db_)) << verified.out;

  const ProcessResult nothing = run_binary(dir_, "db export --csv", unset);
  EXPECT_EQ(nothing.status, kExitUsageError);
  EXPECT_TRUE(is_one_error_line(nothing.err)) << nothing.err;
  EXPECT_NE(nothing.err.find("UCUDNN_DATABASE"), std::string::npos) << nothing.err;

  // The option wins over the environment.
  const std::string other = (dir_.path() / "other.db").string();
  const ProcessResult missing = run_binary(dir_, "db stats --database '" + other + "'", named);
  EXPECT_EQ(missing.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(missing.err)) << missing.err;
  EXPECT_NE(missing.err.find(other), std::string::npos) << missing.err;

  // The library's journal setting is the tool's too; an invalid setting is one line naming it.
  const ProcessResult invalid = run_binary(dir_, "db verify", named + " UCUDNN_DATABASE_JOURNAL=sometimes");
  EXPECT_EQ(invalid.status, kExitUsageError);
  EXPECT_TRUE(invalid.out.empty()) << invalid.out;
  EXPECT_TRUE(is_one_error_line(invalid.err)) << invalid.err;
  EXPECT_NE(invalid.err.find("UCUDNN_DATABASE_JOURNAL"), std::string::npos) << invalid.err;
  const ProcessResult other_variable = run_binary(dir_, "db verify", named + " UCUDNN_STATS=yes");
  EXPECT_EQ(other_variable.status, kExitUsageError);
  EXPECT_TRUE(is_one_error_line(other_variable.err)) << other_variable.err;
  EXPECT_NE(other_variable.err.find("UCUDNN_STATS"), std::string::npos) << other_variable.err;

  std::string import;
  for (const std::string& arg : import_args(alexnet_, "alexnet", "NVIDIA H200")) import += "'" + arg + "' ";
  const ProcessResult imported = run_binary(dir_, import, named + " UCUDNN_DATABASE_JOURNAL=delete");
  EXPECT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "648 rows read, 648 new\n");
}

// ---- names that are not UTF-8 or hold a quote, duplicate rows -----------------------------------

// GPU names reach the database through `db import --gpu-name`; refused there, as layer names are.
TEST_F(DbCommand, GpuNameThatIsNotUtf8IsRefusedByDbImport) {
  const std::string db = (dir_.path() / "bench.db").string();
  const std::vector<std::string> import = {
      "db",      "import",          alexnet_,          "--database",           db,     "--network",
      "alexnet", "--gpu-name",      "NVIDIA H100\xff", "--compute-capability", "90",   "--sm-count",
      "132",     "--cudnn-version", "91400",           "--cuda-version",       "13000"};
  expect_error(import, kExitUsageError, "--gpu-name is not valid UTF-8");
}

// A table's header without the engine and host-time columns.
const char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";

// One rule for duplicate rows, in `plan` and `db import`: refused (plan's test:
// PlanCommand.PlanRefusesDuplicateRows).
TEST_F(DbCommand, DbImportRefusesDuplicateRows) {
  const std::string csv = dir_.write("twice.csv", std::string(kHeader) +
                                                      "alex_conv1,fwd,1,0,0,2.0,0\n"
                                                      "alex_conv1,fwd,1,0,0,1.0,0\n");
  const std::string db = (dir_.path() / "bench.db").string();
  expect_error(
      {"db", "import", csv, "--database", db, "--network", "alexnet", "--gpu-name", "NVIDIA H100",
       "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version", "13000"},
      kExitDataError,
      csv +
          ":3: duplicate row for alex_conv1 fwd micro-batch 1 algo 0 math_type 0 "
          "(first at line 2)");
}

// Item 9: what import accepts, export writes and the table reader reads back (a quote in a name).
TEST_F(DbCommand, ALayerNameWithAQuoteRoundTripsThroughTheDatabase) {
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

// Every row of a table, by kernel: (layer, op) -> rows as (micro-batch, algo, math, time, workspace).
using Rows = std::multiset<std::tuple<int, int, int, double, std::size_t>>;
std::map<std::pair<std::string, std::string>, Rows> table_of(const std::string& path) {
  const auto kernels = read_measurements_csv(path);
  EXPECT_TRUE(kernels.ok()) << kernels.message();
  std::map<std::pair<std::string, std::string>, Rows> table;
  if (!kernels) return table;
  for (const auto& kernel : *kernels) {
    auto& rows = table[{kernel.layer, short_name(kernel.op)}];
    for (const auto& m : kernel.rows)
      rows.emplace(m.micro_batch, m.candidate.algorithm, m.candidate.math_type, m.time_ms, m.workspace_bytes);
  }
  return table;
}

// The tests of what `db` writes and reads beside its one database (an export's output, a second
// database the export is read back into, a damaged or half-written database) name the database
// that import_args fills; export_table takes an export's options.
class DbCommandFiles : public DbCommand {
 protected:
  std::vector<std::string> import_args(const std::string& csv, const std::string& db,
                                       const std::string& gpu = "NVIDIA H100 80GB HBM3") const {
    return db_import_args(csv, db, "alexnet", gpu);
  }
  CliResult export_table(const std::string& db, std::vector<std::string> more = {}) const {
    std::vector<std::string> args = {"db", "export", "--database", db};
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  }
};

// ---- export onto the database -------------------------------------------------------------------

TEST_F(DbCommandFiles, ExportOntoTheDatabaseIsRefusedAndTheDatabaseKept) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string before = read_bytes(db_);
  const std::string hard_link = (dir_.path() / "hard.db").string();
  const std::string soft_link = (dir_.path() / "soft.csv").string();
  ASSERT_EQ(::link(db_.c_str(), hard_link.c_str()), 0);
  ASSERT_EQ(::symlink(db_.c_str(), soft_link.c_str()), 0);
  const std::string respelled = (dir_.path() / "." / "bench.db").string();
  for (const std::string& target : {db_, respelled, hard_link, soft_link}) {
    expect_error({"db", "export", "--csv", "--database", db_, "--output", target}, kExitDataError,
                 "is the benchmark database");
    EXPECT_EQ(read_bytes(db_), before) << "the database was overwritten through " << target;
  }
  // SQLite's files beside it, existing or not: a CSV named like a journal would be discarded.
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const bool existed = exists(db_ + suffix);
    expect_error({"db", "export", "--csv", "--database", db_, "--output", db_ + suffix}, kExitDataError,
                 "is the benchmark database");
    EXPECT_EQ(exists(db_ + suffix), existed) << suffix;
  }
  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_TRUE(says_verified(verified.out, db_)) << verified.out << verified.err;
}

TEST_F(DbCommandFiles, ExportIsWrittenWholeOrNotAtAll) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  ASSERT_EQ(run(import_args(alexnet_, db_, "NVIDIA H200")).status, 0);
  const std::string fresh = (dir_.path() / "table.csv").string();

  // A failed export (two devices, none chosen) creates nothing.
  const CliResult refused = export_table(db_, {"--output", fresh});
  EXPECT_EQ(refused.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(refused.err)) << refused.err;
  EXPECT_FALSE(exists(fresh));

  const CliResult done = export_table(db_, {"--output", fresh, "--gpu-name", "NVIDIA H200"});
  ASSERT_EQ(done.status, 0) << done.err;
  EXPECT_EQ(read_bytes(fresh), export_table(db_, {"--gpu-name", "NVIDIA H200"}).out);
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".ucudnn-export"), std::string::npos) << entry.path();
  }

  // What the user stored is never overwritten: an existing file is refused and kept as it was.
  const std::string kept = dir_.write("kept.csv", "what was here\n");
  expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA H200", "--output", kept},
               kExitDataError, "exists; it is not overwritten");
  EXPECT_EQ(read_bytes(kept), "what was here\n");

  if (exists("/dev/full")) {
    expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA H200", "--output", "/dev/full"},
                 kExitDataError, "/dev/full");
  }
}

// `--output /dev/stdout >> FILE`: /dev/stdout is then that file, but the user asked to append to
// it; replacing it by a renamed temporary file lost what FILE held.
TEST_F(DbCommandFiles, ExportToARedirectedStandardOutputAppendsToIt) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string all = dir_.write("all.csv", "earlier lines\n");
  const std::string command = "'" + std::string(UCUDNN_CLI_PATH) + "' db export --csv --database '" + db_ +
                              "' --output /dev/stdout >> '" + all + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_bytes(all), "earlier lines\n" + export_table(db_).out);
}

// Rows stored before today's table rules (here a micro-batch above the maximum) are not written
// as a table that plan and db import would refuse.
TEST_F(DbCommandFiles, ExportRefusesRowsThatTheTableFormatCannotHold) {
  {
    auto database = BenchmarkDatabase::open(db_);
    ASSERT_TRUE(database.ok()) << database.message();
    StoredRow row;
    row.identity = DeviceIdentity{"GPU", 90, 132, 91400, 13000};
    row.layer = "big";
    row.measurement.micro_batch = 4;
    row.measurement.time_ms = 1.0;
    row.measured_at = "2026-11-24T00:00:00Z";
    ASSERT_TRUE((*database)->store_rows({row}).ok());
    row.measurement.micro_batch = kMaxMicroBatch * 2;  // refused by the store, as by the table
    ASSERT_FALSE((*database)->store_rows({row}).ok());
  }
  // Made so by another program: export refuses it by the same rule.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, ("UPDATE measurements SET micro_batch = " + std::to_string(kMaxMicroBatch * 2)).c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  const std::string output = (dir_.path() / "big.csv").string();
  expect_error({"db", "export", "--csv", "--database", db_, "--output", output}, kExitDataError,
               "do not make a table that plan and db import read");
  EXPECT_FALSE(exists(output));
}

// ---- the export is the table that plan and db import read ---------------------------------------

TEST_F(DbCommandFiles, ExportedTableReadsBackIntoImportAndPlan) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string named = (dir_.path() / "named.csv").string();
  const CliResult exported = export_table(db_, {"--network", "alexnet", "--output", named});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(read_bytes(named).rfind("layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n", 0),
            0u);
  EXPECT_EQ(table_of(named), table_of(alexnet_)) << "the same kernels and rows as the table imported";

  // Into a fresh database: every row, and the same export again.
  const std::string fresh = (dir_.path() / "fresh.db").string();
  const CliResult reimported = run(import_args(named, fresh));
  ASSERT_EQ(reimported.status, 0) << reimported.err;
  EXPECT_EQ(reimported.out, "648 rows read, 648 new\n");
  EXPECT_EQ(export_table(fresh, {"--network", "alexnet"}).out, read_bytes(named));

  // plan reads it, and plans as from the recorded table.
  for (const std::vector<std::string>& mode : {std::vector<std::string>{"--workspace-limit", "64MiB"},
                                               std::vector<std::string>{"--total-workspace", "120MiB"}}) {
    std::vector<std::string> from_export = {"plan", "--json", "--measurements", named};
    std::vector<std::string> from_table = {"plan", "--json", "--measurements", alexnet_};
    from_export.insert(from_export.end(), mode.begin(), mode.end());
    from_table.insert(from_table.end(), mode.begin(), mode.end());
    const CliResult a = run(from_export), b = run(from_table);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    auto plan_a = nlohmann::json::parse(a.out), plan_b = nlohmann::json::parse(b.out);
    plan_a.erase("solve_ms");  // a timing of the solver, not of the plan
    plan_b.erase("solve_ms");
    EXPECT_EQ(plan_a, plan_b);
  }

  // Without --network the layers are named by signature: plan reads it, and db import reads it
  // back with the network that has those layers.
  const std::string signed_table = (dir_.path() / "signatures.csv").string();
  ASSERT_EQ(export_table(db_, {"--output", signed_table}).status, 0);
  const CliResult planned = run({"plan", "--json", "--measurements", signed_table, "--workspace-limit", "64MiB"});
  ASSERT_EQ(planned.status, 0) << planned.err;
  const auto a = nlohmann::json::parse(planned.out);
  const auto b =
      nlohmann::json::parse(run({"plan", "--json", "--measurements", alexnet_, "--workspace-limit", "64MiB"}).out);
  ASSERT_EQ(a["kernels"].size(), b["kernels"].size());
  double total_a = 0, total_b = 0;
  for (const auto& k : a["kernels"]) total_a += k["time_ms"].get<double>();
  for (const auto& k : b["kernels"]) total_b += k["time_ms"].get<double>();
  EXPECT_DOUBLE_EQ(total_a, total_b);
  const std::string third = (dir_.path() / "third.db").string();
  const CliResult from_signatures = run(import_args(signed_table, third));
  ASSERT_EQ(from_signatures.status, 0) << from_signatures.err;
  EXPECT_EQ(from_signatures.out, "648 rows read, 648 new\n");
  EXPECT_EQ(export_table(third, {"--network", "alexnet"}).out, read_bytes(named));

  // A network without the database's layers says so and names the way out.
  const std::string other = dir_.write("other.json", R"({"batch": 4, "layers": [
      {"name": "c1", "input": [8, 16, 16], "filters": 8, "kernel": [3, 3], "pad": 1}]})");
  expect_error({"db", "export", "--csv", "--database", db_, "--network", other}, kExitDataError,
               "export without --network");
}

TEST_F(DbCommandFiles, ExportOfSeveralDevicesNamesTheOptionThatSelectsOne) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  ASSERT_EQ(run(import_args(alexnet_, db_, "NVIDIA H200")).status, 0);
  const CliResult both = export_table(db_);
  EXPECT_EQ(both.status, kExitDataError);
  EXPECT_TRUE(both.out.empty());
  EXPECT_TRUE(is_one_error_line(both.err)) << both.err;
  for (const char* word : {"--gpu-name", "NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
    EXPECT_NE(both.err.find(word), std::string::npos) << both.err;
  }
  const std::string h200 = (dir_.path() / "h200.csv").string();
  const CliResult one = export_table(db_, {"--gpu-name", "NVIDIA H200", "--network", "alexnet", "--output", h200});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(table_of(h200), table_of(alexnet_));
  expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA A100"}, kExitDataError,
               "NVIDIA H200");
  const CliResult by_version = export_table(db_, {"--gpu-name", "NVIDIA H100 80GB HBM3", "--cudnn-version", "91400"});
  EXPECT_EQ(by_version.status, 0) << by_version.err;
}

// ---- verify names what a damaged schema lacks ---------------------------------------------------

TEST_F(DbCommandFiles, VerifyFailsOnADatabaseWithoutItsMeasurementsTable) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE measurements", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  expect_error({"db", "verify", "--database", db_}, kExitDataError, "measurements");
}

// ---- an import killed while it writes, in rollback-journal mode ---------------------------------
// A guard: whether the old code failed here depends on which pages the kill catches in
// the file; DatabaseJournal.KilledRollbackJournalWriter* reproduce it deterministically.

TEST_F(DbCommandFiles, AnImportKilledInRollbackJournalModeLeavesAHealthyDatabase) {
  const std::string journal = "env -u UCUDNN_DATABASE UCUDNN_DATABASE_JOURNAL=delete";
  std::string first;
  for (const std::string& arg : import_args(alexnet_, db_)) first += "'" + arg + "' ";
  const auto imported = testing::run_binary(dir_, first, journal);
  ASSERT_EQ(imported.status, 0) << imported.err;

  // 107,520 rows over AlexNet's layers, each row once.
  std::ostringstream big;
  big << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int layer = 1; layer <= 5; ++layer) {
    for (const char* op : {"fwd", "bwdd", "bwdf"}) {
      for (int mb = 1; mb <= 448; ++mb) {
        for (int algo = 0; algo < 4; ++algo) {
          for (int math = 0; math < 4; ++math) {
            big << "alex_conv" << layer << ',' << op << ',' << mb << ',' << algo << ',' << math << ",0.5,0\n";
          }
        }
      }
    }
  }
  const std::string table = dir_.write("big.csv", big.str());
  const auto size_before = fs::file_size(db_);

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("UCUDNN_DATABASE_JOURNAL", "delete", 1);
    const auto args = import_args(table, db_, "Killed import GPU");
    std::vector<char*> argv = {const_cast<char*>(UCUDNN_CLI_PATH)};
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
    execv(UCUDNN_CLI_PATH, argv.data());
    _exit(127);
  }
  // Kill it once its uncommitted pages reach the file (the journal holds the old ones).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ignored;
    if (exists(db_ + "-journal") && fs::file_size(db_, ignored) > size_before) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the import ended before it was killed: " << WEXITSTATUS(status);

  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_EQ(verified.status, 0) << verified.err;
  EXPECT_TRUE(says_verified(verified.out, db_)) << verified.out;
  const CliResult stats = run({"db", "stats", "--json", "--database", db_});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["rows"], 648) << "only the committed rows";
}

}  // namespace
}  // namespace ucudnn::testing
