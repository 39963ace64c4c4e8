#pragma once
// Random, non-zero data for benchmark buffers: timings on zeros can flatter a kernel.

#include <cstddef>
#include <cstdint>

#include "runtime/cuda_status.h"
#include "runtime/device_buffer.h"

namespace ucudnn::runtime {

/// Fills the first `elements` values of `buffer` with values of `data_type` drawn uniformly from
/// [-1, 1] (small integers for integer types): a random block of 2^20 values, repeated.
Status fill_random(DeviceBuffer& buffer, int data_type, std::size_t elements, std::uint32_t seed);

}  // namespace ucudnn::runtime
