// What every TOML codec here (knowledge, error catalogue) says about a file it refuses:
// "FILE:LINE", and an unknown key as an error rather than a setting silently ignored.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "base/text.hpp"
#include "formats/toml.hpp"

namespace amdml::formats::toml_fields {

// "FILE:LINE" of a node, for the one-line error that names where the file is wrong.
inline std::string where(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line);
}

// Every key of t must be one the table knows: a misspelt key ("overide") would
// otherwise be silently ignored, and the entry read as if it had none.
inline Status known_keys(const std::string& file, const toml::table& t, std::initializer_list<std::string_view> keys,
                         std::string_view table) {
  for (const auto& [k, v] : t)
    if (std::find(keys.begin(), keys.end(), k.str()) == keys.end())
      return make_error(file + ":" + std::to_string(v.source().begin.line) + ": unknown key '" +
                        text::one_line(std::string(k.str())) + "' in " + std::string(table));
  return {};
}

}  // namespace amdml::formats::toml_fields
