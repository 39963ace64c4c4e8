// The binaries of the build tree search only the folders they name for their libraries: an empty
// RUNPATH entry means the working folder, where a planted libglpk.so.40 would run its code in
// `ucudnn --version`, and through the preload library in every program under `ucudnn run`.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "folder_namespaces.h"

namespace ucudnn {
namespace {

// The RUNPATH and RPATH entries of an ELF file, as readelf prints them ("[a:b:]").
std::string search_paths(const std::string& file) {
  const std::string command = "readelf -d '" + file + "' 2>/dev/null";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe)) {
      const std::string line = buffer.data();
      if (line.find("(RUNPATH)") != std::string::npos || line.find("(RPATH)") != std::string::npos) text += line;
    }
    pclose(pipe);
  }
  return text;
}

TEST(BuildTree, BinariesNeverSearchTheWorkingFolderForLibraries) {
  for (const std::string file : {UCUDNN_CLI_PATH, UCUDNN_PRELOAD_LIBRARY_PATH, UCUDNN_LIBRARY_PATH}) {
    SCOPED_TRACE(file);
    const std::string paths = search_paths(file);
    for (const char* empty : {"[:", "::", ":]", "[]"}) {
      EXPECT_EQ(paths.find(empty), std::string::npos) << "an empty entry (the working folder): " << paths;
    }
    // Every entry absolute or $ORIGIN-based: a relative one is also read from the working folder.
    const auto open = paths.find('[');
    if (open == std::string::npos) continue;
    const std::string list = paths.substr(open + 1, paths.find(']') - open - 1);
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      const std::string entry = list.substr(start, end - start);
      EXPECT_TRUE(!entry.empty() && (entry[0] == '/' || entry.rfind("$ORIGIN", 0) == 0)) << "'" << entry << "'";
      start = end + 1;
    }
  }
}

}  // namespace
}  // namespace ucudnn
