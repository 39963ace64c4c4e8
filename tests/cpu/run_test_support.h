#pragma once
// What the tests of `ucudnn run` share: stand-in cuDNN libraries (exporting only cudnnGetVersion
// and cudnnGetCudartVersion) and preload libraries compiled with the build's C compiler, a fake
// Python interpreter and the real cuDNN this test program links.
// CUDA build only (UCUDNN_PRELOAD_LIBRARY_PATH).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"
#include "tools/build_info.h"
#include "tools/cudnn_locator.h"
#include "tools/gpu_presence.h"
#include "tools/run_environment.h"

namespace ucudnn::testing {

namespace fs = std::filesystem;

// The lines `run` wrote to stderr after its note on a machine without a GPU, which it writes first
// exactly where tools::missing_gpu() says one is missing (as on CI); checked here.
inline std::vector<std::string> lines_after_gpu_note(const std::string& err) {
  std::vector<std::string> lines = lines_of(err);
  const std::optional<std::string> missing = tools::missing_gpu();
  if (!missing) {
    for (const std::string& line : lines) EXPECT_EQ(line.rfind("ucudnn run: no GPU", 0), std::string::npos) << line;
    return lines;
  }
  EXPECT_FALSE(lines.empty()) << err;
  if (lines.empty()) return lines;
  EXPECT_EQ(lines.front(), "ucudnn run: no GPU: " + *missing +
                               "; the program starts anyway, and its cuDNN calls will fail as they would without ucudnn");
  lines.erase(lines.begin());
  return lines;
}

inline bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& each : lines_of(text)) {
    if (each == line) return true;
  }
  return false;
}

// Compiles `source` (C) into the shared library `file`; fails the test where the compiler does.
inline void compile_library(const TempDir& dir, const std::string& source, const fs::path& file) {
  fs::create_directories(file.parent_path());
  const std::string source_file = dir.write("library.c", source);
  const std::string command = std::string("'") + UCUDNN_TEST_C_COMPILER + "' -shared -fPIC -o '" + file.string() +
                              "' '" + source_file + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

// A C function of no arguments that returns `value`.
inline std::string function_returning(const std::string& name, std::size_t value) {
  return "size_t " + name + "(void) { return " + std::to_string(value) + "; }\n";
}

// A folder holding a stand-in libcudnn.so.9 whose functions answer these versions.
inline std::string stand_in_cudnn(const TempDir& dir, const std::string& folder, std::size_t version,
                                  std::size_t cudart_version) {
  const fs::path file = dir.path() / folder / tools::kCudnnLibraryName;
  compile_library(dir,
                  "#include <stddef.h>\n" + function_returning("cudnnGetVersion", version) +
                      function_returning("cudnnGetCudartVersion", cudart_version),
                  file);
  return file.parent_path().string();
}

// The versions this build was compiled against, and those a stand-in reports to match them
// (cuDNN MAJOR.1.0 for CUDA MAJOR.0).
inline tools::CompiledVersions built() {
  const auto versions = tools::compiled_versions();
  EXPECT_TRUE(versions.has_value()) << "this file is in the CUDA build only";
  return versions.value_or(tools::CompiledVersions{});
}
inline std::size_t matching_cudnn_version() { return static_cast<std::size_t>(built().cudnn_major) * 10000 + 100; }
inline std::size_t matching_cudart_version() { return static_cast<std::size_t>(built().cudart_major) * 1000; }

// A harmless real shared library at `file` (its folder made) to preload in place of
// libucudnn_preload.so: it exports the preload layer's marker, as `run` checks.
inline std::string preload_at(const TempDir& dir, const fs::path& file) {
  compile_library(dir, std::string("const char ") + tools::kPreloadMarkerSymbol + "[] = \"stand-in\";\n", file);
  return file.string();
}

// The same in a folder of its own.
inline std::string stand_in_preload(const TempDir& dir) {
  return preload_at(dir, dir.path() / "preload" / "libstand_in_preload.so");
}

// The real libcudnn.so.9 this test program runs with.
inline std::string real_cudnn_library() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    const auto at = line.find('/');
    if (at != std::string::npos && fs::path(line.substr(at)).filename() == tools::kCudnnLibraryName) {
      return line.substr(at);
    }
  }
  return "";
}

// A script standing in for a Python interpreter: it ignores its arguments (the question about
// torch) and prints `output`, then exits with `status`.
inline std::string fake_python(const TempDir& dir, const std::string& folder, const std::string& output, int status) {
  const fs::path file = dir.path() / folder / "python3";
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "#!/bin/sh\necho '" << output << "'\nexit " << status << "\n";
  fs::permissions(file, fs::perms::owner_all);
  return file.string();
}

}  // namespace ucudnn::testing
