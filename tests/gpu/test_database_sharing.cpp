// The benchmark database on the GPU: a second process with the same database runs zero
// benchmarks and gets the same plans; `ucudnn bench` twice against one database spends under 5%
// of the first run's time benchmarking the second time.

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <algorithm>

#include "conv_check.h"
#include "runtime/plan_builder.h"
#include "store/database.h"

namespace ucudnn_test {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "ucudnn-gpu-XXXXXX").string();
  if (!mkdtemp(pattern.data())) return {};
  return pattern;
}

std::string self_path() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

// Runs a shell command, returning its exit status.
int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The child: plans AlexNet's conv2 and conv3 at batch 64 (every op) with whatever database the
// environment names, and writes the number of timings it ran and the plans to a file.
TEST(DatabaseChild, PlanAndReport) {
  const char* out_path = std::getenv("UCUDNN_TEST_CHILD_OUT");
  if (!out_path) GTEST_SKIP() << "runs only as the child of DatabaseSharing";
  std::ofstream out(out_path);
  const auto started = std::chrono::steady_clock::now();
  UcudnnHandle_t handle;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(ucudnnSetDefaultWorkspaceLimit(handle, size_t{16} << 20), CUDNN_STATUS_SUCCESS);
  for (int layer = 0; layer < 2; ++layer) {
    ConvSpec s;
    s.n = 64;
    s.c = layer == 0 ? 96 : 256;
    s.k = layer == 0 ? 256 : 384;
    s.spatial = layer == 0 ? std::vector<int>{27, 27} : std::vector<int>{13, 13};
    s.filter = layer == 0 ? std::vector<int>{5, 5} : std::vector<int>{3, 3};
    s.pad = layer == 0 ? std::vector<int>{2, 2} : std::vector<int>{1, 1};
    s.stride = s.dilation = {1, 1};
    s.math = CUDNN_DEFAULT_MATH;
    ConvProblem p(s);
    ASSERT_TRUE(p.ok);
    for (int op = 0; op < 3; ++op) {
      UcudnnPlan plan;
      ASSERT_EQ(ucudnnGetPlan(handle, static_cast<UcudnnConvolutionOp_t>(op), p.x, p.w, p.conv, p.y,
                              UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan),
                CUDNN_STATUS_SUCCESS);
      out << "plan " << layer << " " << op << ":";
      for (const auto& run : plan.runs) out << " " << run.count << "x" << run.size << "/" << run.algo << "/" << run.mathType;
      out << " ws " << plan.workspaceBytes << "\n";
    }
  }
  out << "timings " << ucudnn::runtime::PlanBuilder::instance().timings_run() << "\n";
  out << "seconds " << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << "\n";
  cudnnDestroy(handle);
}

class DatabaseSharing : public GpuTest {};

