// File syscalls shared by the live and the rooted host.
#include "platform/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/fd.hpp"

namespace amdml::platform {

std::string errno_text(int err) { return std::strerror(err); }

FileType file_type_from_mode(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return FileType::regular;
    case S_IFDIR: return FileType::directory;
    case S_IFLNK: return FileType::symlink;
    case S_IFCHR: return FileType::char_device;
    case S_IFBLK: return FileType::block_device;
    case S_IFIFO: return FileType::fifo;
    case S_IFSOCK: return FileType::socket;
    default: return FileType::other;
  }
}

static Error os_error(const std::string& shown, int err) {
  return make_error(shown + ": " + errno_text(err), err);
}

static Error too_large(const std::string& shown, std::size_t limit) {
  return make_error(shown + ": larger than " + std::to_string(limit) + " bytes", EFBIG);
}

Result<std::string> read_real_file(const std::string& real, const std::string& shown, std::size_t limit,
                                   int extra_flags) {
  // O_NONBLOCK so a FIFO planted where a sysfs file should be cannot hang us.
  Fd fd(::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra_flags));
  if (!fd) return os_error(shown, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error(shown, errno);
  if (!S_ISREG(st.st_mode)) return make_error(shown + ": not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  return read_fd(fd.get(), shown, limit, st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0);
}

// Appends what is left in fd to out; more than limit bytes in all is EFBIG.
static Status read_to_end(int fd, const std::string& shown, std::size_t limit, std::string& out) {
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error(shown, errno);
    }
    if (n == 0) return {};
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) return too_large(shown, limit);
  }
}

Result<std::string> read_small_file_at(int dir, const char* path, const std::string& shown, std::size_t limit,
                                       int extra_flags) {
  Fd fd(::openat(dir, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra_flags));
  if (!fd) return os_error(shown, errno);
  return read_small_fd(fd, shown, limit);
}

Result<std::string> read_small_fd(const Fd& fd, const std::string& shown, std::size_t limit) {
  // A page: what a sysfs attribute returns in one read. Less than a full page, and more
  // than nothing, is the whole file: no fstat. Nothing, an error (EISDIR, EAGAIN from a
  // FIFO) or a full page asks fstat as read_real_file does.
  char page[4096];
  const std::size_t want = limit < sizeof page ? limit + 1 : sizeof page;  // a byte past the limit says "larger"
  ssize_t n;
  do n = ::read(fd.get(), page, want);
  while (n < 0 && errno == EINTR);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof page && static_cast<std::size_t>(n) <= limit)
    return std::string(page, static_cast<std::size_t>(n));
  const int read_errno = n < 0 ? errno : 0;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return os_error(shown, errno);
  if (!S_ISREG(st.st_mode)) return make_error(shown + ": not a regular file", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
  if (read_errno) return os_error(shown, read_errno);
  std::string out(page, static_cast<std::size_t>(n));
  if (n == 0) return out;
  if (out.size() > limit) return too_large(shown, limit);
  if (st.st_size > 0 && static_cast<std::size_t>(st.st_size) <= limit) out.reserve(static_cast<std::size_t>(st.st_size) + 1);
  AMDML_TRY_STATUS(read_to_end(fd.get(), shown, limit, out));
  return out;
}

Result<std::string> read_fd(int fd, const std::string& shown, std::size_t limit, std::size_t size_hint) {
  std::string out;
  // One read of the file's size and a byte more: a regular file returns less only at its
  // end (a sysfs attribute, whose size is a page, returns its whole text at once). When
  // the buffer fills, the file grew or its size said too little: read on to the end.
  if (size_hint > 0 && size_hint <= limit) {
    out.resize(size_hint + 1);
    ssize_t n;
    do n = ::read(fd, out.data(), out.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) return os_error(shown, errno);
    out.resize(static_cast<std::size_t>(n));
    if (static_cast<std::size_t>(n) <= size_hint) return out;
    if (out.size() > limit) return too_large(shown, limit);
  }
  AMDML_TRY_STATUS(read_to_end(fd, shown, limit, out));
  return out;
}

Status write_fd(int fd, std::string_view bytes, const std::string& shown) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error(shown, errno);
    }
    off += static_cast<std::size_t>(n);
  }
  return {};
}

Result<std::vector<DirEntry>> list_real_dir(const std::string& real, const std::string& shown) {
  Fd fd(::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return os_error(shown, errno);
  return list_dir_fd(std::move(fd), shown);
}

Result<std::vector<DirEntry>> list_dir_fd(Fd fd, const std::string& shown) {
  DIR* d = ::fdopendir(fd.get());
  if (!d) return os_error(shown, errno);
  const int dir = fd.release();  // closedir closes it
  std::vector<DirEntry> entries;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    FileType type = FileType::other;
    switch (e->d_type) {
      case DT_REG: type = FileType::regular; break;
      case DT_DIR: type = FileType::directory; break;
      case DT_LNK: type = FileType::symlink; break;
      case DT_CHR: type = FileType::char_device; break;
      case DT_BLK: type = FileType::block_device; break;
      case DT_FIFO: type = FileType::fifo; break;
      case DT_SOCK: type = FileType::socket; break;
      default: {
        struct stat st {};
        if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) type = file_type_from_mode(st.st_mode);
      }
    }
    entries.push_back({std::move(name), type});
  }
  ::closedir(d);
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

Result<std::string> read_real_link(const std::string& real, const std::string& shown) {
  return read_real_link_at(AT_FDCWD, real.c_str(), shown);
}

Result<std::string> read_real_link_at(int dir, const char* path, const std::string& shown) {
  char buf[4096];
  ssize_t n = ::readlinkat(dir, path, buf, sizeof buf - 1);
  if (n < 0) return os_error(shown, errno);
  return std::string(buf, static_cast<std::size_t>(n));
}

Result<FileStat> stat_real(const std::string& real, const std::string& shown, bool follow) {
  return stat_at(AT_FDCWD, real.c_str(), shown, follow ? 0 : AT_SYMLINK_NOFOLLOW);
}

Result<FileStat> stat_at(int dir, const char* path, const std::string& shown, int flags) {
  struct stat st {};
  if (::fstatat(dir, path, &st, flags) != 0) return os_error(shown, errno);
  FileStat fs;
  fs.type = file_type_from_mode(st.st_mode);
  fs.mode = st.st_mode & 07777;
  fs.uid = st.st_uid;
  fs.gid = st.st_gid;
  fs.size = static_cast<std::uint64_t>(st.st_size);
  return fs;
}

}  // namespace amdml::platform
