#pragma once
// What makes benchmark results transferable between machines: the GPU model and the library
// versions. Rows measured on one identity serve every GPU of the same identity (a homogeneous
// cluster), never another.

#include <string>
#include <tuple>

namespace ucudnn {

struct DeviceIdentity {
  std::string gpu_name;          ///< cudaDeviceProp::name
  int compute_capability = 0;    ///< major * 10 + minor
  int sm_count = 0;              ///< cudaDeviceProp::multiProcessorCount
  int cudnn_version = 0;         ///< cudnnGetVersion()
  int cuda_runtime_version = 0;  ///< cudaRuntimeGetVersion()

  std::string to_string() const {
    return gpu_name + " (sm_" + std::to_string(compute_capability) + ", " + std::to_string(sm_count) +
           " SMs), cuDNN " + std::to_string(cudnn_version) + ", CUDA runtime " + std::to_string(cuda_runtime_version);
  }
  friend bool operator==(const DeviceIdentity& a, const DeviceIdentity& b) {
    return std::tie(a.gpu_name, a.compute_capability, a.sm_count, a.cudnn_version, a.cuda_runtime_version) ==
           std::tie(b.gpu_name, b.compute_capability, b.sm_count, b.cudnn_version, b.cuda_runtime_version);
  }
  friend bool operator!=(const DeviceIdentity& a, const DeviceIdentity& b) { return !(a == b); }
};

}  // namespace ucudnn
