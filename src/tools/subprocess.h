#pragma once
// Processes for `ucudnn run`: the program itself (exec), the interpreter asked where its cuDNN
// is, and the forked probe that loads a cuDNN apart from this process, each child bounded in time.
// POSIX only; none of them touches this process's streams or signal handling once it returns.

#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"

namespace ucudnn::tools {

/// `word` as a POSIX shell reads it back: unchanged where it holds only characters a shell takes
/// literally, else in single quotes ('it'\''s').
std::string shell_quote(const std::string& word);

/// Why exec_program returned: errno, and what it means for this program.
struct ExecFailure {
  int error = 0;
  /// strerror's words, or where they would name the wrong file, what is wrong: a script whose #!
  /// interpreter is missing ("its interpreter '/usr/bin/x' (its #! line) does not exist").
  std::string message;
};

/// Replaces this process with `argv` (argv[0] looked up on PATH; a file without "#!" that the
/// kernel cannot run is run by /bin/sh, as a shell and env do) under the environment
/// `environment` ("NAME=value" strings). Returns only where that failed.
/// The program keeps this process's id, so signals, job control and its exit status reach the
/// caller exactly as if it had been started directly (`ucudnn run` is env with settings).
ExecFailure exec_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

/// How a question put to a child program ended (capture_stdout).
struct ChildAnswer {
  enum class Outcome {
    kAnswered,    ///< it exited with 0: `text` is what it wrote to stdout
    kFailed,      ///< it could not be started, or exited with another status
    kSignalled,   ///< a signal ended it
    kTimedOut,    ///< it had not exited at the deadline: it and its process group were killed
  };
  Outcome outcome = Outcome::kFailed;
  std::string text;  ///< stdout (kAnswered)
  std::string why;   ///< what happened, for a message (every other outcome)
};

/// Said once where a child has not answered after `after_ms` (a slow question is not a silent one).
struct SlowNote {
  int after_ms = 0;
  std::function<void()> say;
};

/// Runs `argv` with this process's environment, its stdin and stderr on /dev/null, in a process
/// group of its own, and returns what it wrote to stdout. `slow.say` is called once if it has not
/// answered after `slow.after_ms`; at `timeout_ms` its whole process group is killed (children it
/// started included), as it is once it has answered (nothing of a question outlives it), and as it
/// is where this process is interrupted meanwhile (SIGINT, SIGTERM or SIGHUP, which then ends
/// this process as it would have).
ChildAnswer capture_stdout(const std::vector<std::string>& argv, int timeout_ms, const SlowNote& slow = {});

/// How long `run`'s questions to a child may take (a cuDNN or driver probed, a Python interpreter
/// asked where its cuDNN is): a library whose constructor blocks, or an interpreter that hangs,
/// must not make `run` wait forever. (Importing torch from a cold network file system takes
/// seconds; a minute is far beyond that.)
inline constexpr int kChildAnswerTimeoutMs = 60000;

/// Reports the step a forked child has reached ("loading /x/libcudnn.so.9"), so that a child that
/// hangs or crashes can be named by what it was doing.
using StepReporter = std::function<void(const std::string& step)>;

/// Runs `work` in a forked child (no exec) and returns the text it returned, so that whatever it
/// loads or breaks stays out of this process. An error where the child failed, died (naming the
/// signal and the last step reported) or had not answered after `timeout_ms` (then it is killed).
Expected<std::string> run_in_fork(const std::function<std::string(const StepReporter&)>& work, int timeout_ms);

}  // namespace ucudnn::tools
