// The architecture as ARCHITECTURE.md draws it, checked: folders include one way only (src/,
// the tools' commands and bench/), the CPU-only folders see neither CUDA nor cuDNN, one file
// wires the process's objects, and the shared libraries export their public names only.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "test_helpers.h"
#include "ucudnn/intercepted_calls.h"

namespace {

namespace fs = std::filesystem;

// What the files of one folder may include besides their own folder: whole folders (a quoted
// include's first path component; "ucudnn" is the public header), single files of other folders,
// and whether CUDA and cuDNN headers.
struct IncludeRule {
  std::set<std::string> folders;
  std::set<std::string> files;
  bool cuda = false;
};

// By folder, relative to the repository root.
const std::map<std::string, IncludeRule>& folder_rules() {
  static const std::map<std::string, IncludeRule> rules = {
      {"src/core", {{}, {}, false}},
      {"src/optimize", {{"core"}, {}, false}},
      {"src/store", {{"core"}, {}, false}},
      {"src/runtime", {{"core", "optimize", "store", "ucudnn"}, {}, true}},
      {"src/api", {{"core", "optimize", "store", "runtime", "ucudnn"}, {}, true}},
      // The graph API's front-end over the op-generic one: api/ never includes it.
      {"src/api/graph", {{"core", "optimize", "store", "runtime", "api", "ucudnn"}, {}, true}},
      {"src/preload", {{"core", "optimize", "store", "runtime", "api", "api/graph", "ucudnn"}, {}, true}},
      // The plan and db commands, and all the tools but bench: what the build without CUDA
      // compiles against core, optimize and store only (and the release number, ucudnn/version.h,
      // which needs neither CUDA nor cuDNN).
      {"src/tools", {{"core", "optimize", "store"}, {"ucudnn/version.h"}, false}},
      // The benchmarks measure ucudnn through its public header. Besides it: core's vocabulary
      // (units, layers), the networks the ucudnn command knows, and three GPU helpers shared with
      // the library: the stream gate that times queued calls, the raw legacy cuDNN calls (for the
      // plain-cuDNN comparison) and the owner that frees CUDA and cuDNN resources (runtime/owned.h).
      {"bench",
       {{"ucudnn", "core"},
        {"tools/networks.h", "runtime/stream_gate.h", "runtime/cudnn_shim.h", "runtime/owned.h"},
        true}},
  };
  return rules;
}

// Files whose rule differs from their folder's, relative to the repository root.
const std::map<std::string, IncludeRule>& file_rules() {
  static const std::map<std::string, IncludeRule> rules = {
      // `ucudnn bench`'s engine runs the library: api and below (the module libucudnn_bench.so;
      // the command, bench_command.cpp, is CUDA-free like the rest of the tools).
      {"src/tools/bench_engine.cpp", {{"core", "optimize", "store", "runtime", "api", "ucudnn"}, {}, true}},
      // The CUDA build's --version names the CUDA and cuDNN it was built with, from their headers'
      // version macros (the build without CUDA compiles build_info_without_cuda.cpp instead).
      {"src/tools/build_info.cpp", {{"core", "optimize", "store"}, {"ucudnn/version.h"}, true}},
      // A probe of what cuDNN's graph API offers for a graph ucudnn does not plan yet (half inputs,
      // an FP32 filter gradient): it asks through the library's own offers and execution plans.
      {"bench/mixed_filter_probe.cpp",
       {{"ucudnn", "core"},
        {"tools/networks.h", "runtime/backend_graph.h", "runtime/descriptors.h", "runtime/device_buffer.h",
         "runtime/random_fill.h"},
        true}},
  };
  return rules;
}

// Headers that build the process's objects, and the only files that may include them: the
// concrete planners and measurement source are wired in api/process_wiring.cpp, and the rest
// of the library knows their interfaces.
const std::map<std::string, std::set<std::string>>& wired_headers() {
  static const std::map<std::string, std::set<std::string>> wired = {
      {"runtime/gpu_measurement_source.h", {"src/runtime/gpu_measurement_source.cpp", "src/api/process_wiring.cpp"}},
      {"runtime/wr_planner.h",
       {"src/runtime/wr_planner.cpp", "src/runtime/wd_planner.h", "src/api/process_wiring.cpp"}},
      {"runtime/wd_planner.h", {"src/runtime/wd_planner.cpp", "src/api/process_wiring.cpp"}},
  };
  return wired;
}

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

bool is_source(const fs::path& path) { return path.extension() == ".cpp" || path.extension() == ".h"; }

// A folder as includes name it: below src/, its path ("api/graph"); elsewhere its name ("bench").
std::string folder_name(const std::string& folder_path) {
  return folder_path.rfind("src/", 0) == 0 ? folder_path.substr(4) : fs::path(folder_path).filename().string();
}

// The folder a quoted include names: its first component, or a nested folder with rules of its own.
std::string included_folder(const std::string& target) {
  for (const auto& [folder_path, rule] : folder_rules()) {
    const std::string nested = folder_name(folder_path);
    if (nested.find('/') != std::string::npos && target.rfind(nested + "/", 0) == 0) return nested;
  }
  return target.substr(0, target.find('/'));
}

// Every include under `root` (a repository) of a project header or a CUDA/cuDNN header that breaks
// the rules above.
std::vector<std::string> violations(const fs::path& root) {
  std::vector<std::string> problems;
  for (const auto& [folder_path, folder_rule] : folder_rules()) {
    if (!fs::is_directory(root / folder_path)) continue;
    const std::string folder = folder_name(folder_path);
    for (const auto& entry : fs::directory_iterator(root / folder_path)) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string relative = folder_path + "/" + entry.path().filename().string();
      const auto own = file_rules().find(relative);
      const IncludeRule& rule = own != file_rules().end() ? own->second : folder_rule;
      for (const Include& inc : includes_of(entry.path())) {
        const std::string where = relative + ":" + std::to_string(inc.line) + " includes " + inc.target;
        const bool cuda = inc.target.rfind("cuda", 0) == 0 || inc.target.rfind("cudnn", 0) == 0;
        if (!inc.quoted) {
          if (cuda && !rule.cuda) problems.push_back(where + " (" + relative + " may not see CUDA or cuDNN)");
          continue;
        }
        const auto slash = inc.target.find('/');
        if (slash == std::string::npos) continue;  // a header beside the file
        const std::string target_folder = included_folder(inc.target);
        if (target_folder == folder || rule.folders.count(target_folder) || rule.files.count(inc.target)) continue;
        problems.push_back(where + " (against the folder order)");
      }
      for (const Include& inc : includes_of(entry.path())) {
        const auto wired = wired_headers().find(inc.target);
        if (inc.quoted && wired != wired_headers().end() && !wired->second.count(relative)) {
          problems.push_back(relative + ":" + std::to_string(inc.line) + " includes " + inc.target +
                             " (only api/process_wiring.cpp builds the process's objects)");
        }
      }
    }
  }
  return problems;
}

