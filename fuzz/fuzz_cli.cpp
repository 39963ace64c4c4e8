// The `ucudnn` command line from arbitrary bytes: each line of the input is one argument. Every
// run ends with a documented exit status, and a failure is exactly one line naming the problem.
// The run happens in a scratch folder holding a small measurement table (t.csv) and network
// (n.json); inputs with '/' or '..' are skipped, so that no argument reaches outside it.

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "tools/cli.h"

using namespace ucudnn;
using namespace ucudnn::tools;  // the commands and reports under test

namespace {

constexpr const char* kTable =
    "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n"
    "c1,fwd,8,0,0,0.50,0\n"
    "c1,fwd,8,1,0,0.20,4194304\n"
    "c1,fwd,4,1,0,0.09,2097152\n"
    "c1,fwd,2,1,0,0.05,1048576\n"
    "c1,bwdf,8,0,0,0.70,0\n"
    "c1,bwdf,4,1,0,0.20,8388608\n";
constexpr const char* kNetwork =
    R"({"name": "n", "batch": 8, "layers": [{"name": "c1", "input": [16, 14, 14], "filters": 32, )"
    R"("kernel": [3, 3], "pad": 1}]})";

// Once per process: a scratch folder as the working directory, and no database from outside.
void enter_scratch_folder() {
  static char folder[] = "/tmp/ucudnn-fuzz-cli-XXXXXX";
  static const bool entered = [] {
    if (!mkdtemp(folder) || chdir(folder) != 0) std::abort();
    unsetenv("UCUDNN_DATABASE");
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(folder, ignored);
    });
    return true;
  }();
  (void)entered;
  std::ofstream("t.csv") << kTable;  // again each time: a run may have replaced them
  std::ofstream("n.json") << kNetwork;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find('/') != std::string::npos || text.find("..") != std::string::npos) return 0;
  std::vector<std::string> args;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && args.size() < 24;) args.push_back(line);
  enter_scratch_folder();

  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  UCUDNN_FUZZ_CHECK(status == kExitOk || status == kExitDataError || status == kExitUsageError);
  if (status != kExitOk) {
    const std::string message = err.str();
    UCUDNN_FUZZ_CHECK(message.rfind("ucudnn: error: ", 0) == 0);
    UCUDNN_FUZZ_CHECK(std::count(message.begin(), message.end(), '\n') == 1 && message.back() == '\n');
  }
  return 0;
}
