#include "preload/layer_order.h"

#include <dlfcn.h>

#include <string>

namespace ucudnn::preload {
namespace {

constexpr const char* kMarker = "ucudnn_preload_layer";

// The load address of the library that holds `address` (null where unknown).
const void* library_of(const void* address) {
  Dl_info info{};
  return address && dladdr(address, &info) ? info.dli_fbase : nullptr;
}

}  // namespace

bool another_layer_intercepts() {
  // The global search order starts at the program and goes through LD_PRELOAD in its order: the
  // first marker found is the intercepting layer's. This layer is known by a function of its own,
  // not by its marker: a reference to an exported symbol is bound to the first definition in the
  // process, which would make every layer think it came first.
  static const bool another = [] {
    const void* first = dlsym(RTLD_DEFAULT, kMarker);
    return first != nullptr &&
           library_of(first) != library_of(reinterpret_cast<const void*>(&another_layer_intercepts));
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
