#include "store/lock_scope.h"

#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace ucudnn::store {
namespace {

// The options of a comma-separated list, each "name" or "name=value".
bool has_option(const std::string& options, const std::string& option) {
  return ("," + options + ",").find("," + option + ",") != std::string::npos;
}

}  // namespace

std::string host_local_locks_in(const std::string& mountinfo, dev_t device) {
  const std::string wanted = std::to_string(major(device)) + ":" + std::to_string(minor(device));
  std::istringstream lines(mountinfo);
  for (std::string line; std::getline(lines, line);) {
    // id parent major:minor root mount-point options [optional fields...] - type source super-options
    std::istringstream fields(line);
    std::vector<std::string> before;
    std::string field;
    while (fields >> field && field != "-") before.push_back(field);
    std::string type, source, super_options;
    fields >> type >> source >> super_options;
    if (before.size() < 6 || before[2] != wanted || type.empty()) continue;
    const std::string& mount = before[4];
    const std::string on = type + " at " + mount;
    if (type == "nfs" || type == "nfs4") {
      if (has_option(super_options, "nolock")) return on + " is mounted nolock";
      if (has_option(super_options, "local_lock=posix") || has_option(super_options, "local_lock=all")) {
        return on + " keeps its locks on this host (local_lock)";
      }
      return "";
    }
    if ((type == "cifs" || type == "smb3") && has_option(super_options, "nobrl")) return on + " is mounted nobrl";
    if (type.rfind("fuse", 0) == 0) return on + " is a FUSE file system, whose locks the kernel keeps on this host";
    return "";
  }
  return "";
}

std::string host_local_locks(dev_t device) {
  std::ifstream in("/proc/self/mountinfo");
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return host_local_locks_in(text.str(), device);
}

}  // namespace ucudnn::store
