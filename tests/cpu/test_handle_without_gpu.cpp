// The handle type and the boundary behaviour that needs no GPU: null handles, bad arguments and
// the environment configuration give clear statuses, never a crash.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "core/env_config.h"
#include "core/statistics.h"
#include "runtime/device_info.h"
#include "runtime/plan_builder.h"
#include "ucudnn/ucudnn.h"
#include "folder_namespaces.h"

namespace {

TEST(UcudnnHandle, HasTheSizeAndCopySemanticsOfCudnnHandle) {
  static_assert(sizeof(UcudnnHandle_t) == sizeof(void*), "pointer-sized");
  static_assert(std::is_trivially_copyable<UcudnnHandle_t>::value, "trivially copyable");
  UcudnnHandle_t null_handle;
  EXPECT_EQ(null_handle.context, nullptr);
  EXPECT_EQ(static_cast<cudnnHandle_t>(null_handle), nullptr);
  // Round trip through a void* slot, as frameworks store handles.
  UcudnnHandle_t fake = UcudnnHandle_t::fromPointer(reinterpret_cast<void*>(0x1000));
  void* slot = fake.toPointer();
  EXPECT_EQ(UcudnnHandle_t::fromPointer(slot), fake);
  UcudnnHandle_t copy;
  std::memcpy(&copy, &fake, sizeof copy);
  EXPECT_EQ(copy, fake);
}

TEST(UcudnnHandle, NullHandleCallsReturnBadParam) {
  UcudnnHandle_t null_handle;
  EXPECT_EQ(ucudnnSetBatchSizePolicy(null_handle, UCUDNN_BATCH_SIZE_POLICY_ALL), CUDNN_STATUS_BAD_PARAM);
  EXPECT_STRNE(ucudnnGetLastErrorMessage(), "");
  EXPECT_EQ(ucudnnSetDefaultWorkspaceLimit(null_handle, 1), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnSetGraphReplay(null_handle, 1), CUDNN_STATUS_BAD_PARAM);
  int enabled = 0;
  EXPECT_EQ(ucudnnGetGraphReplay(null_handle, &enabled), CUDNN_STATUS_BAD_PARAM);
  size_t bytes = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardWorkspaceSize(null_handle, nullptr, nullptr, nullptr, nullptr,
                                                    UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED, &bytes),
            CUDNN_STATUS_BAD_PARAM);
  float one = 1, zero = 0;
  EXPECT_EQ(cudnnConvolutionForward(null_handle, &one, nullptr, nullptr, nullptr, nullptr, nullptr,
                                    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroy(null_handle), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnCreate(static_cast<UcudnnHandle_t*>(nullptr)), CUDNN_STATUS_BAD_PARAM);
}

TEST(UcudnnHandle, CreateReportsAStatusWithoutAGpu) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) GTEST_SKIP() << "a GPU is present";
  UcudnnHandle_t handle;
  const cudnnStatus_t status = cudnnCreate(&handle);
  EXPECT_NE(status, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(handle.context, nullptr) << "a failed create leaves the handle null";
  const std::string message = ucudnnGetLastErrorMessage();
  EXPECT_NE(message.find("no GPU is usable here"), std::string::npos) << message;
  EXPECT_EQ(message.find(".cpp:"), std::string::npos) << "the cause, not a source line\n" << message;
}

TEST(EnvConfig, ParsesPolicyAndLimitStrictly) {
  auto defaults = ucudnn::parse_env_config(nullptr, nullptr);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->policy, ucudnn::BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(defaults->default_workspace_limit, size_t{64} << 20);

  auto set = ucudnn::parse_env_config("UNDIVIDED", "8MiB");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->policy, ucudnn::BatchSizePolicy::kUndivided);
  EXPECT_EQ(set->default_workspace_limit, size_t{8} << 20);

  auto bad_policy = ucudnn::parse_env_config("fastest", nullptr);
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_NE(bad_policy.message().find("UCUDNN_BATCH_SIZE_POLICY"), std::string::npos);
  auto bad_size = ucudnn::parse_env_config(nullptr, "64 parsecs");
  ASSERT_FALSE(bad_size.ok());
  EXPECT_NE(bad_size.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos);
}

