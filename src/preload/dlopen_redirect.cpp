#include "preload/dlopen_redirect.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <string>

#include "core/env_config.h"
#include "core/logging.h"

namespace ucudnn::preload {
namespace {

// The file a loaded symbol lives in, resolved ("" where unknown).
std::string file_of(const void* address) {
  Dl_info info{};
  if (!address || !dladdr(address, &info) || !info.dli_fname) return "";
  char resolved[PATH_MAX];
  return realpath(info.dli_fname, resolved) ? std::string(resolved) : std::string(info.dli_fname);
}

std::string resolved(const char* path) {
  char buffer[PATH_MAX];
  return realpath(path, buffer) ? std::string(buffer) : std::string();
}

}  // namespace

void* redirected_cudnn(const char* file, int flags, OpenFunction open) {
  if (!is_cudnn_main_library(file)) return nullptr;
  static const std::string self = file_of(reinterpret_cast<const void*>(&redirected_cudnn));
  static const std::string cudnn = file_of(dlsym(RTLD_NEXT, "cudnnGetVersion"));
  if (self.empty() || cudnn.empty()) return nullptr;
  if (std::strchr(file, '/') && resolved(file) != cudnn) {
    (void)env_config();  // the logger's level and file, read once per process, before it logs
    warn_once(std::string("dlopen|") + file, std::string("dlopen(\"") + file +
                                                 "\") opens a cuDNN other than the one ucudnn's layer loaded (" +
                                                 cudnn + "): its calls are not intercepted");
    return nullptr;
  }
  return open(self.c_str(), flags);
}

}  // namespace ucudnn::preload
