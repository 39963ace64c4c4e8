#pragma once
// Runs the probes (tests/preload/preload_probe, which links cuDNN, and graph_probe, which dlopens it),
// with or without LD_PRELOAD, and parses their key=value lines.

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace ucudnn::testing {

struct ProbeRun {
  int exit_status = -1;
  std::map<std::string, std::string> values;
  std::string output;
};

/// Where the probe and the preload library are: the build's, unless UCUDNN_PRELOAD_PROBE and
/// UCUDNN_PRELOAD_LIBRARY say otherwise (a packed build on another machine).
inline std::string probe_path() {
  const char* path = std::getenv("UCUDNN_PRELOAD_PROBE");
  return path ? path : UCUDNN_PRELOAD_PROBE_PATH;
}
inline std::string graph_probe_path() {
  const char* path = std::getenv("UCUDNN_GRAPH_PROBE");
  return path ? path : UCUDNN_GRAPH_PROBE_PATH;
}
inline std::string preload_library_path() {
  const char* path = std::getenv("UCUDNN_PRELOAD_LIBRARY");
  return path ? path : UCUDNN_PRELOAD_LIBRARY_PATH;
}

/// `environment` with the sanitizer's runtime ahead of a preloaded library, in a sanitizer build:
/// the probe is not instrumented, and ASan must be the first library loaded.
inline std::string with_sanitizer_runtime(std::string environment) {
#ifdef UCUDNN_SANITIZER_RUNTIME
  const std::string preload = "LD_PRELOAD=";
  const auto at = environment.find(preload);
  if (at != std::string::npos) environment.insert(at + preload.size(), std::string(UCUDNN_SANITIZER_RUNTIME) + ":");
#endif
  return environment;
}

/// Runs `program` with `environment` prefixed to the command line ("LD_PRELOAD=... UCUDNN_STATS=1").
inline ProbeRun run_program(const std::string& program, const std::string& environment) {
  ProbeRun run;
  const std::string command = "env " + with_sanitizer_runtime(environment) + " '" + program + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) run.output += buffer;
  const int status = pclose(pipe);
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::size_t start = 0;
  while (start < run.output.size()) {
    std::size_t end = run.output.find('\n', start);
    if (end == std::string::npos) end = run.output.size();
    const std::string line = run.output.substr(start, end - start);
    const auto equals = line.find('=');
    if (equals != std::string::npos && line.find(' ') > equals) run.values[line.substr(0, equals)] = line.substr(equals + 1);
    start = end + 1;
  }
  return run;
}

inline ProbeRun run_probe(const std::string& environment) { return run_program(probe_path(), environment); }
inline ProbeRun run_graph_probe(const std::string& environment) {
  return run_program(graph_probe_path(), environment);
}

}  // namespace ucudnn::testing
