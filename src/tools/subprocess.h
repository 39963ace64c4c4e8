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

/// Replaces this process with `argv` (argv[0] looked up on PATH; a file without "#!" that the
/// kernel cannot run is run by /bin/sh, as a shell and env do) under the environment
/// `environment` ("NAME=value" strings). Returns only where that failed, with strerror's words.
/// The program keeps this process's id, so signals, job control and its exit status reach the
/// caller exactly as if it had been started directly (`ucudnn run` is env with settings).
Error exec_program(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

/// Runs `argv` with this process's environment, its stdin and stderr on /dev/null, and returns
/// what it wrote to stdout. An error where it could not be started, did not exit with 0, or had
/// not exited after `timeout_ms` (then it is killed).
Expected<std::string> capture_stdout(const std::vector<std::string>& argv, int timeout_ms);

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
