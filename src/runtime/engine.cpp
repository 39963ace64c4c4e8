#include "runtime/engine.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "core/env_config.h"
#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/cudnn_shim.h"
#include "runtime/device_info.h"

namespace ucudnn {

Engine& Engine::instance() {
  static Engine* engine = new Engine();  // never destroyed: handles may outlive static destruction
  return *engine;
}

bool Engine::cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                         std::shared_ptr<const ExecutablePlan>* out) {
  std::lock_guard<std::mutex> lock(plans_mutex_);
  auto it = plans_.find(PlanKey{key, workspace_limit, policy});
  if (it == plans_.end() || !it->second.plan) return false;
  *out = it->second.plan;
  return true;
}

Status Engine::plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    std::shared_ptr<const ExecutablePlan>* out) {
  const PlanKey plan_key{key, workspace_limit, policy};
  {
    std::lock_guard<std::mutex> lock(plans_mutex_);
    auto it = plans_.find(plan_key);
    if (it != plans_.end()) {
      if (!it->second.plan) return it->second.failure;
      *out = it->second.plan;
      return Status::success();
    }
  }
  std::shared_ptr<const ExecutablePlan> built;
  Status status = build_plan(handle, key, workspace_limit, policy, &built);
  std::lock_guard<std::mutex> lock(plans_mutex_);
  auto inserted = plans_.emplace(plan_key, CachedPlan{built, status});
  if (!inserted.first->second.plan) return inserted.first->second.failure;
  *out = inserted.first->second.plan;  // another thread may have won the race: use its plan
  return Status::success();
}

Status Engine::set_database(const std::string& path) {
  std::lock_guard<std::mutex> lock(database_mutex_);
  database_configured_ = true;
  database_.reset();
  if (path.empty()) return Status::success();
  BenchmarkDatabase::Options options;
  const auto& config = env_config();
  if (config) options.journal = config->database_journal;
  auto opened = BenchmarkDatabase::open(path, options);
  if (!opened) return opened.error();
  database_ = std::shared_ptr<BenchmarkDatabase>(std::move(opened.value()));
  if (database_->read_only()) {
    warn_once("read-only database " + path, "benchmark database '" + path +
                                                "' is read-only: lookups use it, new results stay in memory");
  }
  return Status::success();
}

std::shared_ptr<BenchmarkDatabase> Engine::database() {
  {
    std::lock_guard<std::mutex> lock(database_mutex_);
    if (database_configured_) return database_;
  }
  const auto& config = env_config();
  const std::string path = config ? config->database : std::string();
  Status status = set_database(path);
  if (!status.ok()) {
    warn_once("database " + path, status.message() + "; benchmark results stay in memory");
  }
  std::lock_guard<std::mutex> lock(database_mutex_);
  return database_;
}

Status Engine::build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit,
                          BatchSizePolicy policy, std::shared_ptr<const ExecutablePlan>* out) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<int> sizes = plannable_sizes(key, policy);
  UCUDNN_TRY(gather_rows(handle, key, sizes, workspace_limit));

  const std::vector<Measurement> rows = table_rows(key, sizes);
  const auto solving = std::chrono::steady_clock::now();
  auto wr = optimize_wr(key.batch(), sizes, rows, workspace_limit);
  Statistics::instance().add_solving(
      key.op, std::chrono::duration<double>(std::chrono::steady_clock::now() - solving).count());
  if (!wr) {
    return Error(ErrorCode::kNotSupported, "no algorithm runs " + key.to_string() + " within " +
                                                  std::to_string(workspace_limit) + " bytes of workspace");
  }
  std::optional<double> undivided;
  if (auto single = fastest_within(rows, key.batch(), workspace_limit)) undivided = single->time_ms;

  std::unique_ptr<ExecutablePlan> plan;
  UCUDNN_TRY(ExecutablePlan::build(key, workspace_limit, policy, std::move(*wr), undivided, &plan));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  UCUDNN_LOG_INFO("planned " << key.to_string() << " under " << workspace_limit << " B (" << to_string(policy)
                             << "): " << plan->wr().micro_batch_count() << " micro-batches, "
                             << plan->wr().time_ms << " ms predicted"
                             << (undivided ? ", undivided " + std::to_string(*undivided) + " ms" : std::string())
                             << ", planning took " << seconds << " s");
  *out = std::move(plan);
  return Status::success();
}

