// Version: a dotted x.y.z version (ROCm releases, kernels, ollama, torch), compared
// numerically. KernelVersion is the same triple read from a kernel release string.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amdml {

struct Version {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint32_t patch = 0;
  constexpr auto operator<=>(const Version&) const = default;
  std::string str() const;  // "6.2.4"
  // Parses the leading "X.Y[.Z]" of text ("7.2.0-39" -> 7.2.0, "v0.12.3" -> 0.12.3).
  static std::optional<Version> parse(std::string_view text);
};

using KernelVersion = Version;

}  // namespace amdml
