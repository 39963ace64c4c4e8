// libucudnn_preload.so: cuDNN's handle and convolution calls under cuDNN's own names, for programs
// that cannot be changed (LD_PRELOAD=libucudnn_preload.so). The dynamic linker puts these
// definitions ahead of libcudnn.so.9's. Each maps the program's real cudnnHandle_t to the library
// state made for it at cudnnCreate and calls the same adapters as the UcudnnHandle_t overloads,
// both generated from one table (ucudnn/intercepted_calls.h): this file holds no planning logic.
// Calls on handles it did not create, and ucudnn's own calls to cuDNN (in_internal_call), go to
// the real function, found with dlsym(RTLD_NEXT).

#include <cudnn.h>
#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "api/call_adapters.h"
#include "api/context.h"
#include "api/frontend.h"
#include "core/internal_call.h"

using ucudnn::ErrorCode;

namespace {

// The real cuDNN function `name`, looked up once. Null (and one message) if cuDNN is not loaded.
template <typename Function>
Function real(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) {
    if (void* cudnn = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD)) symbol = dlsym(cudnn, name);
  }
  if (!symbol) std::fprintf(stderr, "ucudnn preload: error: cannot find cuDNN's %s\n", name);
  return reinterpret_cast<Function>(symbol);
}

// `real_function`: the real cuDNN `name` of type `Function` (cuDNN's, as ucudnn.h overloads the
// name), or CUDNN_STATUS_NOT_INITIALIZED from the calling function when cuDNN is not loaded.
#define UCUDNN_REAL(Function, name)                        \
  static const auto real_function = real<Function>(#name); \
  if (!real_function) return CUDNN_STATUS_NOT_INITIALIZED

// The programs' handles and the state ucudnn keeps for each. Lookups far outnumber changes.
class Handles {
 public:
  static Handles& instance() {
    static Handles* handles = new Handles();  // never destroyed: calls may come during exit
    return *handles;
  }
  UcudnnContext* find(cudnnHandle_t handle) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    return it == contexts_.end() ? nullptr : it->second;
  }
  void add(UcudnnContext* context) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    contexts_[context->cudnn()] = context;
  }
  UcudnnContext* remove(cudnnHandle_t handle) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    if (it == contexts_.end()) return nullptr;
    UcudnnContext* context = it->second;
    contexts_.erase(it);
    return context;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<cudnnHandle_t, UcudnnContext*> contexts_;
};

// The context of a program's handle, or null when the call is ucudnn's own or the handle is not
// one this layer made: then the caller passes the call through.
UcudnnContext* intercepted(cudnnHandle_t handle) {
  if (ucudnn::in_internal_call()) return nullptr;
  return Handles::instance().find(handle);
}

}  // namespace

// cuDNN's names are this library's only exports (preload.exports); the engine inside is hidden.
#pragma GCC visibility push(default)
extern "C" {

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t*), cudnnCreate);
  if (ucudnn::in_internal_call()) return real_function(handle);
  return ucudnn::at_boundary("cudnnCreate", [&]() -> ucudnn::Status {
    if (!handle) return ucudnn::Error(ErrorCode::kBadParam, "null handle pointer");
    UcudnnContext* context = nullptr;
    UCUDNN_TRY(ucudnn::create_context(&context));
    Handles::instance().add(context);
    *handle = context->cudnn();
    return ucudnn::Status::success();
  });
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t), cudnnDestroy);
  if (ucudnn::in_internal_call()) return real_function(handle);
  UcudnnContext* context = Handles::instance().remove(handle);
  if (!context) return real_function(handle);
  return ucudnn::at_boundary("cudnnDestroy", [&]() { return ucudnn::destroy_context(context); });
}

// The intercepted calls (ucudnn/intercepted_calls.h) under cuDNN's names. The cuDNN 7 preference
// calls are not among them: cuDNN 9 has no such symbols for programs to call.
#define UCUDNN_DEFINE_PRELOAD_CALL(name, params, args)                          \
  cudnnStatus_t name(cudnnHandle_t handle, UCUDNN_UNPAREN params) {             \
    UCUDNN_REAL(cudnnStatus_t (*)(cudnnHandle_t, UCUDNN_UNPAREN params), name); \
    UcudnnContext* context = intercepted(handle);                               \
    if (!context) return real_function(handle, UCUDNN_UNPAREN args);            \
    return ucudnn::adapters::name(#name, context, handle, UCUDNN_UNPAREN args); \
  }
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DEFINE_PRELOAD_CALL)
#undef UCUDNN_DEFINE_PRELOAD_CALL

}  // extern "C"
#pragma GCC visibility pop
