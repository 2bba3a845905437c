// The PCI link attributes' codec (formats/pcie_link.hpp).
#include "formats/pcie_link.hpp"

#include <cmath>
#include <cstdio>

#include "base/text.hpp"

namespace amdml::formats::pcie {

std::optional<double> link_speed(std::string_view text) {
  std::string_view t = text::trim(text);
  if (t.ends_with(" PCIe")) t = text::trim(t.substr(0, t.size() - 5));
  if (!t.ends_with(" GT/s")) return std::nullopt;
  std::string_view num = text::trim(t.substr(0, t.size() - 5));
  // Digits, at most one dot, no sign or exponent: "16.0", "2.5", "8".
  if (num.empty() || num.size() > 8 || num.front() == '.' || num.back() == '.') return std::nullopt;
  double whole = 0, scale = 0;
  for (char c : num) {
    if (c == '.') {
      if (scale != 0) return std::nullopt;
      scale = 1;
    } else if (c >= '0' && c <= '9') {
      if (scale == 0) whole = whole * 10 + (c - '0');
      else whole += (c - '0') * (scale /= 10);
    } else {
      return std::nullopt;
    }
  }
  if (whole <= 0 || whole > 1000) return std::nullopt;
  return whole;
}

std::optional<std::uint32_t> link_width(std::string_view text) {
  auto v = text::u64(text);
  if (!v || *v == 0 || *v > 32) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

std::string speed_text(double gts) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GT/s", gts);
  return buf;
}

}  // namespace amdml::formats::pcie
