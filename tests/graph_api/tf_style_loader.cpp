// A program that loads cuDNN the way TensorFlow's stream executor does, and runs convolutions
// through cudnn-frontend's graph API (and, for comparison, the legacy API) on that handle.
//
//   tf_style_loader [--seed N] [--dtypes float,half,bfloat16] [--ops fprop,dgrad,wgrad]
//                   [--api graph,legacy] [--executions N] [--batch N] [--max-workspace SIZE]
//                   [--allow-tf32] [--tolerance DTYPE=VALUE] [--library NAME]
//   tf_style_loader --self-test     the CPU reference and conversions alone (no cuDNN, no GPU)
//
// TensorFlow does not link cuDNN: it calls dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL) and
// looks every function up with dlsym on that handle (tsl's DsoLoader and cudnn_stub.cc); its
// convolutions are cudnn-frontend execution plans. This program does the same: it does not link
// libcudnn (check with `nm -D --undefined-only tf_style_loader | grep cudnn`: nothing), every
// cuDNN call it makes goes through a function-pointer table filled by dlsym on that handle, and
// cudnn-frontend is compiled with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING, its global
// cudnn_frontend::cudnn_dlhandle set to the same handle, so the frontend's backend calls
// (cudnnBackendCreateDescriptor ... cudnnBackendExecute) are dlsym'd on it too.
//
// For each data type (FP32 NCHW, FP16 NHWC, BF16 NHWC), shape and operation (forward, backward
// data, backward filter) it builds a one-convolution graph (conv_fprop / conv_dgrad / conv_wgrad),
// executes it with the workspace the plan reports, and checks the result against a CPU reference
// in double precision. Inputs are fresh random numbers every run (the seed is printed; --seed
// repeats a run), multiples of 1/64 in [-1, 1] without zero, exact in every data type, so that the
// reference sees exactly the values the GPU sees. Each case executes --executions times (2: a
// repeated call with the same buffers is where ucudnn replays a captured graph), the output buffer
// filled with NaN before every execution: an element that no kernel wrote shows up as a NaN error.
//
// Tolerances are on max |result - reference| / max |reference| per case:
//   float     5e-3  cuDNN's FP32 algorithms that ucudnn may choose (Winograd, FFT; TF32 engines
//                   where --allow-tf32) stay well below; a lost, repeated or misplaced micro-batch
//                   gives NaN (forward, backward data) or errors of order 1e-1 and more (backward
//                   filter: one of 16 or 32 samples' share of the sum).
//   half      5e-3  the FP16 output's rounding (2^-11 of each value) plus FP32 accumulation order
//   bfloat16  2e-2  the BF16 output's rounding (2^-8 of each value) plus accumulation order
//
// One line per case: `OP DTYPE LAYOUT SHAPE: max error X (tolerance T) workspace W bytes ok|FAIL`
// (OP: fprop, dgrad, wgrad through the graph API; legacy-fprop, ... through the legacy API), then
// `PASSED`/`FAILED`. A case for which cuDNN has no engine (the frontend's heuristics or support
// check say GRAPH_NOT_SUPPORTED, or Get*Algorithm_v7 offers nothing) prints `unsupported` and does
// not fail; `unsupported cases: N` counts them, for a preloaded run to be compared with a plain one.
// --max-workspace SIZE fails a case whose plan (graph) or algorithm (legacy) needs more workspace.
// Exit status 0 when every case passes, 1 when one fails, 2 when the program cannot start (no cuDNN
// to load, no GPU).

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#ifndef NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING
#error "build with -DNV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING: cudnn-frontend must dlsym its backend calls"
#endif
#include <cudnn_frontend.h>

// cudnn-frontend's dynamic loading looks every backend function up on this handle.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}

namespace fe = cudnn_frontend;

namespace {

// ---------------------------------------------------------------------------------------------
// The function-pointer table, as TensorFlow's cudnn_stub.cc builds it: dlsym on the handle.

struct CudnnApi {
  decltype(&cudnnGetVersion) GetVersion = nullptr;
  decltype(&cudnnGetErrorString) GetErrorString = nullptr;
  decltype(&cudnnCreate) Create = nullptr;
  decltype(&cudnnDestroy) Destroy = nullptr;
  decltype(&cudnnSetStream) SetStream = nullptr;
  decltype(&cudnnCreateTensorDescriptor) CreateTensorDescriptor = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) SetTensor4dDescriptor = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) DestroyTensorDescriptor = nullptr;
  decltype(&cudnnCreateFilterDescriptor) CreateFilterDescriptor = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) SetFilter4dDescriptor = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) DestroyFilterDescriptor = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) CreateConvolutionDescriptor = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) SetConvolution2dDescriptor = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) SetConvolutionGroupCount = nullptr;
  decltype(&cudnnSetConvolutionMathType) SetConvolutionMathType = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) DestroyConvolutionDescriptor = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) GetConvolutionForwardAlgorithm_v7 = nullptr;
  decltype(&cudnnGetConvolutionBackwardDataAlgorithm_v7) GetConvolutionBackwardDataAlgorithm_v7 = nullptr;
  decltype(&cudnnGetConvolutionBackwardFilterAlgorithm_v7) GetConvolutionBackwardFilterAlgorithm_v7 = nullptr;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) GetConvolutionForwardWorkspaceSize = nullptr;
  decltype(&cudnnGetConvolutionBackwardDataWorkspaceSize) GetConvolutionBackwardDataWorkspaceSize = nullptr;
  decltype(&cudnnGetConvolutionBackwardFilterWorkspaceSize) GetConvolutionBackwardFilterWorkspaceSize = nullptr;
  decltype(&cudnnConvolutionForward) ConvolutionForward = nullptr;
  decltype(&cudnnConvolutionBackwardData) ConvolutionBackwardData = nullptr;
  decltype(&cudnnConvolutionBackwardFilter) ConvolutionBackwardFilter = nullptr;
};

template <typename F>
bool load_symbol(void* handle, const char* name, F& slot, std::string& missing) {
  dlerror();
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    missing += std::string(missing.empty() ? "" : ", ") + name;
    return false;
  }
  slot = reinterpret_cast<F>(symbol);
  return true;
}

