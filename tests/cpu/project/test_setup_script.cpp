// tests/setup.sh on a machine where another package manager holds apt's lock (a fresh VM's
// unattended upgrades): it waits and then installs, and any other apt failure stops it with apt's
// own message. apt-get, dpkg-query and sudo are stand-ins on PATH that log what they were asked.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cli_test_support.h"
#include "test_helpers.h"

namespace ucudnn {
namespace {

using testing::TempDir;

void write_script(const std::filesystem::path& path, const std::string& body) {
  std::ofstream(path) << "#!/usr/bin/env bash\n" << body;
  ::chmod(path.c_str(), 0755);
}

// Stand-ins: every package is missing; apt-get fails `lock_failures` times with apt's lock message,
// then answers `final_status` (with `final_message` on stderr).
void make_stand_ins(const TempDir& dir, int lock_failures, int final_status, const std::string& final_message) {
  const std::string bin = (dir.path() / "bin").string();
  std::filesystem::create_directories(bin);
  write_script(dir.path() / "bin" / "dpkg-query", "exit 1\n");
  write_script(dir.path() / "bin" / "sudo", "exec \"$@\"\n");
  const std::string log = (dir.path() / "apt.log").string();
  const std::string count = (dir.path() / "apt.count").string();
  write_script(dir.path() / "bin" / "apt-get",
               "echo \"$*\" >> '" + log + "'\n"
               "n=$(( $(cat '" + count + "' 2>/dev/null || echo 0) + 1 )); echo $n > '" + count + "'\n"
               "if [ $n -le " + std::to_string(lock_failures) + " ]; then\n"
               "  echo 'E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 "
               "(unattended-upgr)' >&2; exit 100\n"
               "fi\n"
               "[ -z '" + final_message + "' ] || echo '" + final_message + "' >&2\n"
               "exit " + std::to_string(final_status) + "\n");
}

struct SetupRun {
  int status = -1;
  std::string output;
  std::string apt_log;
};

// tests/setup.sh over fresh stand-ins (make_stand_ins) with UCUDNN_APT_LOCK_WAIT=`lock_wait`.
SetupRun run_setup(int lock_failures, int final_status, const std::string& final_message,
                   const std::string& lock_wait) {
  TempDir dir;
  make_stand_ins(dir, lock_failures, final_status, final_message);
  const auto output = dir.path() / "output.txt";
  const std::string command = "PATH='" + (dir.path() / "bin").string() + "':\"$PATH\" UCUDNN_APT_LOCK_WAIT=" + lock_wait +
                              " bash '" + UCUDNN_SOURCE_DIR + "/tests/setup.sh' >'" + output.string() + "' 2>&1";
  const int raw = std::system(command.c_str());
  SetupRun run;
  if (raw != -1 && WIFEXITED(raw)) run.status = WEXITSTATUS(raw);
  run.output = testing::read_text_file(output);
  run.apt_log = testing::read_text_file(dir.path() / "apt.log");
  return run;
}

TEST(SetupScript, WaitsForAHeldAptLockAndThenInstalls) {
  const SetupRun run = run_setup(2, 0, "", "20");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("holds the package lock; waiting"), std::string::npos) << run.output;
  EXPECT_NE(run.apt_log.find("install -y -qq cmake g++"), std::string::npos) << run.apt_log;
  EXPECT_NE(run.apt_log.find("libsqlite3-dev"), std::string::npos) << run.apt_log;
}

TEST(SetupScript, GivesUpOnALockHeldPastTheWaitWithAptsMessage) {
  const SetupRun run = run_setup(1000, 0, "", "2");
  EXPECT_NE(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("Could not get lock"), std::string::npos) << run.output;
  EXPECT_EQ(run.apt_log.find("install"), std::string::npos) << "installed without the lock: " << run.apt_log;
}

TEST(SetupScript, AnyOtherAptFailureStopsWithAptsMessage) {
  const SetupRun run = run_setup(0, 100, "E: Unable to locate package libcli11-dev", "20");
  EXPECT_NE(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("Unable to locate package libcli11-dev"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("waiting"), std::string::npos) << "not a lock: no waiting\n" << run.output;
}

TEST(SetupScript, RefusesAWaitThatIsNotANumber) {
  const SetupRun run = run_setup(0, 0, "", "soon");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("UCUDNN_APT_LOCK_WAIT"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace ucudnn
