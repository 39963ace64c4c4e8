// `ucudnn run` under hostile use: paths the dynamic linker would split, relative paths, signals
// (the program takes the run's place, as with env), dry-run lines a shell can run, variables an
// option replaces, scripts without "#!", a --cudnn file that is not the one loaded, and a cuDNN
// probe that crashes or hangs. The CUDA build only (UCUDNN_PRELOAD_LIBRARY_PATH): the build
// without CUDA has no `run`.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
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
using tools::kExitDataError;
using tools::kExitUsageError;
namespace {

namespace fs = std::filesystem;


// A real, harmless preload library at `file` (its folder made).
std::string preload_at(const TempDir& dir, const fs::path& file) {
  compile_library(dir, std::string("const char ") + tools::kPreloadMarkerSymbol + "[] = \"stand-in\";\n", file);
  return file.string();
}

TEST(RunHostile, PathsTheDynamicLinkerWouldSplitAreRefusedBeforeTheProgramStarts) {
  TempDir dir;
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string marker = (dir.path() / "started").string();
  const std::vector<std::string> program = {"--", "/bin/sh", "-c", "touch '" + marker + "'"};
  for (const std::string folder : {"my tools", "a:b", "a$LIB"}) {
    SCOPED_TRACE(folder);
    const std::string preload = preload_at(dir, dir.path() / folder / "libucudnn_preload.so");
    expect_error(testing::with({"run", "--preload", preload, "--cudnn", cudnn}, program), kExitDataError,
                 folder == "a$LIB" ? "the dynamic linker expands names after LD_PRELOAD"
                                   : "the dynamic linker splits LD_PRELOAD");
  }
  const std::string preload = stand_in_preload(dir);
  const std::string split_cudnn = stand_in_cudnn(dir, "c:d", matching_cudnn_version(), matching_cudart_version());
  expect_error(testing::with({"run", "--preload", preload, "--cudnn", split_cudnn}, program), kExitDataError,
               "the dynamic linker splits LD_LIBRARY_PATH");
  EXPECT_FALSE(fs::exists(marker)) << "the program was started";
}

TEST(RunHostile, RelativePathsArePassedOnAbsolute) {
  TempDir dir;
  preload_at(dir, dir.path() / "lib" / "libucudnn_preload.so");
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const ProcessResult result =
      run_binary(dir, "run --dry-run --preload lib/libucudnn_preload.so --database runs/my.db --cudnn cudnn -- true",
                 "cd '" + dir.path().string() + "' && env -u LD_PRELOAD");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export LD_PRELOAD=" + (dir.path() / "lib/libucudnn_preload.so").string()))
      << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_DATABASE=" + (dir.path() / "runs/my.db").string())) << result.out;
  EXPECT_EQ(lines_of(result.out).at(1).rfind("export LD_LIBRARY_PATH=" + cudnn, 0), 0u) << result.out;
  // A bare file name is the file here, not whatever the dynamic linker's search finds.
  const ProcessResult bare =
      run_binary(dir, "run --dry-run --preload ../lib/libucudnn_preload.so --cudnn libcudnn.so.9 -- true",
                 "cd '" + cudnn + "' && env -u LD_PRELOAD -u LD_LIBRARY_PATH");
  ASSERT_EQ(bare.status, 0) << bare.err;
  EXPECT_EQ(lines_of(bare.out).at(1), "export LD_LIBRARY_PATH=" + cudnn) << bare.out;
}

TEST(RunHostile, DryRunLinesRunAsAShellScriptWithTheSameEnvironment) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable no_preload("LD_PRELOAD", std::nullopt);
  const auto result = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--workspace-limit", "8MiB",
                           "--", "/bin/sh", "-c", "echo \"$LD_PRELOAD|$UCUDNN_FORCE_WORKSPACE_LIMIT\""});
  ASSERT_EQ(result.status, 0) << result.err;
  const std::string script = dir.write("dry-run.sh", result.out);
  const std::string ran = (dir.path() / "ran").string();
  ASSERT_EQ(std::system(("env -u LD_PRELOAD sh '" + script + "' >'" + ran + "'").c_str()), 0);
  EXPECT_EQ(testing::read_bytes(ran), preload + "|8MiB\n") << result.out;
}

TEST(RunHostile, AnEmptyStatisticsVariableMeansUnsetAndGetsStatisticsOn) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable empty("UCUDNN_STATS", " ");
  const auto result = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--", "true"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_STATS=1")) << result.out;
}

