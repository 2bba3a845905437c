// SafeTree, FsOps, the locks and the kill hook; see safe_tree.hpp.
#include "platform/safe_tree.hpp"

#include <dirent.h>
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

#include "platform/fs.hpp"

namespace amdml::platform {

// --- FsOps --------------------------------------------------------------------------

int FsOps::openat(int dirfd, const char* path, int flags, unsigned mode) { return ::openat(dirfd, path, flags, mode); }
ssize_t FsOps::write(int fd, const void* buf, std::size_t n) { return ::write(fd, buf, n); }
int FsOps::fsync(int fd) { return ::fsync(fd); }
int FsOps::fchmod(int fd, unsigned mode) { return ::fchmod(fd, mode); }
int FsOps::fchown(int fd, uid_t uid, gid_t gid) { return ::fchown(fd, uid, gid); }
int FsOps::renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath) {
  return ::renameat(olddirfd, oldpath, newdirfd, newpath);
}
int FsOps::unlinkat(int dirfd, const char* path, int flags) { return ::unlinkat(dirfd, path, flags); }
int FsOps::mkdirat(int dirfd, const char* path, unsigned mode) { return ::mkdirat(dirfd, path, mode); }
int FsOps::close(int fd) { return ::close(fd); }

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
int FaultyFsOps::renameat(int olddirfd, const char* oldpath, int newdirfd, const char* newpath) {
  if (hit(Op::rename)) return -1;
  return FsOps::renameat(olddirfd, oldpath, newdirfd, newpath);
}
int FaultyFsOps::unlinkat(int dirfd, const char* path, int flags) {
  if (hit(Op::unlink)) return -1;
  return FsOps::unlinkat(dirfd, path, flags);
}
int FaultyFsOps::mkdirat(int dirfd, const char* path, unsigned mode) {
  if (hit(Op::mkdir)) return -1;
  return FsOps::mkdirat(dirfd, path, mode);
}

// --- paths --------------------------------------------------------------------------

