// Which mounts keep POSIX locks on this host only (store/lock_scope.h), read from mountinfo lines
// as Linux writes them. (The warning a database opened on one gives is not tested: no such file
// system can be mounted here.)

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "store/lock_scope.h"

namespace ucudnn::testing {
namespace {

const char kMountinfo[] =
    "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro\n"
    "40 22 0:52 / /shared rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2,rsize=1048576,hard,"
    "proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.0.0.2,local_lock=none,addr=10.0.0.1\n"
    "41 22 0:53 / /old rw,relatime shared:21 - nfs server:/old rw,vers=3,nolock,proto=tcp,local_lock=all\n"
    "42 22 0:54 / /posix rw,relatime shared:22 - nfs4 server:/p rw,vers=4.1,local_lock=posix,addr=10.0.0.1\n"
    "43 22 0:55 / /win rw,relatime - cifs //server/share rw,vers=3.1.1,nobrl,uid=0\n"
    "44 22 0:56 / /winlocked rw,relatime - cifs //server/share rw,vers=3.1.1,uid=0\n"
    "45 22 0:57 / /ssh rw,nosuid,nodev,relatime - fuse.sshfs user@host:/ rw,user_id=0,group_id=0\n";

TEST(LockScope, MountsThatKeepLocksOnThisHostAreNamedAndOthersAreNot) {
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(259, 2)), "");
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 52)), "") << "NFS 4 with its locks on the server";
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 53)), "nfs at /old is mounted nolock");
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 54)),
            "nfs4 at /posix keeps its locks on this host (local_lock)");
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 55)), "cifs at /win is mounted nobrl");
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 56)), "");
  EXPECT_NE(store::host_local_locks_in(kMountinfo, makedev(0, 57)).find("fuse.sshfs at /ssh is a FUSE file system"),
            std::string::npos);
  EXPECT_EQ(store::host_local_locks_in(kMountinfo, makedev(0, 99)), "") << "a device no line names";
  EXPECT_EQ(store::host_local_locks_in("not a mountinfo line\n\n- - -\n", makedev(0, 52)), "");
}

}  // namespace
}  // namespace ucudnn::testing
