#include "tools/bench_command.h"

#include <cuda_runtime_api.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/batch_policy.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "api/introspection.h"
#include "api/public_enums.h"
#include "runtime/descriptors.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/networks.h"
#include "tools/progress.h"
#include "tools/table_output.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::tools {
using ucudnn::store::BenchmarkDatabase;
using ucudnn::runtime::ConvolutionDescriptor;
using ucudnn::runtime::FilterDescriptor;
using ucudnn::runtime::TensorDescriptor;
using ucudnn::runtime::make_convolution_descriptor;
using ucudnn::runtime::make_filter_descriptor;
using ucudnn::runtime::make_tensor_descriptor;
using ucudnn::api::recorded_rows;
using ucudnn::api::to_public;

namespace {

struct BenchOptions {
  std::string network;
  std::string database;
  std::string policy = "powerOfTwo";
  std::string search = "fast";
  std::string measurements;  ///< also write the network's rows as a measurement table here
  /// --network and --net (its name in 0.1): which were given, as only one may be.
  const CLI::Option* network_given = nullptr;
  const CLI::Option* net_given = nullptr;
};

// Owns a UcudnnHandle_t for the command's lifetime.
struct HandleGuard {
  UcudnnHandle_t handle = nullptr;
  ~HandleGuard() {
    if (handle != nullptr) cudnnDestroy(handle);
  }
};

// Refuses an existing --measurements file before any work: it is never overwritten.
Status check_measurements_path(const std::string& path) {
  std::error_code ignored;
  if (!path.empty() && std::filesystem::exists(path, ignored)) {
    return Error{"--measurements: '" + path + "' exists; it is not overwritten"};
  }
  return Status::success();
}

// Points the library at the database and creates the handle benchmarking runs on.
Status open_handle(const std::string& database, BatchSizePolicy policy, HandleGuard* guard) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    return Error{"ucudnn bench needs a CUDA GPU, and none is visible"};
  }
  if (ucudnnSetDatabase(database.c_str()) != CUDNN_STATUS_SUCCESS) return Error{ucudnnGetLastErrorMessage()};
  if (cudnnCreate(&guard->handle) != CUDNN_STATUS_SUCCESS) {
    return Error{std::string("cannot create a handle: ") + ucudnnGetLastErrorMessage()};
  }
  ucudnnSetBatchSizePolicy(guard->handle, to_public(policy));
  return Status::success();
}

// Candidate timings this process has run so far, over every operation (public statistics).
long long timings_so_far() {
  UcudnnStatistics statistics;
  if (ucudnnGetStatistics(&statistics) != CUDNN_STATUS_SUCCESS) return 0;
  long long timings = 0;
  for (const UcudnnOpStatistics& op : statistics.op) timings += op.timings;
  return timings;
}

// Plans one kernel, which measures the micro-batch sizes of the policy the search asks for, unfiltered, into the
// database; returns the rows the process now holds for it.
Expected<KernelMeasurements> benchmark_kernel(UcudnnHandle_t handle, const ConvLayerSpec& layer, ConvOp op,
                                              int device, BatchSizePolicy policy) {
  UCUDNN_TRY_ASSIGN(const ConvKey key, to_conv_key(layer, op, device));
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  for (const Status& s : {make_tensor_descriptor(key.x, &x), make_tensor_descriptor(key.y, &y),
                          make_filter_descriptor(key.w, &w),
                          make_convolution_descriptor(key.conv, key.conv.math_type, &conv)}) {
    if (!s.ok()) return s.error().prefixed("layer '" + layer.name + "': ");
  }
  UcudnnPlan plan;
  if (ucudnnGetPlan(handle, static_cast<UcudnnConvolutionOp_t>(op), x.get(), w.get(), conv.get(), y.get(),
                    UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan) != CUDNN_STATUS_SUCCESS) {
    return Error{"layer '" + layer.name + "' " + short_name(op) + ": " + ucudnnGetLastErrorMessage()};
  }
  return KernelMeasurements{layer.name, op, key.batch(), recorded_rows(key, policy)};
}

// What benchmarking a network gave: its measurement table, the time and the timings it took.
struct BenchRun {
  std::vector<KernelMeasurements> table;
  double seconds = 0;
  long long timings = 0;
};