std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy) {
  // Backward filter adds the micro-batches' partial gradients in the filter's own type. In half
  // precision that loses most digits where the partial sums cancel, as batch normalisation makes
  // them (PyTorch's ResNet-18 under FP16 autocast: 10-20% error in every weight gradient).
  const bool half_filter = key.w.data_type == CUDNN_DATA_HALF || key.w.data_type == CUDNN_DATA_BFLOAT16;
  if (key.op == ConvOp::kBackwardFilter && half_filter) return {key.batch()};
  // cudaMalloc gives 256-byte aligned buffers; keep every micro-batch on a 16-byte boundary.
  constexpr long long kAlignment = 16;
  const std::vector<long long> bytes_per_sample = {
      static_cast<long long>(key.x.strides[0]) * static_cast<long long>(element_size(key.x.data_type)),
      static_cast<long long>(key.y.strides[0]) * static_cast<long long>(element_size(key.y.data_type))};
  return aligned_micro_batch_sizes(allowed_micro_batch_sizes(policy, key.batch()), key.batch(), bytes_per_sample,
                                   kAlignment);
}

Status Engine::measured_rows(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy,
                             std::vector<int>* sizes, std::vector<Measurement>* rows) {
  *sizes = plannable_sizes(key, policy);
  UCUDNN_TRY(gather_rows(handle, key, *sizes, std::numeric_limits<std::size_t>::max()));
  *rows = table_rows(key, *sizes);
  return Status::success();
}

std::vector<Measurement> Engine::table_rows(const ConvKey& key, const std::vector<int>& sizes) {
  std::vector<Measurement> rows;
  for (int size : sizes) {
    if (auto entry = table().entry(key.with_batch(size))) rows.insert(rows.end(), entry->rows.begin(), entry->rows.end());
  }
  return rows;
}

Status Engine::gather_rows(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                           std::size_t workspace_limit) {
  const auto started = std::chrono::steady_clock::now();
  const long long timings_before = timings_run_.load();
  struct Account {  // benchmarking time, database lookups included, on every way out
    ConvOp op;
    std::chrono::steady_clock::time_point started;
    const std::atomic<long long>& timings;
    long long before;
    ~Account() {
      Statistics::instance().add_benchmarking(
          op, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
          timings.load() - before);
    }
  } account{key.op, started, timings_run_, timings_before};
  const std::shared_ptr<BenchmarkDatabase> db = database();
  DeviceIdentity identity;
  const bool identified = device_identity(key.device, &identity).ok();

  // Sizes not complete in memory: try the database, then measure what is still missing.
  auto missing_sizes = [&]() {
    std::vector<int> missing;
    for (int size : sizes) {
      const ConvKey micro = key.with_batch(size);
      if (table().complete_rows(micro, workspace_limit)) continue;
      if (db && identified) {
        auto found = db->lookup(identity, micro);
        if (!found) {
          warn_once("lookup " + db->path(), found.message());
        } else if (found.value() && found.value()->measured_up_to >= workspace_limit) {
          table().record(micro, found.value()->measured_up_to, found.value()->rows);
          continue;
        }
      }
      missing.push_back(size);
    }
    return missing;
  };
  if (missing_sizes().empty()) return Status::success();

  std::lock_guard<std::mutex> lock(benchmark_mutex_);
  const std::vector<int> missing = missing_sizes();  // another thread may have measured meanwhile
  if (missing.empty()) return Status::success();
  // cuDNN validates the descriptors first, so invalid arguments fail with cuDNN's own status.
  {
    TensorDescriptor x, y;
    FilterDescriptor w;
    ConvolutionDescriptor conv;
    UCUDNN_TRY(make_tensor_descriptor(key.x, &x));
    UCUDNN_TRY(make_tensor_descriptor(key.y, &y));
    UCUDNN_TRY(make_filter_descriptor(key.w, &w));
    UCUDNN_TRY(make_convolution_descriptor(key.conv, key.conv.math_type, &conv));
    std::vector<AlgoPerf> heuristics;
    UCUDNN_TRY(get_algorithms(handle, key.op, {x.get(), w.get(), conv.get(), y.get()}, &heuristics));
  }
  std::map<int, Measured> measured;
  UCUDNN_TRY(measure(handle, key, missing, &measured));
  for (const auto& [size, result] : measured) {
    const ConvKey micro = key.with_batch(size);
    table().record(micro, result.covered, result.rows);
    if (db && identified && !db->read_only()) {
      auto stored = db->store(identity, micro, result.covered, result.rows);
      if (!stored) warn_once("store " + db->path(), stored.message() + "; new results stay in memory");
    }
  }
  return Status::success();
}

