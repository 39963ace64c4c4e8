#include "tools/cudnn_locator.h"

#include <dlfcn.h>
#include <link.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <vector>

#include "core/env_config.h"
#include "tools/subprocess.h"

namespace ucudnn::tools {
namespace {

namespace fs = std::filesystem;

using VersionFunction = std::size_t (*)();

// What `run` does where the interpreter gives no answer.
constexpr const char* kLookingElsewhere =
    "; looking on LD_LIBRARY_PATH, then in the dynamic linker's search, instead (name the program's cuDNN with "
    "--cudnn to skip the question)";

// When a question that has not been answered is said to be taking long.
constexpr int kSlowAnswerNoteMs = 5000;

// Asked of a Python interpreter: the file of the libcudnn.so that torch loads (torch's own bundled
// copy where it has one), as tests/integration/torch_cudnn.py finds it. Prints nothing where torch
// has no cuDNN; fails where torch is absent.
constexpr const char* kTorchCudnnSnippet =
    "import os, torch\n"
    "torch.backends.cudnn.version()\n"
    "for line in open('/proc/self/maps'):\n"
    "    path = line.split()[-1]\n"
    "    if os.path.basename(path).startswith('libcudnn.so'):\n"
    "        print(path)\n"
    "        break\n";

// Runs in the forked child: loads `file`, calls the two version functions and answers in lines,
// "ok", the path loaded, the version and the CUDA runtime version; or "error" and why. Each step
// is reported first, so that a library that hangs or crashes there is named with it.
std::string probe_here(const std::string& file, const StepReporter& step) {
  step("loading '" + file + "'");
  // A namespace of its own: nothing of this process's (its own cuDNN included) answers for it.
  void* handle = dlmopen(LM_ID_NEWLM, file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return "error\n" + (why ? std::string(why) : "cannot load " + file);
  }
  const link_map* map = nullptr;
  const std::string path = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] ? map->l_name : file;
  const auto version = reinterpret_cast<VersionFunction>(dlsym(handle, "cudnnGetVersion"));
  const auto cudart = reinterpret_cast<VersionFunction>(dlsym(handle, "cudnnGetCudartVersion"));
  if (version == nullptr || cudart == nullptr) {
    return "error\n" + path + " exports no cudnnGetVersion or cudnnGetCudartVersion: it is not a cuDNN";
  }
  step("calling cudnnGetVersion of '" + path + "'");
  const std::size_t cudnn_version = version();
  step("calling cudnnGetCudartVersion of '" + path + "'");
  const std::size_t cudart_version = cudart();
  return "ok\n" + path + "\n" + std::to_string(cudnn_version) + "\n" + std::to_string(cudart_version) + "\n";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool file_exists(const fs::path& path) {
  std::error_code ignored;
  return fs::exists(path, ignored);
}

bool folder_exists(const fs::path& path) {
  std::error_code ignored;
  return fs::is_directory(path, ignored);
}

// The file the program will load for --cudnn: the folder's libcudnn.so.9 (the preload library
// loads cuDNN by that name from the folder put first on LD_LIBRARY_PATH). A file --cudnn names
// must be that very file (a link to it included): another one beside it would pass the check
// while the program loaded the other.
Expected<std::string> option_file(const std::string& given) {
  // Absolute: a bare "libcudnn.so.9" means the file here, not the dynamic linker's search.
  std::error_code failed;
  const std::string option = fs::absolute(given, failed).string();
  if (failed) return Error::invalid("--cudnn: cannot make '" + given + "' absolute: " + failed.message());
  if (folder_exists(option)) {
    const fs::path file = fs::path(option) / kCudnnLibraryName;
    if (!file_exists(file)) return Error::invalid("--cudnn: the folder '" + option + "' has no " + kCudnnLibraryName);
    return file.string();
  }
  if (!file_exists(option)) return Error::invalid("--cudnn: no such file or folder '" + option + "'");
  const fs::path loaded = fs::path(option).parent_path() / kCudnnLibraryName;
  std::error_code ignored;
  if (!file_exists(loaded)) {
    return Error::invalid("--cudnn: '" + option + "' is not named " + kCudnnLibraryName + ", and its folder has no " +
                          kCudnnLibraryName + " (which the preload library loads by name)");
  }
  if (!fs::equivalent(option, loaded, ignored)) {
    return Error::invalid("--cudnn: the program would load '" + loaded.string() + "', not '" + option +
                          "' (the preload library loads " + kCudnnLibraryName +
                          " by name from its folder): name the folder, or make " + kCudnnLibraryName + " that file");
  }
  return loaded.string();
}

// A private folder (mode 0700) holding the question as a script, removed with the object. Asked
// as `python FILE`, Python puts the script's folder first on its path, never the current one, so a
// torch.py where `run` is started is never imported (as `python -c` would).
class QuestionScript {
 public:
  static Expected<QuestionScript> write(const std::string& text) {
    std::string pattern = (fs::temp_directory_path() / "ucudnn-question-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Error::storage("cannot make a folder for the question: " + std::string(std::strerror(errno)));
    }
    QuestionScript script(pattern);
    std::ofstream out(script.file(), std::ios::binary);
    out << text;
    out.close();
    if (!out) return Error::storage("cannot write the question to '" + script.file() + "'");
    return script;
  }
  QuestionScript(QuestionScript&& other) noexcept : folder_(std::move(other.folder_)) { other.folder_.clear(); }
  QuestionScript(const QuestionScript&) = delete;
  QuestionScript& operator=(const QuestionScript&) = delete;
  QuestionScript& operator=(QuestionScript&&) = delete;
  ~QuestionScript() {
    std::error_code ignored;
    if (!folder_.empty()) fs::remove_all(folder_, ignored);
  }
  std::string file() const { return (fs::path(folder_) / "ucudnn_torch_cudnn.py").string(); }

