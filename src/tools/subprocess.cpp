#include "tools/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <thread>

extern char** environ;

namespace ucudnn::tools {
namespace {

// argv and envp as exec wants them: pointers into `words`, null-terminated.
std::vector<char*> c_strings(const std::vector<std::string>& words) {
  std::vector<char*> pointers;
  pointers.reserve(words.size() + 1);
  for (const std::string& word : words) pointers.push_back(const_cast<char*>(word.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// The raw wait status of `pid`, waited for through signals; -1 where it cannot be waited for.
int wait_for(pid_t pid) {
  int raw = 0;
  while (waitpid(pid, &raw, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return raw;
}

// "signal 11 (Segmentation fault)", "status 3".
std::string how_it_ended(int raw) {
  if (raw < 0) return "an unknown end (it could not be waited for)";
  if (WIFSIGNALED(raw)) {
    const int signal = WTERMSIG(raw);
    return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return "status " + std::to_string(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1);
}

bool exited_well(int raw) { return raw >= 0 && WIFEXITED(raw) && WEXITSTATUS(raw) == 0; }

using Clock = std::chrono::steady_clock;

// Everything a child writes to `fd` until it closes it or `deadline` passes (then *timed_out).
std::string read_until(int fd, Clock::time_point deadline, bool* timed_out) {
  std::string text;
  char buffer[4096];
  *timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      *timed_out = true;
      return text;
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = poll(&ready, 1, static_cast<int>(std::min<long long>(left, 1000000)));
    if (polled < 0 && errno == EINTR) continue;
    if (polled < 0) {  // cannot wait for it: as good as a timeout, never a read that blocks
      *timed_out = true;
      return text;
    }
    if (polled == 0) continue;  // the deadline, checked above
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
  }
}

// The raw wait status of `pid`, killed (SIGKILL) where it has not exited by `deadline`; -1 where
// it cannot be waited for. *killed says whether it was.
int wait_until(pid_t pid, Clock::time_point deadline, bool* killed) {
  *killed = false;
  for (;;) {
    int raw = 0;
    const pid_t waited = waitpid(pid, &raw, WNOHANG);
    if (waited == pid) return raw;
    if (waited < 0 && errno != EINTR) return -1;
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      *killed = true;
      return wait_for(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Both ends of a pipe, closed on exec in any child and on scope exit here.
class Pipe {
 public:
  Pipe() {
    if (pipe2(fds_, O_CLOEXEC) != 0) fds_[0] = fds_[1] = -1;
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  bool ok() const { return fds_[0] >= 0; }
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_one(fds_[0]); }
  void close_write() { close_one(fds_[1]); }

 private:
  static void close_one(int& fd) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  int fds_[2];
};

struct FileActions {
  FileActions() { posix_spawn_file_actions_init(&actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t actions;
};

}  // namespace

std::string shell_quote(const std::string& word) {
  static const char* const kLiteral = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-";
  if (!word.empty() && word.find_first_not_of(kLiteral) == std::string::npos) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Error exec_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  if (argv.empty()) return Error{"no program to run"};
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(environment);
  // glibc's execvpe looks argv[0] up on PATH and hands a file the kernel refuses (ENOEXEC) to
  // /bin/sh, as env does.
  execvpe(args[0], args.data(), envp.data());
  return Error{std::strerror(errno)};
}

Expected<std::string> capture_stdout(const std::vector<std::string>& argv, int timeout_ms) {
  if (argv.empty()) return Error{"no program to run"};
  Pipe output;
  if (!output.ok()) return Error{ErrorCode::kInternal, std::string("pipe: ") + std::strerror(errno)};
  FileActions files;
  posix_spawn_file_actions_addopen(&files.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files.actions, output.write_end(), 1);
  posix_spawn_file_actions_addopen(&files.actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args = c_strings(argv);
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, args[0], &files.actions, nullptr, args.data(), environ);
  if (failed != 0) return Error{std::strerror(failed)};
  output.close_write();
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false, killed = false;
  std::string text = read_until(output.read_end(), deadline, &timed_out);
  const int raw = wait_until(pid, deadline, &killed);
  // An answer is an answer once it exited well, whoever still holds the pipe (a grandchild).
  if (exited_well(raw) && !killed) return text;
  if (timed_out || killed) {
    return Error{"'" + argv[0] + "' gave no answer within " + std::to_string(timeout_ms / 1000) + " s"};
  }
  return Error{"'" + argv[0] + "' ended with " + how_it_ended(raw)};
}

Expected<std::string> run_in_fork(const std::function<std::string(const StepReporter&)>& work, int timeout_ms) {
  // The child writes "step: WHAT" lines as it goes, then "answer" and its answer.
  Pipe result;
  if (!result.ok()) return Error{ErrorCode::kInternal, std::string("pipe: ") + std::strerror(errno)};
  const pid_t pid = fork();
  if (pid < 0) return Error{ErrorCode::kInternal, std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    // The child: no destructors, no stdio flush of the parent's buffers (_exit).
    int status = 0;
    const int fd = result.write_end();
    try {
      const std::string answer = work([fd](const std::string& step) {
        std::string line = step;
        for (char& c : line) c = c == '\n' ? ' ' : c;  // one line a step, whatever a path holds
        write_all(fd, "step: " + line + "\n");
      });
      write_all(fd, "answer\n" + answer);
    } catch (const std::exception&) {
      status = 1;
    }
    _exit(status);
  }
  result.close_write();
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false, killed = false;
  const std::string text = read_until(result.read_end(), deadline, &timed_out);
  const int raw = wait_until(pid, deadline, &killed);
  // Step lines hold no newline of their own (see the child above): the first line that is
  // exactly "answer" starts the answer.
  const std::size_t answer = text.rfind("answer\n", 0) == 0 ? 0 : text.find("\nanswer\n");
  const std::string steps = answer == std::string::npos ? text : text.substr(0, answer);
  const std::size_t last = steps.rfind("step: ");
  std::string step = last == std::string::npos ? "" : steps.substr(last + 6);
  if (!step.empty() && step.back() == '\n') step.pop_back();
  const std::string during = step.empty() ? "" : " while " + step;
  if (exited_well(raw) && !killed && answer != std::string::npos) return text.substr(answer == 0 ? 7 : answer + 8);
  if (timed_out || killed) {
    return Error{"the child process gave no answer within " + std::to_string(timeout_ms / 1000) + " s" + during +
                 " (it was killed)"};
  }
  if (!exited_well(raw)) return Error{"the child process ended with " + how_it_ended(raw) + during};
  return Error{"the child process gave no answer" + during};
}

}  // namespace ucudnn::tools
