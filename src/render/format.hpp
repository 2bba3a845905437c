// Small value formatters the renderers share: optional values as JSON (null when absent)
// and as text cells ("-" or "?" when absent), file modes as four octal digits, UTF-8
// validation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "amdml/units.hpp"
#include "base/text.hpp"

namespace amdml::render {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
inline nlohmann::json opt_bytes(const std::optional<Bytes>& b) { return b ? nlohmann::json(b->value) : nlohmann::json(nullptr); }

inline nlohmann::json mode_json(const std::optional<std::uint32_t>& m) {
  return m ? nlohmann::json(text::octal_mode(*m)) : nlohmann::json(nullptr);
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one (overlong forms,
// surrogates and code points past U+10FFFF are invalid). Text formats that must be
// UTF-8 (XML, the Prometheus exposition format) replace what this rejects.
inline std::size_t utf8_sequence(std::string_view s, std::size_t i, std::uint32_t& cp) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  static const std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

inline std::string bytes_text(const std::optional<Bytes>& b) { return b ? format_bytes(*b) : "-"; }
inline std::string mode_text(std::optional<std::uint32_t> m) { return m ? text::octal_mode(*m) : "?"; }
inline std::string yes_no(std::optional<bool> b) { return !b ? "?" : (*b ? "yes" : "no"); }

}  // namespace amdml::render
