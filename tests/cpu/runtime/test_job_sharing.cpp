// The processes of a job sharing one database (store/measurement_claims.h): planning the same
// network at once, they benchmark each piece of work once and agree on every plan; a leader killed
// while benchmarking is taken over at once, and one that hangs is waited for only up to the bound.
// Processes are forked, as the database's own many-writer tests do; the recorded AlexNet table
// stands in for the GPU, each measurement taking a few milliseconds so that they overlap.

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "recorded_source.h"
#include "runtime/plan_builder.h"
#include "store/database.h"
#include "store/measurement_claims.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using runtime::MeasuredRows;
using runtime::MeasurementSource;
using runtime::MeasureRequest;
using store::BenchmarkDatabase;
namespace {

constexpr std::size_t kLimit = std::size_t{8} << 20;

// The recorded source, slowed down, writing a line per measurement to a log shared by every process
// (O_APPEND: whole lines) for each that yields rows, or never returning (a leader that hangs).
// Kernels are named without their device (dev0): members on other devices measure the same work.
class LoggedSource : public MeasurementSource {
 public:
  LoggedSource(std::string log, bool hang, std::vector<std::string> gpus = {}, std::size_t at_once = 1,
               int failing_size = 0)
      : recorded_(RecordedSource::alexnet()),
        log_(std::move(log)),
        hang_(hang),
        gpus_(std::move(gpus)),
        at_once_(at_once),
        failing_size_(failing_size) {}
  Status identify(int device, DeviceIdentity* identity) override { return recorded_->identify(device, identity); }
  std::vector<std::string> measuring_gpus(int) override { return gpus_; }
  std::size_t sizes_at_once(int) override { return at_once_; }
  Status measure(cudnnHandle_t handle, const ConvKey& on_device, const MeasureRequest& request,
                 std::map<int, MeasuredRows>* out) override {
    ConvKey key = on_device;
    key.device = 0;  // what the recording holds
    // A micro-batch size cuDNN refuses (for every kernel): the whole request fails, as a GPU's would.
    if (std::find(request.sizes.begin(), request.sizes.end(), failing_size_) != request.sizes.end()) {
      return Error(ErrorCode::kNotSupported, "size " + std::to_string(failing_size_) + " refused");
    }
    std::ostringstream line;
    line << key.to_string() << " kind " << static_cast<int>(request.kind) << " sizes";
    for (int size : request.sizes) line << ' ' << size;
    line << '\n';
    if (hang_) {
      std::ofstream(log_, std::ios::app) << line.str() << std::flush;
      while (true) pause();
    }
    // A few milliseconds per size, as a GPU takes longer for more sizes.
    const auto began = std::chrono::steady_clock::now();  // CLOCK_MONOTONIC: one clock for every process
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * static_cast<int>(request.sizes.size())));
    const Status measured = recorded_->measure(handle, key, request, out);
    const auto ended = std::chrono::steady_clock::now();
    std::ostringstream span;
    span << key.to_string() << " kind " << static_cast<int>(request.kind) << '|' << getpid() << '|'
         << began.time_since_epoch().count() << '|' << ended.time_since_epoch().count() << '\n';
    std::ofstream(log_ + ".spans", std::ios::app) << span.str() << std::flush;
    // Work that yields rows; what the recording lacks (output-channel pieces) fails in every
    // process that asks, as a convolution cuDNN refuses would: failures are not stored. Beside the
    // log of calls, one line per size measured and the process that measured it.
    if (measured.ok()) {
      std::ofstream(log_, std::ios::app) << line.str() << std::flush;
      std::ostringstream sizes;
      for (int size : request.sizes) {
        sizes << key.to_string() << " kind " << static_cast<int>(request.kind) << " size " << size << " by "
              << getpid() << '\n';
      }
      std::ofstream(log_ + ".sizes", std::ios::app) << sizes.str() << std::flush;
    }
    return measured;
  }
  long long timings_run() const override { return recorded_->timings_run(); }

 private:
  std::shared_ptr<RecordedSource> recorded_;
  std::string log_;
  bool hang_;
  std::vector<std::string> gpus_;
  std::size_t at_once_;
  int failing_size_;
};

