// The architecture as ARCHITECTURE.md draws it, checked: folders include one way only, the
// CPU-only folders see neither CUDA nor cuDNN, and the shared libraries export their public
// names only.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "ucudnn/intercepted_calls.h"

namespace {

namespace fs = std::filesystem;

// What each folder of src/ may include besides itself.
const std::map<std::string, std::set<std::string>>& allowed_includes() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"core", {}},
      {"optimize", {"core"}},
      {"store", {"core"}},
      {"runtime", {"core", "optimize", "store", "ucudnn"}},
      {"api", {"core", "optimize", "store", "runtime", "ucudnn"}},
      {"preload", {"core", "optimize", "store", "runtime", "api", "ucudnn"}},
      {"tools", {"core", "optimize", "store", "runtime", "api", "ucudnn"}},
  };
  return allowed;
}

const std::set<std::string> kCpuOnly = {"core", "optimize", "store"};

struct Include {
  std::string file;
  int line;
  std::string target;
  bool quoted;
};

std::vector<Include> includes_of(const fs::path& path) {
  static const std::regex include_line(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<Include> found;
  std::ifstream in(path);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    std::smatch m;
    if (std::regex_search(text, m, include_line)) found.push_back({path.string(), line, m[2], m[1] == "\""});
  }
  return found;
}

// Every include of a project header or a CUDA/cuDNN header that breaks the folder order.
std::vector<std::string> violations(const fs::path& src) {
  std::vector<std::string> problems;
  for (const auto& [folder, allowed] : allowed_includes()) {
    for (const auto& entry : fs::directory_iterator(src / folder)) {
      for (const Include& inc : includes_of(entry.path())) {
        const std::string where = inc.file + ":" + std::to_string(inc.line) + " includes " + inc.target;
        const bool cuda = inc.target.rfind("cuda", 0) == 0 || inc.target.rfind("cudnn", 0) == 0;
        if (!inc.quoted) {
          if (cuda && kCpuOnly.count(folder)) problems.push_back(where + " (" + folder + " is CPU-only)");
          continue;
        }
        const std::string target_folder = inc.target.substr(0, inc.target.find('/'));
        if (target_folder == folder || inc.target.find('/') == std::string::npos) continue;
        if (!allowed.count(target_folder)) problems.push_back(where + " (against the folder order)");
      }
    }
  }
  return problems;
}

TEST(Architecture, FoldersIncludeOneWayAndCpuFoldersSeeNoCuda) {
  const std::vector<std::string> problems = violations(fs::path(UCUDNN_SOURCE_DIR) / "src");
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_TRUE(problems.empty()) << all;
}

TEST(Architecture, TheCheckSeesAnIncludeAgainstTheOrder) {
  // The check itself, on a scratch tree: core including runtime, store including cuDNN.
  const fs::path root = fs::temp_directory_path() / ("ucudnn-arch-" + std::to_string(::getpid()));
  for (const auto& [folder, allowed] : allowed_includes()) fs::create_directories(root / folder);
  std::ofstream(root / "core" / "bad.h") << "#include \"runtime/engine.h\"\n";
  std::ofstream(root / "store" / "bad.cpp") << "#include <cudnn.h>\n";
  std::ofstream(root / "api" / "good.cpp") << "#include \"runtime/engine.h\"\n#include <cudnn.h>\n";
  const std::vector<std::string> problems = violations(root);
  fs::remove_all(root);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("runtime/engine.h"), std::string::npos);
  EXPECT_NE(problems[1].find("CPU-only"), std::string::npos);
}

// The defined dynamic symbols of a shared library, demangled.
std::vector<std::string> exported_symbols(const std::string& library) {
  std::vector<std::string> names;
  const std::string command = "nm -DC --defined-only '" + library + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return names;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe)) {
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    // "0000000000012345 T name(args)": the name starts after the type letter.
    const auto type = line.find(' ');
    if (type == std::string::npos || type + 3 > line.size()) continue;
    names.push_back(line.substr(type + 3));
  }
  pclose(pipe);
  return names;
}

// Public names are C names (no parameter list once demangled): the library's ABI is C's.
bool is_public(const std::string& name) {
  static const std::regex public_name(R"(^ucudnn[A-Z][A-Za-z0-9_]*$)");
  return std::regex_match(name, public_name);
}

// Exactly what ucudnn.h declares with C linkage: the library calls, listed here, and the
// u-prefixed intercepted calls, one per line of the table.
std::set<std::string> public_api() {
  std::set<std::string> names = {
      "ucudnnGetVersion",          "ucudnnGetCudnnHandle",           "ucudnnCreate",
      "ucudnnDestroy",             "ucudnnSetBatchSizePolicy",       "ucudnnGetBatchSizePolicy",
      "ucudnnSetCandidates",       "ucudnnGetCandidates",            "ucudnnSetDefaultWorkspaceLimit",
      "ucudnnGetDefaultWorkspaceLimit", "ucudnnSetGraphReplay",      "ucudnnGetGraphReplay",
      "ucudnnSetLayerId",          "ucudnnGetLayerId",               "ucudnnSetDatabase",
      "ucudnnGetDatabase",         "ucudnnSetTotalWorkspaceSize",    "ucudnnGetTotalWorkspaceSize",
      "ucudnnOptimize",            "ucudnnGetWorkspaceDivisionInfo", "ucudnnGetPlan",
      "ucudnnGetStatistics",       "ucudnnGetLastErrorMessage",
  };
#define UCUDNN_TEST_C_NAME(name, params, args) names.insert("u" #name);
  UCUDNN_INTERCEPTED_CALLS(UCUDNN_TEST_C_NAME)
  UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_TEST_C_NAME)
#undef UCUDNN_TEST_C_NAME
  return names;
}

TEST(Architecture, LibucudnnExportsExactlyThePublicCApi) {
  const std::vector<std::string> names = exported_symbols(UCUDNN_LIBRARY_PATH);
  ASSERT_GT(names.size(), 30u) << "nm found too few symbols in " << UCUDNN_LIBRARY_PATH;
  std::string internal;
  for (const auto& n : names) {
    if (!is_public(n)) internal += n + "\n";
  }
  EXPECT_TRUE(internal.empty()) << "internal or C++ symbols exported:\n" << internal;
  const std::set<std::string> present(names.begin(), names.end());
  const std::set<std::string> expected = public_api();
  EXPECT_EQ(expected.size(), 41u);
  for (const auto& n : expected) EXPECT_TRUE(present.count(n)) << n << " is declared but not exported";
  for (const auto& n : present) EXPECT_TRUE(expected.count(n)) << n << " is exported but not in the public API";
  EXPECT_FALSE(is_public("ucudnn::optimize_wr(int)")) << "the check must refuse internal names";
  EXPECT_FALSE(is_public("cudnnCreate(UcudnnHandle_t*)")) << "the C++ overloads are inline, not exported";
}

TEST(Architecture, PreloadExportsCudnnNamesOnly) {
  const std::vector<std::string> names = exported_symbols(UCUDNN_PRELOAD_LIBRARY_PATH);
  ASSERT_GT(names.size(), 10u);
  for (const auto& n : names) {
    EXPECT_EQ(n.rfind("cudnn", 0), 0u) << n;
    EXPECT_EQ(n.find('('), std::string::npos) << n << " is not a C name";
  }
}

}  // namespace