TEST(Architecture, FoldersIncludeOneWayAndCpuFoldersSeeNoCuda) {
  const std::vector<std::string> problems = violations(fs::path(UCUDNN_SOURCE_DIR));
  std::string all;
  for (const auto& p : problems) all += p + "\n";
  EXPECT_TRUE(problems.empty()) << all;
}

// The files under `folder` (relative to `root`) whose text holds `needle`, outside comments' lines.
std::vector<std::string> files_saying(const fs::path& root, const std::string& folder, const std::string& needle) {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const auto code = line.substr(0, line.find("//"));
      if (code.find(needle) != std::string::npos) {
        found.push_back(fs::relative(entry.path(), root).string() + ":" + std::to_string(number));
      }
    }
  }
  return found;
}

// The environment is read in one place (core/env_config.h: env_config, by the front-ends, the tools
// and the process wiring): the runtime is handed its settings, and the logger its level and file.
TEST(Architecture, TheRuntimeIsHandedItsSettingsAndNeverReadsTheEnvironment) {
  const fs::path root(UCUDNN_SOURCE_DIR);
  for (const std::string& needle : {std::string("env_config()"), std::string("process_settings()")}) {
    const auto calls = files_saying(root, "src/runtime", needle);
    EXPECT_TRUE(calls.empty()) << needle << " called under src/runtime: " << ::testing::PrintToString(calls);
  }
  const auto logging = files_saying(root, "src/core", "#include \"core/env_config.h\"");
  for (const std::string& file : logging) EXPECT_EQ(file.rfind("src/core/logging", 0), std::string::npos) << file;
  // The check sees a call: the file that reads the environment says it.
  EXPECT_FALSE(files_saying(root, "src/core", "env_config()").empty());
}

