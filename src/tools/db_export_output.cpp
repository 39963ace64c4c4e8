// Where `ucudnn db export` may write its table: never over the database or its side files.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "tools/db_subcommands.h"

namespace ucudnn::tools::db_subcommands {

Status check_output(const std::string& output, const std::string& database) {
  std::error_code ignored;
  struct stat out {};
  const bool out_exists = ::stat(output.c_str(), &out) == 0;
  if (out_exists && S_ISDIR(out.st_mode)) return Error::invalid("cannot write '" + output + "': it is a directory");
  const auto out_path = std::filesystem::weakly_canonical(std::filesystem::absolute(output, ignored), ignored);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string file = database + suffix;
    struct stat st {};
    const bool same_inode = out_exists && ::stat(file.c_str(), &st) == 0 && st.st_dev == out.st_dev &&
                            st.st_ino == out.st_ino;
    const auto file_path = std::filesystem::weakly_canonical(std::filesystem::absolute(file, ignored), ignored);
    if (same_inode || (!out_path.empty() && out_path == file_path)) {
      return Error::invalid("--output '" + output + "' is the benchmark database" +
                            (*suffix ? std::string(" file '") + file + "'" : std::string(" '") + database + "'") +
                            " itself: refusing to overwrite it; choose another file");
    }
  }
  return Status::success();
}

}  // namespace ucudnn::tools::db_subcommands
