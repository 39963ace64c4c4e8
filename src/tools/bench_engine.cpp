// `ucudnn bench`'s engine (tools/bench_engine.h): runs the library over a network's kernels.
// Built into the module libucudnn_bench.so, which links cuDNN and the CUDA runtime.
#include "tools/bench_engine.h"

#include <cuda_runtime_api.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/introspection.h"
#include "api/public_enums.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "runtime/descriptors.h"
#include "store/database.h"
#include "tools/cli_options.h"
#include "tools/command.h"
#include "tools/progress.h"
#include "tools/table_output.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::tools {
using ucudnn::api::recorded_rows;
using ucudnn::api::to_public;
using ucudnn::runtime::ConvolutionDescriptor;
using ucudnn::runtime::FilterDescriptor;
using ucudnn::runtime::make_convolution_descriptor;
using ucudnn::runtime::make_filter_descriptor;
using ucudnn::runtime::make_tensor_descriptor;
using ucudnn::runtime::TensorDescriptor;
using ucudnn::store::BenchmarkDatabase;

namespace {

// Owns a UcudnnHandle_t for the command's lifetime.
struct HandleGuard {
  UcudnnHandle_t handle = nullptr;
  ~HandleGuard() {
    if (handle != nullptr) cudnnDestroy(handle);
  }
};

// Points the library at the database and creates the handle benchmarking runs on.
Status open_handle(const std::string& database, BatchSizePolicy policy, HandleGuard* guard) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    return Error::invalid("ucudnn bench needs a CUDA GPU, and none is visible");
  }
  if (ucudnnSetDatabase(database.c_str()) != CUDNN_STATUS_SUCCESS) return Error::invalid(ucudnnGetLastErrorMessage());
  if (cudnnCreate(&guard->handle) != CUDNN_STATUS_SUCCESS) {
    return Error::invalid(std::string("cannot create a handle: ") + ucudnnGetLastErrorMessage());
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
Expected<KernelMeasurements> benchmark_kernel(UcudnnHandle_t handle, const ConvLayerSpec& layer, ConvOp op, int device,
                                              BatchSizePolicy policy) {
  UCUDNN_TRY_ASSIGN(const ConvKey key, to_conv_key(layer, op, device));
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  for (const Status& s :
       {make_tensor_descriptor(key.x, &x), make_tensor_descriptor(key.y, &y), make_filter_descriptor(key.w, &w),
        make_convolution_descriptor(key.conv, key.conv.math_type, &conv)}) {
    if (!s.ok()) return s.error().prefixed("layer '" + layer.name + "': ");
  }
  UcudnnPlan plan;
  if (ucudnnGetPlan(handle, static_cast<UcudnnConvolutionOp_t>(op), x.get(), w.get(), conv.get(), y.get(),
                    UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan) != CUDNN_STATUS_SUCCESS) {
    return Error::invalid("layer '" + layer.name + "' " + short_name(op) + ": " + ucudnnGetLastErrorMessage());
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

int run_engine(const BenchRequest& request, std::ostream& out, std::ostream& err) {
  HandleGuard guard;
  const Status opened = open_handle(request.database, request.policy, &guard);
  if (!opened) return report_error(err, kExitDataError, opened.message());
  ucudnnSetSearchMode(to_public(request.search));
  const auto run = benchmark_network(guard.handle, request.network, request.policy);
  if (!run) return report_error(err, kExitDataError, run.message());

  out << "benchmarked " << request.network.layers.size() * 3 << " kernels of " << request.network.name << " ("
      << to_string(request.policy) << ", " << to_string(request.search) << " search) in " << run->seconds << " s with "
      << run->timings << " new timings; " << request.database << " holds " << database_rows(request.database)
      << " rows\n";
  out << "benchmarking took " << run->seconds << " s\n";
  if (request.measurements.empty()) return kExitOk;
  return write_measurements(request.measurements, run->table, out, err);
}

}  // namespace
}  // namespace ucudnn::tools

extern "C" __attribute__((visibility("default"))) int ucudnn_tools_bench_engine(
    const ucudnn::tools::BenchRequest* request, std::ostream* out, std::ostream* err) {
  return ucudnn::tools::run_engine(*request, *out, *err);
}