std::string describe(const optimize::MicroBatchSplit& split) {
  std::string text;
  for (const auto& run : split.runs) {
    text += std::to_string(run.count) + "x" + std::to_string(run.size()) + " algo " +
            std::to_string(run.candidate().algorithm) + " " + run.candidate().engine_id + "; ";
  }
  return text;
}

// How a member of the job plans: the search, where its source measures (GPU UUIDs, and how many
// sizes side by side), the device its kernels name, and whether it hangs instead of measuring.
struct MemberOptions {
  bool hang = false;
  double job_wait = -1;  ///< negative: UCUDNN_JOB_WAIT
  SearchMode search = SearchMode::kFast;
  std::vector<std::string> gpus = {};
  std::size_t at_once = 1;
  int device = 0;
  int failing_size = 0;  ///< a micro-batch size whose measuring fails (0: none)
};

// One member of the job: plans AlexNet's kernels against the database and writes its plans to
// `plans` (one line each, naming the kernel without its device). Runs in a forked child; exits 0
// on success.
[[noreturn]] void member(const std::string& database, const std::string& log, const std::string& plans,
                         const MemberOptions& options) {
  auto db = BenchmarkDatabase::open(database);
  if (!db) {
    std::fprintf(stderr, "member: %s\n", db.message().c_str());
    _exit(2);
  }
  runtime::PlanBuilder builder(
      std::make_shared<LoggedSource>(log, options.hang, options.gpus, options.at_once, options.failing_size),
      std::move(db.value()), {});
  builder.set_search_mode(options.search);
  if (options.job_wait >= 0) builder.set_job_wait(options.job_wait);
  std::ofstream out(plans);
  for (const ConvKey& named : alexnet_keys()) {
    ConvKey key = named;
    key.device = options.device;
    std::shared_ptr<const runtime::ExecutablePlan> plan;
    const Status planned =
        builder.plan(nullptr, key, kLimit, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &plan);
    if (!planned.ok() && options.failing_size == 0) {
      std::fprintf(stderr, "member: %s\n", planned.message().c_str());
      _exit(3);
    }
    out << named.to_string() << ": " << (planned.ok() ? describe(plan->split()) : "no plan") << '\n';
  }
  out.close();
  _exit(out ? 0 : 4);
}

pid_t start_member(const std::string& database, const std::string& log, const std::string& plans,
                   const MemberOptions& options = {}) {
  const pid_t pid = fork();
  if (pid == 0) member(database, log, plans, options);
  return pid;
}

// Where a member runs: as the test, or in a network, mount or PID namespace of its own (a
// container's view of the host). In its own mount namespace it sees the database's folder bound at
// another path, and names the database by that path.
enum class Place { kHere, kOwnNetwork, kOwnMounts, kOwnPids };

// Exit status of a member whose namespace could not be made (not permitted here).
constexpr int kNoNamespace = 77;

pid_t start_member_in(Place place, const std::filesystem::path& dir, const std::string& log,
                      const std::string& plans) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  std::string database = (dir / "job.db").string();
  switch (place) {
    case Place::kHere:
      break;
    case Place::kOwnNetwork:
      if (unshare(CLONE_NEWNET) != 0) _exit(kNoNamespace);
      break;
    case Place::kOwnMounts: {
      const std::string elsewhere = (dir / ("elsewhere-" + std::to_string(getpid()))).string();
      if (mkdir(elsewhere.c_str(), 0700) != 0 || unshare(CLONE_NEWNS) != 0 ||
          mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          mount(dir.c_str(), elsewhere.c_str(), nullptr, MS_BIND, nullptr) != 0) {
        _exit(kNoNamespace);
      }
      database = elsewhere + "/job.db";
      break;
    }
    case Place::kOwnPids: {
      if (unshare(CLONE_NEWPID) != 0) _exit(kNoNamespace);
      const pid_t first = fork();  // process 1 of the new namespace
      if (first == 0) member(database, log, plans, {});
      int status = 0;
      waitpid(first, &status, 0);
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  }
  member(database, log, plans, {});
}

