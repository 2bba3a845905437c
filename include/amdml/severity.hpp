// How bad a finding is: error (ML on the GPU will not work), warning (works badly or
// will break), info (worth knowing).
#pragma once

#include <optional>
#include <string_view>

#include "base/enum_names.hpp"

namespace amdml {

enum class Severity { info = 0, warning = 1, error = 2 };

inline constexpr EnumName<Severity> kSeverityNames[] = {
    {Severity::error, "error"}, {Severity::warning, "warning"}, {Severity::info, "info"}};

constexpr std::string_view to_string(Severity s) { return enum_name(kSeverityNames, s, "info"); }
inline std::optional<Severity> parse_severity(std::string_view s) { return enum_from_name(kSeverityNames, s); }

}  // namespace amdml
