#pragma once
// A child process that does one thing (take a lock, say, as a running job member or command
// holds one), says whether it worked, and then waits until it is killed: with the object, or at
// kill_now(), which is how a holder dies in the tests of what its death frees.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace ucudnn::testing {

class WaitingChild {
 public:
  explicit WaitingChild(const std::function<bool()>& work) {
    int ends[2];
    if (pipe(ends) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ends[0]);
      const char said = work() ? 'Y' : 'N';
      if (write(ends[1], &said, 1) != 1) _exit(1);
      for (;;) pause();
    }
    close(ends[1]);
    char said = 0;
    worked_ = pid_ > 0 && read(ends[0], &said, 1) == 1 && said == 'Y';
    close(ends[0]);
  }
  ~WaitingChild() { kill_now(); }
  WaitingChild(const WaitingChild&) = delete;
  WaitingChild& operator=(const WaitingChild&) = delete;

  /// Whether the work succeeded in the child.
  bool worked() const { return worked_; }
  /// SIGKILL, and the child reaped: what it held is freed as by any death.
  void kill_now() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  bool worked_ = false;
};

}  // namespace ucudnn::testing
