// Claims on measuring a kernel (store/measurement_claims.h): one holder at a time, released for
// the next, a dead holder's claim cleared only where its death is known, and nothing of the user's
// touched where the claim folder's name is taken.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "store/measurement_claims.h"
#include "test_helpers.h"
#include "folder_namespaces.h"

namespace ucudnn::testing {
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
