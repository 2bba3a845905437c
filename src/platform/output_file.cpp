// --output FILE: replace a regular file atomically, write through a device or FIFO,
// refuse the rest (see output_file.hpp).
#include "platform/output_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

#include "base/fd.hpp"
#include "platform/atomic_file.hpp"
#include "platform/fs.hpp"

namespace amdml::platform {
namespace {

constexpr const char* kWhatIsAllowed = "amdml writes only a regular file, a new file, a character device or a FIFO";

Error refused(const std::string& what, int code) { return make_error(what + "; " + kWhatIsAllowed, code); }

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a descriptor amdml
// already holds: writing there is writing to it, wherever the shell pointed it
// (a terminal, a pipe, a file opened for appending). Re-opening the name would instead
// start a regular file over at offset 0, and replacing it would replace the symlink.
std::optional<int> descriptor_name(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                             "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
    std::string digits = path.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::atoi(digits.c_str());
  }
  return std::nullopt;
}

// The descriptor path names, itself or through a chain of symlinks (`out -> /dev/stdout`).
std::optional<int> own_descriptor(const std::string& path) {
  std::string cur = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (auto fd = descriptor_name(cur)) return fd;
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
    char buf[PATH_MAX];
    ssize_t n = ::readlink(cur.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return std::nullopt;
    std::string target(buf, static_cast<std::size_t>(n));
    if (target[0] != '/') {
      auto slash = cur.rfind('/');
      target = (slash == std::string::npos ? std::string(".") : cur.substr(0, slash)) + "/" + target;
    }
    cur = target;
  }
  return std::nullopt;
}

// The pseudo-filesystems whose "regular files" are kernel interfaces, not files a
// report can replace (a temporary file cannot even be made beside them).
const char* kernel_filesystem(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return nullptr;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case DEBUGFS_MAGIC: return "debugfs";
    case TRACEFS_MAGIC: return "tracefs";
    case SECURITYFS_MAGIC: return "securityfs";
    case CGROUP_SUPER_MAGIC: return "cgroup";
    case CGROUP2_SUPER_MAGIC: return "cgroup2";
    case BPF_FS_MAGIC: return "bpf";
    case EFIVARFS_MAGIC: return "efivarfs";
    case PSTOREFS_MAGIC: return "pstore";
    case 0x62656570: return "configfs";  // CONFIGFS_MAGIC, absent from older headers
    default: return nullptr;
  }
}

Status write_descriptor(int fd, std::string_view content) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error("descriptor " + std::to_string(fd) + " is not open", errno);
  return write_fd(fd, content, "descriptor " + std::to_string(fd));
}

// A character device or a FIFO: opened for writing without O_TRUNC or O_CREAT, so the
// node stays what it is. O_NONBLOCK makes the open of a FIFO with no reader fail
// (ENXIO) instead of waiting forever; a reader gets kFifoReaderWaitMs to turn up.
Status write_through(const std::string& path, const struct stat& expected, std::string_view content) {
  bool fifo = S_ISFIFO(expected.st_mode);
  Fd fd;
  for (int waited = 0;; waited += 50) {
    fd.reset(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
    if (fd || !(fifo && errno == ENXIO)) break;
    if (waited >= kFifoReaderWaitMs)
      return make_error("is a FIFO that no process is reading (waited " + std::to_string(kFifoReaderWaitMs / 1000) + " s)",
                        ENXIO);
    ::usleep(50 * 1000);
  }
  if (!fd) return make_error(errno_text(errno), errno);
  struct stat st {};
  // The node checked is the node opened: a swap in between is refused, not written.
  if (::fstat(fd.get(), &st) != 0 || st.st_dev != expected.st_dev || st.st_ino != expected.st_ino ||
      (st.st_mode & S_IFMT) != (expected.st_mode & S_IFMT))
    return make_error("was replaced while amdml opened it; nothing was written", EAGAIN);
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  Status written = write_fd(fd.get(), content, "write");
  if (fd.close() != 0 && written) return make_error(errno_text(errno), errno);
  if (!written) return make_error(errno_text(written.error().code), written.error().code);
  return {};
}

Status replace_atomically(const std::string& shown, const std::string& target, std::string_view content) {
  Status st = write_file_atomic(target, std::string(content));
  if (st) return st;
  // The atomic writer names the file; the caller already does.
  std::string msg = st.error().message;
  if (msg.starts_with(target + ": ") && target == shown) msg = msg.substr(target.size() + 2);
  return make_error(msg, st.error().code);
}

}  // namespace

Status write_output_file(const std::string& path, std::string_view content) {
  if (auto fd = own_descriptor(path)) return write_descriptor(*fd, content);
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ENOENT) return replace_atomically(path, path, content);
    return make_error(errno_text(errno), errno);
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (S_ISLNK(link.st_mode) && err == ENOENT) return refused("is a symlink to a file that does not exist", err);
    return make_error(errno_text(err), err);
  }
  switch (st.st_mode & S_IFMT) {
    case S_IFREG: {
      if (const char* fs = kernel_filesystem(path))
        return refused(std::string("is a kernel interface on the ") + fs + " filesystem, not a file", EPERM);
      if (!S_ISLNK(link.st_mode)) return replace_atomically(path, path, content);
      // A symlink to a regular file: the file it names is replaced, the link stays.
      char real[PATH_MAX];
      if (!::realpath(path.c_str(), real)) return make_error(errno_text(errno), errno);
      return replace_atomically(path, real, content);
    }
    case S_IFCHR:
    case S_IFIFO: return write_through(path, st, content);
    case S_IFDIR: return refused("is a directory", EISDIR);
    case S_IFSOCK: return refused("is a socket", EINVAL);
    case S_IFBLK: return refused("is a block device", EINVAL);
    default: return refused("is not a regular file", EINVAL);
  }
}

}  // namespace amdml::platform
