// Fd: one open file descriptor, closed exactly once when its owner lets go of it.
//
// Move-only. The destructor (and reset) close the descriptor if there is one and leave
// errno as it was, so an error path may read errno after the owner went out of scope,
// and EINTR from close(2) is not retried (on Linux the descriptor is gone either way).
// Who needs close(2)'s result -- a file whose last write must be known to have landed --
// calls close() and checks it.
#pragma once

#include <unistd.h>

#include <cerrno>

namespace amdml {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }

  // Gives the descriptor up without closing it; this Fd holds none afterwards.
  int release() noexcept {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held (errno kept) and holds fd instead.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0 && fd_ != fd) {
      int saved = errno;
      ::close(fd_);
      errno = saved;
    }
    fd_ = fd;
  }
  // Closes now and returns close(2)'s result, errno set as it left it; 0 when none held.
  int close() noexcept {
    if (fd_ < 0) return 0;
    return ::close(release());
  }

 private:
  int fd_ = -1;
};

}  // namespace amdml
