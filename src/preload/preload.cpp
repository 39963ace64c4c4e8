// libucudnn_preload.so: cuDNN's handle and convolution calls under cuDNN's own names, for programs
// that cannot be changed (LD_PRELOAD=libucudnn_preload.so). The dynamic linker puts these
// definitions ahead of libcudnn.so.9's. Each maps the program's real cudnnHandle_t to the library
// state made for it at cudnnCreate and calls the same adapters as the UcudnnHandle_t overloads,
// both generated from one table (ucudnn/intercepted_calls.h): this file holds no planning logic.
// Calls on handles it did not create, and ucudnn's own calls to cuDNN (in_internal_call), go to
// the real function, found with dlsym(RTLD_NEXT).

#include <cudnn.h>
#include <dlfcn.h>

#include "api/call_adapters.h"
#include "api/context.h"
#include "api/frontend.h"
#include "api/graph/frontend.h"
#include "core/env_config.h"
#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "preload/dlopen_redirect.h"
#include "preload/handle_registry.h"
#include "preload/layer_order.h"
#include "preload/real_symbol.h"

using ucudnn::ErrorCode;

namespace {

// Whether another ucudnn layer, ahead of this one, intercepts (preload/layer_order.h): then every
// call here goes straight to cuDNN.
bool passes_through() { return ucudnn::preload::another_layer_intercepts(); }

// The intercepting layer says once that another layer is loaded behind it.
void say_if_not_alone() {
  const char* other = ucudnn::preload::next_layer_file();
  if (*other == '\0') return;
  (void)ucudnn::env_config();  // the logger's level and file, read once per process, before it logs
  ucudnn::warn_once("another preload layer", std::string("another ucudnn preload layer is loaded too (") + other +
                                                 "): this one intercepts, and that one passes every call straight "
                                                 "to cuDNN (one layer per process)");
}

using ucudnn::preload::HandleRegistry;
using ucudnn::preload::RealSymbol;

using ucudnn::preload::OpenFunction;

// The C library's dlopen: this library's own `dlopen` below is the program's.
OpenFunction real_dlopen() {
  static const auto function = reinterpret_cast<OpenFunction>(dlsym(RTLD_NEXT, "dlopen"));
  return function;
}

// Where cuDNN's own definition of `name` is: after this library in the search order, or in a
// libcudnn.so.9 that the program loaded on its own (dlopen without RTLD_GLOBAL).
void* find_in_cudnn(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol && real_dlopen()) {
    if (void* cudnn = real_dlopen()("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD)) symbol = dlsym(cudnn, name);
  }
  return symbol;
}

// `real_function`: the real cuDNN `name` of type `Function` (cuDNN's, as ucudnn.h overloads the
// name), or CUDNN_STATUS_NOT_INITIALIZED from the calling function while cuDNN is not loaded.
#define UCUDNN_REAL(Function, name)                                 \
  static RealSymbol<Function> real_symbol;                          \
  const auto real_function = real_symbol.get(#name, find_in_cudnn); \
  if (!real_function) return CUDNN_STATUS_NOT_INITIALIZED

using Handles = HandleRegistry<cudnnHandle_t, UcudnnContext>;

Handles& handles() {
  static Handles* registry = new Handles();  // never destroyed: calls may come during exit
  return *registry;
}

// The context of a program's handle, leased for the call, or null when the call is ucudnn's own
// or the handle is not one this layer made: then the caller passes the call through.
Handles::Lease intercepted(cudnnHandle_t handle) {
  if (ucudnn::in_internal_call()) return nullptr;
  return handles().find(handle);
}

// The graph API's front-end, over the same handles.
Handles::Lease context_of(cudnnHandle_t handle) { return handle ? handles().find(handle) : nullptr; }

ucudnn::api::GraphFrontEnd& graph() {
  static auto* front_end = new ucudnn::api::GraphFrontEnd(context_of);  // never destroyed, as handles()
  return *front_end;
}

// cudnnBackendPopulateCudaGraph and UpdateCudaGraph alike: `function` names which.
cudnnStatus_t populate_graph(const char* function, ucudnn::api::GraphFrontEnd::PopulateGraph real, cudnnHandle_t handle,
                             cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t variant_pack,
                             cudaGraph_t cuda_graph) {
  if (passes_through()) return real(handle, plan, variant_pack, cuda_graph);
  return graph().populate_graph(function, real, handle, plan, variant_pack, cuda_graph);
}

}  // namespace

// cuDNN's names are this library's only exports (preload.exports), with its marker; the plan
// builder inside is hidden.
#pragma GCC visibility push(default)
extern "C" {

// What `ucudnn run` looks for before it preloads a file (tools/run_environment.h's
// kPreloadMarkerSymbol): a library without it is not this layer, whatever its name.
extern const char ucudnn_preload_layer[];
const char ucudnn_preload_layer[] = "ucudnn preload layer";

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t*), cudnnCreate);
  if (ucudnn::in_internal_call() || passes_through()) return real_function(handle);
  say_if_not_alone();
  const cudnnStatus_t status = ucudnn::api::at_boundary("cudnnCreate", [&]() -> ucudnn::Status {
    if (!handle) return ucudnn::Error(ErrorCode::kBadParam, "null handle pointer");
    UcudnnContext* context = nullptr;
    UCUDNN_TRY(ucudnn::api::create_context(&context));
    if (!handles().add(context->cudnn(), context)) {
      (void)ucudnn::api::destroy_context(context);
      return ucudnn::Error(ErrorCode::kInternal, "cuDNN returned a handle that is still registered");
    }
    *handle = context->cudnn();
    return ucudnn::Status::success();
  });
  // An unmodified program seldom says why a create failed: the layer does, once (frontend.h).
  return ucudnn::api::report_failed_create("cudnnCreate", status);
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t), cudnnDestroy);
  if (ucudnn::in_internal_call()) return real_function(handle);
  UcudnnContext* context = handles().remove(handle);  // waits for calls still using it
  if (!context) return real_function(handle);
  return ucudnn::api::at_boundary("cudnnDestroy", [&]() { return ucudnn::api::destroy_context(context); });
}

