#include "runtime/device_info.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <map>
#include <mutex>

#include "core/env_config.h"

namespace ucudnn::runtime {

Status device_identity(int device, DeviceIdentity* identity) {
  static std::mutex mutex;
  static std::map<int, DeviceIdentity> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) {
    cudaDeviceProp prop{};
    UCUDNN_CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
    int runtime = 0;
    UCUDNN_CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
    DeviceIdentity id;
    id.gpu_name = prop.name;
    id.compute_capability = prop.major * 10 + prop.minor;
    id.sm_count = prop.multiProcessorCount;
    id.cudnn_version = static_cast<int>(cudnnGetVersion());
    id.cuda_runtime_version = runtime;
    it = cache.emplace(device, id).first;
  }
  *identity = it->second;
  return Status::success();
}

Expected<std::string> device_uuid(int device) {
  static std::mutex mutex;
  static std::map<int, std::string> cache;  // asked at every measurement of a job's kernel
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) {
    cudaDeviceProp prop{};
    const cudaError_t error = cudaGetDeviceProperties(&prop, device);
    if (error != cudaSuccess) return Error::cuda(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(error));
    std::string uuid = "GPU-";
    static const char kHex[] = "0123456789abcdef";
    for (char byte : prop.uuid.bytes) {
      const auto b = static_cast<unsigned char>(byte);
      uuid += kHex[b >> 4];
      uuid += kHex[b & 15];
    }
    it = cache.emplace(device, uuid).first;
  }
  return it->second;
}

Status device_memory(int device, DeviceMemory* memory) {
  int current = 0;
  UCUDNN_CHECK_CUDA(cudaGetDevice(&current));
  if (current != device) UCUDNN_CHECK_CUDA(cudaSetDevice(device));
  const cudaError_t asked = cudaMemGetInfo(&memory->free, &memory->total);
  if (current != device) UCUDNN_CHECK_CUDA(cudaSetDevice(current));
  UCUDNN_CHECK_CUDA(asked);
  return Status::success();
}

Expected<std::vector<int>> parse_benchmark_devices(const std::string& text, int device_count) {
  const std::string setting = "UCUDNN_BENCHMARK_DEVICES='" + text + "': ";
  const Expected<DeviceList> list = parse_device_list(text);
  if (!list) return list.error().prefixed(setting);
  if (list->all) {
    std::vector<int> devices;
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
    return devices;
  }
  for (int d : list->devices) {
    if (d >= device_count) {
      return Error::invalid(setting + "device " + std::to_string(d) + " does not exist (" +
                            std::to_string(device_count) + " visible)");
    }
  }
  return list->devices;
}

}  // namespace ucudnn::runtime
