#include "runtime/device_info.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

namespace ucudnn {

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

Expected<std::vector<int>> parse_benchmark_devices(const std::string& text, int device_count) {
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
    return devices;
  }
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const bool digits = !item.empty() && std::all_of(item.begin(), item.end(), [](unsigned char c) {
      return std::isdigit(c);
    });
    if (!digits || item.size() > 6) {
      return Error{"UCUDNN_BENCHMARK_DEVICES='" + text + "': '" + item + "' is not a device number (use all or 0,1,...)"};
    }
    const int d = std::stoi(item);
    if (d >= device_count) {
      return Error{"UCUDNN_BENCHMARK_DEVICES='" + text + "': device " + item + " does not exist (" +
                   std::to_string(device_count) + " visible)"};
    }
    if (std::find(devices.begin(), devices.end(), d) != devices.end()) {
      return Error{"UCUDNN_BENCHMARK_DEVICES='" + text + "': device " + item + " is named twice"};
    }
    devices.push_back(d);
  }
  if (devices.empty()) return Error{"UCUDNN_BENCHMARK_DEVICES is empty (use all or 0,1,...)"};
  return devices;
}

}  // namespace ucudnn
