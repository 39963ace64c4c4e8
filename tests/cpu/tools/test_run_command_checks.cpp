// `ucudnn run` checks what it is given: the torch question
// never imports from the current folder and is said when it takes long or dies, as is a cuDNN
// whose version call crashes or hangs (named with the step it was at), the preload file must be
// ucudnn's layer, contradicting options are refused, and a program that cannot start is named as
// env would name it. Each test failed before its fix. The CUDA build only.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.h"
#include "run_test_support.h"
#include "test_helpers.h"
#include "tools/cli.h"
#include "tools/subprocess.h"

namespace ucudnn::testing {
using tools::kExitCannotRun;
using tools::kExitDataError;
using tools::kExitNotFound;
using tools::kExitUsageError;
namespace {

namespace fs = std::filesystem;

void make_executable(const std::string& file, const std::string& text) {
  std::ofstream(file) << text;
  fs::permissions(file, fs::perms::owner_all);
}

// Item 1: `python3 -c` put the current folder first on Python's path, so a torch.py there ran.
TEST(RunChecks, TheTorchQuestionNeverImportsFromTheCurrentFolder) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here";
  TempDir dir;
  const fs::path shared = dir.path() / "shared";
  fs::create_directories(shared);
  const fs::path ran = dir.path() / "planted-torch-ran";
  std::ofstream(shared / "torch.py") << "open('" << ran.string() << "', 'w').write('ran')\n";
  const ProcessResult result = run_binary(
      dir, "run --dry-run --preload '" + std::string(UCUDNN_PRELOAD_LIBRARY_PATH) + "' -- python3 /home/me/train.py",
      "cd '" + shared.string() + "' &&");
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_FALSE(fs::exists(ran)) << "the torch.py of the current folder ran:\n" << result.err;
}

// Item 8: a question that dies (or hangs) is said, with what `run` does instead.
TEST(RunChecks, ATorchQuestionThatDiesIsSaidWithWhatRunDoesInstead) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const fs::path python = dir.path() / "bin" / "python3";
  fs::create_directories(python.parent_path());
  make_executable(python.string(), "#!/bin/sh\nkill -9 $$\n");
  const ProcessResult result = run_binary(dir, "run --dry-run --preload '" + preload + "' -- '" + python.string() + "'",
                                          "env LD_LIBRARY_PATH='" + cudnn + "'");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_NE(result.err.find("ucudnn run: '" + python.string() + "' ended with signal 9"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("looking on LD_LIBRARY_PATH"), std::string::npos) << result.err;
  EXPECT_TRUE(has_line(result.out, "export LD_LIBRARY_PATH=" + cudnn + ":" + cudnn)) << result.out;
}

// Item 8: the question is said to be slow, and killed with every process it started.
TEST(RunChecks, AQuestionThatHangsIsSaidAndKilledWithItsChildren) {
  TempDir dir;
  const std::string child_pid = (dir.path() / "child.pid").string();
  const std::string script = (dir.path() / "hang.sh").string();
  make_executable(script, "#!/bin/sh\nsleep 300 &\necho $! > '" + child_pid + "'\nsleep 300\n");
  int notes = 0;
  const auto started = std::chrono::steady_clock::now();
  const tools::ChildAnswer answer = tools::capture_stdout({script}, 1500, tools::SlowNote{300, [&] { ++notes; }});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(answer.outcome, tools::ChildAnswer::Outcome::kTimedOut) << answer.why;
  EXPECT_NE(answer.why.find("gave no answer within 1 s (it and the processes it started were killed)"),
            std::string::npos)
      << answer.why;
  EXPECT_EQ(notes, 1) << "said once that it was slow";
  std::ifstream in(child_pid);
  pid_t pid = 0;
  ASSERT_TRUE(in >> pid) << "the script's child never started";
  // Killed with its group; as an orphan it is reaped by init, so give that a moment.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = kill(pid, 0) != 0;
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "the question's child " << pid << " outlived it";
  if (!gone) kill(pid, SIGKILL);

  // A quick answer: no note, and its text.
  int quick_notes = 0;
  const tools::ChildAnswer quick =
      tools::capture_stdout({"/bin/sh", "-c", "echo here"}, 5000, tools::SlowNote{3000, [&] { ++quick_notes; }});
  EXPECT_EQ(quick.outcome, tools::ChildAnswer::Outcome::kAnswered) << quick.why;
  EXPECT_EQ(quick.text, "here\n");
  EXPECT_EQ(quick_notes, 0);
}

TEST(RunChecks, ACudnnWhoseVersionCallCrashesIsNamedWithTheStep) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const fs::path file = dir.path() / "crash" / "libcudnn.so.9";
  compile_library(dir,
                  "#include <stddef.h>\n#include <signal.h>\nsize_t cudnnGetVersion(void) { raise(SIGSEGV); return 0; "
                  "}\nsize_t cudnnGetCudartVersion(void) { return 13000; }\n",
                  file);
  const auto result =
      run({"run", "--dry-run", "--preload", preload, "--cudnn", file.parent_path().string(), "--", "true"});
  EXPECT_EQ(result.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(result.err)) << result.err;
#ifndef UCUDNN_TEST_UNDER_ASAN  // AddressSanitizer's handler turns the forked child's crash into exit 1
  EXPECT_NE(result.err.find("signal 11"), std::string::npos) << result.err;
#endif
  EXPECT_NE(result.err.find("while calling cudnnGetVersion of '" + file.string() + "'"), std::string::npos)
      << result.err;
}

