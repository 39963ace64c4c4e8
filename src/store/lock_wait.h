#pragma once
// How long a connection waits for another connection's lock. SQLite's own busy timeout restarts
// for every lock a statement asks for (a commit after a begin, each statement of a probe), so an
// operation of several steps could wait several timeouts. Here every wait of the calling thread
// also ends at the deadline of the innermost LockWaitDeadline in force: one wait per operation.

#include <chrono>
#include <random>

struct sqlite3;

namespace ucudnn::store {

using LockClock = std::chrono::steady_clock;

/// Installs the waiting on `db`: each wait for a lock lasts at most `timeout_ms`, and ends
/// earlier at the thread's deadline, if one is in force. Backs off as SQLite does (1 to 100 ms).
void wait_for_locks(sqlite3* db, int timeout_ms);

/// While it lives, every wait of this thread for a lock ends by `deadline` (or the deadline of an
/// enclosing one, if that is earlier).
class LockWaitDeadline {
 public:
  explicit LockWaitDeadline(LockClock::time_point deadline);
  ~LockWaitDeadline();
  LockWaitDeadline(const LockWaitDeadline&) = delete;
  LockWaitDeadline& operator=(const LockWaitDeadline&) = delete;

 private:
  bool had_previous_;
  LockClock::time_point previous_;
};

/// The pause between tries of a whole step (a transaction, a journal switch): random, up to a
/// bound that doubles from 2 ms to 200 ms, so that processes retrying at once spread apart.
class RetryBackoff {
 public:
  void pause();

 private:
  std::mt19937 rng_{std::random_device{}()};
  int bound_ms_ = 2;
};

/// When a wait of `timeout_ms` starting now must end: now + timeout_ms, or the thread's deadline
/// if that is earlier. For the loops that retry a whole step (a transaction, a journal switch).
LockClock::time_point lock_wait_end(int timeout_ms);

}  // namespace ucudnn::store