TEST_F(DatabaseSharing, SecondProcessRunsZeroBenchmarksAndGetsTheSamePlans) {
  if (std::getenv("UCUDNN_TEST_CHILD_OUT")) GTEST_SKIP() << "inside the child";
  const auto dir = make_temp_dir();
  ASSERT_FALSE(dir.empty());
  const std::string db = (dir / "shared.db").string();
  std::string outputs[2];
  for (int i = 0; i < 2; ++i) {
    const std::string out = (dir / ("child" + std::to_string(i) + ".txt")).string();
    const int status = run("UCUDNN_DATABASE='" + db + "' UCUDNN_TEST_CHILD_OUT='" + out +
                           "' '" + self_path() + "' --gtest_filter=DatabaseChild.PlanAndReport > '" + out + ".log' 2>&1");
    ASSERT_EQ(status, 0) << read_file(out + ".log");
    outputs[i] = read_file(out);
  }
  auto timings = [](const std::string& text) {
    const auto at = text.find("timings ");
    return at == std::string::npos ? -1LL : std::stoll(text.substr(at + 8));
  };
  auto plans = [](const std::string& text) { return text.substr(0, text.find("timings ")); };
  std::printf("[ shared ] first process: %lld timings; second: %lld\n%s", timings(outputs[0]), timings(outputs[1]),
              plans(outputs[1]).c_str());
  EXPECT_GT(timings(outputs[0]), 0);
  EXPECT_EQ(timings(outputs[1]), 0) << "the second process benchmarked again";
  EXPECT_EQ(plans(outputs[0]), plans(outputs[1]));
  EXPECT_NE(plans(outputs[0]).find("plan 1 2"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// With two or more GPUs: benchmarking spread over all of them stores the same rows as one GPU.
// The exhaustive search's (every candidate at every size): the fast search's cut-short follows
// timings, and on several GPUs it also measures sizes ahead of its ladder. How much sooner
// several GPUs finish is bench/gpu.sh multigpu's to measure, not a test's.
TEST_F(DatabaseSharing, ParallelBenchmarkingOnSeveralGpusStoresTheSameRows) {
  if (std::getenv("UCUDNN_TEST_CHILD_OUT")) GTEST_SKIP() << "inside the child";
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (devices < 2) GTEST_SKIP() << "needs two GPUs";
  const auto dir = make_temp_dir();
  ASSERT_FALSE(dir.empty());
  double seconds[2] = {0, 0};
  std::vector<std::vector<std::string>> keys(2);
  for (int i = 0; i < 2; ++i) {
    const std::string db = (dir / ("gpus" + std::to_string(i) + ".db")).string();
    const std::string out = (dir / ("gpus" + std::to_string(i) + ".txt")).string();
    const std::string devices_env = std::string("UCUDNN_SEARCH=exhaustive ") + (i == 0 ? "" : "UCUDNN_BENCHMARK_DEVICES=all ");
    ASSERT_EQ(run(devices_env + "UCUDNN_DATABASE='" + db + "' UCUDNN_TEST_CHILD_OUT='" + out + "' '" + self_path() +
                  "' --gtest_filter=DatabaseChild.PlanAndReport > '" + out + ".log' 2>&1"),
              0)
        << read_file(out + ".log");
    const std::string text = read_file(out);
    seconds[i] = std::stod(text.substr(text.find("seconds ") + 8));
    auto opened = ucudnn::store::BenchmarkDatabase::open(db);
    ASSERT_TRUE(opened.ok()) << opened.message();
    auto rows = opened.value()->all_rows();
    ASSERT_TRUE(rows.ok()) << rows.message();
    for (const auto& row : rows.value()) {
      keys[i].push_back(std::string(ucudnn::short_name(row.op)) + " " + row.layer + " " +
                        std::to_string(row.measurement.micro_batch) + " " +
                        std::to_string(row.measurement.candidate.algorithm) + " " +
                        std::to_string(row.measurement.candidate.math_type));
    }
    std::sort(keys[i].begin(), keys[i].end());
  }
  std::printf("[ gpus   ] planning with benchmarks: 1 GPU %.2f s, %d GPUs %.2f s; %zu and %zu rows\n", seconds[0],
              devices, seconds[1], keys[0].size(), keys[1].size());
  EXPECT_FALSE(keys[0].empty());
  EXPECT_EQ(keys[0], keys[1]) << "the same (kernel, micro-batch, algorithm, math type) rows";
  std::filesystem::remove_all(dir);
}

// The second `ucudnn bench` of a network finds every row in the database and times nothing (what
// that saves is measured by bench/gpu.sh run's cold and warm lines, not asserted here: the warm
// run's seconds are mostly CUDA's and cuDNN's start-up).
TEST_F(DatabaseSharing, BenchTwiceTimesNothingTheSecondTime) {
  if (std::getenv("UCUDNN_TEST_CHILD_OUT")) GTEST_SKIP() << "inside the child";
  const char* cli = std::getenv("UCUDNN_CLI");
  if (!cli) GTEST_SKIP() << "set UCUDNN_CLI to the ucudnn binary (bench/gpu.sh does)";
  const auto dir = make_temp_dir();
  ASSERT_FALSE(dir.empty());
  const std::string db = (dir / "bench.db").string();
  long long timings[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string out = (dir / ("bench" + std::to_string(i) + ".txt")).string();
    ASSERT_EQ(run(std::string(cli) + " bench --net alexnet --database '" + db + "' > '" + out + "' 2> '" + out +
                  ".err'"),
              0)
        << read_file(out + ".err");
    const std::string text = read_file(out);
    const auto at = text.find(" with ");
    ASSERT_NE(at, std::string::npos) << text;
    timings[i] = std::stoll(text.substr(at + 6));
    std::printf("[ bench  ] run %d: %s", i + 1, text.c_str());
  }
  EXPECT_GT(timings[0], 0);
  EXPECT_EQ(timings[1], 0) << "the second run benchmarked again";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ucudnn_test
