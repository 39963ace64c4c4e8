#pragma once
// Which cuDNN a program started by `ucudnn run` will load, and which versions it is. Preloaded,
// libucudnn_preload.so loads libcudnn.so.9 before the program does; that must be the program's own
// copy (two cuDNNs must not mix, and PyTorch refuses one older than it was built with), so `run`
// finds it and puts its folder first on the child's LD_LIBRARY_PATH.
//
// The versions are read with no GPU and no cuDNN header: the library is loaded in a forked child,
// in a link namespace of its own (dlmopen), and its cudnnGetVersion and cudnnGetCudartVersion
// are called through plain function pointers. This process's own cuDNN (the CUDA build links
// one) can neither answer in its place nor be disturbed.

#include <cstddef>
#include <functional>
#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// The name the preload library and frameworks load cuDNN by.
inline constexpr const char* kCudnnLibraryName = "libcudnn.so.9";

struct CudnnLibrary {
  std::string path;                ///< the file loaded, as the dynamic linker names it
  std::string folder;              ///< absolute; holds kCudnnLibraryName
  std::size_t version = 0;         ///< cudnnGetVersion(): 91900 is 9.19.0 (cuDNN 8's 8907 is 8.9.7)
  std::size_t cudart_version = 0;  ///< cudnnGetCudartVersion(): 13000 is CUDA 13.0
  std::string found_by;            ///< how it was found, for messages: "--cudnn", "LD_LIBRARY_PATH", ...
};

/// The major version in cuDNN's encodings: MAJOR*10000 + MINOR*100 + PATCH from cuDNN 9 on,
/// MAJOR*1000 + MINOR*100 + PATCH before.
int cudnn_major(std::size_t version);

/// "9.19.0", "8.9.7".
std::string cudnn_version_text(std::size_t version);

/// Loads `file` (a path, or a bare name for the dynamic linker to look up as a program's
/// libraries are) in a forked child and reads its versions. An error where it cannot be loaded
/// or lacks either function (then it is no cuDNN).
Expected<CudnnLibrary> probe_cudnn(const std::string& file);

/// Whether `program` (a name or a path) is a Python interpreter: python, python3, python3.X.
bool is_python_interpreter(const std::string& program);

/// Receives a line `run` says while it looks (a question to an interpreter that takes long).
using Notes = std::function<void(const std::string& line)>;

struct CudnnSearch {
  std::string option;        ///< --cudnn: a libcudnn.so.9 file or its folder; empty: look
  std::string program;       ///< the program to run, as given
  std::string library_path;  ///< LD_LIBRARY_PATH as this process has it
  Notes note;                ///< where notes go (none: said nowhere)
};

/// The cuDNN the program will use, probed: the --cudnn option; else, for a Python interpreter,
/// the one torch loads (asked of that interpreter as `python FILE`, a script in a private folder,
/// so that nothing of the current folder is imported; skipped where torch is absent or the
/// question fails, which `note` hears of after 5 s, and at its end unless torch was absent); else the first libcudnn.so.9 on LD_LIBRARY_PATH; else the dynamic linker's. An error
/// naming where it looked where none is found, or naming the file that cannot be probed.
Expected<CudnnLibrary> locate_cudnn(const CudnnSearch& search);

}  // namespace ucudnn::tools