TEST(RunChecks, ForkedWorkThatHangsIsKilledAtItsTimeoutNamingTheStep) {
  const auto started = std::chrono::steady_clock::now();
  const auto answer = tools::run_in_fork(
      [](const tools::StepReporter& step) {
        step("loading '/opt/hang/libcudnn.so.9'");
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::string("never");
      },
      300);
  ASSERT_FALSE(answer.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_NE(answer.message().find("no answer within"), std::string::npos) << answer.message();
  EXPECT_NE(answer.message().find("while loading '/opt/hang/libcudnn.so.9'"), std::string::npos) << answer.message();
  const auto fine = tools::run_in_fork(
      [](const tools::StepReporter& step) {
        step("answering");
        return std::string("ok\nanswer\n");
      },
      5000);
  ASSERT_TRUE(fine.ok()) << fine.message();
  EXPECT_EQ(*fine, "ok\nanswer\n") << "an answer that holds the marker is still the whole answer";
}

// Item 6: any file was preloaded, and the program ran without ucudnn.
TEST(RunChecks, OnlyUcudnnsPreloadLayerIsPreloaded) {
  TempDir dir;
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string text = dir.write("hostname", "myhost\n");
  const fs::path other = dir.path() / "other" / "libother.so";
  compile_library(dir, "int other_library = 1;\n", other);
  expect_error({"run", "--dry-run", "--preload", text, "--cudnn", cudnn, "--", "true"}, kExitDataError,
               "--preload: '" + text + "' is not ucudnn's preload layer: it is not an ELF file");
  expect_error({"run", "--dry-run", "--preload", other.string(), "--cudnn", cudnn, "--", "true"}, kExitDataError,
               "is not ucudnn's preload layer: it is a shared library, but does not export ucudnn_preload_layer");
  const ProcessResult by_variable = run_binary(dir, "run --dry-run --cudnn '" + cudnn + "' -- true",
                                               "env UCUDNN_PRELOAD_LIBRARY='" + other.string() + "'");
  EXPECT_EQ(by_variable.status, kExitDataError);
  EXPECT_NE(by_variable.err.find("UCUDNN_PRELOAD_LIBRARY: '" + other.string() + "' is not ucudnn's preload layer"),
            std::string::npos)
      << by_variable.err;
  // The layer itself passes.
  const CliResult real = run({"run", "--dry-run", "--preload", UCUDNN_PRELOAD_LIBRARY_PATH, "--cudnn", cudnn, "--", "true"});
  EXPECT_EQ(real.status, 0) << real.err;
}

// Item 9: options that contradict each other passed with no word.
TEST(RunChecks, OptionsThatContradictEachOtherAreRefusedNamingBoth) {
  expect_error({"run", "--micro-batch-offers", "--workspace-limit", "64MiB", "--", "true"}, kExitUsageError,
               "--micro-batch-offers and --workspace-limit: ");
  expect_error({"run", "--micro-batch-offers", "--memory-budget", "off", "--", "true"}, kExitUsageError,
               "--micro-batch-offers and --memory-budget off: ");
  expect_error({"run", "--memory-budget", "8GiB", "--workspace-limit", "64MiB", "--", "true"}, kExitUsageError,
               "--memory-budget and --workspace-limit: ");
  TempDir dir;
  const ProcessResult from_environment =
      run_binary(dir, "run --dry-run --memory-budget free -- true", "env UCUDNN_FORCE_WORKSPACE_LIMIT=8MiB");
  EXPECT_EQ(from_environment.status, kExitUsageError);
  EXPECT_NE(from_environment.err.find("--memory-budget and UCUDNN_FORCE_WORKSPACE_LIMIT: "), std::string::npos)
      << from_environment.err;
}

// Item 10: the error blamed a script that exists for its missing interpreter.
TEST(RunChecks, AScriptWhoseInterpreterIsMissingIsNamedAsSuch) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string script = (dir.path() / "m").string();
  make_executable(script, "#!/opt/nowhere/interpreter -u\necho never\n");
  const CliResult result = run({"run", "--preload", preload, "--cudnn", cudnn, "--", script});
  EXPECT_EQ(result.status, kExitNotFound);
  EXPECT_NE(result.err.find("cannot run '" + script +
                            "': its interpreter '/opt/nowhere/interpreter' (its #! line) does not exist"),
            std::string::npos)
      << result.err;
}

// Item 10: where run's own additions pushed a variable past the kernel's bound, the program was blamed.
TEST(RunChecks, AnEnvironmentTooLargeForTheKernelNamesUcudnnsPart) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  // 131,071 bytes with its name: the most one variable may be, until run puts cuDNN's folder first.
  const std::string name = "LD_LIBRARY_PATH=";
  const std::string path = "/x" + std::string(131071 - name.size() - 2, 'y');
  const std::string value = dir.write("library_path.txt", path);  // the shell's own command stays short
  const ProcessResult result = run_binary(dir, "run --preload '" + preload + "' --cudnn '" + cudnn + "' -- true",
                                          "env LD_LIBRARY_PATH=\"$(cat '" + value + "')\"");
  EXPECT_EQ(result.status, kExitCannotRun) << result.err;
  EXPECT_NE(result.err.find("LD_LIBRARY_PATH, with what ucudnn run adds to it, is"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("more than the kernel takes in one argument or variable (131071)"), std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace ucudnn::testing
