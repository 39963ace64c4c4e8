#pragma once
// Owning device memory (cudaMalloc/cudaFree), move-only.

#include <cstddef>

#include "runtime/cuda_status.h"

namespace ucudnn::runtime {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Frees what is held, then allocates `bytes` (nothing for 0).
  Status allocate(std::size_t bytes);
  /// Copies `bytes` from host memory to the start of the buffer (synchronous).
  Status upload(const void* host, std::size_t bytes);

  void* get() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void release();
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ucudnn::runtime
