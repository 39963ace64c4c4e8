// A program that loads cuDNN the way TensorFlow's stream executor does: dlopen("libcudnn.so.9",
// RTLD_LAZY | RTLD_LOCAL) and every function looked up with dlsym on that handle; it does not link
// cuDNN. It prints `key=value` lines: which library each looked-up function lives in, whether a
// backend tensor descriptor round-trips, and, with a GPU, convolutions run through the graph API
// (one-operation graphs: forward, backward data, backward filter; FP32 NCHW and FP16 NHWC) against
// the same convolutions through the legacy API, with the workspace each plan reported.
//
// Tests run it with and without LD_PRELOAD=libucudnn_preload.so (tests/cpu/preload/test_preload.cpp,
// tests/gpu/test_graph_api.cpp).

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

void* cudnn_library = nullptr;

template <typename Function>
Function lookup(const char* name) {
  void* symbol = dlsym(cudnn_library, name);
  if (!symbol) {
    std::printf("missing=%s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<Function>(symbol);
}
#define CUDNN(name) lookup<decltype(&::name)>(#name)

const char* defining_library(const char* name) {
  Dl_info info{};
  void* symbol = dlsym(cudnn_library, name);
  if (!symbol || !dladdr(symbol, &info) || !info.dli_fname) return "?";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

#define CHECK(call)                                                                       \
  do {                                                                                    \
    const cudnnStatus_t status_ = (call);                                                 \
    if (status_ != CUDNN_STATUS_SUCCESS) {                                                \
      std::printf("failed=%s:%d %s\n", __FILE__, __LINE__, CUDNN(cudnnGetErrorString)(status_)); \
      std::exit(3);                                                                       \
    }                                                                                     \
  } while (0)

using Descriptor = cudnnBackendDescriptor_t;

Descriptor create(cudnnBackendDescriptorType_t type) {
  Descriptor d = nullptr;
  CHECK(CUDNN(cudnnBackendCreateDescriptor)(type, &d));
  return d;
}

void set(Descriptor d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count,
         const void* values) {
  CHECK(CUDNN(cudnnBackendSetAttribute)(d, name, type, count, values));
}

void set_descriptor(Descriptor d, cudnnBackendAttributeName_t name, Descriptor value) {
  set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value);
}

Descriptor tensor(int64_t uid, cudnnDataType_t type, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& strides) {
  Descriptor t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const int64_t alignment = 16;
  set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<int64_t>(dims.size()), dims.data());
  set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<int64_t>(strides.size()), strides.data());
  set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  CHECK(CUDNN(cudnnBackendFinalize)(t));
  return t;
}

// Without a GPU: a tensor descriptor made and read back through the looked-up functions.
void tensor_round_trip() {
  const std::vector<int64_t> dims = {8, 16, 5, 5}, strides = {400, 25, 5, 1};
  Descriptor t = tensor(7, CUDNN_DATA_FLOAT, dims, strides);
  int64_t got[4] = {}, count = 0;
  CHECK(CUDNN(cudnnBackendGetAttribute)(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &count, got));
  std::printf("tensor_round_trip=%s\n", count == 4 && std::equal(dims.begin(), dims.end(), got) ? "ok" : "wrong");
  CHECK(CUDNN(cudnnBackendDestroyDescriptor)(t));
}

// The convolution every case runs: N 32, C 64 -> K 64, 14x14, 3x3, pad 1, stride 1, and a
// strided, dilated, grouped one.
struct Shape {
  int n, c, k, h, w, r, s, pad, stride, dilation, groups;
  int p() const { return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1; }
  int q() const { return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1; }
};

std::vector<int64_t> packed(const std::vector<int64_t>& dims, bool channels_last) {
  std::vector<int64_t> strides(4);
  if (channels_last) {
    strides[1] = 1;
    strides[3] = dims[1];
    strides[2] = dims[1] * dims[3];
    strides[0] = dims[1] * dims[2] * dims[3];
  } else {
    strides[3] = 1;
    strides[2] = dims[3];
    strides[1] = dims[2] * dims[3];
    strides[0] = dims[1] * dims[2] * dims[3];
  }
  return strides;
}

struct Buffers {
  void *x = nullptr, *w = nullptr, *y = nullptr;
  size_t x_count = 0, w_count = 0, y_count = 0;
};

