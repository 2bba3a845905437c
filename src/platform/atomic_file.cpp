#include "platform/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/fd.hpp"
#include "base/paths.hpp"
#include "platform/fs.hpp"

namespace amdml::platform {

Status write_file_atomic(const std::string& path, const std::string& content, std::optional<unsigned> mode) {
  std::string dir = paths::dirname(path);
  std::string base = paths::basename(path);
  unsigned perm = mode.value_or(0644);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) perm = st.st_mode & 07777;
  std::string tmp_template = dir + "/." + base + ".amdml-XXXXXX";
  std::string tmp = tmp_template;
  Fd fd(::mkstemp(tmp.data()));
  if (!fd) return make_error(dir + ": " + errno_text(errno), errno);
  auto fail = [&](int err) {
    fd.reset();
    ::unlink(tmp.c_str());
    return Status(make_error(path + ": " + errno_text(err), err));
  };
  if (auto written = write_fd(fd.get(), content, path); !written) return fail(written.error().code);
  if (::fchmod(fd.get(), perm) != 0) return fail(errno);
  if (::fsync(fd.get()) != 0) return fail(errno);
  if (fd.close() != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": " + errno_text(err), err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return make_error(path + ": " + errno_text(err), err);
  }
  if (Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)); dfd) ::fsync(dfd.get());
  return {};
}

}  // namespace amdml::platform
