// The errno name table; see errno_names.hpp.
#include "base/errno_names.hpp"

#include <cerrno>

#include "base/enum_names.hpp"

namespace amdml {

namespace {

constexpr EnumName<int> kErrnoNames[] = {
    {EPERM, "EPERM"},   {ENOENT, "ENOENT"},       {ESRCH, "ESRCH"},   {EINTR, "EINTR"},     {EIO, "EIO"},
    {ENXIO, "ENXIO"},   {E2BIG, "E2BIG"},         {ENOEXEC, "ENOEXEC"}, {EBADF, "EBADF"},   {ECHILD, "ECHILD"},
    {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"},       {EACCES, "EACCES"}, {EFAULT, "EFAULT"},   {EBUSY, "EBUSY"},
    {EEXIST, "EEXIST"}, {EXDEV, "EXDEV"},         {ENODEV, "ENODEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},
    {EINVAL, "EINVAL"}, {ENFILE, "ENFILE"},       {EMFILE, "EMFILE"}, {ENOTTY, "ENOTTY"},   {ETXTBSY, "ETXTBSY"},
    {EFBIG, "EFBIG"},   {ENOSPC, "ENOSPC"},       {ESPIPE, "ESPIPE"}, {EROFS, "EROFS"},     {EPIPE, "EPIPE"},
    {ERANGE, "ERANGE"}, {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"}, {ELOOP, "ELOOP"},
    {ENODATA, "ENODATA"}, {ETIMEDOUT, "ETIMEDOUT"}, {EOPNOTSUPP, "EOPNOTSUPP"}, {ESTALE, "ESTALE"},
    {ENOTCONN, "ENOTCONN"}, {ECONNREFUSED, "ECONNREFUSED"}, {EOVERFLOW, "EOVERFLOW"},
};

}  // namespace

const char* errno_symbol(int code) { return enum_name(kErrnoNames, code, nullptr); }

std::string errno_name(int code) {
  if (const char* name = errno_symbol(code)) return name;
  return "E" + std::to_string(code);
}

std::optional<int> errno_from_name(std::string_view name) {
  if (auto code = enum_from_name(kErrnoNames, name)) return code;
  // "E<number>": what errno_name prints for a code it has no name for. Never 0, which
  // is no error at all ("open": "E0" would be a failed open that did not fail).
  if (name.size() > 1 && name.size() < 6 && name[0] == 'E' &&
      name.find_first_not_of("0123456789", 1) == std::string_view::npos)
    if (int code = std::stoi(std::string(name.substr(1))); code > 0) return code;
  return std::nullopt;
}

}  // namespace amdml