// Benchmarks every kernel (three per layer) of the network, with progress on stderr.
Expected<BenchRun> benchmark_network(UcudnnHandle_t handle, const Network& network, BatchSizePolicy policy) {
  const ConvOp ops[] = {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter};
  int device = 0;
  cudaGetDevice(&device);
  const long long timings_before = timings_so_far();
  BenchRun run;
  Progress progress(stderr, static_cast<int>(network.layers.size()) * 3, "kernels");
  for (const ConvLayerSpec& layer : network.layers) {
    for (ConvOp op : ops) {
      auto kernel = benchmark_kernel(handle, layer, op, device, policy);
      if (!kernel) {
        progress.finish();  // the error goes on a line of its own
        return kernel.error();
      }
      run.table.push_back(std::move(kernel).value());
      progress.step(layer.name + " " + short_name(op));
    }
  }
  progress.finish();
  run.seconds = progress.elapsed_seconds();
  run.timings = timings_so_far() - timings_before;
  return run;
}

// How many rows the database holds (-1 where it cannot be read).
long long database_rows(const std::string& path) {
  BenchmarkDatabase::Options read;
  read.create = false;
  read.read_only = true;
  if (auto db = BenchmarkDatabase::open(path, read)) {
    if (auto stats = db.value()->stats()) return stats->rows;
  }
  return -1;
}

int write_measurements(const std::string& path, const std::vector<KernelMeasurements>& table, std::ostream& out,
                       std::ostream& err) {
  const Status written = write_new_table("--measurements", path, format_measurements_csv(table));
  if (!written) return report_error(err, kExitDataError, written.message());
  out << "measurements written to " << path << "\n";
  return kExitOk;
}

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  if (options.network_given->count() > 0 && options.net_given->count() > 0) {
    return report_error(err, kExitUsageError, "--network and --net (its old name) are one option: give it once");
  }
  if (options.network_given->count() == 0 && options.net_given->count() == 0) {
    return report_error(err, kExitUsageError, "--network is required: a built-in network or a network JSON file");
  }
  const auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return report_error(err, kExitUsageError, "--policy: " + policy.message());
  const auto search = parse_search_mode(options.search);
  if (!search) return report_error(err, kExitUsageError, "--search: " + search.message());
  const auto database = database_path(options.database);
  if (!database) return report_error(err, kExitUsageError, database.message());
  const auto network = resolve_network(options.network);
  if (!network) return report_error(err, kExitDataError, network.message());
  const Status writable = check_measurements_path(options.measurements);
  if (!writable) return report_error(err, kExitUsageError, writable.message());

  HandleGuard guard;
  const Status opened = open_handle(*database, *policy, &guard);
  if (!opened) return report_error(err, kExitDataError, opened.message());
  ucudnnSetSearchMode(ucudnn::api::to_public(*search));
  const auto run = benchmark_network(guard.handle, *network, *policy);
  if (!run) return report_error(err, kExitDataError, run.message());

  out << "benchmarked " << network->layers.size() * 3 << " kernels of " << network->name << " ("
      << to_string(*policy) << ", " << to_string(*search) << " search) in " << run->seconds << " s with " << run->timings << " new timings; "
      << *database << " holds " << database_rows(*database) << " rows\n";
  out << "benchmarking took " << run->seconds << " s\n";
  if (options.measurements.empty()) return kExitOk;
  return write_measurements(options.measurements, run->table, out, err);
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark a network's convolutions into the database (needs a GPU)");
  const char* networks = "A built-in network (alexnet, resnet18, resnet50, densenet40, vgg16) or a network "
                         "description file (JSON); required";
  options->network_given = bench->add_option("--network", options->network, networks)->type_name("NET");
  // --net, as 0.1 named it: still accepted, no longer shown (db import and export say --network).
  options->net_given = bench->add_option("--net", options->network, networks)->group("");
  bench->add_option("--database", options->database, "The SQLite benchmark database (default: UCUDNN_DATABASE)")
      ->type_name("FILE");
  bench->add_option("--policy", options->policy, "Micro-batch sizes: all, powerOfTwo, undivided")
      ->type_name("POLICY")
      ->capture_default_str();
  bench->add_option("--search", options->search,
                    "How new kernels are benchmarked: fast (only the sizes and candidates that can change the plan "
                    "under the default workspace limit) or exhaustive (every candidate fully, at every size)")
      ->type_name("MODE")
      ->capture_default_str();
  bench->add_option("--measurements", options->measurements,
                    "Also write the network's rows as a measurement table (the CSV `ucudnn plan` reads); "
                    "an existing file is refused")
      ->type_name("FILE");
  return {bench, [options](std::ostream& out, std::ostream& err) { return run_bench(*options, out, err); }};
}

}  // namespace ucudnn::tools