// Kills a member on every way out of a test (a hung leader would outlive a failed assertion).
class Killed {
 public:
  explicit Killed(pid_t pid) : pid_(pid) {}
  ~Killed() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  Killed(const Killed&) = delete;
  Killed& operator=(const Killed&) = delete;

 private:
  pid_t pid_;
};

bool exited_cleanly(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

long long rows_in(const std::string& database) {
  auto db = BenchmarkDatabase::open(database);
  if (!db) return -1;
  auto stats = db.value()->stats();
  return stats ? stats.value().rows : -1;
}

// Waits up to `seconds` for the first claim to appear in `folder`.
bool claim_appears(const std::string& folder, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::error_code ignored;
    if (std::filesystem::exists(folder, ignored) && !std::filesystem::is_empty(folder, ignored)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

// One process planning alone against a new database: what a job's members must match.
struct Alone {
  std::string db, log, plans;
  bool ran = false;
};
Alone plan_alone(const std::filesystem::path& dir, SearchMode search = SearchMode::kFast) {
  Alone alone{(dir / "alone.db").string(), (dir / "alone.log").string(), (dir / "alone.plans").string()};
  MemberOptions options;
  options.search = search;
  alone.ran = exited_cleanly(start_member(alone.db, alone.log, alone.plans, options));
  return alone;
}

MemberOptions hanging() {
  MemberOptions options;
  options.hang = true;
  return options;
}

// Where member `i` writes its plans.
std::string member_plans(const std::filesystem::path& dir, int i) {
  return (dir / ("member" + std::to_string(i))).string();
}

// Each pair of members that measured one kernel and kind at the same time, as "WORK: members A and B".
std::vector<std::string> measured_side_by_side(const std::string& log) {
  std::map<std::string, std::vector<std::tuple<long long, long long, std::string>>> spans;
  for (const std::string& line : lines_of(log + ".spans")) {
    std::istringstream fields(line);
    std::string work, pid, began, ended;
    std::getline(fields, work, '|');
    std::getline(fields, pid, '|');
    std::getline(fields, began, '|');
    std::getline(fields, ended, '|');
    spans[work].emplace_back(std::stoll(began), std::stoll(ended), pid);
  }
  std::vector<std::string> overlaps;
  for (auto& [work, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) {
      if (std::get<2>(list[i]) != std::get<2>(list[i - 1]) && std::get<0>(list[i]) < std::get<1>(list[i - 1])) {
        overlaps.push_back(work + ": members " + std::get<2>(list[i - 1]) + " and " + std::get<2>(list[i]));
      }
    }
  }
  return overlaps;
}

// The sizes measured (one line each, "KERNEL kind K size S"), failing on any measured twice.
std::set<std::string> sizes_measured_once(const std::string& log) {
  std::set<std::string> sizes;
  for (const std::string& line : lines_of(log + ".sizes")) {
    EXPECT_TRUE(sizes.insert(line.substr(0, line.find(" by "))).second) << "measured twice: " << line;
  }
  return sizes;
}

// The job benchmarked the work one process alone does, each piece once.
void expect_each_work_once(const std::string& log, const Alone& alone) {
  const std::vector<std::string> work = lines_of(log), alone_work = lines_of(alone.log);
  const std::set<std::string> distinct(work.begin(), work.end());
  EXPECT_EQ(distinct.size(), work.size()) << "some work was benchmarked twice:\n" << text_of(log);
  EXPECT_EQ(distinct, std::set<std::string>(alone_work.begin(), alone_work.end()))
      << "the job measured other work than one process alone";
}

// Every member planned what one process alone does, the job's database holds the same rows, and
// every claim is released
// (or, where members measured sizes ahead that the search then skipped, more rows).
void expect_members_agree_with(const Alone& alone, const std::filesystem::path& dir, int members,
                               const std::string& db, bool sizes_ahead = false) {
  const std::string plans = text_of(alone.plans);
  for (int i = 0; i < members; ++i) EXPECT_EQ(text_of(member_plans(dir, i)), plans) << "member " << i;
  if (sizes_ahead) {
    EXPECT_GE(rows_in(db), rows_in(alone.db)) << "rows lost";
  } else {
    EXPECT_EQ(rows_in(db), rows_in(alone.db)) << "rows lost or duplicated";
  }
  EXPECT_FALSE(std::filesystem::exists(db + ".claims")) << "every claim is released, and their folder removed";
}

TEST(JobSharing, SixteenProcessesPlanningOneNetworkBenchmarkEachWorkOnceAndAgree) {
  TempDir dir;
  // Alone first: the work one process does, and its plans.
  const Alone alone = plan_alone(dir.path());
  ASSERT_TRUE(alone.ran);
  ASSERT_GT(lines_of(alone.log).size(), 15u);

  constexpr int kMembers = 16;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) members.push_back(start_member(db, log, member_plans(dir.path(), i)));
  for (pid_t pid : members) EXPECT_TRUE(exited_cleanly(pid)) << "a member failed (its line above)";

  expect_each_work_once(log, alone);
  expect_members_agree_with(alone, dir.path(), kMembers, db);
}

// The exhaustive search gathers every size of a kernel at once: the members that need a kernel
// together share its sizes out (one claim per size), so each size is measured once and the
// kernels' sizes are measured by several members, not one.
TEST(JobSharing, SizesGatheredTogetherAreSharedOutAmongTheMembers) {
  TempDir dir;
  const Alone alone = plan_alone(dir.path(), SearchMode::kExhaustive);
  ASSERT_TRUE(alone.ran);
  std::set<std::string> alone_sizes;
  for (const std::string& line : lines_of(alone.log + ".sizes")) alone_sizes.insert(line.substr(0, line.find(" by ")));
  ASSERT_GT(alone_sizes.size(), 100u);

  constexpr int kMembers = 6;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) {
    MemberOptions options;
    options.search = SearchMode::kExhaustive;
    members.push_back(start_member(db, log, member_plans(dir.path(), i), options));
  }
  for (pid_t pid : members) EXPECT_TRUE(exited_cleanly(pid)) << "a member failed (its line above)";

  std::set<std::string> sizes;
  std::map<std::string, std::set<std::string>> measurers;  // kernel and kind -> the members that measured its sizes
  for (const std::string& line : lines_of(log + ".sizes")) {
    const std::string work = line.substr(0, line.find(" by "));
    EXPECT_TRUE(sizes.insert(work).second) << "measured twice: " << work;
    measurers[work.substr(0, work.find(" size "))].insert(line.substr(line.find(" by ") + 4));
  }
  EXPECT_EQ(sizes, alone_sizes) << "the job measured other sizes than one process alone";
  int shared_out = 0;
  for (const auto& [kernel, who] : measurers) shared_out += who.size() > 1;
  EXPECT_GT(shared_out, 0) << "every kernel's sizes were measured by one member";
  expect_members_agree_with(alone, dir.path(), kMembers, db);
  std::printf("[ job ] %d of %zu kernels' sizes measured by more than one member\n", shared_out, measurers.size());
}

// Members measuring on one GPU (UUIDs in common) never measure one kernel side by side: timings
// on one GPU at once would slow each other. Each size is still measured once.
TEST(JobSharing, MembersOfOneGpuNeverMeasureOneKernelSideBySide) {
  TempDir dir;
  constexpr int kMembers = 4;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  const std::vector<std::string> gpus[kMembers] = {{"GPU-aa"}, {"GPU-bb", "GPU-aa"}, {"GPU-aa"}, {"GPU-aa"}};
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) {
    MemberOptions options;
    options.search = SearchMode::kExhaustive;
    options.gpus = gpus[i];
    members.push_back(start_member(db, log, member_plans(dir.path(), i), options));
  }
  for (pid_t pid : members) EXPECT_TRUE(exited_cleanly(pid)) << "a member failed (its line above)";
  const std::vector<std::string> side_by_side = measured_side_by_side(log);
  for (const std::string& overlap : side_by_side) ADD_FAILURE() << overlap << " at once on one GPU";
  EXPECT_FALSE(sizes_measured_once(log).empty());
  EXPECT_FALSE(std::filesystem::exists(db + ".claims"));
}