bool load_api(void* handle, CudnnApi& api, std::string& missing) {
  bool ok = true;
#define UCUDNN_LOAD(name) ok &= load_symbol(handle, "cudnn" #name, api.name, missing)
  UCUDNN_LOAD(GetVersion);
  UCUDNN_LOAD(GetErrorString);
  UCUDNN_LOAD(Create);
  UCUDNN_LOAD(Destroy);
  UCUDNN_LOAD(SetStream);
  UCUDNN_LOAD(CreateTensorDescriptor);
  UCUDNN_LOAD(SetTensor4dDescriptor);
  UCUDNN_LOAD(DestroyTensorDescriptor);
  UCUDNN_LOAD(CreateFilterDescriptor);
  UCUDNN_LOAD(SetFilter4dDescriptor);
  UCUDNN_LOAD(DestroyFilterDescriptor);
  UCUDNN_LOAD(CreateConvolutionDescriptor);
  UCUDNN_LOAD(SetConvolution2dDescriptor);
  UCUDNN_LOAD(SetConvolutionGroupCount);
  UCUDNN_LOAD(SetConvolutionMathType);
  UCUDNN_LOAD(DestroyConvolutionDescriptor);
  UCUDNN_LOAD(GetConvolutionForwardAlgorithm_v7);
  UCUDNN_LOAD(GetConvolutionBackwardDataAlgorithm_v7);
  UCUDNN_LOAD(GetConvolutionBackwardFilterAlgorithm_v7);
  UCUDNN_LOAD(GetConvolutionForwardWorkspaceSize);
  UCUDNN_LOAD(GetConvolutionBackwardDataWorkspaceSize);
  UCUDNN_LOAD(GetConvolutionBackwardFilterWorkspaceSize);
  UCUDNN_LOAD(ConvolutionForward);
  UCUDNN_LOAD(ConvolutionBackwardData);
  UCUDNN_LOAD(ConvolutionBackwardFilter);
#undef UCUDNN_LOAD
  return ok;
}

CudnnApi api;

/// Which file a dlsym'd function comes from (the preload library, or cuDNN itself).
std::string origin_of(void* handle, const char* name) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) return "(not found)";
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "(unknown object)";
  return info.dli_fname;
}

// ---------------------------------------------------------------------------------------------
// Errors: a case fails with a message, the program goes on with the next case.

struct CaseError {
  std::string message;
  bool unsupported = false;  ///< cuDNN offers nothing for this case: reported, not a failure
};

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CaseError{std::string(what) + ": " + cudaGetErrorString(status)};
}

void check_cudnn(cudnnStatus_t status, const char* what, bool may_be_unsupported = false) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  // CUDNN_STATUS_NOT_SUPPORTED and its cuDNN 9 sub-codes (3000-3999).
  const bool unsupported = may_be_unsupported && static_cast<int>(status) / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000;
  throw CaseError{std::string(what) + ": " + api.GetErrorString(status), unsupported};
}

/// `may_be_unsupported`: at the steps where cuDNN says whether it has an engine for the graph
/// (heuristics, support check), "not supported" is an answer rather than a failure.
void check_fe(fe::error_t status, const char* what, bool may_be_unsupported = false) {
  if (status.is_good()) return;
  const bool unsupported = may_be_unsupported && (status.get_code() == fe::error_code_t::GRAPH_NOT_SUPPORTED ||
                                                  status.get_code() == fe::error_code_t::HEURISTIC_QUERY_FAILED);
  throw CaseError{std::string(what) + ": " + status.get_message(), unsupported};
}

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (bytes > 0) check_cuda(cudaMalloc(&ptr, bytes), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// ---------------------------------------------------------------------------------------------
// Data types: values are multiples of 1/64 in [-1, 1], exact in FP32, FP16 and BF16.

enum class DType { kFloat, kHalf, kBfloat16 };

size_t dtype_size(DType t) { return t == DType::kFloat ? 4 : 2; }

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// float -> IEEE half, round to nearest even (NaN and infinities kept; the inputs are exact).
uint16_t float_to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exponent = (x >> 23) & 0xffu;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {  // subnormal half (or zero)
    if (e < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent
  return static_cast<uint16_t>(sign | half);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  return bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

uint16_t float_to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float bfloat16_to_float(uint16_t b) { return bits_float(static_cast<uint32_t>(b) << 16); }

/// Host copy of a device tensor's bytes, read and written as double.
struct HostTensor {
  DType dtype;
  std::vector<unsigned char> bytes;
  HostTensor(DType t, size_t elements) : dtype(t), bytes(elements * dtype_size(t)) {}
  size_t size() const { return bytes.size() / dtype_size(dtype); }
  double get(size_t i) const {
    if (dtype == DType::kFloat) {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      return f;
    }
    uint16_t u;
    std::memcpy(&u, &bytes[i * 2], 2);
    return dtype == DType::kHalf ? half_to_float(u) : bfloat16_to_float(u);
  }
  void set(size_t i, double value) {
    const float f = static_cast<float>(value);
    if (dtype == DType::kFloat) {
      std::memcpy(&bytes[i * 4], &f, 4);
      return;
    }
    const uint16_t u = dtype == DType::kHalf ? float_to_half(f) : float_to_bfloat16(f);
    std::memcpy(&bytes[i * 2], &u, 2);
  }
};

// ---------------------------------------------------------------------------------------------
// Shapes and layouts.

enum class Layout { kNCHW, kNHWC };

struct Shape {
  int64_t n, c, h, w;   // input
  int64_t k, r, s;      // output channels, filter height and width
  int64_t pad, stride, dilation, groups;
  int64_t p() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int64_t q() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
  int64_t cg() const { return c / groups; }
  int64_t kg() const { return k / groups; }
  std::string describe() const {
    std::ostringstream out;
    out << "n" << n << " c" << c << "->k" << k << " " << h << "x" << w << " filter " << r << "x" << s << " stride "
        << stride << " pad " << pad << " dilation " << dilation << " groups " << groups;
    return out.str();
  }
};

/// Dimensions (N, C, H, W order, as cuDNN wants them) and strides of a tensor in a layout.
std::vector<int64_t> strides_of(Layout layout, int64_t, int64_t c, int64_t h, int64_t w) {
  if (layout == Layout::kNCHW) return {c * h * w, h * w, w, 1};
  return {h * w * c, 1, w * c, c};
}

/// Offset of element (a, b, y, x) of a 4-d tensor with dims (A, B, Y, X) in a layout.
struct Indexer {
  Layout layout;
  int64_t A, B, Y, X;
  size_t operator()(int64_t a, int64_t b, int64_t y, int64_t x) const {
    if (layout == Layout::kNCHW) return static_cast<size_t>(((a * B + b) * Y + y) * X + x);
    return static_cast<size_t>(((a * Y + y) * X + x) * B + b);
  }
  size_t count() const { return static_cast<size_t>(A * B * Y * X); }
};

// ---------------------------------------------------------------------------------------------
// The CPU reference, in double, on logical NCHW arrays (KCRS for filters), on all cores.

void parallel_for(int64_t count, const std::function<void(int64_t)>& body) {
  const int64_t threads = std::max<int64_t>(1, std::min<int64_t>(count, std::thread::hardware_concurrency()));
  std::atomic<int64_t> next{0};
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int64_t i = next++; i < count; i = next++) body(i);
    });
  }
  for (auto& thread : pool) thread.join();
}

