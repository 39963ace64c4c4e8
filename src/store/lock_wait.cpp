#include "store/lock_wait.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <thread>

namespace ucudnn::store {
namespace {

thread_local std::optional<LockClock::time_point> t_deadline;  // of the innermost LockWaitDeadline
thread_local LockClock::time_point t_wait_started;              // of the wait in progress

// SQLite's busy handler: `attempts` counts the calls of one wait (0 at its start). Returns 0 to
// give up (the statement then fails with SQLITE_BUSY), 1 to try again.
int wait_once(void* timeout_ms, int attempts) {
  const auto now = LockClock::now();
  if (attempts == 0) t_wait_started = now;
  auto end = t_wait_started + std::chrono::milliseconds(reinterpret_cast<std::intptr_t>(timeout_ms));
  if (t_deadline) end = std::min(end, *t_deadline);
  if (now >= end) return 0;
  static constexpr int kBackoffMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
  constexpr int kSteps = sizeof kBackoffMs / sizeof kBackoffMs[0];
  const auto pause = std::chrono::milliseconds(kBackoffMs[std::min(attempts, kSteps - 1)]);
  std::this_thread::sleep_for(std::min<LockClock::duration>(pause, end - now));
  return 1;
}

}  // namespace

void wait_for_locks(sqlite3* db, int timeout_ms) {
  sqlite3_busy_handler(db, wait_once, reinterpret_cast<void*>(static_cast<std::intptr_t>(std::max(timeout_ms, 0))));
}

LockWaitDeadline::LockWaitDeadline(LockClock::time_point deadline)
    : had_previous_(t_deadline.has_value()), previous_(t_deadline.value_or(deadline)) {
  t_deadline = had_previous_ ? std::min(previous_, deadline) : deadline;
}

LockWaitDeadline::~LockWaitDeadline() {
  if (had_previous_) {
    t_deadline = previous_;
  } else {
    t_deadline.reset();
  }
}

LockClock::time_point lock_wait_end(int timeout_ms) {
  const auto end = LockClock::now() + std::chrono::milliseconds(timeout_ms);
  return t_deadline ? std::min(end, *t_deadline) : end;
}

void RetryBackoff::pause() {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, bound_ms_)(rng_)));
  bound_ms_ = std::min(bound_ms_ * 2, 200);
}

}  // namespace ucudnn::store
