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

inline std::string bytes_text(const std::optional<Bytes>& b) { return b ? format_bytes(*b) : "-"; }
inline std::string mode_text(std::optional<std::uint32_t> m) { return m ? text::octal_mode(*m) : "?"; }
inline std::string yes_no(std::optional<bool> b) { return !b ? "?" : (*b ? "yes" : "no"); }

}  // namespace amdml::render
