#include "tools/bench_command.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/batch_policy.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "runtime/descriptors.h"
#include "runtime/engine.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/networks.h"
#include "tools/progress.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn {
namespace {

struct BenchOptions {
  std::string network;
  std::string database;
  std::string policy = "powerOfTwo";
  std::string measurements;  ///< also write the network's rows as a measurement table here
};

UcudnnBatchSizePolicy_t to_public(BatchSizePolicy policy) {
  switch (policy) {
    case BatchSizePolicy::kAll: return UCUDNN_BATCH_SIZE_POLICY_ALL;
    case BatchSizePolicy::kUndivided: return UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED;
    case BatchSizePolicy::kPowerOfTwo: break;
  }
  return UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
}

// Owns a UcudnnHandle_t for the command's lifetime.
struct HandleGuard {
  UcudnnHandle_t handle;
  ~HandleGuard() {
    if (handle != nullptr) cudnnDestroy(handle);
  }
};

int run_bench(const BenchOptions& options, std::ostream& out, std::ostream& err) {
  const auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return report_error(err, kExitUsageError, "--policy: " + policy.message());
  std::string database = options.database;
  if (database.empty()) {
    const char* env = std::getenv("UCUDNN_DATABASE");
    database = env ? env : "";
  }
  if (database.empty()) {
    return report_error(err, kExitUsageError, "--database is required (or set UCUDNN_DATABASE)");
  }
  const auto network = resolve_network(options.network);
  if (!network) return report_error(err, kExitDataError, network.message());
  std::error_code ignored;
  if (!options.measurements.empty() && std::filesystem::exists(options.measurements, ignored)) {
    return report_error(err, kExitUsageError,
                        "--measurements: '" + options.measurements + "' exists; it is not overwritten");
  }

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    return report_error(err, kExitDataError, "ucudnn bench needs a CUDA GPU, and none is visible");
  }
  if (ucudnnSetDatabase(database.c_str()) != CUDNN_STATUS_SUCCESS) {
    return report_error(err, kExitDataError, ucudnnGetLastErrorMessage());
  }
  HandleGuard guard;
  if (cudnnCreate(&guard.handle) != CUDNN_STATUS_SUCCESS) {
    return report_error(err, kExitDataError, std::string("cannot create a handle: ") + ucudnnGetLastErrorMessage());
  }
  ucudnnSetBatchSizePolicy(guard.handle, to_public(*policy));
  int device = 0;
  cudaGetDevice(&device);

  const ConvOp ops[] = {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter};
  const int total = static_cast<int>(network->layers.size()) * 3;
  const long long timings_before = Engine::instance().timings_run();
  std::vector<KernelMeasurements> table;
  Progress progress(stderr, total, "kernels");
  for (const ConvLayerSpec& layer : network->layers) {
    for (ConvOp op : ops) {
      const auto key = to_conv_key(layer, op, device);
      if (!key) return report_error(err, kExitDataError, key.message());
      TensorDescriptor x, y;
      FilterDescriptor w;
      ConvolutionDescriptor conv;
      for (const Status& s : {make_tensor_descriptor(key->x, &x), make_tensor_descriptor(key->y, &y),
                              make_filter_descriptor(key->w, &w),
                              make_convolution_descriptor(key->conv, key->conv.math_type, &conv)}) {
        if (!s.ok()) return report_error(err, kExitDataError, "layer '" + layer.name + "': " + s.message());
      }
      // Planning measures every micro-batch size of the policy, unfiltered, into the database.
      UcudnnPlanInfo plan;
      const cudnnStatus_t status = ucudnnGetPlan(guard.handle, static_cast<UcudnnConvolutionOp_t>(op), x.get(),
                                                 w.get(), conv.get(), y.get(), UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan);
      if (status != CUDNN_STATUS_SUCCESS) {
        progress.finish();
        return report_error(err, kExitDataError, "layer '" + layer.name + "' " + short_name(op) + ": " +
                                                     ucudnnGetLastErrorMessage());
      }
      table.push_back(KernelMeasurements{layer.name, op, key->batch(),
                                         Engine::instance().table_rows(*key, plannable_sizes(*key, *policy))});
      progress.step(layer.name + " " + short_name(op));
    }
  }
  progress.finish();
  const double seconds = progress.elapsed_seconds();
  const long long timings = Engine::instance().timings_run() - timings_before;

  long long rows = -1;
  BenchmarkDatabase::Options read;
  read.create = false;
  read.read_only = true;
  if (auto db = BenchmarkDatabase::open(database, read)) {
    if (auto stats = db.value()->stats()) rows = stats->rows;
  }
  out << "benchmarked " << total << " kernels of " << network->name << " (" << to_string(*policy)
      << ") in " << seconds << " s with " << timings << " new timings; " << database << " holds " << rows
      << " rows\n";
  out << "benchmarking took " << seconds << " s\n";
  if (!options.measurements.empty()) {
    std::ofstream file(options.measurements);
    file << format_measurements_csv(table);
    if (!file.flush()) return report_error(err, kExitDataError, "cannot write '" + options.measurements + "'");
    out << "measurements written to " << options.measurements << "\n";
  }
  return kExitOk;
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* bench = app.add_subcommand("bench", "Benchmark a network's convolutions into the database (needs a GPU)");
  bench->add_option("--net", options->network, "A built-in network (alexnet, resnet18, resnet50, densenet40, vgg16) "
                                               "or a network description file (JSON)")
      ->required();
  bench->add_option("--database", options->database, "The SQLite benchmark database (default: UCUDNN_DATABASE)");
  bench->add_option("--policy", options->policy, "Micro-batch sizes: all, powerOfTwo, undivided")
      ->capture_default_str();
  bench->add_option("--measurements", options->measurements,
                    "Also write the network's rows as a measurement table (the CSV `ucudnn plan` reads); "
                    "an existing file is refused");
  return {bench, [options](std::ostream& out, std::ostream& err) { return run_bench(*options, out, err); }};
}

}  // namespace ucudnn
