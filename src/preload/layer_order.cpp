#include "preload/layer_order.h"

#include <dlfcn.h>

#include <string>

namespace ucudnn::preload {
namespace {

constexpr const char* kMarker = "ucudnn_preload_layer";

}  // namespace

bool another_layer_intercepts(const void* marker) {
  // The global search order starts at the program and goes through LD_PRELOAD in its order: the
  // first marker found is the intercepting layer's.
  static const bool another = [marker] {
    const void* first = dlsym(RTLD_DEFAULT, kMarker);
    return first != nullptr && first != marker;
  }();
  return another;
}

const char* next_layer_file() {
  static const std::string file = [] {
    Dl_info info{};
    const void* next = dlsym(RTLD_NEXT, kMarker);
    return next && dladdr(next, &info) && info.dli_fname ? std::string(info.dli_fname) : std::string();
  }();
  return file.c_str();
}

}  // namespace ucudnn::preload