 private:
  explicit QuestionScript(std::string folder) : folder_(std::move(folder)) {}
  std::string folder_;
};

// The libcudnn.so file torch loads, asked of the interpreter `python`; none where torch is absent,
// has no cuDNN, or the interpreter fails. A question that takes long is said to take long, and one
// that ends without an answer for another reason than torch's absence is said to have, with what
// `run` does instead.
std::optional<std::string> torch_cudnn_file(const std::string& python, const Notes& note) {
  const auto script = QuestionScript::write(kTorchCudnnSnippet);
  if (!script) {
    note("cannot ask " + python + " where torch's cuDNN is (" + script.message() + ")" + kLookingElsewhere);
    return std::nullopt;
  }
  const SlowNote slow{kSlowAnswerNoteMs, [&] {
                        note("still asking " + python + " where torch's cuDNN is (importing torch); it has up to " +
                             std::to_string(kChildAnswerTimeoutMs / 1000) + " s");
                      }};
  const ChildAnswer answer = capture_stdout({python, script->file()}, kChildAnswerTimeoutMs, slow);
  if (answer.outcome == ChildAnswer::Outcome::kTimedOut || answer.outcome == ChildAnswer::Outcome::kSignalled) {
    note(answer.why + kLookingElsewhere);
  }
  if (answer.outcome != ChildAnswer::Outcome::kAnswered) return std::nullopt;
  const std::vector<std::string> lines = lines_of(answer.text);
  if (lines.empty() || lines.front().empty()) return std::nullopt;
  return lines.front();
}

// The first libcudnn.so.9 in a ':'-separated list of folders, as the dynamic linker searches it.
std::optional<std::string> first_on_path(const std::string& library_path) {
  for (const std::string& folder : split_path_list(library_path)) {
    const fs::path file = fs::path(folder) / kCudnnLibraryName;
    if (file_exists(file)) return file.string();
  }
  return std::nullopt;
}

Expected<CudnnLibrary> probed_as(const std::string& file, const std::string& found_by) {
  UCUDNN_TRY_ASSIGN(CudnnLibrary library, probe_cudnn(file));
  library.found_by = found_by;
  return library;
}

}  // namespace

int cudnn_major(std::size_t version) { return static_cast<int>(version >= 10000 ? version / 10000 : version / 1000); }

std::string cudnn_version_text(std::size_t version) {
  const std::size_t minor = version >= 10000 ? version % 10000 / 100 : version % 1000 / 100;
  return std::to_string(cudnn_major(version)) + "." + std::to_string(minor) + "." + std::to_string(version % 100);
}

Expected<CudnnLibrary> probe_cudnn(const std::string& file) {
  auto answered =
      run_in_fork([&file](const StepReporter& step) { return probe_here(file, step); }, kChildAnswerTimeoutMs);
  if (!answered) return answered.error().prefixed("cannot probe cuDNN '" + file + "': ");
  const std::string& answer = *answered;
  const std::vector<std::string> lines = lines_of(answer);
  if (lines.size() >= 2 && lines[0] == "error") return Error::invalid("cannot load cuDNN: " + lines[1]);
  if (lines.size() != 4 || lines[0] != "ok") return Error::invalid("probing '" + file + "' gave no answer");
  CudnnLibrary library;
  library.path = lines[1];
  library.folder = fs::absolute(fs::path(lines[1])).parent_path().string();
  library.version = std::stoull(lines[2]);
  library.cudart_version = std::stoull(lines[3]);
  return library;
}

bool is_python_interpreter(const std::string& program) {
  static const std::regex python(R"(python(3(\.[0-9]+)?)?)");
  return std::regex_match(fs::path(program).filename().string(), python);
}

Expected<CudnnLibrary> locate_cudnn(const CudnnSearch& search) {
  if (!search.option.empty()) {
    UCUDNN_TRY_ASSIGN(const std::string file, option_file(search.option));
    return probed_as(file, "--cudnn");
  }
  std::string looked;
  if (is_python_interpreter(search.program)) {
    const Notes note = search.note ? search.note : [](const std::string&) {};
    if (const auto file = torch_cudnn_file(search.program, note)) return probed_as(*file, search.program + "'s torch");
    looked = search.program + "'s torch, ";
  }
  if (const auto file = first_on_path(search.library_path)) return probed_as(*file, "LD_LIBRARY_PATH");
  auto linked = probe_cudnn(kCudnnLibraryName);
  if (linked) {
    linked->found_by = "the dynamic linker";
    return linked;
  }
  return Error::invalid("no " + std::string(kCudnnLibraryName) + " found (looked at " + looked +
                        "LD_LIBRARY_PATH and the dynamic linker's search: " + linked.message() +
                        "); name one with --cudnn");
}

}  // namespace ucudnn::tools
