#include "tools/beside_command.h"

#include <filesystem>

namespace ucudnn::tools {

namespace fs = std::filesystem;

bool is_file(const std::string& path) {
  std::error_code ignored;
  return fs::is_regular_file(path, ignored);
}

std::string this_executable() {
  std::error_code ignored;
  return fs::read_symlink("/proc/self/exe", ignored).string();
}

Expected<std::string> library_beside(const std::string& name, const std::string& executable) {
  const fs::path folder = fs::path(executable).parent_path();
  const fs::path installed = (folder / ".." / "lib" / name).lexically_normal();
  const fs::path built = folder / name;
  if (is_file(installed.string())) return installed.string();
  if (is_file(built.string())) return built.string();
  return Error::invalid("no " + name + " at '" + installed.string() + "' or '" + built.string() + "'");
}

}  // namespace ucudnn::tools
