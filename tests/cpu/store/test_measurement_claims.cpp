// Claims on measuring a kernel (store/measurement_claims.h): one holder at a time, released for
// the next, a dead holder's claim cleared only where its death is known, and nothing of the user's
// touched where the claim folder's name is taken.

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store/measurement_claims.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::MeasurementClaims;
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A process id that ran on this host and no longer does.
long finished_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

TEST(MeasurementClaims, OneHolderAtATimeUntilItReleases) {
  TempDir dir;
  store::MeasurementClaims claims((dir.path() / "job.db").string());
  EXPECT_EQ(claims.try_take("conv1 fwd 256"), store::ClaimOutcome::kTaken);
  EXPECT_EQ(claims.try_take("conv1 fwd 256"), store::ClaimOutcome::kHeld);
  EXPECT_EQ(claims.try_take("conv1 fwd 128"), store::ClaimOutcome::kTaken) << "other work, another claim";
  EXPECT_EQ(read_file(claims.file_of("conv1 fwd 256")), store::claim_holder() + "\n");
  EXPECT_FALSE(claims.clear_if_orphaned("conv1 fwd 256")) << "its holder, this process, runs";
  claims.release("conv1 fwd 256");
  EXPECT_EQ(claims.try_take("conv1 fwd 256"), store::ClaimOutcome::kTaken);
}

TEST(MeasurementClaims, ADeadHoldersClaimIsClearedOnlyWhereItsDeathIsKnown) {
  TempDir dir;
  store::MeasurementClaims claims((dir.path() / "job.db").string());
  ASSERT_EQ(claims.try_take("work"), store::ClaimOutcome::kTaken);
  const std::string host = store::claim_holder().substr(0, store::claim_holder().find(' '));
  write_file(claims.file_of("work"), host + " " + std::to_string(finished_pid()) + "\n");
  EXPECT_TRUE(claims.clear_if_orphaned("work")) << "a process of this host that no longer runs";
  EXPECT_EQ(claims.try_take("work"), store::ClaimOutcome::kTaken);

  write_file(claims.file_of("work"), "another-host " + std::to_string(finished_pid()) + "\n");
  EXPECT_FALSE(claims.clear_if_orphaned("work")) << "another host's process cannot be looked at";
  EXPECT_EQ(claims.try_take("work"), store::ClaimOutcome::kHeld);

  write_file(claims.file_of("work"), "");
  EXPECT_FALSE(claims.clear_if_orphaned("work")) << "an empty claim may be one being written";
  write_file(claims.file_of("work"), host + " 99999999999\n");
  EXPECT_FALSE(claims.clear_if_orphaned("work")) << "a number no process has is not a claim, and it is new";
  write_file(claims.file_of("work"), std::string(1 << 20, 'x'));
  EXPECT_FALSE(claims.clear_if_orphaned("work")) << "a planted file that is no claim is kept while it is new";
  EXPECT_EQ(claims.try_take("work"), store::ClaimOutcome::kHeld);
}

// Containers on one host may share its name and a database folder but not their process ids: a
// claim taken in another PID namespace names that namespace, so a process here never takes its
// holder's id for one of its own (dead or alive) and waits for it instead of clearing it.
TEST(MeasurementClaims, AClaimFromAnotherPidNamespaceIsWaitedForNeverCleared) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_ends[0]);
    if (unshare(CLONE_NEWPID) != 0) _exit(77);  // not permitted here
    const pid_t inner = fork();                 // the first process of the new namespace
    if (inner == 0) {
      store::MeasurementClaims claims(database);
      const bool taken = claims.try_take("work") == store::ClaimOutcome::kTaken;
      const std::string holder = store::claim_holder();
      _exit(taken && write(pipe_ends[1], holder.data(), holder.size()) == static_cast<ssize_t>(holder.size()) ? 0 : 1);
    }
    int status = 0;
    waitpid(inner, &status, 0);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
  }
  close(pipe_ends[1]);
  char text[512] = {};
  const ssize_t got = read(pipe_ends[0], text, sizeof(text) - 1);
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "unshare(CLONE_NEWPID) is not permitted here";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0);
  const std::string inner_holder(text, static_cast<std::size_t>(got));
  EXPECT_EQ(inner_holder.substr(inner_holder.find(' ')), " 1") << "the namespace's first process";
  const std::string here = store::claim_holder();
  EXPECT_NE(inner_holder.substr(0, inner_holder.find(' ')), here.substr(0, here.find(' ')))
      << "another PID namespace is another place for process ids";
  // The holder has exited, and process 1 of this namespace runs: neither tells anything here.
  store::MeasurementClaims claims(database);
  EXPECT_FALSE(claims.clear_if_orphaned("work"));
  EXPECT_EQ(claims.try_take("work"), store::ClaimOutcome::kHeld);
  EXPECT_EQ(read_file(claims.file_of("work")), inner_holder + "\n");
}

TEST(MeasurementClaims, AFileWithTheFoldersNameMakesClaimsUnavailableAndIsLeftAsItWas) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  write_file(database + ".claims", "the user's notes");
  store::MeasurementClaims claims(database);
  EXPECT_EQ(claims.try_take("work"), store::ClaimOutcome::kUnavailable);
  EXPECT_FALSE(claims.clear_if_orphaned("work"));
  EXPECT_EQ(read_file(database + ".claims"), "the user's notes");
}

}  // namespace
}  // namespace ucudnn::testing
