#include "tools/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

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

// The raw wait status of `pid`, waited for through signals.
int wait_for(pid_t pid) {
  int raw = 0;
  while (waitpid(pid, &raw, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return raw;
}

ChildExit exit_of(int raw) {
  if (raw < 0) return {1, false};  // not waited for
  if (WIFSIGNALED(raw)) return {128 + WTERMSIG(raw), true};
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 1, false};
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      return text;
    }
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

// SIGINT and SIGQUIT ignored here while a child runs, restored on scope exit; `child_defaults`
// holds those the child must get back at their default (not the ones already ignored on entry:
// a program started under nohup stays so).
class TerminalSignalsIgnored {
 public:
  TerminalSignalsIgnored() {
    sigemptyset(&child_defaults_);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (int i = 0; i < 2; ++i) {
      sigaction(kSignals[i], &ignore, &saved_[i]);
      if (saved_[i].sa_handler != SIG_IGN) sigaddset(&child_defaults_, kSignals[i]);
    }
  }
  ~TerminalSignalsIgnored() {
    for (int i = 0; i < 2; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
  }
  TerminalSignalsIgnored(const TerminalSignalsIgnored&) = delete;
  TerminalSignalsIgnored& operator=(const TerminalSignalsIgnored&) = delete;

  const sigset_t* child_defaults() const { return &child_defaults_; }

 private:
  static constexpr int kSignals[2] = {SIGINT, SIGQUIT};
  struct sigaction saved_[2]{};
  sigset_t child_defaults_;
};

struct SpawnAttributes {
  SpawnAttributes() { posix_spawnattr_init(&attributes); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&attributes); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t attributes;
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

Expected<ChildExit> run_and_wait(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  if (argv.empty()) return Error{"no program to run"};
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(environment);
  TerminalSignalsIgnored ignored;
  SpawnAttributes spawn;
  posix_spawnattr_setsigdefault(&spawn.attributes, ignored.child_defaults());
  posix_spawnattr_setflags(&spawn.attributes, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  // glibc's posix_spawnp reports a failed exec (ENOENT, EACCES, ENOEXEC) here, not as exit 127.
  const int failed = posix_spawnp(&pid, args[0], nullptr, &spawn.attributes, args.data(), envp.data());
  if (failed != 0) return Error{std::strerror(failed)};
  const int raw = wait_for(pid);
  if (raw < 0) return Error{ErrorCode::kInternal, std::string("waitpid: ") + std::strerror(errno)};
  return exit_of(raw);
}

Expected<std::string> capture_stdout(const std::vector<std::string>& argv) {
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
  std::string text = read_all(output.read_end());
  const ChildExit exit = exit_of(wait_for(pid));
  if (exit.status != 0) return Error{"'" + argv[0] + "' exited with status " + std::to_string(exit.status)};
  return text;
}

Expected<std::string> run_in_fork(const std::function<std::string()>& work) {
  Pipe result;
  if (!result.ok()) return Error{ErrorCode::kInternal, std::string("pipe: ") + std::strerror(errno)};
  const pid_t pid = fork();
  if (pid < 0) return Error{ErrorCode::kInternal, std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    // The child: no destructors, no stdio flush of the parent's buffers (_exit).
    int status = 0;
    try {
      write_all(result.write_end(), work());
    } catch (const std::exception&) {
      status = 1;
    }
    _exit(status);
  }
  result.close_write();
  std::string text = read_all(result.read_end());
  const ChildExit exit = exit_of(wait_for(pid));
  if (exit.signalled) return Error{"the child process died of signal " + std::to_string(exit.status - 128)};
  if (exit.status != 0) return Error{"the child process failed"};
  return text;
}

}  // namespace ucudnn::tools