// The ranks of a multi-GPU job: members on GPUs of their own, whose kernels name other devices.
// They share each kernel's work all the same, and under the fast search a member whose size
// another measures measures the next size of the ladder meanwhile, so that one kernel is measured
// on several GPUs at once: each size once, and every member's plans those of one process alone.
TEST(JobSharing, MembersOnOtherGpusShareEachKernelAndWalkItsLadderTogether) {
  TempDir dir;
  const Alone alone = plan_alone(dir.path());
  ASSERT_TRUE(alone.ran);
  constexpr int kMembers = 4;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) {
    MemberOptions options;
    options.gpus = {"GPU-" + std::to_string(i)};
    options.device = i;
    members.push_back(start_member(db, log, member_plans(dir.path(), i), options));
  }
  for (pid_t pid : members) EXPECT_TRUE(exited_cleanly(pid)) << "a member failed (its line above)";

  const std::set<std::string> sizes = sizes_measured_once(log);
  for (const std::string& line : lines_of(alone.log + ".sizes")) {
    EXPECT_EQ(sizes.count(line.substr(0, line.find(" by "))), 1u) << "the job never measured " << line;
  }
  const std::vector<std::string> together = measured_side_by_side(log);
  EXPECT_FALSE(together.empty()) << "no kernel was measured on two GPUs at once";
  expect_members_agree_with(alone, dir.path(), kMembers, db, /*sizes_ahead=*/true);
  std::printf("[ job ] %zu sizes measured (alone: %zu), %zu times two members measured one kernel at once\n",
              sizes.size(), lines_of(alone.log + ".sizes").size(), together.size());
}