std::vector<double> reference_fprop(const Shape& d, const std::vector<double>& x, const std::vector<double>& w) {
  const int64_t P = d.p(), Q = d.q(), Cg = d.cg(), Kg = d.kg();
  std::vector<double> y(static_cast<size_t>(d.n * d.k * P * Q));
  parallel_for(d.n * d.k, [&](int64_t nk) {
    const int64_t n = nk / d.k, k = nk % d.k, g = k / Kg;
    double* out = &y[static_cast<size_t>(nk * P * Q)];
    for (int64_t ci = 0; ci < Cg; ++ci) {
      const int64_t c = g * Cg + ci;
      const double* in = &x[static_cast<size_t>((n * d.c + c) * d.h * d.w)];
      for (int64_t r = 0; r < d.r; ++r) {
        for (int64_t s = 0; s < d.s; ++s) {
          const double weight = w[static_cast<size_t>(((k * Cg + ci) * d.r + r) * d.s + s)];
          for (int64_t p = 0; p < P; ++p) {
            const int64_t hh = p * d.stride - d.pad + r * d.dilation;
            if (hh < 0 || hh >= d.h) continue;
            for (int64_t q = 0; q < Q; ++q) {
              const int64_t ww = q * d.stride - d.pad + s * d.dilation;
              if (ww < 0 || ww >= d.w) continue;
              out[p * Q + q] += weight * in[hh * d.w + ww];
            }
          }
        }
      }
    }
  });
  return y;
}

std::vector<double> reference_dgrad(const Shape& d, const std::vector<double>& dy, const std::vector<double>& w) {
  const int64_t P = d.p(), Q = d.q(), Cg = d.cg(), Kg = d.kg();
  std::vector<double> dx(static_cast<size_t>(d.n * d.c * d.h * d.w));
  parallel_for(d.n * d.c, [&](int64_t nc) {
    const int64_t n = nc / d.c, c = nc % d.c, g = c / Cg, ci = c % Cg;
    double* out = &dx[static_cast<size_t>(nc * d.h * d.w)];
    for (int64_t ki = 0; ki < Kg; ++ki) {
      const int64_t k = g * Kg + ki;
      const double* in = &dy[static_cast<size_t>((n * d.k + k) * P * Q)];
      for (int64_t r = 0; r < d.r; ++r) {
        for (int64_t s = 0; s < d.s; ++s) {
          const double weight = w[static_cast<size_t>(((k * Cg + ci) * d.r + r) * d.s + s)];
          for (int64_t p = 0; p < P; ++p) {
            const int64_t hh = p * d.stride - d.pad + r * d.dilation;
            if (hh < 0 || hh >= d.h) continue;
            for (int64_t q = 0; q < Q; ++q) {
              const int64_t ww = q * d.stride - d.pad + s * d.dilation;
              if (ww < 0 || ww >= d.w) continue;
              out[hh * d.w + ww] += weight * in[p * Q + q];
            }
          }
        }
      }
    }
  });
  return dx;
}

std::vector<double> reference_wgrad(const Shape& d, const std::vector<double>& x, const std::vector<double>& dy) {
  const int64_t P = d.p(), Q = d.q(), Cg = d.cg(), Kg = d.kg();
  std::vector<double> dw(static_cast<size_t>(d.k * Cg * d.r * d.s));
  parallel_for(d.k * Cg, [&](int64_t kc) {
    const int64_t k = kc / Cg, ci = kc % Cg, g = k / Kg, c = g * Cg + ci;
    double* out = &dw[static_cast<size_t>(kc * d.r * d.s)];
    for (int64_t n = 0; n < d.n; ++n) {
      const double* in = &x[static_cast<size_t>((n * d.c + c) * d.h * d.w)];
      const double* grad = &dy[static_cast<size_t>((n * d.k + k) * P * Q)];
      for (int64_t r = 0; r < d.r; ++r) {
        for (int64_t s = 0; s < d.s; ++s) {
          double sum = 0;
          for (int64_t p = 0; p < P; ++p) {
            const int64_t hh = p * d.stride - d.pad + r * d.dilation;
            if (hh < 0 || hh >= d.h) continue;
            for (int64_t q = 0; q < Q; ++q) {
              const int64_t ww = q * d.stride - d.pad + s * d.dilation;
              if (ww < 0 || ww >= d.w) continue;
              sum += grad[p * Q + q] * in[hh * d.w + ww];
            }
          }
          out[r * d.s + s] += sum;
        }
      }
    }
  });
  return dw;
}

// ---------------------------------------------------------------------------------------------
// One (shape, data type): random inputs in the layout, their logical double copies, references.

struct Operands {
  Shape d;
  DType dtype;
  Layout layout;
  Indexer xi, wi, yi;                  // x (N,C,H,W), w (K,C/g,R,S), y and dy (N,K,P,Q)
  HostTensor x, w, dy;                 // in the layout, in the data type
  std::vector<double> xd, wd, dyd;     // logical NCHW / KCRS / NKPQ
  std::map<std::string, std::vector<double>> reference;  // by op, logical order

