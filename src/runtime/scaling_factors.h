#pragma once
// cuDNN's rule for a convolution's scaling factors (alpha, beta): double for double data, float
// otherwise, in the legacy calls' pointers and the graph API's attributes alike. The one place
// ucudnn states it.

#include <cudnn.h>

#include "core/conv_key.h"

namespace ucudnn::runtime {

inline bool scales_in_double(const ConvKey& key) { return key.x.data_type == CUDNN_DATA_DOUBLE; }

/// A scaling factor held in `key`'s type, for a call that takes it by pointer or attribute.
class ScalingFactor {
 public:
  ScalingFactor(const ConvKey& key, double value)
      : in_double_(scales_in_double(key)), as_double_(value), as_float_(static_cast<float>(value)) {}
  const void* get() const { return in_double_ ? static_cast<const void*>(&as_double_) : &as_float_; }
  cudnnBackendAttributeType_t attribute_type() const { return in_double_ ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT; }

 private:
  bool in_double_;
  double as_double_;
  float as_float_;
};

/// The value behind a caller's scaling-factor pointer of `key`'s type; `absent` where it is null.
inline double read_scaling_factor(const ConvKey& key, const void* scalar, double absent) {
  if (!scalar) return absent;
  return scales_in_double(key) ? *static_cast<const double*>(scalar)
                               : static_cast<double>(*static_cast<const float*>(scalar));
}

}  // namespace ucudnn::runtime
