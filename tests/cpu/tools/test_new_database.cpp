// A new database's temporary file (tools/new_database.h): what a killed `db import` or
// `db merge --create` left is removed by the next creation of the same name, which says so; a
// temporary file that a running command holds is never touched.

#include <fcntl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "cli_test_support.h"
#include "test_helpers.h"
#include "waiting_child.h"

namespace ucudnn::testing {
namespace {

namespace fs = std::filesystem;

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// A running command's hold on its temporary file: a lock on the first byte, kept until killed.
bool lock_first_byte(const std::string& file) {
  const int fd = open(file.c_str(), O_RDWR);  // left open: the child holds it until killed
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_len = 1;
  return fd >= 0 && fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

TEST(NewDatabase, WhatAKilledCreationLeftIsRemovedByTheNextAndARunningOnesFileIsNot) {
  TempDir dir;
  const std::string into = (dir.path() / "new.db").string();
  // Killed: a temporary file with its -wal and -shm, nobody holding it; and a -wal whose file
  // was already removed (killed while it cleaned up).
  dir.write(".new.db.ucudnn-new-123", std::string(5000, 'd'));
  dir.write(".new.db.ucudnn-new-123-wal", std::string(3000, 'w'));
  dir.write(".new.db.ucudnn-new-123-shm", std::string(32768, 's'));
  dir.write(".new.db.ucudnn-new-77-wal", std::string(10, 'w'));
  // Running: held by another process. And files that are not new.db's at all.
  const std::string running = dir.write(".new.db.ucudnn-new-456", "a command is filling this");
  dir.write(".other.db.ucudnn-new-789", "another database's");
  dir.write(".new.db.ucudnn-new-12x", "not a name the command makes");
  const WaitingChild holder([&] { return lock_first_byte(running); });
  ASSERT_TRUE(holder.worked());

  const std::string table = dir.write("table.csv",
                                      "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n"
                                      "alex_conv1,fwd,1,0,0,0.5,0\n");
  const CliResult imported =
      run({"db", "import", "--measurements", table, "--database", into, "--network", "alexnet", "--gpu-name", "X",
           "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91900", "--cuda-version", "13000"});
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_NE(imported.out.find("removed '.new.db.ucudnn-new-123' (40768 bytes with its side files), left by a killed "
                              "db import or db merge --create\n"),
            std::string::npos)
      << imported.out;
  EXPECT_NE(imported.out.find("removed '.new.db.ucudnn-new-77-wal' (10 bytes)"), std::string::npos) << imported.out;
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"new.db", "table.csv", ".new.db.ucudnn-new-456",
                                                         ".other.db.ucudnn-new-789", ".new.db.ucudnn-new-12x"}));
  EXPECT_EQ(read_bytes(running), "a command is filling this");
}

}  // namespace
}  // namespace ucudnn::testing
