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
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <exception>
#include <iterator>
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

// The process group of the question being asked (capture_stdout), killed where this process is
// interrupted meanwhile: it runs in a group of its own, which the terminal's ^C does not reach.
volatile sig_atomic_t g_question_group = 0;
constexpr int kInterruptions[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void kill_question_and_end(int signal) {
  const pid_t group = g_question_group;
  if (group > 0) kill(-group, SIGKILL);
  // Then end as the signal would have: its default action, delivered once this handler returns.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  raise(signal);
}

// kill_question_and_end for the interruptions whose action is the default (one ignored, as under
// nohup, stays ignored) while it lives.
class QuestionGuard {
 public:
  explicit QuestionGuard(pid_t group) {
    g_question_group = group;
    struct sigaction action {};
    action.sa_handler = kill_question_and_end;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kInterruptions); ++i) {
      sigaction(kInterruptions[i], nullptr, &previous_[i]);
      installed_[i] = previous_[i].sa_handler == SIG_DFL && sigaction(kInterruptions[i], &action, nullptr) == 0;
    }
  }
  ~QuestionGuard() {
    for (std::size_t i = 0; i < std::size(kInterruptions); ++i) {
      if (installed_[i]) sigaction(kInterruptions[i], &previous_[i], nullptr);
    }
    g_question_group = 0;
  }
  QuestionGuard(const QuestionGuard&) = delete;
  QuestionGuard& operator=(const QuestionGuard&) = delete;

 private:
  struct sigaction previous_[std::size(kInterruptions)] {};
  bool installed_[std::size(kInterruptions)] = {};
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

namespace {

// The file exec_program would run for `program`: itself where it holds a '/', else the first
// file of that name in the folders of PATH (execvpe's search); empty where there is none.
std::string program_file(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  // glibc's default where PATH is unset.
  const std::string folders = path != nullptr ? path : "/bin:/usr/bin";
  std::size_t start = 0;
  while (start <= folders.size()) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::string folder = end > start ? folders.substr(start, end - start) : ".";  // empty: here
    const std::string file = folder + "/" + program;
    if (access(file.c_str(), F_OK) == 0) return file;
    start = end + 1;
  }
  return "";
}

// Where exec failed with ENOENT on a file that exists, the kernel could not find its #! interpreter.
std::string missing_interpreter(const std::string& program) {
  const std::string file = program_file(program);
  if (file.empty()) return "";
  std::ifstream in(file, std::ios::binary);
  char line[256] = {};
  in.read(line, sizeof line - 1);
  const std::string head(line, static_cast<std::size_t>(in.gcount()));
  if (head.rfind("#!", 0) != 0) return "";
  const std::size_t from = head.find_first_not_of(" \t", 2);
  const std::size_t to = from == std::string::npos ? from : head.find_first_of(" \t\r\n", from);
  const std::string interpreter = from == std::string::npos ? "" : head.substr(from, to - from);
  return "its interpreter '" + interpreter + "' (its #! line) does not exist";
}

}  // namespace

ExecFailure exec_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  if (argv.empty()) return ExecFailure{EINVAL, "no program to run"};
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(environment);
  // glibc's execvpe looks argv[0] up on PATH and hands a file the kernel refuses (ENOEXEC) to
  // /bin/sh, as env does.
  execvpe(args[0], args.data(), envp.data());
  const int error = errno;
  if (error == ENOENT) {
    const std::string interpreter = missing_interpreter(argv[0]);
    if (!interpreter.empty()) return ExecFailure{error, interpreter};
  }
  return ExecFailure{error, std::strerror(error)};
}

ChildAnswer capture_stdout(const std::vector<std::string>& argv, int timeout_ms, const SlowNote& slow) {
  ChildAnswer answer;
  if (argv.empty()) {
    answer.why = "no program to run";
    return answer;
  }
  const std::string name = "'" + argv[0] + "'";
  Pipe output;
  if (!output.ok()) {
    answer.why = std::string("pipe: ") + std::strerror(errno);
    return answer;
  }
  FileActions files;
  posix_spawn_file_actions_addopen(&files.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files.actions, output.write_end(), 1);
  posix_spawn_file_actions_addopen(&files.actions, 2, "/dev/null", O_WRONLY, 0);
  // A group of its own: whatever the question starts (an interpreter's children) is killed with it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args = c_strings(argv);
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, args[0], &files.actions, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) {
    answer.why = name + " could not be started: " + std::strerror(failed);
    return answer;
  }
  output.close_write();
  const QuestionGuard guard(pid);
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  const auto note_at = start + std::chrono::milliseconds(slow.after_ms);
  bool noted = !slow.say || slow.after_ms <= 0;
  bool exited = false, open = true, timed_out = false;
  char buffer[4096];
  for (;;) {
    const auto now = Clock::now();
    if (!noted && now >= note_at) {
      slow.say();
      noted = true;
    }
    if (now >= deadline) {
      timed_out = !exited;
      break;
    }
    if (!exited) {
      // Not reaped (WNOWAIT): its id, and so its group's, stays its own until the group is killed.
      siginfo_t info{};
      exited = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
    }
    if (!open) {
      if (exited) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    pollfd ready{output.read_end(), POLLIN, 0};
    const int polled = poll(&ready, 1, exited ? 0 : 50);
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) {
      // Exited, and nothing more to read now: a child it left may hold the pipe, never waited for.
      if (exited || polled < 0) break;
      continue;
    }
    const ssize_t n = read(output.read_end(), buffer, sizeof buffer);
    if (n > 0) {
      answer.text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      open = false;
    }
  }
  kill(-pid, SIGKILL);  // the group: what the question started, answered or not
  const int raw = wait_for(pid);
  if (timed_out) {
    answer.outcome = ChildAnswer::Outcome::kTimedOut;
    answer.why = name + " gave no answer within " + std::to_string(timeout_ms / 1000) +
                 " s (it and the processes it started were killed)";
  } else if (exited_well(raw)) {
    answer.outcome = ChildAnswer::Outcome::kAnswered;
  } else {
    answer.outcome = raw >= 0 && WIFSIGNALED(raw) ? ChildAnswer::Outcome::kSignalled : ChildAnswer::Outcome::kFailed;
    answer.why = name + " ended with " + how_it_ended(raw);
  }
  return answer;
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
    return Error::time_limit("the child process gave no answer within " + std::to_string(timeout_ms / 1000) + " s" +
                             during + " (it was killed)");
  }
  if (!exited_well(raw)) return Error::internal("the child process ended with " + how_it_ended(raw) + during);
  return Error::internal("the child process gave no answer" + during);
}

}  // namespace ucudnn::tools
