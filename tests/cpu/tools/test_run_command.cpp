// `ucudnn run`, in-process through run_cli and through the real binary: the environment it gives
// the program (paths the dynamic linker would split refused, relative ones made absolute, dry-run
// lines a shell runs alike, variables an option replaces), the cuDNN it finds and refuses (a
// --cudnn file that is not the one the program loads), the program it starts in its own place
// (scripts without "#!", signals), the exit status it passes on. Stand-in cuDNN
// libraries (exporting only cudnnGetVersion and cudnnGetCudartVersion) are compiled here with the
// build's C compiler; the real cuDNN is the one this test program links (UCUDNN_PRELOAD_LIBRARY_PATH
// makes this file part of the CUDA build only).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/env_config.h"
#include "cli_test_support.h"
#include "run_test_support.h"
#include "test_helpers.h"
#include "tools/build_info.h"
#include "tools/cli.h"
#include "tools/cudnn_locator.h"

namespace ucudnn::testing {
using tools::kExitCannotRun;
using tools::kExitDataError;
using tools::kExitUsageError;
namespace {

namespace fs = std::filesystem;



TEST(RunCommand, DryRunPrintsThePreloadTheCudnnFolderAndTheForcedLimit) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable no_preload("LD_PRELOAD", std::nullopt);
  ScopedVariable library_path("LD_LIBRARY_PATH", "/opt/other/lib");
  const CliResult result = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--workspace-limit",
                                "64MiB", "--", "python3", "train.py", "--lr", "0.1"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  EXPECT_TRUE(has_line(result.out, "export LD_PRELOAD=" + preload)) << result.out;
  EXPECT_TRUE(has_line(result.out, "export LD_LIBRARY_PATH=" + cudnn + ":/opt/other/lib")) << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_FORCE_WORKSPACE_LIMIT=64MiB")) << result.out;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "python3 train.py --lr 0.1") << "the command, last; --cudnn given: torch is not asked";
}

TEST(RunCommand, DryRunSpellsEachOptionAsItsVariableAndQuotesForTheShell) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const CliResult result = run({"run", "--dry-run", "--preload", preload, "--cudnn",
                                cudnn + "/" + tools::kCudnnLibraryName, "--policy", "ALL", "--candidates", "Engines",
                                "--database", "/tmp/my runs.db", "--memory-budget", "6GiB", "--no-stats",
                                "--no-micro-batch-offers", "--", "/bin/sh", "-c", "echo \"it's\""});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_MEMORY_BUDGET=6GiB")) << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_MICRO_BATCH_OFFERS=0")) << result.out;
  const CliResult offering = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn,
                                  "--micro-batch-offers", "--", "true"});
  ASSERT_EQ(offering.status, 0) << offering.err;
  EXPECT_TRUE(has_line(offering.out, "export UCUDNN_MICRO_BATCH_OFFERS=1")) << offering.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_BATCH_SIZE_POLICY=all")) << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_CANDIDATES=engines")) << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_DATABASE='/tmp/my runs.db'")) << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_STATS=0")) << result.out;
  EXPECT_EQ(lines_of(result.out).back(), "/bin/sh -c 'echo \"it'\\''s\"'") << result.out;
}

TEST(RunCommand, KeepsTheEnvironmentUnlessAnOptionReplacesIt) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable other_preload("LD_PRELOAD", "/opt/a.so " + preload + ":/opt/b.so");
  ScopedVariable library_path("LD_LIBRARY_PATH", std::nullopt);
  ScopedVariable statistics("UCUDNN_STATS", "0");
  ScopedVariable deprecated_limit("UCUDNN_WORKSPACE_LIMIT", "8MiB");
  const CliResult result =
      run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--workspace-limit", "32M", "--", "true"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export LD_PRELOAD=" + preload + ":/opt/a.so:/opt/b.so")) << "first, once\n" << result.out;
  EXPECT_TRUE(has_line(result.out, "export LD_LIBRARY_PATH=" + cudnn)) << result.out;
  EXPECT_EQ(result.out.find("UCUDNN_STATS"), std::string::npos) << "set already: kept\n" << result.out;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_FORCE_WORKSPACE_LIMIT=32M")) << result.out;
  EXPECT_TRUE(has_line(result.out, "unset UCUDNN_WORKSPACE_LIMIT")) << "it would contradict the option\n" << result.out;
}

