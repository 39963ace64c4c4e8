// build_info.cpp's stand-in where CMake found no CUDA toolkit or cuDNN.

#include "tools/build_info.h"

namespace ucudnn::tools {

std::string build_description() { return "built without CUDA (no cuDNN: `ucudnn bench` is left out)"; }

std::optional<CompiledVersions> compiled_versions() { return std::nullopt; }

}  // namespace ucudnn::tools
