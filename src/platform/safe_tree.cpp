// SafeTree, FsOps, the locks and the kill hook; see safe_tree.hpp.
#include "platform/safe_tree.hpp"
#include "base/text.hpp"

#include <dirent.h>
#include <stdio.h>  // renameat2, RENAME_NOREPLACE
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "base/enum_names.hpp"
#include "platform/fs.hpp"

namespace amdml::platform {

// --- FsOps --------------------------------------------------------------------------

int FsOps::openat(int dirfd, const char* path, int flags, unsigned mode) { return ::openat(dirfd, path, flags, mode); }
ssize_t FsOps::write(int fd, const void* buf, std::size_t n) { return ::write(fd, buf, n); }
int FsOps::fsync(int fd) { return ::fsync(fd); }
int FsOps::fchmod(int fd, unsigned mode) { return ::fchmod(fd, mode); }
int FsOps::fchown(int fd, uid_t uid, gid_t gid) { return ::fchown(fd, uid, gid); }
int FsOps::renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) {
  if (flags == 0) return ::renameat(olddirfd, oldpath, newdirfd, newpath);
  int rc = ::renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
  if (rc != 0 && (errno == EINVAL || errno == ENOSYS) && flags == RENAME_NOREPLACE)
    rc = ::renameat(olddirfd, oldpath, newdirfd, newpath);
  return rc;
}
int FsOps::unlinkat(int dirfd, const char* path, int flags) { return ::unlinkat(dirfd, path, flags); }
int FsOps::mkdirat(int dirfd, const char* path, unsigned mode) { return ::mkdirat(dirfd, path, mode); }
int FsOps::close(int fd) { return ::close(fd); }
int FsOps::fallocate(int fd, off_t len) {
  int rc = ::posix_fallocate(fd, 0, len);
  if (rc == 0) return 0;
  errno = rc;
  return -1;
}

FsOps& real_fs_ops() {
  static FsOps ops;
  return ops;
}

bool FaultyFsOps::hit(Op op) {
  int& n = counts_[static_cast<int>(op)];
  ++n;
  if (op == op_ && n == nth_) {
    fired_ = true;
    errno = err_;
    return true;
  }
  return false;
}

int FaultyFsOps::openat(int dirfd, const char* path, int flags, unsigned mode) {
  // Only opens that create count: reads and directory walks are not the fault under test.
  if ((flags & O_CREAT) && hit(Op::open)) return -1;
  return FsOps::openat(dirfd, path, flags, mode);
}
ssize_t FaultyFsOps::write(int fd, const void* buf, std::size_t n) {
  if (hit(Op::write)) return -1;
  return FsOps::write(fd, buf, n);
}
int FaultyFsOps::fsync(int fd) {
  if (hit(Op::fsync)) return -1;
  return FsOps::fsync(fd);
}
int FaultyFsOps::fchmod(int fd, unsigned mode) {
  if (hit(Op::fchmod)) return -1;
  return FsOps::fchmod(fd, mode);
}
int FaultyFsOps::fchown(int fd, uid_t uid, gid_t gid) {
  if (hit(Op::fchown)) return -1;
  return FsOps::fchown(fd, uid, gid);
}
int FaultyFsOps::renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) {
  if (hit(Op::rename)) return -1;
  return FsOps::renameat(olddirfd, oldpath, newdirfd, newpath, flags);
}
int FaultyFsOps::unlinkat(int dirfd, const char* path, int flags) {
  if (hit(Op::unlink)) return -1;
  return FsOps::unlinkat(dirfd, path, flags);
}
int FaultyFsOps::mkdirat(int dirfd, const char* path, unsigned mode) {
  if (hit(Op::mkdir)) return -1;
  return FsOps::mkdirat(dirfd, path, mode);
}
int FaultyFsOps::fallocate(int fd, off_t len) {
  if (hit(Op::write)) return -1;
  return FsOps::fallocate(fd, len);
}

// --- paths --------------------------------------------------------------------------

Result<std::vector<std::string>> inner_components(const std::string& path) {
  if (path.empty() || path[0] != '/') return make_error(path + ": not an absolute path", EINVAL);
  std::vector<std::string> parts;
  for (const std::string_view c : text::split(std::string_view(path).substr(1), '/')) {
    if (c == "." || c == "..") return make_error(path + ": '.' and '..' are not allowed in a path amdml writes", EINVAL);
    if (!c.empty()) parts.emplace_back(c);
  }
  if (parts.empty()) return make_error(path + ": not a file path", EINVAL);
  return parts;
}