TEST(EnvConfig, ForcedWorkspaceLimitTakesItsNewNameAndItsDeprecatedOne) {
  ucudnn::EnvValues values;
  values.forced_workspace_limit = "8MiB";  // UCUDNN_FORCE_WORKSPACE_LIMIT
  auto forced = ucudnn::parse_env_config(values);
  ASSERT_TRUE(forced.ok()) << forced.message();
  EXPECT_EQ(forced->forced_workspace_limit, size_t{8} << 20);
  EXPECT_TRUE(forced->deprecations.empty());

  ucudnn::EnvValues old_name;
  old_name.deprecated_workspace_limit = "16MiB";  // UCUDNN_WORKSPACE_LIMIT
  auto deprecated = ucudnn::parse_env_config(old_name);
  ASSERT_TRUE(deprecated.ok()) << deprecated.message();
  EXPECT_EQ(deprecated->forced_workspace_limit, size_t{16} << 20) << "the old name still works";
  ASSERT_EQ(deprecated->deprecations.size(), 1u);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_WORKSPACE_LIMIT is deprecated"), std::string::npos);
  EXPECT_NE(deprecated->deprecations[0].find("UCUDNN_FORCE_WORKSPACE_LIMIT"), std::string::npos);

  values.deprecated_workspace_limit = "8388608";  // the same size, spelt otherwise: no conflict
  auto agreeing = ucudnn::parse_env_config(values);
  ASSERT_TRUE(agreeing.ok()) << agreeing.message();
  EXPECT_EQ(agreeing->forced_workspace_limit, size_t{8} << 20);
  EXPECT_EQ(agreeing->deprecations.size(), 1u);

  values.deprecated_workspace_limit = "16MiB";
  auto disagreeing = ucudnn::parse_env_config(values);
  ASSERT_FALSE(disagreeing.ok());
  EXPECT_NE(disagreeing.message().find(
                "UCUDNN_FORCE_WORKSPACE_LIMIT='8MiB' and UCUDNN_WORKSPACE_LIMIT='16MiB' (its deprecated name) disagree"),
            std::string::npos)
      << disagreeing.message();

  old_name.deprecated_workspace_limit = "lots";
  auto bad = ucudnn::parse_env_config(old_name);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().rfind("UCUDNN_WORKSPACE_LIMIT: ", 0), 0u) << bad.message();
}

TEST(EnvConfig, StatisticsSwitchIsZeroOrOne) {
  ucudnn::EnvValues values;
  values.statistics = "1";
  auto on = ucudnn::parse_env_config(values);
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->print_statistics);
  values.statistics = "0";
  EXPECT_FALSE(ucudnn::parse_env_config(values)->print_statistics);
  values.statistics = "yes";
  auto bad = ucudnn::parse_env_config(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_STATS: 'yes' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(EnvConfig, GraphReplayIsOnByDefaultAndZeroOrOne) {
  ucudnn::EnvValues values;
  EXPECT_TRUE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "0";
  EXPECT_FALSE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "1";
  EXPECT_TRUE(ucudnn::parse_env_config(values)->graph_replay);
  values.graph_replay = "off";
  auto bad = ucudnn::parse_env_config(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("UCUDNN_GRAPH_REPLAY: 'off' is not 0 or 1"), std::string::npos) << bad.message();
}

TEST(Statistics, CountsPerOperationAndReportsThem) {
  UcudnnStatistics before;
  ASSERT_EQ(ucudnnGetStatistics(&before), CUDNN_STATUS_SUCCESS);
  auto& statistics = ucudnn::Statistics::instance();
  statistics.count_execution(ucudnn::ConvOp::kBackwardData, 4);
  statistics.count_execution(ucudnn::ConvOp::kBackwardData, 1, /*replayed=*/true);
  statistics.count_plain(ucudnn::ConvOp::kBackwardData);
  statistics.count_query(ucudnn::ConvOp::kForward);
  statistics.add_benchmarking(ucudnn::ConvOp::kBackwardFilter, 0.25, 7);
  statistics.add_solving(ucudnn::ConvOp::kBackwardFilter, 0.5);
  statistics.add_division(0.125);
  UcudnnStatistics after;
  ASSERT_EQ(ucudnnGetStatistics(&after), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].convolutionCalls - before.op[UCUDNN_OP_BACKWARD_DATA].convolutionCalls, 3);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].splitCalls - before.op[UCUDNN_OP_BACKWARD_DATA].splitCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].plainCalls - before.op[UCUDNN_OP_BACKWARD_DATA].plainCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].replayedCalls - before.op[UCUDNN_OP_BACKWARD_DATA].replayedCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].algorithmQueries - before.op[UCUDNN_OP_FORWARD].algorithmQueries, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].convolutionCalls, before.op[UCUDNN_OP_FORWARD].convolutionCalls);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_FILTER].timings - before.op[UCUDNN_OP_BACKWARD_FILTER].timings, 7);
  EXPECT_NEAR(after.op[UCUDNN_OP_BACKWARD_FILTER].benchmarkSeconds - before.op[UCUDNN_OP_BACKWARD_FILTER].benchmarkSeconds,
              0.25, 1e-6);
  EXPECT_NEAR(after.op[UCUDNN_OP_BACKWARD_FILTER].solveSeconds - before.op[UCUDNN_OP_BACKWARD_FILTER].solveSeconds,
              0.5, 1e-6);
  EXPECT_EQ(after.divisions - before.divisions, 1);
  EXPECT_NEAR(after.divisionSeconds - before.divisionSeconds, 0.125, 1e-6);

  const std::string report = statistics.report();
  EXPECT_NE(report.find("ucudnn: bwdd "), std::string::npos) << report;
  EXPECT_NE(report.find("workspace divisions"), std::string::npos) << report;
  EXPECT_EQ(ucudnnGetStatistics(nullptr), CUDNN_STATUS_BAD_PARAM);
}

