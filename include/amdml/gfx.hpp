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

}  // namespace amdml
