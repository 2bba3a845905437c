// FaultyFs: the one fault-injecting file system of the tests. SafeTree makes its
// syscalls through platform::FsOps; this one fails chosen calls with a chosen errno --
// the nth call of one operation (once, or sticky: every call from the nth on, like a
// disk that stays full or a file system that stays read-only), or every write from the
// moment one file is written (a disk that fills up at a chosen point).
#pragma once

#include <fcntl.h>

#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "platform/safe_tree.hpp"

namespace amdml::test {

class FaultyFs final : public platform::FsOps {
 public:
  enum class Op { open, write, fsync, fchmod, fchown, rename, unlink, mkdir };
  static constexpr Op kAllOps[] = {Op::open,   Op::write,  Op::fsync,  Op::fchmod,
                                   Op::fchown, Op::rename, Op::unlink, Op::mkdir};

  // Fails the nth call (1-based) of op with err: only that call, or (sticky) every call
  // from the nth on. Counts every operation, so a clean run tells how many calls there are.
  FaultyFs(Op op, int nth, int err, bool sticky = false) : op_(op), nth_(nth), err_(err), sticky_(sticky) {}

  // A disk that fills up: from the first write to a file whose name (as opened) starts
  // with prefix, every write and allocation fails with ENOSPC; renames, unlinks and
  // fsyncs still work.
  static FaultyFs disk_full_from(std::string prefix) {
    FaultyFs f(Op::write, 1, ENOSPC, true);
    f.trigger_ = std::move(prefix);
    f.armed_ = false;
    return f;
  }

  int calls(Op op) const { return counts_[static_cast<int>(op)]; }
  // How many calls failed.
  int fired() const { return fired_; }
  // disk_full_from: whether the disk has filled up.
  bool full() const { return armed_ && fired_ > 0; }

  int openat(int dirfd, const char* path, int flags, unsigned mode) override {
    // Only opens that create count: reads and directory walks are not the fault under test.
    if ((flags & O_CREAT) && hit(Op::open)) return -1;
    int fd = FsOps::openat(dirfd, path, flags, mode);
    if (fd >= 0 && !trigger_.empty()) names_[fd] = path;
    return fd;
  }
  ssize_t write(int fd, const void* buf, std::size_t n) override {
    if (!armed_ && names_[fd].starts_with(trigger_)) armed_ = true;
    return hit(Op::write) ? -1 : FsOps::write(fd, buf, n);
  }
  int fsync(int fd) override { return hit(Op::fsync) ? -1 : FsOps::fsync(fd); }
  int fchmod(int fd, unsigned mode) override { return hit(Op::fchmod) ? -1 : FsOps::fchmod(fd, mode); }
  int fchown(int fd, uid_t uid, gid_t gid) override { return hit(Op::fchown) ? -1 : FsOps::fchown(fd, uid, gid); }
  int renameat(int a, const char* b, int c, const char* d, unsigned flags) override {
    return hit(Op::rename) ? -1 : FsOps::renameat(a, b, c, d, flags);
  }
  int unlinkat(int dirfd, const char* path, int flags) override {
    return hit(Op::unlink) ? -1 : FsOps::unlinkat(dirfd, path, flags);
  }
  int mkdirat(int dirfd, const char* path, unsigned mode) override {
    return hit(Op::mkdir) ? -1 : FsOps::mkdirat(dirfd, path, mode);
  }
  // Taking space is a write: the journal's reservation fails like a write on a full disk.
  int fallocate(int fd, off_t len) override { return hit(Op::write) ? -1 : FsOps::fallocate(fd, len); }

 private:
  bool hit(Op op) {
    if (!armed_) return false;
    int n = ++counts_[static_cast<int>(op)];
    if (op != op_ || n < nth_ || (!sticky_ && n != nth_)) return false;
    ++fired_;
    errno = err_;
    return true;
  }
  Op op_;
  int nth_;
  int err_;
  bool sticky_;
  bool armed_ = true;
  std::string trigger_;
  std::map<int, std::string> names_;
  int counts_[8] = {};
  int fired_ = 0;
};

inline const char* op_name(FaultyFs::Op op) {
  switch (op) {
    case FaultyFs::Op::open: return "open";
    case FaultyFs::Op::write: return "write";
    case FaultyFs::Op::fsync: return "fsync";
    case FaultyFs::Op::fchmod: return "fchmod";
    case FaultyFs::Op::fchown: return "fchown";
    case FaultyFs::Op::rename: return "rename";
    case FaultyFs::Op::unlink: return "unlink";
    case FaultyFs::Op::mkdir: return "mkdir";
  }
  return "?";
}

// Errnos a real machine gives each operation; the fault tests cycle through them.
inline std::vector<int> errnos_for(FaultyFs::Op op) {
  using Op = FaultyFs::Op;
  switch (op) {
    case Op::open: return {EROFS, ENOSPC, EACCES, EDQUOT};
    case Op::write: return {ENOSPC, EIO, EROFS, EDQUOT};
    case Op::fsync: return {EIO, ENOSPC, EROFS};
    case Op::fchmod: return {EPERM, EROFS};
    case Op::fchown: return {EPERM, EROFS};
    case Op::rename: return {EXDEV, EROFS, ENOSPC, EIO};
    case Op::unlink: return {EROFS, EIO, EBUSY};
    case Op::mkdir: return {EROFS, ENOSPC, EEXIST};
  }
  return {EIO};
}

}  // namespace amdml::test
