#include "runtime/random_fill.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <utility>
#include <vector>

#include "runtime/descriptors.h"

namespace ucudnn::runtime {
namespace {

std::uint32_t float_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// IEEE half from a float in [-1, 1]: round to nearest, tiny values flushed to zero.
std::uint16_t to_half(float f) {
  const std::uint32_t bits = float_bits(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const int exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  if (exponent <= 0) return sign;
  const std::uint32_t mantissa = bits & 0x7fffffu;
  std::uint32_t half = (static_cast<std::uint32_t>(exponent) << 10) | (mantissa >> 13);
  if (mantissa & 0x1000u) ++half;  // round half up: carries into the exponent correctly
  return static_cast<std::uint16_t>(sign | half);
}

std::uint16_t to_bfloat16(float f) { return static_cast<std::uint16_t>(float_bits(f) >> 16); }

template <typename T>
void append_value(std::vector<unsigned char>& bytes, T value) {
  unsigned char raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

constexpr std::size_t kBlockElements = std::size_t{1} << 20;

// One block of random values of a data type, made on the host.
std::vector<unsigned char> make_block(int data_type, std::size_t size, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<unsigned char> bytes;
  bytes.reserve(kBlockElements * size);
  for (std::size_t i = 0; i < kBlockElements; ++i) {
    switch (static_cast<cudnnDataType_t>(data_type)) {
      case CUDNN_DATA_FLOAT: append_value(bytes, real(rng)); break;
      case CUDNN_DATA_DOUBLE: append_value(bytes, static_cast<double>(real(rng))); break;
      case CUDNN_DATA_HALF: append_value(bytes, to_half(real(rng))); break;
      case CUDNN_DATA_BFLOAT16: append_value(bytes, to_bfloat16(real(rng))); break;
      case CUDNN_DATA_INT32: append_value(bytes, static_cast<std::int32_t>(small(rng))); break;
      case CUDNN_DATA_INT64: append_value(bytes, static_cast<std::int64_t>(small(rng))); break;
      case CUDNN_DATA_INT8: append_value(bytes, static_cast<std::int8_t>(small(rng))); break;
      case CUDNN_DATA_UINT8: append_value(bytes, static_cast<std::uint8_t>(small(rng) + 8)); break;
      default:  // FP8: a random sign and a small exponent and mantissa: finite in E4M3 and E5M2
        append_value(bytes, static_cast<std::uint8_t>((rng() & 0x80u) | (rng() & 0x3fu)));
        break;
    }
  }
  return bytes;
}

// The process's blocks, made once per (data type, seed): making a block costs milliseconds, and
// every benchmarked kernel fills three buffers.
const std::vector<unsigned char>& random_block(int data_type, std::size_t size, std::uint32_t seed) {
  static std::mutex mutex;
  static auto* blocks = new std::map<std::pair<int, std::uint32_t>, std::vector<unsigned char>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto& block = (*blocks)[{data_type, seed}];
  if (block.empty()) block = make_block(data_type, size, seed);
  return block;  // never erased: the reference stays valid
}

}  // namespace

Status fill_random(DeviceBuffer& buffer, int data_type, std::size_t elements, std::uint32_t seed) {
  const std::size_t size = element_size(data_type);
  if (size == 0) return Error(ErrorCode::kNotSupported, "no random fill for data type " + std::to_string(data_type));
  if (elements * size > buffer.size()) return Error(ErrorCode::kInternal, "random fill larger than the buffer");
  if (elements == 0) return Status::success();
  // A block of random values made on the host, then repeated on the device by doubling copies:
  // generating hundreds of millions of values on the host would dominate benchmarking time.
  const std::vector<unsigned char>& block = random_block(data_type, size, seed);
  const std::size_t total = elements * size;
  const std::size_t uploaded = std::min(block.size(), total);
  UCUDNN_TRY(buffer.upload(block.data(), uploaded));
  auto* base = static_cast<unsigned char*>(buffer.get());
  for (std::size_t filled = uploaded; filled < total;) {
    const std::size_t chunk = std::min(filled, total - filled);
    UCUDNN_CHECK_CUDA(cudaMemcpy(base + filled, base, chunk, cudaMemcpyDeviceToDevice));
    filled += chunk;
  }
  return Status::success();
}

}  // namespace ucudnn::runtime
