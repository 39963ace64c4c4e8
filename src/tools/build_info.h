#pragma once
// What this build of the `ucudnn` command was compiled against, for `ucudnn --version`. Two
// definitions, chosen by CMake as `bench` is: build_info.cpp (CUDA build) reads cuDNN's and the
// CUDA runtime's headers; build_info_without_cuda.cpp says they were left out.

#include <optional>
#include <string>

namespace ucudnn::tools {

/// One line without a newline, e.g. "built with cuDNN 9.19.0, CUDA 13.0" or "built without CUDA
/// (no cuDNN: `ucudnn bench` is left out)". The versions of the headers compiled against, known
/// without a GPU; the libraries loaded at run time may be newer.
std::string build_description();

/// The major versions of cuDNN (CUDNN_MAJOR) and of the CUDA runtime (CUDART_VERSION / 1000) this
/// build was compiled against: what a cuDNN loaded under ucudnn must match (`ucudnn run` checks).
struct CompiledVersions {
  int cudnn_major = 0;
  int cudart_major = 0;
};

/// The CUDA build's versions; empty in the build without CUDA, which has no preload library.
std::optional<CompiledVersions> compiled_versions();

}  // namespace ucudnn::tools