TEST(RunHostile, ABadVariableAnOptionReplacesIsNoErrorButOneTheProgramWouldMeetIs) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string run_dry = "run --dry-run --preload '" + preload + "' --cudnn '" + cudnn + "' ";
  const ProcessResult limit =
      run_binary(dir, run_dry + "--workspace-limit 8MiB -- true", "env UCUDNN_WORKSPACE_LIMIT=abc");
  EXPECT_EQ(limit.status, 0) << limit.err;
  EXPECT_TRUE(has_line(limit.out, "unset UCUDNN_WORKSPACE_LIMIT")) << limit.out;
  const ProcessResult stats = run_binary(dir, run_dry + "--no-stats -- true", "env UCUDNN_STATS=2");
  EXPECT_EQ(stats.status, 0) << stats.err;
  const ProcessResult kept = run_binary(dir, run_dry + "-- true", "env UCUDNN_STATS=2");
  EXPECT_EQ(kept.status, kExitUsageError);
  EXPECT_TRUE(is_one_error_line(kept.err)) << kept.err;
  EXPECT_NE(kept.err.find("UCUDNN_STATS"), std::string::npos) << kept.err;
}

TEST(RunHostile, AScriptWithoutAnInterpreterLineRunsAsUnderEnv) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string script = dir.write("train.sh", "echo \"ran $1\"\nexit 4\n");
  fs::permissions(script, fs::perms::owner_all);
  const ProcessResult result =
      run_binary(dir, "run --no-stats --preload '" + preload + "' --cudnn '" + cudnn + "' -- '" + script + "' now");
  EXPECT_EQ(result.status, 4) << result.err;
  EXPECT_EQ(result.out, "ran now\n");
}

// Starts `ucudnn run ... -- sh -c 'echo $$ >PIDFILE; exec sleep 30'` and waits for the pid file.
pid_t start_sleeping_program(const TempDir& dir, const std::string& pid_file) {
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string script = "echo $$ >'" + pid_file + "'; exec sleep 30";
  const pid_t pid = fork();
  if (pid == 0) {
    // As a shell starts a job: the signals at their defaults, whatever the test runner ignores.
    for (const int signal : {SIGHUP, SIGINT, SIGTERM}) std::signal(signal, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    freopen("/dev/null", "w", stderr);
    execl(UCUDNN_CLI_PATH, "ucudnn", "run", "--no-stats", "--preload", preload.c_str(), "--cudnn", cudnn.c_str(), "--",
          "/bin/sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(126);
  }
  for (int i = 0; i < 500 && testing::read_bytes(pid_file).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pid;
}

TEST(RunHostile, SignalsToTheRunReachTheProgramWhichIsTheSameProcess) {
  for (const int signal : {SIGTERM, SIGHUP, SIGINT}) {
    SCOPED_TRACE(strsignal(signal));
    TempDir dir;
    const std::string pid_file = (dir.path() / "pid").string();
    const pid_t run_pid = start_sleeping_program(dir, pid_file);
    ASSERT_GT(run_pid, 0);
    const std::string written = testing::read_bytes(pid_file);
    if (written.empty()) {
      kill(run_pid, SIGKILL);
      waitpid(run_pid, nullptr, 0);
      FAIL() << "the program did not start";
    }
    const pid_t program_pid = std::stoi(written);
    EXPECT_EQ(program_pid, run_pid) << "the program runs beside `run`, which a signal would leave behind";
    ASSERT_EQ(kill(run_pid, signal), 0);
    int status = 0;
    const auto waited = std::chrono::steady_clock::now();
    ASSERT_EQ(waitpid(run_pid, &status, 0), run_pid);
    EXPECT_LT(std::chrono::steady_clock::now() - waited, std::chrono::seconds(10));
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
    if (program_pid != run_pid) kill(program_pid, SIGKILL);  // not left running after a failure
  }
}

TEST(RunHostile, ACudnnFileThatIsNotTheOneTheProgramLoadsIsRefused) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  // The folder's libcudnn.so.9, which the program would load, is a cuDNN 8; the file named is a 9.
  const std::string folder = stand_in_cudnn(dir, "lib", 8907, matching_cudart_version());
  const fs::path named = fs::path(folder) / "libcudnn.so.9.1.0";
  fs::copy_file(stand_in_cudnn(dir, "right", matching_cudnn_version(), matching_cudart_version()) + "/libcudnn.so.9",
                named);
  expect_error({"run", "--dry-run", "--preload", preload, "--cudnn", named.string(), "--", "true"}, kExitDataError,
               "the program would load '" + folder + "/libcudnn.so.9'");
  // The same file under its link name is accepted: it is what is loaded.
  fs::remove(fs::path(folder) / "libcudnn.so.9");
  fs::create_symlink("libcudnn.so.9.1.0", fs::path(folder) / "libcudnn.so.9");
  const auto accepted = run({"run", "--dry-run", "--preload", preload, "--cudnn", named.string(), "--", "true"});
  EXPECT_EQ(accepted.status, 0) << accepted.err;
}

TEST(RunHostile, ACudnnWhoseVersionCallCrashesIsNamedWithTheStep) {
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

TEST(RunHostile, ForkedWorkThatHangsIsKilledAtItsTimeoutNamingTheStep) {
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

}  // namespace
}  // namespace ucudnn::testing