Result<std::vector<std::string>> inner_components(const std::string& path) {
  if (path.empty() || path[0] != '/') return make_error(path + ": not an absolute path", EINVAL);
  std::vector<std::string> parts;
  std::size_t i = 1;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string c = path.substr(i, j - i);
    if (c == "." || c == "..") return make_error(path + ": '.' and '..' are not allowed in a path amdml writes", EINVAL);
    if (!c.empty()) parts.push_back(std::move(c));
    i = j + 1;
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

Result<std::pair<int, std::string>> SafeTree::open_parent(const std::string& path, bool create, std::uint32_t dir_mode,
                                                          std::vector<std::string>* created) const {
  auto parts = inner_components(path);
  if (!parts) return parts.error();
  int fd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return os_error(root_, errno);
  for (std::size_t i = 0; i + 1 < parts->size(); ++i) {
    const std::string& c = (*parts)[i];
    std::string shown = join_shown(*parts, i + 1);
    int next = ops_.openat(fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (next < 0 && errno == ENOENT && create) {
      if (ops_.mkdirat(fd, c.c_str(), dir_mode) != 0 && errno != EEXIST) {
        int err = errno;
        ::close(fd);
        return os_error(shown, err);
      }
      if (created) created->push_back(shown);
      next = ops_.openat(fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    }
    if (next < 0) {
      int err = errno;
      struct stat st {};
      bool link = ::fstatat(fd, c.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
      ::close(fd);
      if (link) return make_error(shown + ": is a symlink; amdml does not write through symlinks", ELOOP);
      if (err == ELOOP || err == ENOTDIR) return make_error(shown + ": not a directory", ENOTDIR);
      return os_error(shown, err);
    }
    ::close(fd);
    fd = next;
    if (auto st = check_dir(fd, shown); !st) {
      ::close(fd);
      return st.error();
    }
  }
  return std::make_pair(fd, parts->back());
}

Result<FileState> SafeTree::read(const std::string& path, std::size_t limit) const {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) {
    if (parent.error().code == ENOENT) return FileState{};
    return parent.error();
  }
  auto [dfd, base] = *parent;
  int fd = ::openat(dfd, base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    struct stat st {};
    bool link = ::fstatat(dfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
    ::close(dfd);
    if (err == ENOENT) return FileState{};
    if (link || err == ELOOP) return make_error(path + ": is a symlink; amdml does not write through symlinks", ELOOP);
    return os_error(path, err);
  }
  ::close(dfd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return os_error(path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(path + ": not a regular file", EINVAL);
  }
  FileState out;
  out.exists = true;
  out.mode = st.st_mode & 07777;
  out.uid = st.st_uid;
  out.gid = st.st_gid;
  auto bytes = read_fd(fd, path, limit);
  ::close(fd);
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
  int dfd = parent->first;
  DIR* d = ::fdopendir(dfd);
  if (!d) {
    int err = errno;
    ::close(dfd);
    return os_error(dir, err);
  }
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
  auto parent = open_parent(path, true, 0755, created_dirs);
  if (!parent) return parent.error();
  // Plain variables, not a structured binding: the lambdas below capture them (clang
  // before 16 cannot capture structured bindings).
  const int dfd = parent->first;
  const std::string base = parent->second;
  auto fail_dir = [&](Error e) {
    ::close(dfd);
    return Status(std::move(e));
  };
  std::uint32_t mode = meta.mode.value_or(0644);
  std::optional<std::uint32_t> uid = meta.uid, gid = meta.gid;
  // The SELinux label of the file being replaced (/etc/group is passwd_file_t, not
  // etc_t): a renamed-in temp file would otherwise carry its directory's default.
  std::string label;
  struct stat st {};
  if (::fstatat(dfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) return fail_dir(make_error(path + ": is a symlink; amdml does not write through symlinks", ELOOP));
    if (!S_ISREG(st.st_mode)) return fail_dir(make_error(path + ": not a regular file", EINVAL));
    if (!meta.mode) mode = st.st_mode & 07777;
    if (!uid) uid = st.st_uid;
    if (!gid) gid = st.st_gid;
    int old = ::openat(dfd, base.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (old >= 0) {
      char buf[512];
      ssize_t n = ::fgetxattr(old, "security.selinux", buf, sizeof buf);
      if (n > 0) label.assign(buf, static_cast<std::size_t>(n));
      ::close(old);
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
    ::close(dfd);
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
  if (!label.empty() && ::fsetxattr(fd, "security.selinux", label.data(), label.size(), 0) != 0 && errno != ENOTSUP)
    return fail(errno, "setting the SELinux label");
  if (ops_.fsync(fd) != 0) return fail(errno, "fsync");
  if (ops_.close(fd) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    ::close(dfd);
    return make_error(path + ": close: " + errno_text(err), err);
  }
  if (ops_.renameat(dfd, tmp.c_str(), dfd, base.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dfd, tmp.c_str(), 0);
    ::close(dfd);
    return make_error(path + ": rename: " + errno_text(err), err);
  }
  // The rename is done; a failed directory fsync means it may not survive a power
  // loss, which the caller must hear about.
  if (ops_.fsync(dfd) != 0) {
    int err = errno;
    ::close(dfd);
    return make_error(path + ": fsync of the directory: " + errno_text(err), err);
  }
  ::close(dfd);
  return {};
}

Status SafeTree::remove(const std::string& path) {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) return parent.error().code == ENOENT ? Status() : Status(parent.error());
  auto [dfd, base] = *parent;
  struct stat st {};
  if (::fstatat(dfd, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    int err = errno;
    ::close(dfd);
    return err == ENOENT ? Status() : Status(os_error(path, err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(dfd);
    return make_error(path + ": not a regular file; not removing it", EINVAL);
  }
  if (ops_.unlinkat(dfd, base.c_str(), 0) != 0) {
    int err = errno;
    ::close(dfd);
    return os_error(path, err);
  }
  int rc = ops_.fsync(dfd);
  int err = errno;
  ::close(dfd);
  if (rc != 0) return make_error(path + ": fsync of the directory: " + errno_text(err), err);
  return {};
}

Status SafeTree::remove_dir_if_empty(const std::string& path) {
  auto parent = open_parent(path, false, 0, nullptr);
  if (!parent) return parent.error().code == ENOENT ? Status() : Status(parent.error());
  auto [dfd, base] = *parent;
  int rc = ops_.unlinkat(dfd, base.c_str(), AT_REMOVEDIR);
  int err = errno;
  if (rc == 0) ops_.fsync(dfd);
  ::close(dfd);
  if (rc != 0 && err != ENOENT && err != ENOTEMPTY && err != EEXIST) return os_error(path, err);
  return {};
}

Status SafeTree::make_dirs(const std::string& path, std::uint32_t mode, std::vector<std::string>* created_dirs) {
  auto parent = open_parent(path + "/_", true, mode, created_dirs);
  if (!parent) return parent.error();
  ::close(parent->first);
  return {};
}

// --- locks --------------------------------------------------------------------------

Result<TreeLock> TreeLock::acquire(SafeTree& tree, const std::string& path, int timeout_ms) {
  std::vector<std::string> created;
  auto st = tree.make_dirs(path.substr(0, path.rfind('/')), 0700, &created);
  if (!st) return st.error();
  auto parts = inner_components(path);
  if (!parts) return parts.error();
  std::string dir_real = tree.real_path(path.substr(0, path.rfind('/')));
  int dfd = ::open(dir_real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return os_error(dir_real, errno);
  int fd = ::openat(dfd, parts->back().c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = errno;
  ::close(dfd);
  if (fd < 0) return os_error(path, err);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      err = errno;
      ::close(fd);
      return os_error(path, err);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      return make_error(path + ": another amdml fix is running (lock held); try again when it has finished", EWOULDBLOCK);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return TreeLock(fd);
}

TreeLock::~TreeLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

Result<PasswdLock> PasswdLock::acquire(SafeTree& tree, bool live, int timeout_ms) {
  std::string real = tree.real_path("/etc/.pwd.lock");
  int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (live ? O_CREAT : 0);
  int fd = ::open(real.c_str(), flags, 0600);
  if (fd < 0) {
    if (!live && errno == ENOENT) return PasswdLock(-1);
    return os_error("/etc/.pwd.lock", errno);
  }
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (::fcntl(fd, F_SETLK, &fl) != 0) {
    if (errno != EACCES && errno != EAGAIN && errno != EINTR) {
      int err = errno;
      ::close(fd);
      return os_error("/etc/.pwd.lock", err);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      return make_error("/etc/.pwd.lock: held by another program editing users or groups (usermod, vipw?)", EAGAIN);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return PasswdLock(fd);
}

PasswdLock::~PasswdLock() {
  if (fd_ >= 0) ::close(fd_);
}

void test_kill_point(int step) {
  const char* v = std::getenv("AMDML_TEST_KILL_AT_STEP");
  if (!v || !*v) return;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end == '\0' && n == step) ::kill(::getpid(), SIGKILL);
}

}  // namespace amdml::platform