// Random values in [-1, 1), fresh per run, as the element type.
void fill(void* device, size_t count, bool half, std::mt19937& random) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  if (half) {
    std::vector<__half> host(count);
    for (auto& v : host) v = __float2half(uniform(random));
    cudaMemcpy(device, host.data(), count * 2, cudaMemcpyHostToDevice);
  } else {
    std::vector<float> host(count);
    for (auto& v : host) v = uniform(random);
    cudaMemcpy(device, host.data(), count * 4, cudaMemcpyHostToDevice);
  }
}

std::vector<float> read(const void* device, size_t count, bool half) {
  std::vector<float> out(count);
  if (half) {
    std::vector<__half> host(count);
    cudaMemcpy(host.data(), device, count * 2, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < count; ++i) out[i] = __half2float(host[i]);
  } else {
    cudaMemcpy(out.data(), device, count * 4, cudaMemcpyDeviceToHost);
  }
  return out;
}

// The output of `op` through the graph API; prints the plan's workspace. Returns false where no
// engine configuration finalizes.
bool run_graph(cudnnHandle_t handle, int op, const Shape& s, bool half, const Buffers& b, void* out,
               size_t* workspace_reported) {
  const cudnnDataType_t type = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  const std::vector<int64_t> x_dims = {s.n, s.c, s.h, s.w}, w_dims = {s.k, s.c / s.groups, s.r, s.s},
                             y_dims = {s.n, s.k, s.p(), s.q()};
  Descriptor x = tensor('x', type, x_dims, packed(x_dims, half));
  Descriptor w = tensor('w', type, w_dims, packed(w_dims, half));
  Descriptor y = tensor('y', type, y_dims, packed(y_dims, half));
  Descriptor conv = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t spatial = 2, pads[2] = {s.pad, s.pad}, strides[2] = {s.stride, s.stride},
                dilations[2] = {s.dilation, s.dilation};
  set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilations);
  set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides);
  set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
  set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pads);
  CHECK(CUDNN(cudnnBackendFinalize)(conv));

  static const cudnnBackendDescriptorType_t types[3] = {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                                                        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                                                        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR};
  static const cudnnBackendAttributeName_t names[3][6] = {
      {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
      {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
       CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}};
  Descriptor operation = create(types[op]);
  set_descriptor(operation, names[op][0], x);
  set_descriptor(operation, names[op][1], w);
  set_descriptor(operation, names[op][2], y);
  set_descriptor(operation, names[op][3], conv);
  const float alpha = 1.0f, beta = 0.0f;
  set(operation, names[op][4], CUDNN_TYPE_FLOAT, 1, &alpha);
  set(operation, names[op][5], CUDNN_TYPE_FLOAT, 1, &beta);
  CHECK(CUDNN(cudnnBackendFinalize)(operation));

  Descriptor graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set(graph, static_cast<cudnnBackendAttributeName_t>(800), CUDNN_TYPE_HANDLE, 1, &handle);  // the graph's handle
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &operation);
  CHECK(CUDNN(cudnnBackendFinalize)(graph));
  // The operation's descriptors are no longer needed once the graph is made (as a framework does).
  for (Descriptor d : {x, w, y, conv}) CHECK(CUDNN(cudnnBackendDestroyDescriptor)(d));

  Descriptor heuristics = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const cudnnBackendHeurMode_t heur_mode = CUDNN_HEUR_MODE_A;
  set_descriptor(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
  set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
  CHECK(CUDNN(cudnnBackendFinalize)(heuristics));
  int64_t count = 0;
  CHECK(CUDNN(cudnnBackendGetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                        &count, nullptr));
  std::vector<Descriptor> configs(static_cast<size_t>(count));
  for (auto& c : configs) c = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  CHECK(CUDNN(cudnnBackendGetAttribute)(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                        count, &count, configs.data()));
  bool ran = false;
  // GRAPH_PROBE_CONFIG=i: start at the i-th configuration (1: where ucudnn's offer is, if any),
  // and where none from there builds, go on from the first (cuDNN may have only one).
  const char* first_text = std::getenv("GRAPH_PROBE_CONFIG");
  const size_t first = first_text ? static_cast<size_t>(std::strtoul(first_text, nullptr, 10)) : 0;
  for (size_t tried = 0; tried < configs.size(); ++tried) {
    Descriptor config = configs[(first + tried) % configs.size()];
    Descriptor plan = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set(plan, static_cast<cudnnBackendAttributeName_t>(400), CUDNN_TYPE_HANDLE, 1, &handle);
    set_descriptor(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
    if (CUDNN(cudnnBackendFinalize)(plan) != CUDNN_STATUS_SUCCESS) {
      CUDNN(cudnnBackendDestroyDescriptor)(plan);
      continue;
    }
    int64_t workspace_size = 0;
    CHECK(CUDNN(cudnnBackendGetAttribute)(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
                                          &workspace_size));
    *workspace_reported = static_cast<size_t>(workspace_size);
    void* workspace = nullptr;
    if (workspace_size > 0) cudaMalloc(&workspace, static_cast<size_t>(workspace_size));
    void* x_data = op == 1 ? out : b.x;
    void* w_data = op == 2 ? out : b.w;
    void* y_data = op == 0 ? out : b.y;
    const int64_t uids[3] = {'x', 'w', 'y'};
    void* pointers[3] = {x_data, w_data, y_data};
    Descriptor pack = create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
    set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    CHECK(CUDNN(cudnnBackendFinalize)(pack));
    CHECK(CUDNN(cudnnBackendExecute)(handle, plan, pack));
    cudaDeviceSynchronize();
    CUDNN(cudnnBackendDestroyDescriptor)(pack);
    CUDNN(cudnnBackendDestroyDescriptor)(plan);
    cudaFree(workspace);
    ran = true;
    break;
  }
  for (Descriptor c : configs) CUDNN(cudnnBackendDestroyDescriptor)(c);
  for (Descriptor d : {heuristics, graph, operation}) CUDNN(cudnnBackendDestroyDescriptor)(d);
  return ran;
}

// The same through the legacy API: a real algorithm, which cuDNN runs on the whole batch (also
// when preloaded: a program that names a real algorithm gets it).
void run_legacy(cudnnHandle_t handle, int op, const Shape& s, bool half, const Buffers& b, void* out) {
  const cudnnDataType_t type = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  const cudnnTensorFormat_t format = half ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  CHECK(CUDNN(cudnnCreateTensorDescriptor)(&x));
  CHECK(CUDNN(cudnnCreateTensorDescriptor)(&y));
  CHECK(CUDNN(cudnnCreateFilterDescriptor)(&w));
  CHECK(CUDNN(cudnnCreateConvolutionDescriptor)(&conv));
  CHECK(CUDNN(cudnnSetTensor4dDescriptor)(x, format, type, s.n, s.c, s.h, s.w));
  CHECK(CUDNN(cudnnSetTensor4dDescriptor)(y, format, type, s.n, s.k, s.p(), s.q()));
  CHECK(CUDNN(cudnnSetFilter4dDescriptor)(w, type, format, s.k, s.c / s.groups, s.r, s.s));
  CHECK(CUDNN(cudnnSetConvolution2dDescriptor)(conv, s.pad, s.pad, s.stride, s.stride, s.dilation, s.dilation,
                                               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CHECK(CUDNN(cudnnSetConvolutionGroupCount)(conv, s.groups));
  CHECK(CUDNN(cudnnSetConvolutionMathType)(conv, half ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  // The first of cuDNN's general algorithms that takes this convolution (NHWC half precision
  // rules some out), with the workspace cuDNN says it needs.
  const float one = 1.0f, zero = 0.0f;
  static const int candidates[3][3] = {{CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, -1},
                                       {CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, -1},
                                       {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
                                        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3}};
  cudnnStatus_t status = CUDNN_STATUS_NOT_SUPPORTED;
  for (int algo : candidates[op]) {
    if (algo < 0) break;
    size_t bytes = 0;
    if (op == 0) {
      status = CUDNN(cudnnGetConvolutionForwardWorkspaceSize)(handle, x, w, conv, y,
                                                               static_cast<cudnnConvolutionFwdAlgo_t>(algo), &bytes);
    } else if (op == 1) {
      status = CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize)(
          handle, w, y, conv, x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &bytes);
    } else {
      status = CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize)(
          handle, x, y, conv, w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &bytes);
    }
    if (status != CUDNN_STATUS_SUCCESS) continue;
    void* workspace = nullptr;
    if (bytes) cudaMalloc(&workspace, bytes);
    if (op == 0) {
      status = CUDNN(cudnnConvolutionForward)(handle, &one, x, b.x, w, b.w, conv,
                                              static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace, bytes, &zero,
                                              y, out);
    } else if (op == 1) {
      status = CUDNN(cudnnConvolutionBackwardData)(handle, &one, w, b.w, y, b.y, conv,
                                                   static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), workspace, bytes,
                                                   &zero, x, out);
    } else {
      status = CUDNN(cudnnConvolutionBackwardFilter)(handle, &one, x, b.x, y, b.y, conv,
                                                     static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), workspace,
                                                     bytes, &zero, w, out);
    }
    cudaDeviceSynchronize();
    cudaFree(workspace);
    if (status == CUDNN_STATUS_SUCCESS) break;
  }
  CHECK(status);
  cudaDeviceSynchronize();
  CUDNN(cudnnDestroyTensorDescriptor)(x);
  CUDNN(cudnnDestroyTensorDescriptor)(y);
  CUDNN(cudnnDestroyFilterDescriptor)(w);
  CUDNN(cudnnDestroyConvolutionDescriptor)(conv);
}

int convolve_on_gpu() {
  cudnnHandle_t handle = nullptr;
  CHECK(CUDNN(cudnnCreate)(&handle));
  std::mt19937 random(std::random_device{}());
  const Shape shapes[] = {{32, 64, 64, 14, 14, 3, 3, 1, 1, 1, 1}, {16, 32, 64, 15, 15, 3, 3, 2, 2, 2, 4}};
  static const char* op_names[3] = {"fwd", "bwdd", "bwdf"};
  int failures = 0;
  for (bool half : {false, true}) {
    for (int shape = 0; shape < 2; ++shape) {
      const Shape& s = shapes[shape];
      const size_t element = half ? 2 : 4;
      Buffers b;
      b.x_count = size_t(s.n) * s.c * s.h * s.w;
      b.w_count = size_t(s.k) * (s.c / s.groups) * s.r * s.s;
      b.y_count = size_t(s.n) * s.k * s.p() * s.q();
      cudaMalloc(&b.x, b.x_count * element);
      cudaMalloc(&b.w, b.w_count * element);
      cudaMalloc(&b.y, b.y_count * element);
      fill(b.x, b.x_count, half, random);
      fill(b.w, b.w_count, half, random);
      fill(b.y, b.y_count, half, random);
      for (int op = 0; op < 3; ++op) {
        const size_t out_count = op == 0 ? b.y_count : op == 1 ? b.x_count : b.w_count;
        void *graph_out = nullptr, *legacy_out = nullptr;
        cudaMalloc(&graph_out, out_count * element);
        cudaMalloc(&legacy_out, out_count * element);
        size_t workspace = 0;
        const bool ran = run_graph(handle, op, s, half, b, graph_out, &workspace);
        run_legacy(handle, op, s, half, b, legacy_out);
        const std::vector<float> got = read(graph_out, out_count, half), want = read(legacy_out, out_count, half);
        double max_error = 0, max_ref = 0;
        for (size_t i = 0; i < out_count; ++i) {
          max_error = std::fmax(max_error, std::fabs(double(got[i]) - want[i]));
          max_ref = std::fmax(max_ref, std::fabs(double(want[i])));
        }
        // Relative to the largest reference value: FP32 without TF32 agrees to rounding; FP16
        // outputs (accumulated in FP32) differ by a few half-precision ulps.
        const double tolerance = (half ? 1e-2 : 1e-4) * max_ref;
        const bool ok = ran && max_error <= tolerance;
        failures += ok ? 0 : 1;
        std::printf("case=%s %s shape%d workspace=%zu max_error=%.3g tolerance=%.3g %s\n", op_names[op],
                    half ? "half-NHWC" : "float-NCHW", shape, workspace, max_error, tolerance,
                    ran ? (ok ? "ok" : "FAIL") : "FAIL(no plan)");
        cudaFree(graph_out);
        cudaFree(legacy_out);
      }
      cudaFree(b.x);
      cudaFree(b.w);
      cudaFree(b.y);
    }
  }
  std::printf("failures=%d\n", failures);
  CHECK(CUDNN(cudnnDestroy)(handle));
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main() {
  cudnn_library = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_LOCAL);
  if (!cudnn_library) {
    std::printf("dlopen=failed %s\n", dlerror());
    return 2;
  }
  std::printf("execute_defined_in=%s\n", defining_library("cudnnBackendExecute"));
  std::printf("create_defined_in=%s\n", defining_library("cudnnCreate"));
  std::printf("version_defined_in=%s\n", defining_library("cudnnGetVersion"));
  std::printf("version=%zu\n", CUDNN(cudnnGetVersion)());
  tensor_round_trip();
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("gpu=none\n");
    return 0;
  }
  std::printf("gpu=yes\n");
  return convolve_on_gpu();
}
