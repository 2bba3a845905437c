// How bad a finding is: error (ML on the GPU will not work), warning (works badly or
// will break), info (worth knowing).
#pragma once

#include <optional>
#include <string_view>

namespace amdml {

enum class Severity { info = 0, warning = 1, error = 2 };

constexpr std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::info: return "info";
  }
  return "info";
}

inline std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "error") return Severity::error;
  if (s == "warning") return Severity::warning;
  if (s == "info") return Severity::info;
  return std::nullopt;
}

}  // namespace amdml