  Operands(const Shape& shape, DType t, Layout l, std::mt19937_64& rng)
      : d(shape), dtype(t), layout(l), xi{l, shape.n, shape.c, shape.h, shape.w},
        wi{l, shape.k, shape.cg(), shape.r, shape.s}, yi{l, shape.n, shape.k, shape.p(), shape.q()},
        x(t, xi.count()), w(t, wi.count()), dy(t, yi.count()) {
    fill(x, xd, xi, rng);
    fill(w, wd, wi, rng);
    fill(dy, dyd, yi, rng);
  }

  static void fill(HostTensor& tensor, std::vector<double>& logical, const Indexer& index, std::mt19937_64& rng) {
    std::uniform_int_distribution<int> pick(1, 128);  // 1..64 -> -1..-1/64, 65..128 -> 1/64..1
    logical.assign(index.count(), 0.0);
    for (int64_t a = 0; a < index.A; ++a)
      for (int64_t b = 0; b < index.B; ++b)
        for (int64_t y = 0; y < index.Y; ++y)
          for (int64_t xx = 0; xx < index.X; ++xx) {
            const int v = pick(rng);
            const double value = (v <= 64 ? -v : v - 64) / 64.0;
            tensor.set(index(a, b, y, xx), value);
            logical[static_cast<size_t>(((a * index.B + b) * index.Y + y) * index.X + xx)] = value;
          }
  }

  const std::vector<double>& reference_for(const std::string& op) {
    auto found = reference.find(op);
    if (found != reference.end()) return found->second;
    std::vector<double> result = op == "fprop"   ? reference_fprop(d, xd, wd)
                                 : op == "dgrad" ? reference_dgrad(d, dyd, wd)
                                                 : reference_wgrad(d, xd, dyd);
    return reference.emplace(op, std::move(result)).first->second;
  }

  /// The output's indexer and element count for an op.
  const Indexer& output_index(const std::string& op) const {
    return op == "fprop" ? yi : op == "dgrad" ? xi : wi;
  }
};

/// max |result - reference| / max |reference|, NaN when an element is not finite.
double relative_error(const HostTensor& result, const Indexer& index, const std::vector<double>& reference) {
  double scale = 0, error = 0;
  for (double v : reference) scale = std::max(scale, std::fabs(v));
  if (scale == 0) scale = 1;
  for (int64_t a = 0; a < index.A; ++a)
    for (int64_t b = 0; b < index.B; ++b)
      for (int64_t y = 0; y < index.Y; ++y)
        for (int64_t x = 0; x < index.X; ++x) {
          const double got = result.get(index(a, b, y, x));
          const double want = reference[static_cast<size_t>(((a * index.B + b) * index.Y + y) * index.X + x)];
          if (!std::isfinite(got)) return std::nan("");
          error = std::max(error, std::fabs(got - want));
        }
  return error / scale;
}

// ---------------------------------------------------------------------------------------------
// The graph API (cudnn-frontend v1): one convolution per graph.

fe::DataType_t fe_type(DType t) {
  switch (t) {
    case DType::kFloat: return fe::DataType_t::FLOAT;
    case DType::kHalf: return fe::DataType_t::HALF;
    case DType::kBfloat16: return fe::DataType_t::BFLOAT16;
  }
  return fe::DataType_t::FLOAT;
}

struct Options {
  unsigned long long seed = 0;
  bool seed_given = false;
  std::vector<std::string> dtypes{"float", "half", "bfloat16"};
  std::vector<std::string> ops{"fprop", "dgrad", "wgrad"};
  std::vector<std::string> apis{"graph", "legacy"};
  int executions = 2;
  int64_t batch = 0;
  long long max_workspace = -1;
  bool allow_tf32 = false;
  std::map<std::string, double> tolerance{{"float", 5e-3}, {"half", 5e-3}, {"bfloat16", 2e-2}};
  std::string library = "libcudnn.so.9";
};

struct Device {
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
};

struct CaseResult {
  double error = 0;          // the largest over the executions
  long long workspace = 0;   // bytes
  std::string note;
};

