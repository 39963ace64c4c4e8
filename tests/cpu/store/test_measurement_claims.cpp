// Claims on measuring a kernel (store/measurement_claims.h): one holder at a time, free the moment
// its holder dies (however many wait for it, exactly one takes it), nothing planted in the folder
// hangs or fools a taker, and nothing of the user's is touched where the folder's name is taken.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "store/measurement_claims.h"
#include "test_helpers.h"
#include "waiting_child.h"

namespace ucudnn::testing {
using store::ClaimOutcome;
using store::MeasurementClaims;
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A child that takes the claim on `what`, and holds it until it is killed.
WaitingChild holding_child(const std::string& database, const std::string& what) {
  return WaitingChild([&] {
    auto* claims = new MeasurementClaims(database);  // never freed: the child holds the claim until killed
    return claims->try_take(what) == ClaimOutcome::kTaken;
  });
}

TEST(MeasurementClaims, OneHolderAtATimeUntilItReleases) {
  TempDir dir;
  MeasurementClaims claims((dir.path() / "job.db").string());
  MeasurementClaims other_thread_of_this_process((dir.path() / "job.db").string());
  EXPECT_EQ(claims.try_take("conv1 fwd 256"), ClaimOutcome::kTaken);
  EXPECT_EQ(claims.try_take("conv1 fwd 256"), ClaimOutcome::kHeld) << "never taken twice";
  EXPECT_EQ(other_thread_of_this_process.try_take("conv1 fwd 256"), ClaimOutcome::kHeld);
  EXPECT_TRUE(other_thread_of_this_process.held("conv1 fwd 256"));
  EXPECT_EQ(claims.try_take("conv1 fwd 128"), ClaimOutcome::kTaken) << "other work, another claim";
  EXPECT_EQ(read_file(claims.file_of("conv1 fwd 256")), store::claim_holder() + "\n") << "named for people";
  claims.release("conv1 fwd 256");
  EXPECT_FALSE(std::filesystem::exists(claims.file_of("conv1 fwd 256"))) << "a released claim leaves no file";
  EXPECT_FALSE(other_thread_of_this_process.held("conv1 fwd 256"));
  EXPECT_EQ(other_thread_of_this_process.try_take("conv1 fwd 256"), ClaimOutcome::kTaken);
  other_thread_of_this_process.release("conv1 fwd 256");
  claims.release("conv1 fwd 128");
  EXPECT_FALSE(std::filesystem::exists(claims.folder())) << "the last release removes the empty folder";
}

TEST(MeasurementClaims, AKilledHoldersClaimIsFreeAtOnceAndTheFileItLeftIsTakenOver) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  MeasurementClaims claims(database);
  WaitingChild holder = holding_child(database, "work");
  ASSERT_TRUE(holder.worked());
  EXPECT_TRUE(claims.held("work"));
  EXPECT_EQ(claims.try_take("work"), ClaimOutcome::kHeld) << "a living holder in another process";
  holder.kill_now();
  ASSERT_TRUE(std::filesystem::exists(claims.file_of("work"))) << "SIGKILL leaves the file";
  EXPECT_FALSE(claims.held("work")) << "but not the claim";
  EXPECT_EQ(claims.try_take("work"), ClaimOutcome::kTaken);
  EXPECT_EQ(read_file(claims.file_of("work")), store::claim_holder() + "\n");
}

// A claim file's text is not the claim: one naming a living process (this one, process 1) or
// anything at all, left or planted, is free to take while nobody locks it.
TEST(MeasurementClaims, AFileThatNamesALivingProcessButIsNotLockedIsNoClaim) {
  TempDir dir;
  MeasurementClaims claims((dir.path() / "job.db").string());
  ASSERT_EQ(claims.try_take("work"), ClaimOutcome::kTaken);
  claims.release("work");
  std::filesystem::create_directory(claims.folder());
  for (const std::string& text :
       {store::claim_holder() + "\n", std::string("somehost 1\n"), std::string(1 << 20, 'x')}) {
    write_file(claims.file_of("work"), text);
    EXPECT_FALSE(claims.held("work"));
    EXPECT_EQ(claims.try_take("work"), ClaimOutcome::kTaken);
    claims.release("work");
    std::filesystem::create_directory(claims.folder());
  }
}

// Every waiter of a dead holder tries at once; the kernel's lock lets exactly one through. (The
// claims of the last round were files that a waiter read, then unlinked by name: a second waiter
// unlinked the claim the first had just made, and both measured.) Each round a holder dies without
// releasing, and 16 waiters race for its claim; every one that takes it holds it until the round
// ends, so two takers in a round would be two holders at once.
TEST(MeasurementClaims, ManyWaitersOfADeadHolderAndExactlyOneTakesItsClaim) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  constexpr int kRounds = 20, kWaiters = 16;
  for (int round = 0; round < kRounds; ++round) {
    {
      const WaitingChild dying = holding_child(database, "work");
      ASSERT_TRUE(dying.worked());
    }  // killed, its file left
    int go[2], said[2];
    ASSERT_EQ(pipe(go), 0);
    ASSERT_EQ(pipe(said), 0);
    std::vector<pid_t> waiters;
    for (int i = 0; i < kWaiters; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        close(go[1]);
        close(said[0]);
        char start = 0;
        if (read(go[0], &start, 1) != 0) _exit(1);  // all start when the write end closes
        MeasurementClaims claims(database);
        const char outcome = claims.try_take("work") == ClaimOutcome::kTaken ? 'T' : 'H';
        if (write(said[1], &outcome, 1) != 1) _exit(1);
        for (;;) pause();  // holds what it took until the round ends
      }
      waiters.push_back(pid);
    }
    close(go[0]);
    close(said[1]);
    close(go[1]);  // go
    int taken = 0, answered = 0;
    char outcome = 0;
    while (answered < kWaiters && read(said[0], &outcome, 1) == 1) {
      ++answered;
      taken += outcome == 'T';
    }
    close(said[0]);
    for (pid_t pid : waiters) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    ASSERT_EQ(answered, kWaiters);
    ASSERT_EQ(taken, 1) << "round " << round << ": " << taken << " waiters took one claim";
  }
}

