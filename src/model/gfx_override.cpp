// HSA_OVERRIDE_GFX_VERSION (include/amdml/gfx.hpp): the one parser the rules, the fix
// parameters and the knowledge loader share.
#include <array>

#include "amdml/gfx.hpp"
#include "base/text.hpp"

namespace amdml {

OverrideParse parse_hsa_override(std::string_view value) {
  OverrideParse out;
  auto strict = [](std::string_view v) -> std::optional<std::array<std::uint64_t, 3>> {
    std::array<std::uint64_t, 3> n{};
    std::size_t i = 0;
    for (int part = 0; part < 3; ++part) {
      if (i >= v.size() || v[i] < '0' || v[i] > '9') return std::nullopt;
      std::uint64_t x = 0;
      while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
        x = x * 10 + static_cast<std::uint64_t>(v[i] - '0');
        if (x > 1000000) return std::nullopt;
        ++i;
      }
      n[static_cast<std::size_t>(part)] = x;
      if (part < 2) {
        if (i >= v.size() || v[i] != '.') return std::nullopt;
        ++i;
      }
    }
    if (i != v.size()) return std::nullopt;
    return n;
  };
  auto in_range = [](const std::array<std::uint64_t, 3>& n) { return n[0] <= 63 && n[1] <= 255 && n[2] <= 255; };
  auto to_target = [](const std::array<std::uint64_t, 3>& n) {
    return GfxTarget{static_cast<std::uint32_t>(n[0]), static_cast<std::uint32_t>(n[1]), static_cast<std::uint32_t>(n[2])};
  };
  if (text::trim(value).empty()) {
    out.error = OverrideError::empty;
    return out;
  }
  if (auto n = strict(value)) {
    if (!in_range(*n)) {
      out.error = OverrideError::out_of_range;
      return out;
    }
    out.target = to_target(*n);
    return out;
  }
  std::string_view inner = text::trim(value);
  if (inner.size() >= 2 && (inner.front() == '"' || inner.front() == '\'') && inner.back() == inner.front()) {
    out.error = OverrideError::quoted;
    inner = text::trim(inner.substr(1, inner.size() - 2));
    if (auto n = strict(inner); n && in_range(*n)) out.suggestion = to_target(*n);
    else if (auto g = GfxTarget::parse_name(inner)) out.suggestion = g;
    return out;
  }
  if (auto g = GfxTarget::parse_name(inner)) {
    out.error = OverrideError::gfx_name;
    out.suggestion = g;
    return out;
  }
  out.error = OverrideError::malformed;
  if (auto n = strict(inner); n && in_range(*n)) out.suggestion = to_target(*n);  // stray whitespace
  return out;
}

std::string describe_override_error(const OverrideParse& p, std::string_view value) {
  std::string v(value);
  std::string hint = p.suggestion ? " (meant: " + p.suggestion->version_string() + ")" : "";
  switch (p.error) {
    case OverrideError::none: return "";
    case OverrideError::empty: return "is set but empty";
    case OverrideError::quoted: return "\"" + v + "\" carries literal quotes, which libhsakmt does not strip" + hint;
    case OverrideError::gfx_name: return "\"" + v + "\" is a gfx name; the variable takes a version like 10.3.0" + hint;
    case OverrideError::malformed: return "\"" + v + "\" is not three decimal numbers major.minor.stepping" + hint;
    case OverrideError::out_of_range:
      return "\"" + v + "\" is out of range (major <= 63, minor and stepping <= 255)";
  }
  return "";
}

std::optional<GfxTarget> parse_gfx_override(std::string_view value) { return parse_hsa_override(value).target; }

}  // namespace amdml