TEST(Architecture, TheCheckSeesAnIncludeAgainstTheOrder) {
  // The check itself, on a scratch tree: one file breaking each rule, and files keeping them.
  const fs::path root = fs::temp_directory_path() / ("ucudnn-arch-" + std::to_string(::getpid()));
  for (const auto& [folder, rule] : folder_rules()) fs::create_directories(root / folder);
  const std::map<std::string, std::string> files = {
      {"src/core/bad.h", "#include \"runtime/plan_builder.h\"\n"},
      {"src/store/bad.cpp", "#include <cudnn.h>\n"},
      {"src/api/good.cpp", "#include \"runtime/plan_builder.h\"\n#include <cudnn.h>\n"},
      {"src/tools/plan_bad.cpp", "#include \"api/frontend.h\"\n"},
      {"src/tools/db_bad.cpp", "#include <cuda_runtime_api.h>\n"},
      {"src/tools/bench_engine.cpp", "#include \"api/introspection.h\"\n#include <cuda_runtime_api.h>\n"},
      {"bench/bad.cpp", "#include \"runtime/plan_builder.h\"\n"},
      {"bench/good.cpp",
       "#include \"ucudnn/ucudnn.h\"\n#include \"core/units.h\"\n#include \"tools/networks.h\"\n"
       "#include \"runtime/stream_gate.h\"\n#include \"bench_support.h\"\n#include <cudnn.h>\n"},
      {"src/runtime/plan_builder.cpp", "#include \"runtime/gpu_measurement_source.h\"\n"},
      {"src/api/process_wiring.cpp", "#include \"runtime/gpu_measurement_source.h\"\n"},
      {"src/api/frontend.cpp", "#include \"runtime/wr_planner.h\"\n"},
      {"src/api/graph_bad.cpp", "#include \"api/graph/frontend.h\"\n"},
      {"src/api/graph/good.cpp", "#include \"api/frontend.h\"\n#include \"api/graph/records.h\"\n"},
  };
  for (const auto& [path, text] : files) std::ofstream(root / path) << text;
  std::vector<std::string> problems = violations(root);
  fs::remove_all(root);
  std::sort(problems.begin(), problems.end());
  ASSERT_EQ(problems.size(), 8u);
  const std::vector<std::string> expected = {
      "bench/bad.cpp:1 includes runtime/plan_builder.h (against the folder order)",
      "src/api/frontend.cpp:1 includes runtime/wr_planner.h (only api/process_wiring.cpp",
      "src/api/graph_bad.cpp:1 includes api/graph/frontend.h (against the folder order)",
      "src/core/bad.h:1 includes runtime/plan_builder.h (against the folder order)",
      "src/runtime/plan_builder.cpp:1 includes runtime/gpu_measurement_source.h (only",
      "src/store/bad.cpp:1 includes cudnn.h (src/store/bad.cpp may not see CUDA or cuDNN)",
      "src/tools/db_bad.cpp:1 includes cuda_runtime_api.h (src/tools/db_bad.cpp may not see CUDA",
      "src/tools/plan_bad.cpp:1 includes api/frontend.h (against the folder order)",
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(problems[i].rfind(expected[i], 0), 0u) << problems[i] << "\nexpected to start with\n" << expected[i];
  }
}

// Inside a folder, files form layers too: a unit (a header and the .cpp of the same stem) that
// another unit includes must not include it back, directly or through others (logging reading
// the settings table that logs, a front-end's request builder including the front-end). Every
// include cycle among the units of each folder below src/, as "a -> b -> a".
std::vector<std::string> cycles_inside_folders(const fs::path& root) {
  std::vector<std::string> cycles;
  for (const auto& dir : fs::recursive_directory_iterator(root / "src")) {
    if (!dir.is_directory()) continue;
    const std::string folder = fs::relative(dir.path(), root / "src").string();
    std::map<std::string, std::set<std::string>> includes;  // unit -> units of the folder it includes
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      if (!entry.is_regular_file() || !is_source(entry.path())) continue;
      const std::string unit = entry.path().stem().string();
      includes[unit];
      for (const Include& inc : includes_of(entry.path())) {
        const fs::path target(inc.target);
        const bool same_folder =
            target.parent_path() == folder || (!target.has_parent_path() && fs::exists(dir.path() / target));
        if (inc.quoted && same_folder && target.stem() != unit) includes[unit].insert(target.stem().string());
      }
    }
    // Depth-first; a unit met again while it is on the path closes a cycle.
    std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
    std::vector<std::string> path;
    std::function<void(const std::string&)> visit = [&](const std::string& unit) {
      state[unit] = 1;
      path.push_back(unit);
      for (const std::string& next : includes[unit]) {
        if (state[next] == 1) {
          std::string cycle = folder + ": ";
          for (auto it = std::find(path.begin(), path.end(), next); it != path.end(); ++it) cycle += *it + " -> ";
          cycles.push_back(cycle + next);
        } else if (state[next] == 0) {
          visit(next);
        }
      }
      path.pop_back();
      state[unit] = 2;
    };
    for (const auto& [unit, targets] : includes) {
      if (state[unit] == 0) visit(unit);
    }
  }
  std::sort(cycles.begin(), cycles.end());
  return cycles;
}

