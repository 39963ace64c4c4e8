#pragma once
// Whether a database's file system keeps POSIX locks on this host only. SQLite keeps writers
// apart with those locks; where a mount keeps them per host (NFS mounted `nolock` or with
// `local_lock=posix|all`, CIFS with `nobrl`, FUSE file systems, which the kernel locks locally),
// processes on two hosts can write the file at once and damage it. fcntl succeeds either way, so
// the mount's options are what tells.

#include <string>
#include <sys/types.h>

namespace ucudnn::store {

/// Why locks on the file system of device `device` (a file's st_dev) reach this host only ("nfs
/// mounted with nolock"), or empty where they do not, or where the mount cannot be told (no /proc).
std::string host_local_locks(dev_t device);

/// The same from /proc/self/mountinfo's text, for the file system of device `device` (st_dev).
std::string host_local_locks_in(const std::string& mountinfo, dev_t device);

}  // namespace ucudnn::store