Status Engine::measure_on(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                          std::map<int, Measured>* out) {
  std::unique_ptr<Benchmarker> benchmarker;
  UCUDNN_TRY(Benchmarker::create(handle, key, BenchmarkSettings{}, &benchmarker));
  for (int size : sizes) {
    const auto previous = table().entry(key.with_batch(size));  // rows measured with less workspace stay valid
    Measured result;
    Status status = benchmarker->measure(size, previous ? previous->rows : std::vector<Measurement>{}, &result.rows);
    if (!status.ok()) {
      UCUDNN_LOG_DEBUG("micro-batch " << size << " of " << key.to_string() << " not measured: " << status.message());
      continue;
    }
    result.covered = benchmarker->covered_limit();
    (*out)[size] = std::move(result);
  }
  timings_run_ += benchmarker->timings_run();
  return Status::success();
}

Status Engine::measure(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                       std::map<int, Measured>* out) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<int> devices = benchmark_devices(key.device);
  if (devices.size() <= 1 || sizes.size() <= 1) {
    UCUDNN_TRY(measure_on(handle, key, sizes, out));
  } else {
    // Deal the sizes out largest first, so that each GPU gets a similar share of the work.
    std::vector<int> order = sizes;
    std::sort(order.rbegin(), order.rend());
    std::vector<std::vector<int>> shares(devices.size());
    for (std::size_t i = 0; i < order.size(); ++i) shares[i % devices.size()].push_back(order[i]);
    std::vector<std::map<int, Measured>> results(devices.size());
    std::vector<Status> statuses(devices.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (shares[i].empty()) continue;
      threads.emplace_back([&, i] {
        const InternalCallScope inside;  // this thread's cuDNN calls are ucudnn's own
        cudnnHandle_t device_cudnn = nullptr;
        const cudaError_t set = cudaSetDevice(devices[i]);  // this thread's current device
        Status status = set == cudaSuccess ? Status::success()
                                           : cuda_error(set, "cudaSetDevice", __FILE__, __LINE__);
        if (status.ok()) status = device_handle(devices[i], &device_cudnn);
        if (status.ok()) status = measure_on(device_cudnn, key, shares[i], &results[i]);
        statuses[i] = status;
      });
    }
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (!statuses[i].ok()) {
        UCUDNN_LOG_WARN("benchmarking on GPU " << devices[i] << " failed: " << statuses[i].message());
      }
      out->insert(results[i].begin(), results[i].end());
    }
  }
  UCUDNN_LOG_INFO("benchmarked " << sizes.size() << " micro-batch sizes of " << key.to_string() << " on "
                                 << devices.size() << " GPU(s) in "
                                 << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
                                 << " s");
  return Status::success();
}

std::vector<int> Engine::benchmark_devices(int handle_device) {
  const auto& config = env_config();
  if (!config || config->benchmark_devices.empty()) return {handle_device};
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return {handle_device};
  auto parsed = parse_benchmark_devices(config->benchmark_devices, count);
  if (!parsed) {
    warn_once("benchmark devices", parsed.message() + "; benchmarking on the handle's GPU only");
    return {handle_device};
  }
  // Rows measured on one GPU stand for all: every GPU must be of the handle's kind.
  DeviceIdentity reference;
  if (!device_identity(handle_device, &reference).ok()) return {handle_device};
  for (int d : parsed.value()) {
    DeviceIdentity other;
    if (!device_identity(d, &other).ok() || other != reference) {
      warn_once("benchmark devices differ",
                "UCUDNN_BENCHMARK_DEVICES refused: GPU " + std::to_string(d) + " (" + other.to_string() +
                    ") differs from GPU " + std::to_string(handle_device) + " (" + reference.to_string() +
                    "); benchmarking on the handle's GPU only");
      return {handle_device};
    }
  }
  return parsed.value();
}

Status Engine::device_handle(int device, cudnnHandle_t* handle) {
  std::lock_guard<std::mutex> lock(devices_mutex_);
  auto it = device_handles_.find(device);
  if (it == device_handles_.end()) {
    cudnnHandle_t created = nullptr;
    UCUDNN_CHECK_CUDNN(cudnnCreate(&created));  // binds to the current device, set by the caller
    it = device_handles_.emplace(device, created).first;
  }
  *handle = it->second;
  return Status::success();
}

}  // namespace ucudnn