TEST(PlannableSizes, HalfPrecisionBackwardFilterIsNeverSplit) {
  ucudnn::ConvKey key;
  key.x.data_type = key.y.data_type = key.w.data_type = CUDNN_DATA_HALF;
  key.x.dims = {64, 16, 8, 8};
  key.x.strides = {1024, 64, 8, 1};
  key.y.dims = {64, 16, 8, 8};
  key.y.strides = {1024, 64, 8, 1};
  key.w.dims = {16, 16, 3, 3};
  for (cudnnDataType_t type : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT}) {
    key.x.data_type = key.y.data_type = key.w.data_type = type;
    key.op = ucudnn::ConvOp::kBackwardFilter;
    const auto filter_sizes = ucudnn::runtime::plannable_sizes(key, ucudnn::BatchSizePolicy::kPowerOfTwo);
    key.op = ucudnn::ConvOp::kBackwardData;
    const auto data_sizes = ucudnn::runtime::plannable_sizes(key, ucudnn::BatchSizePolicy::kPowerOfTwo);
    EXPECT_EQ(data_sizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64})) << type;
    if (type == CUDNN_DATA_FLOAT) {
      EXPECT_EQ(filter_sizes, data_sizes);
    } else {
      EXPECT_EQ(filter_sizes, std::vector<int>{64}) << type;
    }
  }
}

}  // namespace

namespace {

TEST(EnvConfig, LogLevelJournalAndDevicesAreParsedStrictlyWithTheVariableNamed) {
  auto parse = [](void (*set)(ucudnn::EnvValues&)) {
    ucudnn::EnvValues values;
    set(values);
    return ucudnn::parse_env_config(values);
  };
  const auto level = parse([](ucudnn::EnvValues& v) { v.log_level = "loud"; });
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.message().find("UCUDNN_LOG_LEVEL"), std::string::npos) << level.message();
  const auto devices = parse([](ucudnn::EnvValues& v) { v.benchmark_devices = "0,,1"; });
  ASSERT_FALSE(devices.ok());
  EXPECT_NE(devices.message().find("UCUDNN_BENCHMARK_DEVICES"), std::string::npos) << devices.message();
  const auto journal = parse([](ucudnn::EnvValues& v) { v.database_journal = "fast"; });
  ASSERT_FALSE(journal.ok());
  EXPECT_NE(journal.message().find("UCUDNN_DATABASE_JOURNAL"), std::string::npos) << journal.message();

  const auto good = parse([](ucudnn::EnvValues& v) {
    v.log_level = "DEBUG";
    v.benchmark_devices = "all";
    v.database_journal = "wal";
  });
  ASSERT_TRUE(good.ok()) << good.message();
  EXPECT_EQ(good->log_level, ucudnn::LogLevel::kDebug);
  EXPECT_EQ(good->database_journal, ucudnn::JournalMode::kWal);
  EXPECT_EQ(good->benchmark_devices, "all");
}

}  // namespace

namespace {

TEST(BenchmarkDevices, SyntaxFromTheSettingRangeFromTheVisibleDevices) {
  const auto all = ucudnn::runtime::parse_benchmark_devices("all", 3);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(all.value(), (std::vector<int>{0, 1, 2}));
  const auto listed = ucudnn::runtime::parse_benchmark_devices("2,0", 3);
  ASSERT_TRUE(listed.ok()) << listed.message();
  EXPECT_EQ(listed.value(), (std::vector<int>{2, 0}));
  const auto missing = ucudnn::runtime::parse_benchmark_devices("0,3", 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("device 3 does not exist (3 visible)"), std::string::npos) << missing.message();
  const auto twice = ucudnn::runtime::parse_benchmark_devices("1,1", 3);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("UCUDNN_BENCHMARK_DEVICES='1,1': device 1 is named twice"), std::string::npos)
      << twice.message();
}

}  // namespace
