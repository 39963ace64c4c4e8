#include "runtime/input_piece_filters.h"

#include <algorithm>

#include "core/cudnn_values.h"
#include "optimize/channel_pieces.h"
#include "optimize/padded_input.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::runtime {

Status InputPieceFilters::make(const ConvKey& key, const std::vector<int>& piece_counts,
                               std::unique_ptr<InputPieceFilters>* out) {
  std::unique_ptr<InputPieceFilters> filters(new InputPieceFilters());
  filters->key_ = key;
  const bool channels_last = key.w.format == cudnn_values::kTensorNhwc;
  const std::vector<int> whole = optimize::packed_strides(key.w.dims, channels_last);
  filters->channel_stride_ = static_cast<std::size_t>(whole[1]);
  for (int pieces : piece_counts) {
    if (filters->slices_.count(pieces)) continue;
    const std::vector<int> dims = optimize::input_piece_key(key, pieces).w.dims;
    auto& slice = filters->slices_[pieces];
    UCUDNN_TRY(make_tensor_descriptor(TensorLayout{key.w.data_type, dims, whole}, &slice.first));
    UCUDNN_TRY(make_tensor_descriptor(
        TensorLayout{key.w.data_type, dims, optimize::packed_strides(dims, channels_last)}, &slice.second));
    filters->workspace_bytes_ = std::max(filters->workspace_bytes_, optimize::input_piece_filter_bytes(key, pieces));
  }
  *out = std::move(filters);
  return Status::success();
}

Status InputPieceFilters::copy(cudnnHandle_t handle, int pieces, int index, const void* w, void* copy) const {
  const auto slice = slices_.find(pieces);
  if (slice == slices_.end()) {
    return Error(ErrorCode::kInternal, "no filter slice of " + std::to_string(pieces) + " input-channel pieces");
  }
  const std::size_t first_channel = static_cast<std::size_t>(key_.w.dims[1] / pieces) * static_cast<std::size_t>(index);
  const void* from = static_cast<const char*>(w) + first_channel * channel_stride_ * element_size(key_.w.data_type);
  const ScalingFactor one(key_, 1.0), zero(key_, 0.0);
  return transform_tensor(handle, one.get(), slice->second.first.get(), from, zero.get(), slice->second.second.get(),
                          copy);
}

}  // namespace ucudnn::runtime