namespace {

Error os_error(const std::string& what, int err) { return make_error(what + ": " + errno_text(err), err); }

// A directory amdml may write into: a real directory owned by root (or by the user
// running amdml, which is how test trees are owned) that nobody else can write.
Status check_dir(int fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return os_error(shown, errno);
  if (!S_ISDIR(st.st_mode)) return make_error(shown + ": not a directory", ENOTDIR);
  uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me)
    return make_error(shown + ": owned by uid " + std::to_string(st.st_uid) + ", not root; refusing to write there", EPERM);
  if (st.st_mode & S_IWOTH) return make_error(shown + ": writable by everyone; refusing to write there", EPERM);
  if ((st.st_mode & S_IWGRP) && st.st_gid != 0 && st.st_gid != ::getegid())
    return make_error(shown + ": writable by group " + std::to_string(st.st_gid) + "; refusing to write there", EPERM);
  return {};
}

std::string join_shown(const std::vector<std::string>& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += "/" + parts[i];
  return out.empty() ? "/" : out;
}

std::atomic<unsigned> g_tmp_counter{0};

// Every extended attribute of an open file, name and value.
Result<std::vector<std::pair<std::string, std::string>>> read_xattrs(int fd) {
  std::vector<std::pair<std::string, std::string>> out;
  ssize_t n = ::flistxattr(fd, nullptr, 0);
  if (n < 0) {
    if (errno == ENOTSUP || errno == EOPNOTSUPP) return out;
    return os_error("listxattr", errno);
  }
  std::string names(static_cast<std::size_t>(n), '\0');
  n = ::flistxattr(fd, names.data(), names.size());
  if (n < 0) return os_error("listxattr", errno);
  names.resize(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < names.size();) {
    std::string name = names.c_str() + i;
    i += name.size() + 1;
    if (name.empty()) continue;
    ssize_t len = ::fgetxattr(fd, name.c_str(), nullptr, 0);
    if (len < 0) {
      if (errno == ENODATA) continue;
      return os_error(name, errno);
    }
    std::string value(static_cast<std::size_t>(len), '\0');
    len = ::fgetxattr(fd, name.c_str(), value.data(), value.size());
    if (len < 0) return os_error(name, errno);
    value.resize(static_cast<std::size_t>(len));
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

// ".NAME.amdml-PID-N": the temp-file name write() uses; the PID, or 0 for another name.
pid_t temp_file_pid(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return 0;
  auto at = name.rfind(".amdml-");
  if (at == std::string::npos || at < 2) return 0;
  std::string rest = name.substr(at + 7);
  auto dash = rest.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == rest.size() || dash > 9) return 0;
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (i != dash && (rest[i] < '0' || rest[i] > '9')) return 0;
  return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
}

}  // namespace

SafeTree::SafeTree(std::string root, FsOps& ops) : root_(std::move(root)), ops_(ops) {
  if (root_.empty()) root_ = "/";
  if (char* abs = ::realpath(root_.c_str(), nullptr)) {
    root_ = abs;
    std::free(abs);
  }
}

std::string SafeTree::real_path(const std::string& path) const {
  if (root_ == "/") return path;
  return root_ + path;
}

Result<std::pair<Fd, std::string>> SafeTree::open_parent(const std::string& path, bool create, std::uint32_t dir_mode,
                                                         std::vector<std::string>* created) const {
  AMDML_TRY(auto parts, inner_components(path));
  Fd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return os_error(root_, errno);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& c = parts[i];
    std::string shown = join_shown(parts, i + 1);
    Fd next(ops_.openat(fd.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0));
    if (!next && errno == ENOENT && create) {
      if (ops_.mkdirat(fd.get(), c.c_str(), dir_mode) != 0 && errno != EEXIST) return os_error(shown, errno);
      if (created) created->push_back(shown);
      next.reset(ops_.openat(fd.get(), c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0));
    }
    if (!next) {
      int err = errno;
      struct stat st {};
      bool link = ::fstatat(fd.get(), c.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      fd.reset();
      if (link) return make_error(shown + ": is a symlink; amdml does not write through symlinks", ELOOP);
      if (err == ELOOP || err == ENOTDIR) return make_error(shown + ": not a directory", ENOTDIR);
      return os_error(shown, err);
    }
    fd = std::move(next);
    AMDML_TRY_STATUS(check_dir(fd.get(), shown));
  }
  return std::make_pair(std::move(fd), parts.back());
}

