// Thin, errno-preserving wrappers over the file syscalls both hosts share. Paths here
// are real paths on this machine (already re-rooted by the caller).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "amdml/host.hpp"
#include "base/fd.hpp"

namespace amdml::platform {

// Reads a regular file (a FIFO or device is refused, never opened blocking). extra_flags
// are added to the open (O_NOFOLLOW: a symlink fails with ELOOP).
Result<std::string> read_real_file(const std::string& real, const std::string& shown, std::size_t limit,
                                   int extra_flags = 0);
// read_real_file for small files (sysfs attributes), path relative to the directory
// descriptor dir (AT_FDCWD: the working directory): one read into a page, and fstat only
// when that read is not plainly the whole file (nothing, an error, a full page), so a
// sysfs file costs open+read+close. A FIFO is still refused (its read gives nothing or
// EAGAIN); a character device that returns data at once is read like a file.
Result<std::string> read_small_file_at(int dir, const char* path, const std::string& shown, std::size_t limit,
                                       int extra_flags = 0);
// read_small_file_at's read, of a descriptor opened for reading (the rooted host opens
// it inside its root).
Result<std::string> read_small_fd(const Fd& fd, const std::string& shown, std::size_t limit);
// Reads an open descriptor to its end (EINTR retried); more than limit bytes is EFBIG.
// Errors name `shown`. The caller closes fd. size_hint (the file's fstat size, 0 when
// unknown) lets a regular file be read in one read().
Result<std::string> read_fd(int fd, const std::string& shown, std::size_t limit, std::size_t size_hint = 0);
// Writes all of bytes to an open descriptor (EINTR and short writes retried). Errors
// name `shown`; errno is kept in Error::code. The caller closes fd.
Status write_fd(int fd, std::string_view bytes, const std::string& shown);
Result<std::vector<DirEntry>> list_real_dir(const std::string& real, const std::string& shown);
// The entries of the directory open as fd (taken over and closed), sorted by name.
Result<std::vector<DirEntry>> list_dir_fd(Fd fd, const std::string& shown);
Result<std::string> read_real_link(const std::string& real, const std::string& shown);
// read_real_link of path relative to the directory descriptor dir.
Result<std::string> read_real_link_at(int dir, const char* path, const std::string& shown);
Result<FileStat> stat_real(const std::string& real, const std::string& shown, bool follow);
// fstatat(dir, path, flags) (AT_EMPTY_PATH: the descriptor itself).
Result<FileStat> stat_at(int dir, const char* path, const std::string& shown, int flags);
FileType file_type_from_mode(unsigned mode);
std::string errno_text(int err);

}  // namespace amdml::platform
