#pragma once
// Facts about the CUDA devices that benchmarking needs: their identity, and which devices
// UCUDNN_BENCHMARK_DEVICES names.

#include <string>
#include <vector>

#include "core/device_identity.h"
#include "core/expected.h"
#include "core/memory_budget.h"
#include "runtime/cuda_status.h"

namespace ucudnn::runtime {

/// The identity of a device (cached per process).
Status device_identity(int device, DeviceIdentity* identity);

/// The device's UUID as "GPU-" and 32 hex digits: one physical GPU, whatever process or
/// container sees it under which ordinal.
Expected<std::string> device_uuid(int device);

/// The free and total memory of `device`, asked on it whichever device is current.
Status device_memory(int device, DeviceMemory* memory);

/// The devices UCUDNN_BENCHMARK_DEVICES names (syntax: core's parse_device_list): "all" is every
/// visible device; each ordinal must be below `device_count`.
Expected<std::vector<int>> parse_benchmark_devices(const std::string& text, int device_count);

}  // namespace ucudnn::runtime