// Another ucudnn layer already in LD_PRELOAD (an older install's, by its marker or by its name)
// would load beside this one, and the first one's "real" cuDNN would be the second: left out, and
// said, while every other library stays where it was.
TEST(RunCommand, LeavesOtherUcudnnLayersOutOfLdPreloadAndSaysSo) {
  TempDir dir, other_install;
  const std::string preload = stand_in_preload(dir);
  const std::string other_layer = stand_in_preload(other_install);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string plain_library = dir.write("libplain.so", "");
  ScopedVariable preloaded("LD_PRELOAD", "/opt/a.so " + other_layer + ":" + plain_library +
                                             ":libucudnn_preload.so:/old/lib/libucudnn_preload.so");
  const CliResult result = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--", "true"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export LD_PRELOAD=" + preload + ":/opt/a.so:" + plain_library)) << result.out;
  for (const std::string& layer :
       {other_layer, std::string("libucudnn_preload.so"), std::string("/old/lib/libucudnn_preload.so")}) {
    EXPECT_TRUE(has_line(result.err, "ucudnn run: left '" + layer +
                                         "' out of LD_PRELOAD: another ucudnn preload layer (one layer per process)"))
        << result.err;
  }
  EXPECT_EQ(lines_of(result.err).size(), 3u) << result.err;
}

