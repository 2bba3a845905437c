// errno names from glibc (strerrorname_np, glibc 2.32; amdml needs 2.35); see
// errno_names.hpp.
#include "base/errno_names.hpp"

#include <cstring>

namespace amdml {

namespace {

// Past the largest errno Linux defines (EHWPOISON, 133), with room for new ones.
constexpr int kLargestErrno = 255;

}  // namespace

const char* errno_symbol(int code) { return code > 0 ? ::strerrorname_np(code) : nullptr; }

std::string errno_name(int code) {
  if (const char* name = errno_symbol(code)) return name;
  return "E" + std::to_string(code);
}

std::optional<int> errno_from_name(std::string_view name) {
  for (int code = 1; code <= kLargestErrno; ++code)
    if (const char* n = ::strerrorname_np(code); n && name == n) return code;
  // "E<number>": what errno_name prints for a code it has no name for. Never 0, which
  // is no error at all ("open": "E0" would be a failed open that did not fail).
  if (name.size() > 1 && name.size() < 6 && name[0] == 'E' &&
      name.find_first_not_of("0123456789", 1) == std::string_view::npos)
    if (int code = std::stoi(std::string(name.substr(1))); code > 0) return code;
  return std::nullopt;
}

}  // namespace amdml
