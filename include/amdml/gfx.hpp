// GfxTarget: an AMD GPU instruction-set target such as gfx1103 or gfx90a.
//
// KFD reports it as gfx_target_version = major*10000 + minor*100 + stepping
// (decimal); LLVM names it "gfx" + major (decimal) + minor (hex) + stepping (hex).
// HSA_OVERRIDE_GFX_VERSION spells the same triple as "major.minor.stepping".
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amdml {

struct GfxTarget {
  std::uint32_t major = 0;
  std::uint32_t minor = 0;
  std::uint32_t stepping = 0;

  constexpr auto operator<=>(const GfxTarget&) const = default;

  std::string name() const;                 // "gfx1103"
  std::string version_string() const;       // "11.0.3"
  std::uint32_t kfd_version() const { return major * 10000 + minor * 100 + stepping; }

  // 110003 -> gfx1103. Returns nullopt for 0 (CPU nodes) and values whose minor or
  // stepping does not fit one hex digit.
  static std::optional<GfxTarget> from_kfd_version(std::uint64_t v);
  // "gfx1103", "gfx90a", "GFX1151" (case-insensitive; trailing ":xnack-" features ignored).
  static std::optional<GfxTarget> parse_name(std::string_view name);
};

// HSA_OVERRIDE_GFX_VERSION as libhsakmt parses it: "major.minor.stepping", three
// decimal numbers (major <= 63, minor and stepping <= 255), nothing else. Decimal, so
// leading zeros are harmless ("11.0.0000" is 11.0.0) and gfx90a is "9.0.10". The one
// parser: the knowledge loader, the rules and the fix parameters all use it.
enum class OverrideError { none, empty, quoted, gfx_name, malformed, out_of_range };
struct OverrideParse {
  std::optional<GfxTarget> target;       // set when valid
  OverrideError error = OverrideError::none;
  std::optional<GfxTarget> suggestion;   // the spelling meant ("gfx1030" -> 10.3.0, "\"11.0.0\"" -> 11.0.0)
};
OverrideParse parse_hsa_override(std::string_view value);
// The target when value is a valid override, else nullopt: parse_hsa_override(v).target.
std::optional<GfxTarget> parse_gfx_override(std::string_view value);
// One line saying what is wrong with value ("" when valid).
std::string describe_override_error(const OverrideParse& p, std::string_view value);

}  // namespace amdml
