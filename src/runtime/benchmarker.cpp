#include "runtime/benchmarker.h"

namespace ucudnn::runtime {

Status Benchmarker::create(cudnnHandle_t handle, const ConvKey& key, BenchmarkSettings settings,
                           std::unique_ptr<Benchmarker>* out) {
  std::unique_ptr<Benchmarker> b(new Benchmarker());
  UCUDNN_TRY(BenchmarkRig::create(handle, key, settings, &b->rig_));
  *out = std::move(b);
  return Status::success();
}

Status Benchmarker::measure(CandidateKind kind, const SizeRequest& request, std::vector<Measurement>* measured) {
  measured->clear();
  std::unique_ptr<KindMeasurer>& measurer = measurers_[kind];
  if (!measurer) {
    const Status made = kind_runtime(kind).make_measurer(*rig_, &measurer);
    if (!made.ok()) {
      measurers_.erase(kind);
      return made;
    }
  }
  return measurer->measure(request, measured);
}

std::size_t Benchmarker::measured_up_to(CandidateKind kind) const {
  const auto it = measurers_.find(kind);
  return it == measurers_.end() ? 0 : it->second->measured_up_to();
}

}  // namespace ucudnn::runtime