// One process benchmarking on two GPUs (UCUDNN_BENCHMARK_DEVICES): under the fast search it
// measures the next size of the ladder beside the one it needs, and plans as on one GPU.
TEST(JobSharing, OneMemberOnTwoGpusMeasuresTheNextSizeOfTheLadderBeside) {
  TempDir dir;
  const Alone alone = plan_alone(dir.path());
  ASSERT_TRUE(alone.ran);
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  MemberOptions options;
  options.gpus = {"GPU-aa", "GPU-bb"};
  options.at_once = 2;
  ASSERT_TRUE(exited_cleanly(start_member(db, log, member_plans(dir.path(), 0), options)));
  int beside = 0;
  for (const std::string& line : lines_of(log)) {
    const std::string sizes = line.substr(line.find(" sizes ") + 7);
    beside += sizes.find(' ') != std::string::npos;
  }
  EXPECT_GT(beside, 0) << "every measurement was of one size:\n" << text_of(log);
  expect_members_agree_with(alone, dir.path(), 1, db, /*sizes_ahead=*/true);
}

// A size ahead that cuDNN refuses costs the search nothing: one process on two GPUs, whose
// measuring of micro-batch 2 fails, makes every plan one process alone makes with the same
// failure (the kernels whose search needs size 2 fail in both, the others plan alike).
TEST(JobSharing, ASizeAheadThatFailsChangesNoPlan) {
  TempDir dir;
  MemberOptions alone_options;
  alone_options.failing_size = 2;
  const std::string alone_plans = (dir.path() / "alone.plans").string();
  ASSERT_TRUE(exited_cleanly(start_member((dir.path() / "alone.db").string(), (dir.path() / "alone.log").string(),
                                          alone_plans, alone_options)));
  MemberOptions options = alone_options;
  options.gpus = {"GPU-aa", "GPU-bb"};
  options.at_once = 2;
  const std::string plans = member_plans(dir.path(), 0);
  ASSERT_TRUE(exited_cleanly(
      start_member((dir.path() / "job.db").string(), (dir.path() / "job.log").string(), plans, options)));
  EXPECT_NE(text_of(alone_plans).find(" algo "), std::string::npos) << "some kernels plan despite the failure";
  EXPECT_EQ(text_of(plans), text_of(alone_plans));
}

