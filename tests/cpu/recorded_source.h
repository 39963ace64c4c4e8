#pragma once
// A MeasurementSource for CPU tests: serves the rows of a recorded table (tests/data) as if it
// measured them, counts what it is asked, and can be told to fail for a kernel or to measure only
// up to a workspace bound (as the GPU benchmarker does on a device with little free memory).

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "runtime/measurement_source.h"
#include "test_helpers.h"
#include "tools/networks.h"

namespace ucudnn::testing {
using runtime::MeasuredRows;
using runtime::MeasurementSource;
using runtime::MeasureRequest;
using tools::builtin_network;
using tools::find_layer;

class RecordedSource : public MeasurementSource {
 public:
  /// The recorded H100 AlexNet table: 5 layers x 3 ops at mini-batch 256, micro-batches 1..256.
  static std::shared_ptr<RecordedSource> alexnet() {
    auto source = std::make_shared<RecordedSource>();
    auto table = read_measurements_csv(alexnet_csv_path());
    auto network = builtin_network("alexnet");
    if (!table || !network) throw std::runtime_error("cannot load the recorded AlexNet table");
    for (const KernelMeasurements& kernel : *table) {
      const ConvLayerSpec* layer = find_layer(*network, kernel.layer);
      if (!layer) throw std::runtime_error("no AlexNet layer " + kernel.layer);
      auto key = to_conv_key(*layer, kernel.op, 0);
      if (!key) throw std::runtime_error(key.message());
      source->add(*key, kernel.rows);
    }
    return source;
  }

  /// The identity recorded rows are stored under.
  static DeviceIdentity recorded_identity() {
    DeviceIdentity id;
    id.gpu_name = "NVIDIA H100 80GB HBM3";
    id.compute_capability = 90;
    id.sm_count = 132;
    id.cudnn_version = 91400;
    id.cuda_runtime_version = 13000;
    return id;
  }

  /// Adds a kernel: its key at the full batch and its rows at every micro-batch size.
  void add(const ConvKey& key, std::vector<Measurement> rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.emplace_back(key, std::move(rows));
  }
  /// Every later request for `key` (any batch) fails with `error`.
  void fail_for(const ConvKey& key, Error error) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_.emplace_back(key, std::move(error));
  }
  /// Rows needing more workspace than `bytes` are withheld and the bound reported is `bytes`.
  void limit_to(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    limit_ = bytes;
  }

  /// What sizes_at_once() answers (as a source of several benchmark GPUs would).
  void set_sizes_at_once(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    at_once_ = n;
  }
  std::size_t sizes_at_once(int) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return at_once_;
  }
  /// The most sizes one measure() call asked for.
  std::size_t most_sizes_asked_at_once() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return most_at_once_;
  }

  /// measure() calls, in all and for one kernel.
  int calls() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }
  int calls_for(const ConvKey& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(std::count_if(asked_.begin(), asked_.end(), [&](const ConvKey& k) { return same(k, key); }));
  }
  /// measure() calls for one kind of candidate.
  int calls_for(CandidateKind kind) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(std::count(kinds_asked_.begin(), kinds_asked_.end(), kind));
  }
  /// Every micro-batch size asked for, in order, repeated where asked again.
  std::vector<int> sizes_asked() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return sizes_asked_;
  }
  /// The sizes asked for `key` (any batch; not its output-channel pieces), in order.
  std::vector<int> sizes_asked_for(const ConvKey& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<int> sizes;
    for (const auto& [asked, size] : sized_asks_) {
      if (same(asked, key)) sizes.push_back(size);
    }
    return sizes;
  }
  /// The rows the plan builder said it knew at the last call, per size.
  std::map<int, std::vector<Measurement>> last_known() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_known_;
  }

  Status identify(int, DeviceIdentity* identity) override {
    *identity = recorded_identity();
    return Status::success();
  }

  /// Serves the recorded rows of `kind` only (a kernel without engine rows has none to offer).
  /// The search mode only changes how the GPU times candidates: a recording serves all it has.
  Status measure(cudnnHandle_t, const ConvKey& key, const MeasureRequest& request,
                 std::map<int, MeasuredRows>* out) override {
    const CandidateKind kind = request.kind;
    const std::vector<int>& sizes = request.sizes;
    const std::map<int, std::vector<Measurement>>& known = request.measured_before;
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_asked_.insert(sizes_asked_.end(), sizes.begin(), sizes.end());
    for (int size : sizes) sized_asks_.emplace_back(key, size);
    most_at_once_ = std::max(most_at_once_, sizes.size());
    ++calls_;
    asked_.push_back(key);
    kinds_asked_.push_back(kind);
    last_known_ = known;
    for (const auto& [failing, error] : failures_) {
      if (same(failing, key)) return error;
    }
    const std::vector<Measurement>* rows = rows_of(key);
    if (!rows) return Error(ErrorCode::kNotSupported, "not recorded: " + key.to_string());
    for (int size : sizes) {
      MeasuredRows measured;
      measured.measured_up_to = limit_;
      const auto previous = known.find(size);
      for (const Measurement& m : *rows) {
        if (m.micro_batch != size || m.workspace_bytes > limit_ || m.candidate.kind != kind) continue;
        const bool already =
            previous != known.end() && std::any_of(previous->second.begin(), previous->second.end(),
                                                   [&](const Measurement& k) { return (k.candidate == m.candidate); });
        if (already) continue;
        measured.rows.push_back(m);
        ++timings_;
      }
      (*out)[size] = std::move(measured);
    }
    return Status::success();
  }

  long long timings_run() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return timings_;
  }

  /// The recorded rows of a kernel at one micro-batch size.
  std::vector<Measurement> rows_at(const ConvKey& key, int size) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Measurement> at;
    if (const auto* rows = rows_of(key)) {
      for (const Measurement& m : *rows) {
        if (m.micro_batch == size) at.push_back(m);
      }
    }
    return at;
  }

 private:
  // The same convolution but for the batch: what a recorded kernel answers for.
  static bool same(const ConvKey& a, const ConvKey& b) {
    return a.op == b.op && a.device == b.device && a.layer_signature() == b.layer_signature();
  }
  const std::vector<Measurement>* rows_of(const ConvKey& key) const {
    for (const auto& [recorded, rows] : kernels_) {
      if (same(recorded, key)) return &rows;
    }
    return nullptr;
  }

  mutable std::mutex mutex_;
  std::vector<std::pair<ConvKey, std::vector<Measurement>>> kernels_;
  std::vector<std::pair<ConvKey, Error>> failures_;
  std::size_t limit_ = SIZE_MAX;
  int calls_ = 0;
  long long timings_ = 0;
  std::vector<ConvKey> asked_;
  std::vector<CandidateKind> kinds_asked_;
  std::vector<int> sizes_asked_;
  std::vector<std::pair<ConvKey, int>> sized_asks_;
  std::size_t at_once_ = 1, most_at_once_ = 0;
  std::map<int, std::vector<Measurement>> last_known_;
};

/// `sizes` in ascending order.
inline std::vector<int> sorted(std::vector<int> sizes) {
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

/// The AlexNet kernels of the recording, in order: conv1..conv5, each fwd, bwdd, bwdf.
inline std::vector<ConvKey> alexnet_keys() {
  std::vector<ConvKey> keys;
  auto network = builtin_network("alexnet");
  if (!network) throw std::runtime_error(network.message());
  for (const ConvLayerSpec& layer : network->layers) {
    for (ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
      keys.push_back(to_conv_key(layer, op, 0).value());
    }
  }
  return keys;
}

}  // namespace ucudnn::testing
