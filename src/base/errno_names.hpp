// errno values by their symbolic names ("EACCES"), one table both ways.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace amdml {

// The symbolic name of an errno value this table knows, else nullptr.
const char* errno_symbol(int code);
// The symbolic name, or "E<number>" for a value without one (4095 -> "E4095").
std::string errno_name(int code);
// The value named by a symbolic name or by "E<number>" (up to four digits), else nullopt.
std::optional<int> errno_from_name(std::string_view name);

}  // namespace amdml
