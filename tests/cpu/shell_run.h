#pragma once
// A shell command run as a user would run it, for the tests of the project's scripts: its exit
// status and its output (stdout and stderr together).

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ucudnn::testing {

struct Shell {
  int status = -1;
  std::string output;  // stdout and stderr
};

inline Shell shell(const std::string& command) {
  Shell run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) run.output += buffer;
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace ucudnn::testing
