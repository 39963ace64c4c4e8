#pragma once
// A disk that fills while SQLite copies a -wal into its database: in-process tests register this
// as SQLite's default file layer, and every write that would take a main database file past
// `limit` bytes fails with SQLITE_FULL, as on a full disk, while the -wal and journals grow
// freely. (A file size limit, ulimit -f, cannot model it: a new file's -wal is larger than the file
// it fills.) One at a time; the real default layer is the default again once it goes.

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace ucudnn::testing {

class FullDiskVfs {
 public:
  explicit FullDiskVfs(sqlite3_int64 limit) {
    real_ = sqlite3_vfs_find(nullptr);
    limit_ = limit;
    refused_ = 0;
    vfs_ = *real_;  // the real layer's other calls, which take its pAppData as they are
    vfs_.zName = "ucudnn-test-full-disk";
    vfs_.szOsFile = static_cast<int>(sizeof(LimitedFile)) + real_->szOsFile;
    vfs_.xOpen = &open;
    vfs_.pNext = nullptr;
    sqlite3_vfs_register(&vfs_, 1);
  }
  ~FullDiskVfs() { sqlite3_vfs_unregister(&vfs_); }
  FullDiskVfs(const FullDiskVfs&) = delete;
  FullDiskVfs& operator=(const FullDiskVfs&) = delete;

  /// How many writes were refused.
  int refused() const { return refused_; }

 private:
  struct LimitedFile {
    sqlite3_file base;
    bool main_database;
    sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
  };
  static LimitedFile* limited(sqlite3_file* file) { return reinterpret_cast<LimitedFile*>(file); }

  static int open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    LimitedFile* self = limited(file);
    self->main_database = (flags & SQLITE_OPEN_MAIN_DB) != 0;
    const int rc = real_->xOpen(real_, name, self->real(), flags, out_flags);
    self->base.pMethods = rc == SQLITE_OK ? &methods_ : nullptr;
    return rc;
  }

  static int write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
    LimitedFile* self = limited(file);
    if (self->main_database && offset + amount > limit_) {
      ++refused_;
      return SQLITE_FULL;
    }
    return self->real()->pMethods->xWrite(self->real(), data, amount, offset);
  }

  // Every other call goes to the real file as it is.
  template <auto Member, typename... Args>
  static int forward(sqlite3_file* file, Args... args) {
    sqlite3_file* real = limited(file)->real();
    return (real->pMethods->*Member)(real, args...);
  }
  static int close(sqlite3_file* file) {
    sqlite3_file* real = limited(file)->real();
    return real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
  }
  static void shm_barrier(sqlite3_file* file) {
    sqlite3_file* real = limited(file)->real();
    real->pMethods->xShmBarrier(real);
  }

  static inline sqlite3_vfs* real_ = nullptr;
  static inline sqlite3_vfs vfs_{};
  static inline sqlite3_int64 limit_ = 0;
  static inline std::atomic<int> refused_{0};
  static inline const sqlite3_io_methods methods_ = {
      3,
      &close,
      &forward<&sqlite3_io_methods::xRead, void*, int, sqlite3_int64>,
      &write,
      &forward<&sqlite3_io_methods::xTruncate, sqlite3_int64>,
      &forward<&sqlite3_io_methods::xSync, int>,
      &forward<&sqlite3_io_methods::xFileSize, sqlite3_int64*>,
      &forward<&sqlite3_io_methods::xLock, int>,
      &forward<&sqlite3_io_methods::xUnlock, int>,
      &forward<&sqlite3_io_methods::xCheckReservedLock, int*>,
      &forward<&sqlite3_io_methods::xFileControl, int, void*>,
      &forward<&sqlite3_io_methods::xSectorSize>,
      &forward<&sqlite3_io_methods::xDeviceCharacteristics>,
      &forward<&sqlite3_io_methods::xShmMap, int, int, int, void volatile**>,
      &forward<&sqlite3_io_methods::xShmLock, int, int, int>,
      &shm_barrier,
      &forward<&sqlite3_io_methods::xShmUnmap, int>,
      &forward<&sqlite3_io_methods::xFetch, sqlite3_int64, int, void**>,
      &forward<&sqlite3_io_methods::xUnfetch, sqlite3_int64, void*>,
  };
};

}  // namespace ucudnn::testing
