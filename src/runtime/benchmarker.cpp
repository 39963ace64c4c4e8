#include "runtime/benchmarker.h"

namespace ucudnn::runtime {

Status Benchmarker::create(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, BenchmarkSettings settings,
                           std::unique_ptr<Benchmarker>* out) {
  std::unique_ptr<Benchmarker> b(new Benchmarker());
  UCUDNN_TRY(BenchmarkRig::create(handle, key, settings, &b->rig_));
  UCUDNN_TRY(kind_runtime(kind).make_measurer(*b->rig_, &b->measurer_));
  *out = std::move(b);
  return Status::success();
}

}  // namespace ucudnn::runtime