Result<FileState> SafeTree::read(const std::string& path, std::size_t limit) const {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) {
    if (parent.error().code == ENOENT) return FileState{};
    return parent.error();
  }
  auto& [dfd, base] = *parent;
  Fd fd(::openat(dfd.get(), base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) {
    int err = errno;
    struct stat st {};
    bool link = ::fstatat(dfd.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    dfd.reset();
    if (err == ENOENT) return FileState{};
    if (link || err == ELOOP) return make_error(path + ": is a symlink; amdml does not write through symlinks", ELOOP);
    return os_error(path, err);
  }
  dfd.reset();
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error(path, errno);
  if (!S_ISREG(st.st_mode)) return make_error(path + ": not a regular file", EINVAL);
  FileState out;
  out.exists = true;
  out.mode = st.st_mode & 07777;
  out.uid = st.st_uid;
  out.gid = st.st_gid;
  auto bytes = read_fd(fd.get(), path, limit);
  fd.reset();
  if (!bytes) return bytes.error();
  out.bytes = std::move(*bytes);
  return out;
}

Result<std::vector<std::string>> SafeTree::list(const std::string& dir) const {
  // Open dir itself as the parent of a placeholder final component (never opened).
  auto parent = open_parent(dir + "/_", false, 0, nullptr);
  std::vector<std::string> names;
  if (!parent) {
    if (parent.error().code == ENOENT) return names;
    return parent.error();
  }
  DIR* d = ::fdopendir(parent->first.get());
  if (!d) return os_error(dir, errno);
  parent->first.release();  // the DIR owns it now
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status SafeTree::write(const std::string& path, const std::string& bytes, const FileMeta& meta,
                       std::vector<std::string>* created_dirs) {
  AMDML_TRY(auto parent, open_parent(path, true, 0755, created_dirs));
  // Plain variables, not a structured binding: the lambdas below capture them (clang
  // before 16 cannot capture structured bindings).
  const int dfd = parent.first.get();
  const std::string base = parent.second;
  auto fail_dir = [&](Error e) {
    parent.first.reset();
    return Status(std::move(e));
  };
  std::uint32_t mode = meta.mode.value_or(0644);
  std::optional<std::uint32_t> uid = meta.uid, gid = meta.gid;
  // The extended attributes of the file being replaced: its ACL
  // (system.posix_acl_access), user.* attributes and SELinux label (/etc/group is
  // passwd_file_t, not etc_t). A renamed-in temp file would otherwise carry none of
  // them, or its directory's defaults.
  std::vector<std::pair<std::string, std::string>> xattrs;
  struct stat st {};
  if (::fstatat(dfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return fail_dir(make_error(path + ": is a symlink; amdml does not write through symlinks", ELOOP));
    if (!S_ISREG(st.st_mode)) return fail_dir(make_error(path + ": not a regular file", EINVAL));
    if (!meta.mode) mode = st.st_mode & 07777;
    if (!uid) uid = st.st_uid;
    if (!gid) gid = st.st_gid;
    if (Fd old(::openat(dfd, base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)); old) {
      auto got = read_xattrs(old.get());
      old.reset();
      if (!got) return fail_dir(make_error(path + ": reading its extended attributes: " + got.error().message, got.error().code));
      xattrs = std::move(*got);
    }
  } else if (errno != ENOENT) {
    return fail_dir(os_error(path, errno));
  }

  std::string tmp = "." + base + ".amdml-" + std::to_string(::getpid()) + "-" + std::to_string(g_tmp_counter++);
  int fd = ops_.openat(dfd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail_dir(os_error(path + " (temp file)", errno));
  auto fail = [&](int err, const char* what) {
    ops_.close(fd);
    ::unlinkat(dfd, tmp.c_str(), 0);
    parent.first.reset();
    return Status(make_error(path + ": " + what + ": " + errno_text(err), err));
  };
  std::size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ops_.write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno, "write");
    }
    off += static_cast<std::size_t>(n);
  }
  // Owner before mode: chown clears set-id bits, and a 0640 file must never be
  // briefly readable by the wrong group.
  struct stat tst {};
  if (::fstat(fd, &tst) != 0) return fail(errno, "fstat");
  if ((uid && *uid != tst.st_uid) || (gid && *gid != tst.st_gid)) {
    if (ops_.fchown(fd, uid ? *uid : static_cast<uid_t>(-1), gid ? *gid : static_cast<gid_t>(-1)) != 0)
      return fail(errno, "chown");
  }
  if (ops_.fchmod(fd, mode) != 0) return fail(errno, "chmod");
  for (const auto& [name, value] : xattrs) {
    if (::fsetxattr(fd, name.c_str(), value.data(), value.size(), 0) == 0) continue;
    // A file system without that namespace, or an attribute only the kernel sets
    // (IMA/EVM): nothing amdml can keep.
    if (errno == ENOTSUP || errno == EOPNOTSUPP || name == "security.ima" || name == "security.evm") continue;
    return fail(errno, ("setting " + name).c_str());
  }
  if (ops_.fsync(fd) != 0) return fail(errno, "fsync");
  if (ops_.close(fd) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    return make_error(path + ": close: " + errno_text(err), err);
  }
  if (ops_.renameat(dfd, tmp.c_str(), dfd, base.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    return make_error(path + ": rename: " + errno_text(err), err);
  }
  // The rename is done; a failed directory fsync means it may not survive a power
  // loss, which the caller must hear about.
  if (ops_.fsync(dfd) != 0) return make_error(path + ": fsync of the directory: " + errno_text(errno), errno);
  return {};
}

Status SafeTree::remove(const std::string& path) {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) return parent.error().code == ENOENT ? Status() : Status(parent.error());
  auto& [dfd, base] = *parent;
  struct stat st {};
  if (::fstatat(dfd.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status() : Status(os_error(path, errno));
  if (!S_ISREG(st.st_mode)) return make_error(path + ": not a regular file; not removing it", EINVAL);
  if (ops_.unlinkat(dfd.get(), base.c_str(), 0) != 0) return os_error(path, errno);
  if (ops_.fsync(dfd.get()) != 0) return make_error(path + ": fsync of the directory: " + errno_text(errno), errno);
  return {};
}

Status SafeTree::rename(const std::string& from, const std::string& to) {
  AMDML_TRY(auto src, open_parent(from, false, 0, nullptr));
  AMDML_TRY(auto dst, open_parent(to, false, 0, nullptr));
  auto taken = [&] { return make_error(to + " exists; not renaming " + from + " over it", EEXIST); };
  struct stat st {};
  if (::fstatat(src.first.get(), src.second.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return os_error(from, errno);
  if (::fstatat(dst.first.get(), dst.second.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return taken();
  if (errno != ENOENT) return os_error(to, errno);
  // RENAME_NOREPLACE: a name taken between the check and the rename fails too.
  if (ops_.renameat(src.first.get(), src.second.c_str(), dst.first.get(), dst.second.c_str(), RENAME_NOREPLACE) != 0)
    return errno == EEXIST ? taken() : os_error(from, errno);
  for (const auto* d : {&src.first, &dst.first})
    if (ops_.fsync(d->get()) != 0) return make_error(to + ": fsync of the directory: " + errno_text(errno), errno);
  return {};
}

Status SafeTree::remove_dir_if_empty(const std::string& path) {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) return parent.error().code == ENOENT ? Status() : Status(parent.error());
  auto& [dfd, base] = *parent;
  int rc = ops_.unlinkat(dfd.get(), base.c_str(), AT_REMOVEDIR);
  int err = errno;
  if (rc == 0) ops_.fsync(dfd.get());
  dfd.reset();
  if (rc != 0 && err != ENOENT && err != ENOTEMPTY && err != EEXIST) return os_error(path, err);
  return {};
}

Status SafeTree::reserve(const std::string& path, std::uint64_t bytes) {
  AMDML_TRY(auto parent, open_parent(path, true, 0700, nullptr));
  const int dfd = parent.first.get();
  int fd = ops_.openat(dfd, parent.second.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return os_error(path, errno);
  auto fail = [&](int err) {
    ops_.close(fd);
    ::unlinkat(dfd, parent.second.c_str(), 0);
    parent.first.reset();
    return Status(os_error(path, err));
  };
  if (bytes > 0 && ops_.fallocate(fd, static_cast<off_t>(bytes)) != 0) {
    if (errno != EOPNOTSUPP && errno != ENOTSUP && errno != EINVAL) return fail(errno);
    // No fallocate here: zeros take the space too.
    std::string zeros(64 << 10, '\0');
    for (std::uint64_t left = bytes; left > 0;) {
      ssize_t n = ops_.write(fd, zeros.data(), static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size())));
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail(errno);
      }
      left -= static_cast<std::uint64_t>(n);
    }
  }
  if (ops_.fsync(fd) != 0) return fail(errno);
  ops_.close(fd);
  return {};
}

Result<int> SafeTree::remove_stale_temps(const std::string& dir) {
  auto parent = open_parent(dir + "/_", false, 0, nullptr);
  if (!parent) return parent.error().code == ENOENT ? Result<int>(0) : Result<int>(parent.error());
  const int dfd = parent->first.get();
  auto names = list(dir);
  int removed = 0;
  if (names)
    for (const auto& n : *names) {
      pid_t pid = temp_file_pid(n);
      // A running process (this one, or another amdml mid-write) keeps its file.
      if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
      struct stat st {};
      if (::fstatat(dfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
      if (st.st_uid != 0 && st.st_uid != ::geteuid()) continue;
      if (ops_.unlinkat(dfd, n.c_str(), 0) == 0) ++removed;
    }
  return removed;
}

Status SafeTree::make_dirs(const std::string& path, std::uint32_t mode, std::vector<std::string>* created_dirs) {
  AMDML_TRY_STATUS(open_parent(path + "/_", true, mode, created_dirs));
  return {};
}

// --- locks --------------------------------------------------------------------------

namespace {

// What a lock file found to be something else is, for the message.
constexpr EnumName<FileType> kFileKinds[] = {
    {FileType::directory, "a directory"},       {FileType::symlink, "a symlink"},
    {FileType::char_device, "a character device"}, {FileType::block_device, "a block device"},
    {FileType::fifo, "a FIFO"},                 {FileType::socket, "a socket"},
};

std::string file_kind(unsigned mode) { return enum_name(kFileKinds, file_type_from_mode(mode), "not a file"); }

// A lock file must be a regular file.
Status check_lock_file(int fd, const std::string& shown) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return os_error(shown, errno);
  if (S_ISREG(st.st_mode)) return {};
  return make_error(shown + ": not a regular file (" + file_kind(st.st_mode) + "); refusing to lock it", EINVAL);
}

}  // namespace

Result<TreeLock> TreeLock::acquire(SafeTree& tree, const std::string& path, int timeout_ms) {
  std::vector<std::string> created;
  AMDML_TRY_STATUS(tree.make_dirs(path.substr(0, path.rfind('/')), 0700, &created));
  AMDML_TRY(auto parts, inner_components(path));
  std::string dir_real = tree.real_path(path.substr(0, path.rfind('/')));
  Fd dfd(::open(dir_real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dfd) return os_error(dir_real, errno);
  Fd fd(::openat(dfd.get(), parts.back().c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600));
  dfd.reset();
  if (!fd) return os_error(path, errno);
  AMDML_TRY_STATUS(check_lock_file(fd.get(), path));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return os_error(path, errno);
    if (std::chrono::steady_clock::now() >= deadline)
      return make_error(path + ": another amdml fix is running (lock held); try again when it has finished", EWOULDBLOCK);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return TreeLock(std::move(fd));
}

Result<PasswdLock> PasswdLock::acquire(SafeTree& tree, bool live, int timeout_ms) {
  std::string real = tree.real_path("/etc/.pwd.lock");
  // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader forever.
  int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (live ? O_CREAT : 0);
  Fd fd(::open(real.c_str(), flags, 0600));
  if (!fd) {
    int err = errno;
    if (!live && err == ENOENT) return PasswdLock(Fd());
    struct stat st {};
    if (::lstat(real.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return make_error("/etc/.pwd.lock: not a regular file (" + file_kind(st.st_mode) + "); refusing to lock it", EINVAL);
    return os_error("/etc/.pwd.lock", err);
  }
  AMDML_TRY_STATUS(check_lock_file(fd.get(), "/etc/.pwd.lock"));
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (::fcntl(fd.get(), F_SETLK, &fl) != 0) {
    if (errno != EACCES && errno != EAGAIN && errno != EINTR) return os_error("/etc/.pwd.lock", errno);
    if (std::chrono::steady_clock::now() >= deadline)
      return make_error("/etc/.pwd.lock: held by another program editing users or groups (usermod, vipw?)", EAGAIN);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return PasswdLock(std::move(fd));
}

void test_kill_point(int step) {
  const char* v = std::getenv("AMDML_TEST_KILL_AT_STEP");
  if (!v || !*v) return;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end == '\0' && n == step) ::kill(::getpid(), SIGKILL);
}

}  // namespace amdml::platform