// The intercepted calls (ucudnn/intercepted_calls.h) under cuDNN's names. The cuDNN 7 preference
// calls are not among them: cuDNN 9 has no such symbols for programs to call.
// Nothing thrown may cross into the C program: what the adapter does not convert itself is
// reported as its status here.
#define UCUDNN_DEFINE_PRELOAD_CALL(name, params, args)                                       \
  cudnnStatus_t name(cudnnHandle_t handle, UCUDNN_UNPAREN params) {                          \
    UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t, UCUDNN_UNPAREN params), name);              \
    try {                                                                                    \
      const auto context = intercepted(handle);                                              \
      if (!context) return real_function(handle, UCUDNN_UNPAREN args);                       \
      ucudnn::Statistics::instance().count_legacy_call();                                    \
      return ucudnn::api::adapters::name(#name, context.get(), handle, UCUDNN_UNPAREN args); \
    } catch (...) {                                                                          \
      return ucudnn::api::report_current_exception(#name);                                   \
    }                                                                                        \
  }
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DEFINE_PRELOAD_CALL)
#undef UCUDNN_DEFINE_PRELOAD_CALL

// The graph API (api/graph/frontend.h): every backend call reaches cuDNN; the front-end follows
// the program's descriptors and runs the plans of one convolution itself.

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* descriptor) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Create, cudnnBackendCreateDescriptor);
  if (passes_through()) return real_function(type, descriptor);
  return graph().create(real_function, type, descriptor);
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Destroy, cudnnBackendDestroyDescriptor);
  if (passes_through()) return real_function(descriptor);
  return graph().destroy(real_function, descriptor);
}

cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Finalize, cudnnBackendInitialize);
  if (passes_through()) return real_function(descriptor);
  return graph().initialize(real_function, descriptor);
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t count, const void* values) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Set, cudnnBackendSetAttribute);
  if (passes_through()) return real_function(descriptor, name, type, count, values);
  return graph().set(real_function, descriptor, name, type, count, values);
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor, cudnnBackendAttributeName_t name,
                                       cudnnBackendAttributeType_t type, int64_t requested, int64_t* count,
                                       void* values) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Get, cudnnBackendGetAttribute);
  if (passes_through()) return real_function(descriptor, name, type, requested, count, values);
  return graph().get(real_function, descriptor, name, type, requested, count, values);
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Finalize, cudnnBackendFinalize);
  if (passes_through()) return real_function(descriptor);
  return graph().finalize(real_function, descriptor);
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                  cudnnBackendDescriptor_t variant_pack) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::Execute, cudnnBackendExecute);
  if (passes_through()) return real_function(handle, plan, variant_pack);
  return graph().execute(real_function, handle, plan, variant_pack);
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                            cudnnBackendDescriptor_t variant_pack, cudaGraph_t cuda_graph) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::PopulateGraph, cudnnBackendPopulateCudaGraph);
  return populate_graph("cudnnBackendPopulateCudaGraph", real_function, handle, plan, variant_pack, cuda_graph);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                          cudnnBackendDescriptor_t variant_pack, cudaGraph_t cuda_graph) {
  UCUDNN_REAL(ucudnn::api::GraphFrontEnd::PopulateGraph, cudnnBackendUpdateCudaGraph);
  return populate_graph("cudnnBackendUpdateCudaGraph", real_function, handle, plan, variant_pack, cuda_graph);
}

// dlopen: a program that loads cuDNN itself and looks every function up on that library's handle
// (TensorFlow's stream executor: dlopen with RTLD_LOCAL, then dlsym on the handle) would never
// see the definitions above. Asked for cuDNN's main library, this answers with this library's
// own handle instead: dlsym on it finds ucudnn's definitions first, then everything else in
// cuDNN, which this library depends on. Only the library this one already loaded is answered so;
// a path to another cuDNN opens that one, unchanged.
void* dlopen(const char* file, int flags) {
  const OpenFunction open = real_dlopen();
  if (!open) return nullptr;
  if (file && !ucudnn::in_internal_call() && !passes_through()) {
    if (void* self = ucudnn::preload::redirected_cudnn(file, flags, open)) {
      ucudnn::Statistics::instance().count_dlopen_redirect();
      return self;
    }
  }
  return open(file, flags);
}

}  // extern "C"
#pragma GCC visibility pop
