#include "tools/build_info.h"

#include <cuda_runtime_api.h>
#include <cudnn_version.h>

namespace ucudnn::tools {

std::string build_description() {
  // CUDART_VERSION is MAJOR * 1000 + MINOR * 10: 13000 is 13.0.
  return "built with cuDNN " + std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) + "." +
         std::to_string(CUDNN_PATCHLEVEL) + ", CUDA " + std::to_string(CUDART_VERSION / 1000) + "." +
         std::to_string(CUDART_VERSION % 1000 / 10);
}

std::optional<CompiledVersions> compiled_versions() { return CompiledVersions{CUDNN_MAJOR, CUDART_VERSION / 1000}; }

}  // namespace ucudnn::tools
