#pragma once
// What this build of the `ucudnn` command was compiled against, for `ucudnn --version`. Two
// definitions, chosen by CMake as `bench` is: build_info.cpp (CUDA build) reads cuDNN's and the
// CUDA runtime's headers; build_info_without_cuda.cpp says they were left out.

#include <string>

namespace ucudnn::tools {

/// One line without a newline, e.g. "built with cuDNN 9.19.0, CUDA 13.0" or "built without CUDA
/// (no cuDNN: `ucudnn bench` is left out)". The versions of the headers compiled against, known
/// without a GPU; the libraries loaded at run time may be newer.
std::string build_description();

}  // namespace ucudnn::tools
