// SafeTree: the one writer `amdml fix` changes a machine through.
//
// Every path is absolute inside a tree root ("/" live, the --root DIR in tests). Each
// directory on the way is opened with O_NOFOLLOW|O_DIRECTORY from the root down, so a
// symlinked parent is refused instead of followed, and must belong to root (or to the
// user running amdml, for test trees) and be writable by nobody else. The final
// component is never followed either: a target that is a symlink is an error, not a
// redirection. Writes are atomic: a temp file in the same directory, fchown/fchmod to
// the old metadata and a copy of its extended attributes (ACLs, user.*, the SELinux
// label), fsync, renameat, fsync of the directory -- readers see the old bytes or the
// new bytes, never a mix, also when the process dies half-way.
//
// The syscalls go through FsOps so tests (and the reliability suite) can fail the Nth
// write, fsync, rename, ... with a chosen errno (FaultyFsOps).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fd.hpp"
#include "base/result.hpp"

namespace amdml::platform {

// The syscalls SafeTree makes. Return values and errno as the syscalls themselves.
class FsOps {
 public:
  virtual ~FsOps() = default;
  virtual int openat(int dirfd, const char* path, int flags, unsigned mode);
  virtual ssize_t write(int fd, const void* buf, std::size_t n);
  virtual int fsync(int fd);
  virtual int fchmod(int fd, unsigned mode);
  virtual int fchown(int fd, uid_t uid, gid_t gid);
  // flags: 0, or RENAME_NOREPLACE (renameat2: fails with EEXIST rather than replace;
  // where the filesystem lacks it, a plain rename -- the caller has checked the name).
  virtual int renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags = 0);
  virtual int unlinkat(int dirfd, const char* path, int flags);
  virtual int mkdirat(int dirfd, const char* path, unsigned mode);
  virtual int close(int fd);
  // posix_fallocate, but -1 and errno like the others.
  virtual int fallocate(int fd, off_t len);
};

// The real syscalls.
FsOps& real_fs_ops();

// Fails the nth (1-based) call of one operation with err; every other call is real.
// Counts are per instance, so a test can aim at "the second rename of this run".
class FaultyFsOps final : public FsOps {
 public:
  enum class Op { open, write, fsync, fchmod, fchown, rename, unlink, mkdir };
  FaultyFsOps(Op op, int nth, int err) : op_(op), nth_(nth), err_(err) {}
  int calls(Op op) const { return counts_[static_cast<int>(op)]; }
  bool fired() const { return fired_; }

  int openat(int dirfd, const char* path, int flags, unsigned mode) override;
  ssize_t write(int fd, const void* buf, std::size_t n) override;
  int fsync(int fd) override;
  int fchmod(int fd, unsigned mode) override;
  int fchown(int fd, uid_t uid, gid_t gid) override;
  int renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) override;
  int unlinkat(int dirfd, const char* path, int flags) override;
  int mkdirat(int dirfd, const char* path, unsigned mode) override;
  int fallocate(int fd, off_t len) override;  // counts as a write: it is what fills a disk

 private:
  bool hit(Op op);
  Op op_;
  int nth_;
  int err_;
  int counts_[8] = {};
  bool fired_ = false;
};

// A file as found: its bytes and metadata, or "did not exist".
struct FileState {
  bool exists = false;
  std::string bytes;
  std::uint32_t mode = 0;  // permission bits
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

// Metadata for a write. Unset fields: an existing file keeps its own; a new file gets
// mode 0644 and the writing process's owner.
struct FileMeta {
  std::optional<std::uint32_t> mode;
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
};

class SafeTree {
 public:
  // root: "/" or an existing directory (made absolute and canonical here).
  explicit SafeTree(std::string root, FsOps& ops = real_fs_ops());

  const std::string& root() const { return root_; }
  FsOps& ops() { return ops_; }
  // The real path of an inner path, for messages and for tools given --root.
  std::string real_path(const std::string& path) const;

  // Reads a regular file without following a symlink anywhere on the path. A missing
  // file or missing parent is exists=false; a symlink or a non-regular file is an error.
  Result<FileState> read(const std::string& path, std::size_t limit = 8 << 20) const;
  // Names in a directory (sorted); a missing directory is an empty list.
  Result<std::vector<std::string>> list(const std::string& dir) const;

  // Writes bytes atomically. Missing parent directories are created (mode 0755) and
  // appended to created_dirs (outermost first) so the caller can journal them.
  Status write(const std::string& path, const std::string& bytes, const FileMeta& meta,
               std::vector<std::string>* created_dirs = nullptr);
  // Removes a regular file (not a symlink, not a directory); missing is fine.
  Status remove(const std::string& path);
  // Renames from to to (a file or a directory, within the tree), never over an existing
  // entry; no symlink is followed on either parent path.
  Status rename(const std::string& from, const std::string& to);
  // Removes an empty directory; a non-empty or missing one is left alone (ok).
  Status remove_dir_if_empty(const std::string& path);
  // A file of `bytes` allocated on disk (posix_fallocate; zeros where that is not
  // supported), mode 0600: space held for later writes, given back by remove().
  Status reserve(const std::string& path, std::uint64_t bytes);
  // Removes the temp files a killed writer left in dir: ".NAME.amdml-PID-N" regular
  // files whose PID is not a running process (only that pattern, never another name).
  // Returns how many it removed.
  Result<int> remove_stale_temps(const std::string& dir);
  // Creates the directory (and its parents) with mode; appends what it created.
  Status make_dirs(const std::string& path, std::uint32_t mode, std::vector<std::string>* created_dirs);

 private:
  // Opens the parent directory of path (checked component by component); with create,
  // missing directories are made. Returns the dir fd and the final component.
  Result<std::pair<Fd, std::string>> open_parent(const std::string& path, bool create, std::uint32_t dir_mode,
                                                  std::vector<std::string>* created) const;

  std::string root_;
  FsOps& ops_;
};

// Splits an absolute inner path into components; rejects "", relative paths, "." and "..".
Result<std::vector<std::string>> inner_components(const std::string& path);

// An exclusive advisory lock held for the lifetime of the object (flock on a file
// inside the tree). Waits up to timeout_ms for another holder to let go.
class TreeLock {
 public:
  static Result<TreeLock> acquire(SafeTree& tree, const std::string& path, int timeout_ms);
  TreeLock(TreeLock&& o) noexcept = default;
  TreeLock& operator=(TreeLock&&) = delete;

 private:
  explicit TreeLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;  // closing it releases the flock
};

// The lock shadow-utils (lckpwdf, useradd, usermod, vipw) take before editing
// /etc/passwd, /etc/group and their shadows: a fcntl write lock on /etc/.pwd.lock.
// Live it is created when missing, as lckpwdf does; in a test tree only an existing
// lock file is locked, so the tree is left as it was. Both locks open their file
// without blocking and refuse anything but a regular file (a FIFO planted there would
// otherwise hang the open forever, before the time limit starts).
class PasswdLock {
 public:
  static Result<PasswdLock> acquire(SafeTree& tree, bool live, int timeout_ms);
  PasswdLock(PasswdLock&& o) noexcept = default;
  PasswdLock& operator=(PasswdLock&&) = delete;

 private:
  explicit PasswdLock(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;  // closing it releases the fcntl lock
};

// Test hook: when AMDML_TEST_KILL_AT_STEP=N is set in the process environment and
// step == N, the process SIGKILLs itself (no cleanup, no atexit) -- how the crash
// tests stop an apply between two steps.
void test_kill_point(int step);

}  // namespace amdml::platform