TEST(RunCommand, PathsTheDynamicLinkerWouldSplitAreRefusedBeforeTheProgramStarts) {
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

TEST(RunCommand, RelativePathsArePassedOnAbsolute) {
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

TEST(RunCommand, DryRunLinesRunAsAShellScriptWithTheSameEnvironment) {
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

TEST(RunCommand, AnEmptyStatisticsVariableMeansUnsetAndGetsStatisticsOn) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable empty("UCUDNN_STATS", " ");
  const auto result = run({"run", "--dry-run", "--preload", preload, "--cudnn", cudnn, "--", "true"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(has_line(result.out, "export UCUDNN_STATS=1")) << result.out;
}

TEST(RunCommand, ABadVariableAnOptionReplacesIsNoErrorButOneTheProgramWouldMeetIs) {
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

TEST(RunCommand, RefusesBadOptionValuesNamingTheOption) {
  // Usage errors come before anything is looked for: no --preload needed.
  expect_error({"run", "--workspace-limit", "64MB", "--", "true"}, kExitUsageError, "--workspace-limit: ");
  expect_error({"run", "--workspace-limit", "64", "--", "true"}, kExitUsageError, "--workspace-limit: ");
  expect_error({"run", "--workspace-limit", "", "--", "true"}, kExitUsageError, "--workspace-limit: ");
  expect_error({"run", "--policy", "some", "--", "true"}, kExitUsageError, "--policy: ");
  expect_error({"run", "--memory-budget", "0", "--", "true"}, kExitUsageError, "--memory-budget: ");
  expect_error({"run", "--memory-budget", "most", "--", "true"}, kExitUsageError, "--memory-budget: 'most' is not");
  expect_error({"run", "--candidates", "most", "--", "true"}, kExitUsageError, "--candidates: ");
  expect_error({"run", "--micro-batch-offers", "--no-micro-batch-offers", "--", "true"}, kExitUsageError,
               "--micro-batch-offers and --no-micro-batch-offers: give one of them");
  expect_error({"run", "--database", "", "--", "true"}, kExitUsageError, "--database: ");
  expect_error({"run", "--preload", "", "--", "true"}, kExitUsageError, "--preload: the path is empty");
  expect_error({"run", "--cudnn", "", "--", "true"}, kExitUsageError, "--cudnn: the path is empty");
  expect_error({"run", "--dry-run"}, kExitUsageError, "no program given");
  // The program's own options need -- before the program.
  expect_error({"run", "python3", "-c", "pass"}, kExitUsageError, "'-c' is not an option of `run`: put -- before");
  expect_error({"run", "--bogus", "--", "true"}, kExitUsageError, "'--bogus' is not an option of `run`");
}

TEST(RunCommand, RefusesAMissingPreloadLibraryNamingThePath) {
  TempDir dir;
  const std::string missing = (dir.path() / "nowhere" / "libucudnn_preload.so").string();
  expect_error({"run", "--preload", missing, "--", "true"}, kExitDataError, missing);

  // The variable, then beside the command: each named where nothing is there.
  const ProcessResult by_variable =
      run_binary(dir, "run --dry-run -- true", "env UCUDNN_PRELOAD_LIBRARY='" + missing + "'");
  EXPECT_EQ(by_variable.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(by_variable.err)) << by_variable.err;
  EXPECT_NE(by_variable.err.find("UCUDNN_PRELOAD_LIBRARY: no preload library at '" + missing + "'"), std::string::npos)
      << by_variable.err;

  // In-process, the environment is read once per process: skipped where the suite runs with it set.
  if (!env_config() || !env_config()->preload_library.empty()) GTEST_SKIP() << "UCUDNN_PRELOAD_LIBRARY is set";
  // This test program's folder holds no preload library: both places are named.
  const CliResult beside = run({"run", "--dry-run", "--", "true"});
  EXPECT_EQ(beside.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(beside.err)) << beside.err;
  const fs::path folder = fs::read_symlink("/proc/self/exe").parent_path();
  EXPECT_NE(beside.err.find((folder / "libucudnn_preload.so").string()), std::string::npos) << beside.err;
  EXPECT_NE(beside.err.find("lib/libucudnn_preload.so"), std::string::npos) << beside.err;
}

TEST(RunCommand, FindsTheBuiltPreloadLibraryBesideTheCommand) {
  TempDir dir;
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const ProcessResult result =
      run_binary(dir, "run --dry-run --cudnn '" + cudnn + "' -- true", "env -u UCUDNN_PRELOAD_LIBRARY -u LD_PRELOAD");
  ASSERT_EQ(result.status, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_FALSE(lines.empty());
  ASSERT_EQ(lines.front().rfind("export LD_PRELOAD=", 0), 0u) << result.out;
  EXPECT_TRUE(fs::equivalent(lines.front().substr(18), UCUDNN_PRELOAD_LIBRARY_PATH)) << result.out;
}

TEST(RunCommand, RefusesACudnnOfAnotherMajorVersionWithoutStartingTheProgram) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn8 = stand_in_cudnn(dir, "cudnn8", 8907, matching_cudart_version());
  const std::string marker = (dir.path() / "started").string();
  const std::vector<std::string> program = {"--", "/bin/sh", "-c", "touch '" + marker + "'"};
  const std::string refusal = "cuDNN 8.9.7 at " + cudnn8 + "/libcudnn.so.9 (found by --cudnn) is major version 8, " +
                              "but this ucudnn was built against cuDNN " + std::to_string(built().cudnn_major);
  expect_error(with({"run", "--preload", preload, "--cudnn", cudnn8}, program), kExitDataError, refusal);
  EXPECT_FALSE(fs::exists(marker)) << "the program was started";

  const std::size_t other_cuda = static_cast<std::size_t>(built().cudart_major + 1) * 1000;
  const std::string for_other_cuda = stand_in_cudnn(dir, "cuda-next", matching_cudnn_version(), other_cuda);
  expect_error(with({"run", "--preload", preload, "--cudnn", for_other_cuda}, program), kExitDataError,
               "was built for CUDA " + std::to_string(built().cudart_major + 1) +
                   ", but this ucudnn was built against CUDA " + std::to_string(built().cudart_major));
  EXPECT_FALSE(fs::exists(marker)) << "the program was started";
}

TEST(RunCommand, RefusesACudnnThatCannotBeFoundOrIsNone) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  fs::create_directories(dir.path() / "empty");
  expect_error({"run", "--preload", preload, "--cudnn", (dir.path() / "empty").string(), "--", "true"}, kExitDataError,
               "has no libcudnn.so.9");
  // A shared library without cuDNN's version functions.
  compile_library(dir, "int nothing = 0;\n", dir.path() / "not-cudnn" / tools::kCudnnLibraryName);
  expect_error({"run", "--preload", preload, "--cudnn", (dir.path() / "not-cudnn").string(), "--", "true"},
               kExitDataError, "it is not a cuDNN");
}

TEST(RunCommand, ACudnnFileThatIsNotTheOneTheProgramLoadsIsRefused) {
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

TEST(RunCommand, AsksAPythonInterpreterFirstThenLdLibraryPath) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string torch_cudnn = stand_in_cudnn(dir, "torch", matching_cudnn_version(), matching_cudart_version());
  const std::string path_cudnn = stand_in_cudnn(dir, "path", matching_cudnn_version(), matching_cudart_version());
  ScopedVariable library_path("LD_LIBRARY_PATH", (dir.path() / "missing").string() + "::" + path_cudnn);

  const std::string python = fake_python(dir, "with-torch", torch_cudnn + "/libcudnn.so.9", 0);
  const CliResult asked = run({"run", "--dry-run", "--preload", preload, "--", python, "train.py"});
  ASSERT_EQ(asked.status, 0) << asked.err;
  EXPECT_EQ(lines_of(asked.out).at(1),
            "export LD_LIBRARY_PATH=" + torch_cudnn + ":" + (dir.path() / "missing").string() + "::" + path_cudnn)
      << "the search path kept as it was, behind\n"
      << asked.out;

  // Without torch the interpreter fails, and the search goes on.
  const std::string broken = fake_python(dir, "without-torch", "ModuleNotFoundError", 1);
  const CliResult fell_through = run({"run", "--dry-run", "--preload", preload, "--", broken, "train.py"});
  ASSERT_EQ(fell_through.status, 0) << fell_through.err;
  EXPECT_EQ(lines_of(fell_through.out).at(1).rfind("export LD_LIBRARY_PATH=" + path_cudnn + ":", 0), 0u) << fell_through.out;

  // Not an interpreter: not asked.
  const std::string not_python = (dir.path() / "with-torch" / "python3-config").string();
  fs::copy_file(python, not_python);
  const CliResult not_asked = run({"run", "--dry-run", "--preload", preload, "--", not_python});
  ASSERT_EQ(not_asked.status, 0) << not_asked.err;
  EXPECT_EQ(lines_of(not_asked.out).at(1).rfind("export LD_LIBRARY_PATH=" + path_cudnn + ":", 0), 0u) << not_asked.out;
}

TEST(RunCommand, KnowsPythonInterpretersByName) {
  for (const char* name : {"python", "python3", "python3.12", "/usr/bin/python3.11", "./venv/bin/python"}) {
    EXPECT_TRUE(tools::is_python_interpreter(name)) << name;
  }
  for (const char* name : {"python2", "python3-config", "ipython", "python3.x", "sh", "/usr/lib/python3/foo"}) {
    EXPECT_FALSE(tools::is_python_interpreter(name)) << name;
  }
  EXPECT_EQ(tools::cudnn_version_text(91900), "9.19.0");
  EXPECT_EQ(tools::cudnn_version_text(8907), "8.9.7");
  EXPECT_EQ(tools::cudnn_major(90100), 9);
}

TEST(RunCommand, RunsTheProgramWithTheEnvironmentAndExitsWithItsStatus) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = real_cudnn_library();
  ASSERT_FALSE(cudnn.empty()) << "this test program links libcudnn.so.9";
  const ProcessResult result = run_binary(dir,
                                          "run --preload '" + preload + "' --cudnn '" + cudnn +
                                              "' --workspace-limit 64MiB -- /bin/sh -c 'echo "
                                              "\"$LD_PRELOAD|$UCUDNN_FORCE_WORKSPACE_LIMIT|$UCUDNN_STATS\"; exit 3'",
                                          "env -u LD_PRELOAD -u UCUDNN_STATS -u UCUDNN_WORKSPACE_LIMIT");
  EXPECT_EQ(result.status, 3) << result.err;
  EXPECT_EQ(result.out, preload + "|64MiB|1\n");
  const std::string folder = fs::path(cudnn).parent_path().string();
  const std::string status_line =
      "ucudnn run: preloading " + preload + "; cuDNN " + std::to_string(built().cudnn_major);
  const std::vector<std::string> lines = lines_after_gpu_note(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_EQ(lines[0].rfind(status_line + ".", 0), 0u) << result.err;
  // What plans are held to where a GPU is; where none is, only that nothing will be planned.
  const std::string held_to = tools::missing_gpu() ? tools::kNothingPlannedWithoutAGpu : "workspace limit 64 MiB";
  EXPECT_NE(lines[0].find(" from " + folder + "; " + held_to), std::string::npos) << result.err;
}

// Where a GPU is, the status line ends with what plans are held to: the forced limit, else the
// budget and which offers the program gets (auto by default, none with --no-micro-batch-offers).
TEST(RunCommand, TheStatusLineSaysWhatPlansAreHeldToAndWhetherMicroBatchedPlansAreOffered) {
  const auto config = [](const SettingValues& values) {
    const Expected<Settings> parsed = parse_settings(values);
    EXPECT_TRUE(parsed) << parsed.message();
    return parsed ? *parsed : Settings{};
  };
  tools::ChildSettings none;
  EXPECT_EQ(tools::what_plans_are_held_to(none, config({})),
            "graph-API plans kept as the program built them unless their workspace exceeds the GPU's memory left when "
            "the program made its first cuDNN handle; micro-batched plans offered to the program's autotuner if it is "
            "PyTorch");
  tools::ChildSettings no_offers;
  no_offers.micro_batch_offers = "0";
  EXPECT_NE(tools::what_plans_are_held_to(no_offers, config({})).find("; no micro-batched plans offered"),
            std::string::npos);
  EXPECT_NE(tools::what_plans_are_held_to(none, config({{"UCUDNN_MEMORY_BUDGET", "6GiB"}})).find("of a 6 GiB budget"),
            std::string::npos);
  tools::ChildSettings limited;
  limited.workspace_limit = "64MiB";
  EXPECT_EQ(tools::what_plans_are_held_to(limited, config({})), "workspace limit 64 MiB");
  EXPECT_EQ(tools::what_plans_are_held_to(none, config({{"UCUDNN_FORCE_WORKSPACE_LIMIT", "8MiB"}})),
            "workspace limit 8 MiB");
}

// Without a GPU (none made visible to the driver here, whatever the machine has), the line after the
// note says what is preloaded and that nothing will be planned: no budgets, limits or offers, which
// mean nothing there.
TEST(RunCommand, WithoutAGpuTheStatusLineIsShortAndSaysNoGpuWasFound) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = real_cudnn_library();
  ASSERT_FALSE(cudnn.empty()) << "this test program links libcudnn.so.9";
  const ProcessResult result = run_binary(dir, "run --preload '" + preload + "' --cudnn '" + cudnn + "' -- true",
                                          "env -u LD_PRELOAD CUDA_VISIBLE_DEVICES=-1");
  ASSERT_EQ(result.status, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.err);
  ASSERT_EQ(lines.size(), 2u) << result.err;
  EXPECT_EQ(lines[0].rfind("ucudnn run: no GPU: ", 0), 0u) << result.err;
  const std::string expected_start = "ucudnn run: preloading " + preload + "; cuDNN ";
  EXPECT_EQ(lines[1].rfind(expected_start, 0), 0u) << result.err;
  EXPECT_EQ(lines[1].substr(lines[1].size() - std::string(tools::kNothingPlannedWithoutAGpu).size()),
            tools::kNothingPlannedWithoutAGpu)
      << result.err;
  EXPECT_NE(lines[1].find("no GPU found"), std::string::npos) << result.err;
  // Its words, the preload library's path and cuDNN's folder ("from FOLDER; ") left out.
  const std::size_t from = lines[1].find(" from ") + 6;
  const std::size_t folder = lines[1].find("; ", from) - from;
  EXPECT_LE(lines[1].size() - preload.size() - folder, 100u) << lines[1];
  EXPECT_EQ(lines[1].find("graph-API"), std::string::npos) << lines[1];
}

TEST(RunCommand, TheBuiltPreloadLibraryLoadsIntoTheProgram) {
#ifdef UCUDNN_SANITIZER_RUNTIME
  GTEST_SKIP() << "an instrumented preload library needs the sanitizer's runtime first on LD_PRELOAD";
#endif
  TempDir dir;
  const std::string cudnn = real_cudnn_library();
  ASSERT_FALSE(cudnn.empty()) << "this test program links libcudnn.so.9";
  // The shell lists the preload library and the cuDNN its own process mapped.
  const ProcessResult result =
      run_binary(dir,
                 "run --no-stats --preload '" + std::string(UCUDNN_PRELOAD_LIBRARY_PATH) + "' --cudnn '" + cudnn +
                     "' -- /bin/sh -c 'awk \"/libucudnn_preload.so|libcudnn.so.9/ {print \\$6}\" /proc/$$/maps | "
                     "sort -u; exit 5'",
                 "env -u LD_PRELOAD");
  EXPECT_EQ(result.status, 5) << result.err;
  EXPECT_EQ(result.err.find("cannot be preloaded"), std::string::npos) << result.err;
  const std::vector<std::string> mapped = lines_of(result.out);
  ASSERT_EQ(mapped.size(), 2u) << result.out << result.err;
  for (const std::string& file : mapped) {
    const std::string expected =
        fs::path(file).filename() == "libucudnn_preload.so" ? UCUDNN_PRELOAD_LIBRARY_PATH : cudnn;
    EXPECT_TRUE(fs::equivalent(file, expected)) << file << " is not " << expected;
  }
}

TEST(RunCommand, AProgramThatCannotBeStartedExitsAsEnvWouldWithTheReason) {
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const std::string not_executable = dir.write("train.sh", "echo never\n");
  const CliResult denied = run({"run", "--preload", preload, "--cudnn", cudnn, "--", not_executable});
  EXPECT_EQ(denied.status, kExitCannotRun);
  EXPECT_EQ(denied.status, 126) << "found, but not executable: as env";
  const std::vector<std::string> lines = lines_after_gpu_note(denied.err);
  ASSERT_EQ(lines.size(), 2u) << "the status line, then the error\n" << denied.err;
  EXPECT_EQ(lines[1], "ucudnn: error: cannot run '" + not_executable + "': Permission denied");

  const std::string missing = (dir.path() / "no-such-program").string();
  const CliResult absent = run({"run", "--preload", preload, "--cudnn", cudnn, "--", missing});
  EXPECT_EQ(absent.status, 127);
  EXPECT_NE(absent.err.find("ucudnn: error: cannot run '" + missing + "': No such file or directory"),
            std::string::npos)
      << absent.err;
}

TEST(RunCommand, AProgramEndedByASignalEndsTheRunAsAShellSeesIt) {
  // The program takes the run's place: a shell sees it die of the signal (128 + 15), as with env.
  TempDir dir;
  const std::string preload = stand_in_preload(dir);
  const std::string cudnn = stand_in_cudnn(dir, "cudnn", matching_cudnn_version(), matching_cudart_version());
  const ProcessResult result =
      run_binary(dir, "run --preload '" + preload + "' --cudnn '" + cudnn + "' -- /bin/sh -c 'kill -TERM $$'");
  EXPECT_EQ(result.status, 128 + 15) << result.err;
}

TEST(RunCommand, AScriptWithoutAnInterpreterLineRunsAsUnderEnv) {
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

TEST(RunCommand, SignalsToTheRunReachTheProgramWhichIsTheSameProcess) {
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

// A stand-in NVIDIA driver: cuInit returns `init`, cuDeviceGetCount reports `devices`.
std::string stand_in_driver(const TempDir& dir, const std::string& name, int init, int devices) {
  const fs::path file = dir.path() / name / "libcuda.so.1";
  compile_library(dir,
                  "int cuInit(unsigned int flags) { (void)flags; return " + std::to_string(init) +
                      "; }\nint cuDeviceGetCount(int* count) { *count = " + std::to_string(devices) + "; return 0; }\n",
                  file);
  return file.string();
}

TEST(RunCommand, SaysWhatIsMissingWhereNoGpuIsVisible) {
  TempDir dir;
  EXPECT_EQ(tools::missing_gpu(stand_in_driver(dir, "two", 0, 2)), std::nullopt);
  const auto none = tools::missing_gpu(stand_in_driver(dir, "none", 0, 0));
  ASSERT_TRUE(none.has_value());
  EXPECT_NE(none->find("the NVIDIA driver sees no GPU"), std::string::npos) << *none;
  const auto hidden = tools::missing_gpu(stand_in_driver(dir, "hidden", 100, 0));
  ASSERT_TRUE(hidden.has_value());
  EXPECT_NE(hidden->find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << *hidden;
  const auto broken = tools::missing_gpu(stand_in_driver(dir, "broken", 999, 0));
  ASSERT_TRUE(broken.has_value());
  EXPECT_NE(broken->find("cuInit returned 999"), std::string::npos) << *broken;
  const auto absent = tools::missing_gpu((dir.path() / "nowhere" / "libcuda.so.1").string());
  ASSERT_TRUE(absent.has_value());
  EXPECT_NE(absent->find("no NVIDIA driver is installed"), std::string::npos) << *absent;
  const fs::path other = dir.path() / "other" / "libcuda.so.1";
  compile_library(dir, "int unrelated(void) { return 0; }\n", other);
  const auto impostor = tools::missing_gpu(other.string());
  ASSERT_TRUE(impostor.has_value());
  EXPECT_NE(impostor->find("is not an NVIDIA driver"), std::string::npos) << *impostor;
}

}  // namespace
}  // namespace ucudnn::testing
