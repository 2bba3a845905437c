#include "platform/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "platform/fs.hpp"

namespace amdml::platform {

Status write_file_atomic(const std::string& path, const std::string& content, std::optional<unsigned> mode) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  unsigned perm = mode.value_or(0644);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) perm = st.st_mode & 07777;
  std::string tmp_template = dir + "/." + base + ".amdml-XXXXXX";
  std::string tmp = tmp_template;
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return make_error(dir + ": " + errno_text(errno), errno);
  auto fail = [&](int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status(make_error(path + ": " + errno_text(err), err));
  };
  if (auto st = write_fd(fd, content, path); !st) return fail(st.error().code);
  if (::fchmod(fd, perm) != 0) return fail(errno);
  if (::fsync(fd) != 0) return fail(errno);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": " + errno_text(err), err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": " + errno_text(err), err);
  }
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace amdml::platform
