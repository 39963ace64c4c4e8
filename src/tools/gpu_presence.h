#pragma once
// Whether a program started by `ucudnn run` will find a GPU: the NVIDIA driver's library loaded
// and asked for its devices in a forked child (a broken driver cannot take the command down, and
// this process, which links no CUDA, stays free of it).

#include <optional>
#include <string>

namespace ucudnn::tools {

/// The driver library asked (its soname; a test names a stand-in).
inline constexpr const char* kDriverLibraryName = "libcuda.so.1";

/// nullopt where the driver sees at least one GPU (as CUDA_VISIBLE_DEVICES leaves them); else
/// what is missing, in a phrase: no driver library, a driver that cannot start, or no device.
std::optional<std::string> missing_gpu(const std::string& driver_library = kDriverLibraryName);

}  // namespace ucudnn::tools