// Members taking and releasing one claim as fast as they can: the last releaser removes the folder
// while others make it again, and none of them may take that for a folder it cannot make (then it
// measured unclaimed, side by side with the holder), or hold the claim with another.
TEST(MeasurementClaims, ManyMembersTakingAndReleasingAtOnceNeverShareTheClaimOrGoWithout) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  const std::string inside = (dir.path() / "inside").string();  // exists while someone holds the claim
  constexpr int kMembers = 8, kTakes = 300;
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      MeasurementClaims claims(database);
      int taken = 0, unavailable = 0, shared = 0;
      while (taken < kTakes) {
        const ClaimOutcome outcome = claims.try_take("work");
        unavailable += outcome == ClaimOutcome::kUnavailable;
        if (outcome != ClaimOutcome::kTaken) continue;
        ++taken;
        const int marker = open(inside.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (marker < 0) ++shared;
        if (marker >= 0) {
          close(marker);
          unlink(inside.c_str());
        }
        claims.release("work");
      }
      _exit((unavailable ? 1 : 0) | (shared ? 2 : 0));
    }
    members.push_back(pid);
  }
  for (pid_t pid : members) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status) & 1, 0) << "a member found claims unavailable";
    EXPECT_EQ(WEXITSTATUS(status) & 2, 0) << "a member held the claim with another";
  }
  EXPECT_FALSE(std::filesystem::exists(database + ".claims"));
}

// A FIFO at a claim's (predictable) name used to block the member that opened it, past any
// bound; a link there would have been followed. Neither is a claim: each is removed, the claim
// taken at once, and a link's target left as it was.
TEST(MeasurementClaims, AFifoOrALinkPlantedAtAClaimsNameIsRemovedWithoutWaiting) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  MeasurementClaims claims(database);
  ASSERT_EQ(claims.try_take("work"), ClaimOutcome::kTaken);
  claims.release("work");
  std::filesystem::create_directory(claims.folder());
  const std::string target = (dir.path() / "the user's file").string();
  write_file(target, "kept");
  const auto planted = [&](bool fifo) {
    if (fifo) return mkfifo(claims.file_of("work").c_str(), 0666) == 0;
    return symlink(target.c_str(), claims.file_of("work").c_str()) == 0;
  };
  for (bool fifo : {true, false}) {
    ASSERT_TRUE(planted(fifo));
    // In a child with an alarm: a regression hangs the child, not the suite.
    const pid_t child = fork();
    if (child == 0) {
      alarm(10);
      MeasurementClaims in_child(database);
      const bool fine = !in_child.held("work") && in_child.try_take("work") == ClaimOutcome::kTaken;
      struct stat st {};
      const bool regular = lstat(in_child.file_of("work").c_str(), &st) == 0 && S_ISREG(st.st_mode);
      _exit(fine && regular ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << (WIFSIGNALED(status) ? "hung on the planted " : "not taken over the planted ") << (fifo ? "FIFO" : "link");
    std::filesystem::remove(claims.file_of("work"));
  }
  EXPECT_EQ(read_file(target), "kept");

  // A hard link to the user's file at a claim's name: the claim may be taken, the file never written.
  ASSERT_EQ(link(target.c_str(), claims.file_of("work").c_str()), 0);
  EXPECT_EQ(claims.try_take("work"), ClaimOutcome::kTaken);
  claims.release("work");
  EXPECT_EQ(read_file(target), "kept");
}

TEST(MeasurementClaims, AFileWithTheFoldersNameMakesClaimsUnavailableAndIsLeftAsItWas) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  write_file(database + ".claims", "the user's notes");
  MeasurementClaims claims(database);
  EXPECT_EQ(claims.try_take("work"), ClaimOutcome::kUnavailable);
  EXPECT_FALSE(claims.held("work"));
  EXPECT_EQ(read_file(database + ".claims"), "the user's notes");

  // A link at the folder's name is not followed either.
  const std::string elsewhere = (dir.path() / "elsewhere").string();
  std::filesystem::create_directory(elsewhere);
  const std::string linked = (dir.path() / "linked.db").string();
  std::filesystem::create_directory_symlink(elsewhere, linked + ".claims");
  MeasurementClaims through_link(linked);
  EXPECT_EQ(through_link.try_take("work"), ClaimOutcome::kUnavailable);
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
}

TEST(MeasurementClaims, ClaimsStillHeldAreReleasedWithTheirObject) {
  TempDir dir;
  const std::string database = (dir.path() / "job.db").string();
  {
    MeasurementClaims claims(database);
    ASSERT_EQ(claims.try_take("a"), ClaimOutcome::kTaken);
    ASSERT_EQ(claims.try_take("b"), ClaimOutcome::kTaken);
  }
  EXPECT_FALSE(std::filesystem::exists(database + ".claims"));
  MeasurementClaims again(database);
  EXPECT_EQ(again.try_take("a"), ClaimOutcome::kTaken);
}

}  // namespace
}  // namespace ucudnn::testing
