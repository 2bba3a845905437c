// errno values by their symbolic names ("EACCES"), both ways, as glibc names them
// (strerrorname_np): no table of our own.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace amdml {

// The symbolic name of an errno value glibc knows, else nullptr.
const char* errno_symbol(int code);
// The symbolic name, or "E<number>" for a value without one (4095 -> "E4095").
std::string errno_name(int code);
// The value named by a symbolic name or by "E<number>" (up to four digits), else nullopt.
std::optional<int> errno_from_name(std::string_view name);

}  // namespace amdml