/// Executes `run` options.executions times on a NaN-filled output, returns the largest error.
double execute_and_check(Operands& o, const std::string& op, const Device& dev, void* output, const Options& options,
                         const std::function<void()>& run) {
  const Indexer& index = o.output_index(op);
  const size_t bytes = index.count() * dtype_size(o.dtype);
  HostTensor result(o.dtype, index.count());
  const std::vector<double>& reference = o.reference_for(op);
  double worst = 0;
  for (int e = 0; e < options.executions; ++e) {
    check_cuda(cudaMemsetAsync(output, 0xff, bytes, dev.stream), "cudaMemsetAsync (NaN fill)");
    run();
    check_cuda(cudaMemcpyAsync(result.bytes.data(), output, bytes, cudaMemcpyDeviceToHost, dev.stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(dev.stream), "cudaStreamSynchronize");
    const double error = relative_error(result, index, reference);
    if (std::isnan(error)) return error;
    worst = std::max(worst, error);
  }
  return worst;
}

struct Buffers {
  DeviceBuffer x, w, y;  // y: the forward output or the incoming gradient dy
  Buffers(const Operands& o)
      : x(o.x.bytes.size()), w(o.w.bytes.size()), y(o.dy.bytes.size()) {}
};

CaseResult run_graph(Operands& o, const std::string& op, const Device& dev, const Options& options) {
  const Shape& d = o.d;
  fe::graph::Graph graph;
  graph.set_io_data_type(fe_type(o.dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  auto tensor = [&](const char* name, const Indexer& i) {
    return graph.tensor(fe::graph::Tensor_attributes()
                            .set_name(name)
                            .set_dim({i.A, i.B, i.Y, i.X})
                            .set_stride(strides_of(o.layout, i.A, i.B, i.Y, i.X))
                            .set_data_type(fe_type(o.dtype)));
  };
  const std::vector<int64_t> pad{d.pad, d.pad}, stride{d.stride, d.stride}, dilation{d.dilation, d.dilation};
  std::shared_ptr<fe::graph::Tensor_attributes> in0, in1, out;
  if (op == "fprop") {
    in0 = tensor("x", o.xi);
    in1 = tensor("w", o.wi);
    out = graph.conv_fprop(in0, in1, fe::graph::Conv_fprop_attributes().set_padding(pad).set_stride(stride).set_dilation(dilation));
    out->set_dim({o.yi.A, o.yi.B, o.yi.Y, o.yi.X}).set_stride(strides_of(o.layout, o.yi.A, o.yi.B, o.yi.Y, o.yi.X));
  } else if (op == "dgrad") {
    in0 = tensor("dy", o.yi);
    in1 = tensor("w", o.wi);
    out = graph.conv_dgrad(in0, in1, fe::graph::Conv_dgrad_attributes().set_padding(pad).set_stride(stride).set_dilation(dilation));
    out->set_dim({o.xi.A, o.xi.B, o.xi.Y, o.xi.X}).set_stride(strides_of(o.layout, o.xi.A, o.xi.B, o.xi.Y, o.xi.X));
  } else {
    in0 = tensor("dy", o.yi);
    in1 = tensor("x", o.xi);
    out = graph.conv_wgrad(in0, in1, fe::graph::Conv_wgrad_attributes().set_padding(pad).set_stride(stride).set_dilation(dilation));
    out->set_dim({o.wi.A, o.wi.B, o.wi.Y, o.wi.X}).set_stride(strides_of(o.layout, o.wi.A, o.wi.B, o.wi.Y, o.wi.X));
  }
  out->set_output(true).set_data_type(fe_type(o.dtype));

  check_fe(graph.validate(), "graph.validate");
  check_fe(graph.build_operation_graph(dev.handle), "graph.build_operation_graph");
  check_fe(graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}), "graph.create_execution_plans", true);
  // PyTorch's and TensorFlow's FP32 without TF32: no tensor-core engines.
  if (o.dtype == DType::kFloat && !options.allow_tf32) graph.deselect_numeric_notes({fe::NumericalNote_t::TENSOR_CORE});
  check_fe(graph.check_support(dev.handle), "graph.check_support", true);
  check_fe(graph.build_plans(dev.handle, fe::BuildPlanPolicy_t::HEURISTICS_CHOICE), "graph.build_plans");
  int64_t workspace_bytes = 0;
  check_fe(graph.get_workspace_size(workspace_bytes), "graph.get_workspace_size");

  Buffers buffers(o);
  check_cuda(cudaMemcpy(buffers.x.ptr, o.x.bytes.data(), o.x.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy x");
  check_cuda(cudaMemcpy(buffers.w.ptr, o.w.bytes.data(), o.w.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy w");
  check_cuda(cudaMemcpy(buffers.y.ptr, o.dy.bytes.data(), o.dy.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy dy");
  DeviceBuffer workspace(static_cast<size_t>(workspace_bytes));
  std::unordered_map<std::shared_ptr<fe::graph::Tensor_attributes>, void*> pack;
  void* output = nullptr;
  if (op == "fprop") {
    pack = {{in0, buffers.x.ptr}, {in1, buffers.w.ptr}, {out, buffers.y.ptr}};
    output = buffers.y.ptr;
  } else if (op == "dgrad") {
    pack = {{in0, buffers.y.ptr}, {in1, buffers.w.ptr}, {out, buffers.x.ptr}};
    output = buffers.x.ptr;
  } else {
    pack = {{in0, buffers.y.ptr}, {in1, buffers.x.ptr}, {out, buffers.w.ptr}};
    output = buffers.w.ptr;
  }
  CaseResult result;
  result.workspace = workspace_bytes;
  result.error = execute_and_check(o, op, dev, output, options, [&] {
    check_fe(graph.execute(dev.handle, pack, workspace.ptr), "graph.execute");
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The legacy API, as TensorFlow's non-frontend path: the first algorithm Get*_v7 offers.

struct LegacyDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~LegacyDescriptors() {
    if (x) api.DestroyTensorDescriptor(x);
    if (y) api.DestroyTensorDescriptor(y);
    if (w) api.DestroyFilterDescriptor(w);
    if (conv) api.DestroyConvolutionDescriptor(conv);
  }
};

cudnnDataType_t cudnn_type(DType t) {
  switch (t) {
    case DType::kFloat: return CUDNN_DATA_FLOAT;
    case DType::kHalf: return CUDNN_DATA_HALF;
    case DType::kBfloat16: return CUDNN_DATA_BFLOAT16;
  }
  return CUDNN_DATA_FLOAT;
}

template <typename Perf>
const Perf* first_usable(const Perf* perf, int count) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) return &perf[i];
  return nullptr;
}

CaseResult run_legacy(Operands& o, const std::string& op, const Device& dev, const Options& options) {
  const Shape& d = o.d;
  const cudnnTensorFormat_t format = o.layout == Layout::kNCHW ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  const cudnnDataType_t type = cudnn_type(o.dtype);
  LegacyDescriptors desc;
  check_cudnn(api.CreateTensorDescriptor(&desc.x), "cudnnCreateTensorDescriptor");
  check_cudnn(api.CreateTensorDescriptor(&desc.y), "cudnnCreateTensorDescriptor");
  check_cudnn(api.CreateFilterDescriptor(&desc.w), "cudnnCreateFilterDescriptor");
  check_cudnn(api.CreateConvolutionDescriptor(&desc.conv), "cudnnCreateConvolutionDescriptor");
  check_cudnn(api.SetTensor4dDescriptor(desc.x, format, type, int(d.n), int(d.c), int(d.h), int(d.w)), "cudnnSetTensor4dDescriptor x");
  check_cudnn(api.SetTensor4dDescriptor(desc.y, format, type, int(d.n), int(d.k), int(d.p()), int(d.q())), "cudnnSetTensor4dDescriptor y");
  check_cudnn(api.SetFilter4dDescriptor(desc.w, type, format, int(d.k), int(d.cg()), int(d.r), int(d.s)), "cudnnSetFilter4dDescriptor");
  check_cudnn(api.SetConvolution2dDescriptor(desc.conv, int(d.pad), int(d.pad), int(d.stride), int(d.stride), int(d.dilation),
                                             int(d.dilation), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(api.SetConvolutionGroupCount(desc.conv, int(d.groups)), "cudnnSetConvolutionGroupCount");
  const cudnnMathType_t math = o.dtype != DType::kFloat ? CUDNN_TENSOR_OP_MATH
                               : options.allow_tf32     ? CUDNN_DEFAULT_MATH
                                                        : CUDNN_FMA_MATH;
  check_cudnn(api.SetConvolutionMathType(desc.conv, math), "cudnnSetConvolutionMathType");

  Buffers buffers(o);
  check_cuda(cudaMemcpy(buffers.x.ptr, o.x.bytes.data(), o.x.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy x");
  check_cuda(cudaMemcpy(buffers.w.ptr, o.w.bytes.data(), o.w.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy w");
  check_cuda(cudaMemcpy(buffers.y.ptr, o.dy.bytes.data(), o.dy.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy dy");
  const float one = 1.0f, zero = 0.0f;
  constexpr int kWanted = 16;
  int count = 0;
  size_t bytes = 0;
  CaseResult result;
  std::function<void()> run;
  std::unique_ptr<DeviceBuffer> workspace;
  void* output = nullptr;
  std::ostringstream note;
  if (op == "fprop") {
    cudnnConvolutionFwdAlgoPerf_t perf[kWanted];
    check_cudnn(api.GetConvolutionForwardAlgorithm_v7(dev.handle, desc.x, desc.w, desc.conv, desc.y, kWanted, &count, perf),
                "cudnnGetConvolutionForwardAlgorithm_v7", true);
    const auto* chosen = first_usable(perf, count);
    if (chosen == nullptr) throw CaseError{"no forward algorithm offered", true};
    check_cudnn(api.GetConvolutionForwardWorkspaceSize(dev.handle, desc.x, desc.w, desc.conv, desc.y, chosen->algo, &bytes),
                "cudnnGetConvolutionForwardWorkspaceSize");
    note << "algorithm " << chosen->algo;
    workspace = std::make_unique<DeviceBuffer>(bytes);
    output = buffers.y.ptr;
    run = [&, algo = chosen->algo] {
      check_cudnn(api.ConvolutionForward(dev.handle, &one, desc.x, buffers.x.ptr, desc.w, buffers.w.ptr, desc.conv, algo,
                                         workspace->ptr, bytes, &zero, desc.y, buffers.y.ptr),
                  "cudnnConvolutionForward");
    };
  } else if (op == "dgrad") {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kWanted];
    check_cudnn(api.GetConvolutionBackwardDataAlgorithm_v7(dev.handle, desc.w, desc.y, desc.conv, desc.x, kWanted, &count, perf),
                "cudnnGetConvolutionBackwardDataAlgorithm_v7", true);
    const auto* chosen = first_usable(perf, count);
    if (chosen == nullptr) throw CaseError{"no backward data algorithm offered", true};
    check_cudnn(api.GetConvolutionBackwardDataWorkspaceSize(dev.handle, desc.w, desc.y, desc.conv, desc.x, chosen->algo, &bytes),
                "cudnnGetConvolutionBackwardDataWorkspaceSize");
    note << "algorithm " << chosen->algo;
    workspace = std::make_unique<DeviceBuffer>(bytes);
    output = buffers.x.ptr;
    run = [&, algo = chosen->algo] {
      check_cudnn(api.ConvolutionBackwardData(dev.handle, &one, desc.w, buffers.w.ptr, desc.y, buffers.y.ptr, desc.conv, algo,
                                              workspace->ptr, bytes, &zero, desc.x, buffers.x.ptr),
                  "cudnnConvolutionBackwardData");
    };
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kWanted];
    check_cudnn(api.GetConvolutionBackwardFilterAlgorithm_v7(dev.handle, desc.x, desc.y, desc.conv, desc.w, kWanted, &count, perf),
                "cudnnGetConvolutionBackwardFilterAlgorithm_v7", true);
    const auto* chosen = first_usable(perf, count);
    if (chosen == nullptr) throw CaseError{"no backward filter algorithm offered", true};
    check_cudnn(api.GetConvolutionBackwardFilterWorkspaceSize(dev.handle, desc.x, desc.y, desc.conv, desc.w, chosen->algo, &bytes),
                "cudnnGetConvolutionBackwardFilterWorkspaceSize");
    note << "algorithm " << chosen->algo;
    workspace = std::make_unique<DeviceBuffer>(bytes);
    output = buffers.w.ptr;
    run = [&, algo = chosen->algo] {
      check_cudnn(api.ConvolutionBackwardFilter(dev.handle, &one, desc.x, buffers.x.ptr, desc.y, buffers.y.ptr, desc.conv, algo,
                                                workspace->ptr, bytes, &zero, desc.w, buffers.w.ptr),
                  "cudnnConvolutionBackwardFilter");
    };
  }
  result.workspace = static_cast<long long>(bytes);
  result.note = note.str();
  result.error = execute_and_check(o, op, dev, output, options, run);
  return result;
}

// ---------------------------------------------------------------------------------------------
// --self-test: the CPU side alone (no cuDNN, no GPU): the conversions, and the three references
// against each other (backward data and backward filter are the adjoints of forward:
// <dy, fprop(x, w)> = <dgrad(dy, w), x> = <wgrad(x, dy), w>) and forward against its definition.

int self_test() {
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    failures += !ok;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  };
  bool exact = true;
  for (int v = -64; v <= 64; ++v) {
    const float f = static_cast<float>(v / 64.0);
    exact &= half_to_float(float_to_half(f)) == f && bfloat16_to_float(float_to_bfloat16(f)) == f;
  }
  expect(exact, "multiples of 1/64 in [-1, 1] are exact in FP16 and BF16");
  expect(half_to_float(float_to_half(65504.0f)) == 65504.0f && half_to_float(float_to_half(1.0f + 1.0f / 4096)) == 1.0f &&
             std::isnan(half_to_float(0xffff)) && std::isnan(bfloat16_to_float(0xffff)),
         "FP16 rounding to nearest even, NaN fill reads as NaN");
  std::mt19937_64 rng(7);
  const std::vector<Shape> shapes{{3, 8, 9, 7, 6, 3, 3, 1, 1, 1, 1}, {2, 3, 13, 11, 4, 7, 7, 3, 2, 1, 1},
                                  {2, 4, 10, 9, 6, 3, 3, 2, 1, 2, 1}, {2, 8, 7, 8, 12, 3, 3, 1, 1, 1, 4},
                                  {2, 6, 9, 9, 4, 2, 3, 0, 2, 2, 2}};
  for (const Shape& d : shapes) {
    for (Layout layout : {Layout::kNCHW, Layout::kNHWC}) {
      Operands o(d, DType::kHalf, layout, rng);
      const auto& y = o.reference_for("fprop");
      const auto& dx = o.reference_for("dgrad");
      const auto& dw = o.reference_for("wgrad");
      double a = 0, b = 0, c = 0;
      for (size_t i = 0; i < y.size(); ++i) a += y[i] * o.dyd[i];
      for (size_t i = 0; i < dx.size(); ++i) b += dx[i] * o.xd[i];
      for (size_t i = 0; i < dw.size(); ++i) c += dw[i] * o.wd[i];
      const double scale = std::max(1.0, std::fabs(a));
      expect(std::fabs(a - b) <= 1e-9 * scale && std::fabs(a - c) <= 1e-9 * scale,
             d.describe() + ": <dy, fprop> = <dgrad, x> = <wgrad, w> (" + std::to_string(a) + ")");
      // Forward by its definition, element by element, reading the tensors in their layout.
      double worst = 0;
      for (int64_t n = 0; n < d.n; ++n)
        for (int64_t k = 0; k < d.k; ++k)
          for (int64_t p = 0; p < d.p(); ++p)
            for (int64_t q = 0; q < d.q(); ++q) {
              double sum = 0;
              for (int64_t c2 = 0; c2 < d.c; ++c2) {
                if (c2 / d.cg() != k / d.kg()) continue;
                for (int64_t r = 0; r < d.r; ++r)
                  for (int64_t s = 0; s < d.s; ++s) {
                    const int64_t h = p * d.stride - d.pad + r * d.dilation, w = q * d.stride - d.pad + s * d.dilation;
                    if (h < 0 || h >= d.h || w < 0 || w >= d.w) continue;
                    sum += o.x.get(o.xi(n, c2, h, w)) * o.w.get(o.wi(k, c2 % d.cg(), r, s));
                  }
              }
              worst = std::max(worst, std::fabs(sum - y[static_cast<size_t>(((n * d.k + k) * d.p() + p) * d.q() + q)]));
            }
      expect(worst == 0, d.describe() + (layout == Layout::kNCHW ? " NCHW" : " NHWC") + ": forward as defined");
    }
  }
  // relative_error reads the result in its layout.
  Operands o(shapes[3], DType::kBfloat16, Layout::kNHWC, rng);
  HostTensor result(DType::kBfloat16, o.yi.count());
  const auto& y = o.reference_for("fprop");
  for (int64_t n = 0; n < o.yi.A; ++n)
    for (int64_t k = 0; k < o.yi.B; ++k)
      for (int64_t p = 0; p < o.yi.Y; ++p)
        for (int64_t q = 0; q < o.yi.X; ++q)
          result.set(o.yi(n, k, p, q), y[static_cast<size_t>(((n * o.yi.B + k) * o.yi.Y + p) * o.yi.X + q)]);
  const double rounding = relative_error(result, o.yi, y);
  result.set(5, std::nan(""));
  expect(rounding < 4e-3 && std::isnan(relative_error(result, o.yi, y)),
         "relative error of a BF16-rounded result " + std::to_string(rounding) + ", NaN when an element is NaN");
  std::printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

long long parse_size(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  const std::string unit = end ? end : "";
  const double scale = unit.empty() || unit == "B" ? 1 : unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0 : unit == "GiB" ? 1073741824.0 : -1;
  if (end == text.c_str() || scale < 0 || value < 0) {
    std::fprintf(stderr, "tf_style_loader: error: bad size '%s' (bytes, or with KiB, MiB, GiB)\n", text.c_str());
    std::exit(2);
  }
  return static_cast<long long>(value * scale);
}

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr,
               "tf_style_loader: error: %s\n"
               "usage: tf_style_loader [--seed N] [--dtypes float,half,bfloat16] [--ops fprop,dgrad,wgrad]\n"
               "                       [--api graph,legacy] [--executions N] [--batch N] [--max-workspace SIZE]\n"
               "                       [--allow-tf32] [--tolerance DTYPE=VALUE] [--library NAME]\n"
               "       tf_style_loader --self-test\n",
               message);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--seed") {
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
      o.seed_given = true;
    } else if (arg == "--dtypes") {
      o.dtypes = split(value(), ',');
    } else if (arg == "--ops") {
      o.ops = split(value(), ',');
    } else if (arg == "--api") {
      o.apis = split(value(), ',');
    } else if (arg == "--executions") {
      o.executions = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--batch") {
      o.batch = std::atoll(value().c_str());
    } else if (arg == "--max-workspace") {
      o.max_workspace = parse_size(value());
    } else if (arg == "--allow-tf32") {
      o.allow_tf32 = true;
    } else if (arg == "--tolerance") {
      const std::string v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || !o.tolerance.count(v.substr(0, eq))) usage("--tolerance takes DTYPE=VALUE");
      o.tolerance[v.substr(0, eq)] = std::atof(v.c_str() + eq + 1);
    } else if (arg == "--library") {
      o.library = value();
    } else if (arg == "--self-test") {
      std::exit(self_test());
    } else if (arg == "--help" || arg == "-h") {
      std::printf("see the comment at the top of tests/graph_api/tf_style_loader.cpp\n");
      std::exit(0);
    } else {
      usage(("unknown argument " + arg).c_str());
    }
  }
  for (const auto& t : o.dtypes)
    if (!o.tolerance.count(t)) usage(("unknown data type " + t).c_str());
  for (const auto& op : o.ops)
    if (op != "fprop" && op != "dgrad" && op != "wgrad") usage(("unknown op " + op).c_str());
  for (const auto& a : o.apis)
    if (a != "graph" && a != "legacy") usage(("unknown api " + a).c_str());
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);

  // TensorFlow's way (tsl::internal::DsoLoader::GetCudnnDsoHandle): RTLD_LAZY | RTLD_LOCAL.
  dlerror();
  void* handle = dlopen(options.library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    std::fprintf(stderr, "tf_style_loader: cannot dlopen %s: %s\n", options.library.c_str(), why ? why : "unknown error");
    return 2;
  }
  std::string missing;
  if (!load_api(handle, api, missing)) {
    std::fprintf(stderr, "tf_style_loader: %s lacks: %s\n", options.library.c_str(), missing.c_str());
    return 2;
  }
  fe::cudnn_dlhandle = handle;
  // The frontend dlopens the CUDA runtime for a few calls; name the one this program links, so that
  // it neither warns about nor picks another major where both are installed.
  setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", ("libcudart.so." + std::to_string(CUDART_VERSION / 1000)).c_str(), 0);
  link_map* map = nullptr;
  const char* loaded = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name : "?";
  std::printf("dlopen(\"%s\", RTLD_LAZY | RTLD_LOCAL): %s, cudnnGetVersion() %zu, cudnn-frontend %d.%d.%d\n",
              options.library.c_str(), loaded, api.GetVersion(), CUDNN_FRONTEND_MAJOR_VERSION, CUDNN_FRONTEND_MINOR_VERSION,
              CUDNN_FRONTEND_PATCH_VERSION);
  for (const char* name : {"cudnnCreate", "cudnnBackendFinalize", "cudnnBackendExecute", "cudnnConvolutionForward", "cudnnGetVersion"})
    std::printf("dlsym(handle, \"%s\"): %s\n", name, origin_of(handle, name).c_str());

  int devices = 0;
  const cudaError_t device_status = cudaGetDeviceCount(&devices);
  if (device_status != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "tf_style_loader: no CUDA device (%s): nothing run\n",
                 device_status != cudaSuccess ? cudaGetErrorString(device_status) : "0 devices");
    return 2;
  }
  Device dev;
  if (cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::fprintf(stderr, "tf_style_loader: cudaStreamCreate failed\n");
    return 2;
  }
  const cudnnStatus_t created = api.Create(&dev.handle);
  if (created != CUDNN_STATUS_SUCCESS) {
    std::fprintf(stderr, "tf_style_loader: cudnnCreate: %s\n", api.GetErrorString(created));
    return 2;
  }
  api.SetStream(dev.handle, dev.stream);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);

  unsigned long long seed = options.seed;
  if (!options.seed_given) seed = (static_cast<unsigned long long>(std::random_device{}()) << 32) ^ std::random_device{}();
  std::printf("%s, seed %llu (--seed %llu repeats this run), %d executions per case, TF32 %s\n", prop.name, seed, seed,
              options.executions, options.allow_tf32 ? "allowed" : "off");
  std::mt19937_64 rng(seed);

  // n, c, h, w, k, r, s, pad, stride, dilation, groups
  std::vector<Shape> shapes{{32, 64, 28, 28, 64, 3, 3, 1, 1, 1, 1},
                            {16, 3, 64, 64, 32, 7, 7, 3, 2, 1, 1},
                            {16, 32, 32, 32, 48, 3, 3, 2, 1, 2, 1},
                            {16, 64, 32, 32, 64, 3, 3, 1, 1, 1, 4}};
  if (options.batch > 0)
    for (auto& s : shapes) s.n = options.batch;

  int cases = 0, failures = 0, unsupported_cases = 0;
  long long largest_graph_workspace = 0;
  for (const std::string& dtype_text : options.dtypes) {
    const DType dtype = dtype_text == "float" ? DType::kFloat : dtype_text == "half" ? DType::kHalf : DType::kBfloat16;
    const Layout layout = dtype == DType::kFloat ? Layout::kNCHW : Layout::kNHWC;
    const double tolerance = options.tolerance.at(dtype_text);
    for (const Shape& shape : shapes) {
      Operands operands(shape, dtype, layout, rng);
      for (const std::string& op : options.ops) {
        for (const std::string& which : options.apis) {
          ++cases;
          const std::string name = (which == "graph" ? "" : "legacy-") + op;
          CaseResult result;
          std::string failure;
          bool unsupported = false;
          try {
            result = which == "graph" ? run_graph(operands, op, dev, options) : run_legacy(operands, op, dev, options);
          } catch (const CaseError& error) {
            failure = error.message;
            unsupported = error.unsupported;
          } catch (const std::exception& error) {  // cudnn-frontend throws where a symbol is missing
            failure = error.what();
          }
          bool ok = failure.empty() && result.error <= tolerance;
          std::string extra;
          if (failure.empty()) {
            if (which == "graph") largest_graph_workspace = std::max(largest_graph_workspace, result.workspace);
            if (options.max_workspace >= 0 && result.workspace > options.max_workspace) {
              ok = false;
              extra = " (more than --max-workspace " + std::to_string(options.max_workspace) + ")";
            }
          }
          if (!result.note.empty()) extra += " (" + result.note + ")";
          const char* layout_name = layout == Layout::kNCHW ? "NCHW" : "NHWC";
          if (unsupported) {
            ++unsupported_cases;
            std::printf("%s %s %s %s: unsupported (%s)\n", name.c_str(), dtype_text.c_str(), layout_name,
                        shape.describe().c_str(), failure.c_str());
          } else if (failure.empty()) {
            failures += !ok;
            std::printf("%s %s %s %s: max error %.3e (tolerance %.1e) workspace %lld bytes%s %s\n", name.c_str(),
                        dtype_text.c_str(), layout_name, shape.describe().c_str(), result.error, tolerance, result.workspace,
                        extra.c_str(), ok ? "ok" : "FAIL");
          } else {
            ++failures;
            std::printf("%s %s %s %s: error: %s FAIL\n", name.c_str(), dtype_text.c_str(), layout_name,
                        shape.describe().c_str(), failure.c_str());
          }
          std::fflush(stdout);
          // A sticky CUDA error (an illegal address) ends the run: later cases would only repeat it.
          const cudaError_t sticky = cudaDeviceSynchronize();
          if (sticky != cudaSuccess) {
            std::printf("FAILED: CUDA error %s after %s, stopping\n", cudaGetErrorString(sticky), name.c_str());
            return 1;
          }
        }
      }
    }
  }
  std::printf("largest graph-API workspace: %lld bytes\n", largest_graph_workspace);
  std::printf("unsupported cases: %d\n", unsupported_cases);
  std::printf("%s: %d of %d cases failed, %d unsupported by cuDNN (seed %llu)\n", failures ? "FAILED" : "PASSED", failures,
              cases, unsupported_cases, seed);
  api.Destroy(dev.handle);
  cudaStreamDestroy(dev.stream);
  // The handle stays open, as TensorFlow's does: cuDNN's own exit handlers may still need it.
  return failures ? 1 : 0;
}
