#pragma once
// Child processes for `ucudnn run`: the program itself, the interpreter asked where its cuDNN is,
// and the forked probe that loads a cuDNN apart from this process. POSIX only; none of them
// touches this process's streams or signal handling once it returns.

#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"

namespace ucudnn::tools {

/// `word` as a POSIX shell reads it back: unchanged where it holds only characters a shell takes
/// literally, else in single quotes ('it'\''s').
std::string shell_quote(const std::string& word);

/// What became of a program that was started: its exit status, or 128 + the signal that ended it
/// (as shells report it).
struct ChildExit {
  int status = 0;
  bool signalled = false;
};

/// Runs `argv` (argv[0] looked up on PATH) with the environment `environment` ("NAME=value"
/// strings), waits for it and says how it ended. While it runs, SIGINT and SIGQUIT (the terminal's
/// Ctrl-C and Ctrl-\, sent to both) are ignored here and reach the child only, as system() does.
/// An error, carrying strerror's words, where it could not be started (not found, not executable).
Expected<ChildExit> run_and_wait(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

/// Runs `argv` with this process's environment, its stdin and stderr on /dev/null, and returns
/// what it wrote to stdout. An error where it could not be started or did not exit with 0.
Expected<std::string> capture_stdout(const std::vector<std::string>& argv);

/// Runs `work` in a forked child (no exec) and returns the text it returned, so that whatever it
/// loads or breaks stays out of this process. An error where the child failed or died.
Expected<std::string> run_in_fork(const std::function<std::string()>& work);

}  // namespace ucudnn::tools
