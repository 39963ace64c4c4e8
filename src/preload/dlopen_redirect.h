#pragma once
// Which dlopen calls the LD_PRELOAD layer answers with its own handle: those of cuDNN's main
// library (libcudnn.so, libcudnn.so.9, libcudnn.so.9.x.y), by name or by the path of the very
// file this layer already loaded. cuDNN's sub-libraries (libcudnn_graph.so.9, ...) are cuDNN's
// own business and are opened unchanged.

#include <cstring>

namespace ucudnn::preload {

/// Whether `file`'s last component names cuDNN's main library.
inline bool is_cudnn_main_library(const char* file) {
  if (!file) return false;
  const char* slash = std::strrchr(file, '/');
  const char* base = slash ? slash + 1 : file;
  return std::strcmp(base, "libcudnn.so") == 0 || std::strncmp(base, "libcudnn.so.", 12) == 0;
}

using OpenFunction = void* (*)(const char*, int);

/// This library's handle, opened with `open` (the C library's dlopen) and the program's
/// `flags`, when `file` is cuDNN's main library as above; null otherwise (then the program's
/// call goes ahead unchanged).
void* redirected_cudnn(const char* file, int flags, OpenFunction open);

}  // namespace ucudnn::preload
