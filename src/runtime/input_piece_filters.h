#pragma once
// The filter copies of a forward run in input-channel pieces (optimize/channel_pieces.h): piece i's
// slice of the filter (its input channels, strided in KCRS and KRSC alike) copied packed into the
// workspace before the piece's call. Nothing is synchronised with the host.

#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

class InputPieceFilters {
 public:
  /// The descriptors of `key`'s filter slices for each of `piece_counts`.
  static Status make(const ConvKey& key, const std::vector<int>& piece_counts, std::unique_ptr<InputPieceFilters>* out);

  /// The most workspace one piece's copy takes (the fewest pieces' slice).
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  /// Copies piece `index` of `pieces` of the filter `w` into `copy` (workspace_bytes() long).
  Status copy(cudnnHandle_t handle, int pieces, int index, const void* w, void* copy) const;

 private:
  InputPieceFilters() = default;
  ConvKey key_;
  std::size_t workspace_bytes_ = 0;
  std::size_t channel_stride_ = 0;  ///< elements between the filter's input channels
  /// By piece count: the slice within the caller's filter, and packed.
  std::map<int, std::pair<TensorDescriptor, TensorDescriptor>> slices_;
};

}  // namespace ucudnn::runtime
