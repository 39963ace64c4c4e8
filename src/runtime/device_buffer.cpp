#include "runtime/device_buffer.h"

#include <cuda_runtime_api.h>

#include <utility>

namespace ucudnn::runtime {

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void DeviceBuffer::release() {
  if (data_) cudaFree(data_);
  data_ = nullptr;
  size_ = 0;
}

Status DeviceBuffer::allocate(std::size_t bytes) {
  release();
  if (bytes == 0) return Status::success();
  UCUDNN_CHECK_CUDA(cudaMalloc(&data_, bytes));
  size_ = bytes;
  return Status::success();
}

Status DeviceBuffer::upload(const void* host, std::size_t bytes) {
  if (bytes > size_) return Error(ErrorCode::kInternal, "upload larger than the device buffer");
  UCUDNN_CHECK_CUDA(cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice));
  return Status::success();
}

}  // namespace ucudnn::runtime
