#pragma once
// Where the plan builder's benchmark rows come from when neither its table nor the database has them:
// the GPU (GpuMeasurementSource) in a process, recorded tables in CPU tests. The builder itself
// makes no CUDA or cuDNN calls on the device; everything that does lives behind this interface.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/device_identity.h"
#include "core/measurement.h"
#include "core/search_mode.h"
#include "runtime/cuda_status.h"

namespace ucudnn::runtime {

/// Rows measured for one micro-batch size, complete for any workspace limit up to
/// `measured_up_to` (SIZE_MAX: any limit).
struct MeasuredRows {
  std::vector<Measurement> rows;
  std::size_t measured_up_to = 0;
};

/// What to measure of one convolution: one kind of candidate at some micro-batch sizes.
struct MeasureRequest {
  CandidateKind kind = CandidateKind::kLegacy;
  std::vector<int> sizes;
  /// Per size, rows of this kind measured before (with less workspace): they stay valid and
  /// need not be measured again.
  std::map<int, std::vector<Measurement>> measured_before;
  /// Per size, rows of the other kinds: the fast search makes candidates beat them too.
  std::map<int, std::vector<Measurement>> other_kinds_rows;
  /// Per size, every kind's rows at the next larger size measured: the fast search times their
  /// front first.
  std::map<int, std::vector<Measurement>> larger_size_rows_by_size;
  SearchMode mode = SearchMode::kExhaustive;
  std::size_t workspace_limit = SIZE_MAX;  ///< the limit a plan is being made for
};

class MeasurementSource {
 public:
  virtual ~MeasurementSource() = default;

  /// The identity of `device`, which keys rows in the database; an error if it cannot be told.
  virtual Status identify(int device, DeviceIdentity* identity) = 0;

  /// Measures what `request` asks of `key` (at its full batch). A size that cannot be measured is
  /// left out of `out`; an error means the convolution itself cannot be measured (invalid
  /// descriptors: the error is cuDNN's). `handle` is the caller's, passed through untouched (a
  /// source that does not run cuDNN ignores it).
  virtual Status measure(cudnnHandle_t handle, const ConvKey& key, const MeasureRequest& request,
                         std::map<int, MeasuredRows>* out) = 0;

  /// How many micro-batch sizes of a kernel of `device` one request measures side by side (one per
  /// benchmark GPU): what a process of a job takes at a time of sizes gathered together.
  virtual std::size_t sizes_at_once(int /*device*/) { return 1; }

  /// The GPUs this source measures `device`'s kernels on (their UUIDs): processes measuring one
  /// kernel on one GPU at once would slow each other's timings, so a job lets one process per GPU
  /// measure it at a time. Empty: no GPU (a recorded table), nothing to disturb.
  virtual std::vector<std::string> measuring_gpus(int /*device*/) { return {}; }

  /// Frees what the source kept between requests for the same convolution (its buffers and
  /// workspace on the GPU); the plan builder calls it once a kernel's rows are gathered.
  virtual void release() {}

  /// GPU milliseconds of one call's padded-input copies (runtime/padded_input_copies.h) of `key` at a
  /// micro-batch of `size`: the zeroing, the filter's copy and one micro-batch's x copied, timed on
  /// `device`'s GPU. Not supported where the source runs nothing (the plan then prices the copies
  /// by optimize/padded_input.h's model).
  virtual Status time_padded_copies(cudnnHandle_t /*handle*/, const ConvKey& /*key*/, int /*size*/, double* /*ms*/) {
    return Error(ErrorCode::kNotSupported, "this measurement source times no copies");
  }

  /// How many candidate timings this source has run.
  virtual long long timings_run() const = 0;
};

}  // namespace ucudnn::runtime