TEST(Architecture, NoIncludeGoesBackUpInsideAFolder) {
  std::string all;
  for (const auto& cycle : cycles_inside_folders(fs::path(UCUDNN_SOURCE_DIR))) all += cycle + "\n";
  EXPECT_TRUE(all.empty()) << "units of one folder that include each other:\n" << all;
}

TEST(Architecture, TheCheckSeesAnIncludeCycleInsideAFolder) {
  ucudnn::testing::TempDir dir;
  const fs::path root = dir.path();
  fs::create_directories(root / "src/core");
  fs::create_directories(root / "src/api/graph");
  const std::pair<const char*, const char*> files[] = {
      {"src/core/low.h", "#include \"core/high.h\"\n"},  // back up: high.cpp includes low.h
      {"src/core/high.h", "#include <string>\n"},
      {"src/core/high.cpp", "#include \"core/high.h\"\n#include \"core/low.h\"\n"},
      {"src/core/alone.cpp", "#include \"core/high.h\"\n"},
      {"src/api/graph/a.h", "#include \"b.h\"\n"},  // beside the file, unqualified
      {"src/api/graph/b.h", ""},
      {"src/api/graph/b.cpp", "#include \"api/graph/a.h\"\n"},
      {"src/api/a.h", "#include \"api/graph/a.h\"\n"},  // another folder's unit of the same stem: no cycle
  };
  for (const auto& [path, text] : files) std::ofstream(root / path) << text;
  const std::vector<std::string> expected = {"api/graph: a -> b -> a", "core: high -> low -> high"};
  EXPECT_EQ(cycles_inside_folders(root), expected);
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
      "ucudnnGetStatistics",       "ucudnnGetLastErrorMessage",      "ucudnnGetSearchStatistics",
      "ucudnnSetSearchMode",       "ucudnnGetSearchMode",
      "ucudnnSetSystemDatabases",  "ucudnnGetSplitStatistics",
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
  EXPECT_EQ(expected.size(), 46u);
  for (const auto& n : expected) EXPECT_TRUE(present.count(n)) << n << " is declared but not exported";
  for (const auto& n : present) EXPECT_TRUE(expected.count(n)) << n << " is exported but not in the public API";
  EXPECT_FALSE(is_public("ucudnn::optimize::optimize_wr(int)")) << "the check must refuse internal names";
  EXPECT_FALSE(is_public("cudnnCreate(UcudnnHandle_t*)")) << "the C++ overloads are inline, not exported";
}

// cuDNN's names, the graph API's among them, dlopen (which answers cuDNN's main library) and the
// marker `ucudnn run` checks for.
TEST(Architecture, PreloadExportsCudnnNamesDlopenAndItsMarkerOnly) {
  const std::vector<std::string> names = exported_symbols(UCUDNN_PRELOAD_LIBRARY_PATH);
  ASSERT_GT(names.size(), 10u);
  for (const auto& n : names) {
    EXPECT_TRUE(n.rfind("cudnn", 0) == 0 || n == "dlopen" || n == "ucudnn_preload_layer") << n;
    EXPECT_EQ(n.find('('), std::string::npos) << n << " is not a C name";
  }
  const std::set<std::string> present(names.begin(), names.end());
  for (const char* n : {"dlopen", "ucudnn_preload_layer", "cudnnBackendExecute", "cudnnBackendFinalize", "cudnnBackendGetAttribute",
                        "cudnnBackendSetAttribute", "cudnnBackendCreateDescriptor", "cudnnBackendDestroyDescriptor"}) {
    EXPECT_TRUE(present.count(n)) << n << " is not exported";
  }
}

}  // namespace