// Members in network, mount and PID namespaces of their own (containers of one host sharing a
// folder): the database's locks and the claims hold across them, so the job still benchmarks
// each piece of work once and agrees on every plan.
TEST(JobSharing, MembersInOtherNetworkMountAndPidNamespacesShareTheWorkAsOneJob) {
  TempDir dir;
  const Alone alone = plan_alone(dir.path());
  ASSERT_TRUE(alone.ran);

  const std::filesystem::path job_dir = dir.path() / "job";
  std::filesystem::create_directory(job_dir);
  const std::string log = (dir.path() / "job.log").string();
  const Place places[] = {Place::kHere, Place::kOwnNetwork, Place::kOwnMounts, Place::kOwnPids};
  constexpr int kMembers = 12;
  std::vector<pid_t> members;
  for (int i = 0; i < kMembers; ++i) {
    members.push_back(start_member_in(places[i % 4], job_dir, log, member_plans(dir.path(), i)));
  }
  bool refused = false;
  for (pid_t pid : members) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    refused = refused || (WIFEXITED(status) && WEXITSTATUS(status) == kNoNamespace);
    EXPECT_TRUE(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == kNoNamespace))
        << "a member failed (its line above)";
  }
  if (refused) GTEST_SKIP() << "namespaces (unshare, mount) are not permitted here";
  int bound_elsewhere = 0;
  for (const auto& entry : std::filesystem::directory_iterator(job_dir)) {
    bound_elsewhere += entry.path().filename().string().rfind("elsewhere-", 0) == 0;
  }
  EXPECT_EQ(bound_elsewhere, kMembers / 4) << "each member of its own mounts named the database elsewhere";

  expect_each_work_once(log, alone);
  expect_members_agree_with(alone, dir.path(), kMembers, (job_dir / "job.db").string());
}

TEST(JobSharing, ALeaderKilledWhileBenchmarkingIsTakenOverAtOnce) {
  TempDir dir;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  {
    const Killed leader(start_member(db, log, (dir.path() / "leader").string(), hanging()));
    ASSERT_TRUE(claim_appears(db + ".claims", 30)) << "the leader never claimed its first kernel";
  }
  ASSERT_FALSE(std::filesystem::is_empty(db + ".claims")) << "the killed leader's claim file is left behind";

  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(exited_cleanly(start_member(db, log, (dir.path() / "next").string())));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 60.0) << "the next member waited for a dead leader (UCUDNN_JOB_WAIT is 300 s)";
  EXPECT_GT(rows_in(db), 0);
  EXPECT_FALSE(std::filesystem::exists(db + ".claims")) << "taken over, released and removed";
}

TEST(JobSharing, ALeaderThatHangsIsWaitedForOnlyUpToTheBound) {
  TempDir dir;
  const std::string db = (dir.path() / "job.db").string(), log = (dir.path() / "job.log").string();
  const Killed leader(start_member(db, log, (dir.path() / "leader").string(), hanging()));
  ASSERT_TRUE(claim_appears(db + ".claims", 30));
  const auto started = std::chrono::steady_clock::now();
  MemberOptions waits_half_a_second;
  waits_half_a_second.job_wait = 0.5;
  const pid_t next = start_member(db, log, (dir.path() / "next").string(), waits_half_a_second);
  ASSERT_TRUE(exited_cleanly(next));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GE(seconds, 0.5) << "the next member did not wait for the living leader";
  EXPECT_LT(seconds, 30.0);
  EXPECT_GT(rows_in(db), 0) << "it measured on its own";
  // The hung leader's first work, then the next member's own measuring of that same work.
  const std::vector<std::string> work = lines_of(log);
  ASSERT_GE(work.size(), 2u);
  EXPECT_EQ(work[0], work[1]);
}

}  // namespace
}  // namespace ucudnn::testing
