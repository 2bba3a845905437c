// The names of --format and --color values: the one table each, for the command line's
// choices and for parsing them.
#include <array>
#include <utility>

#include "engine/engine.hpp"

namespace amdml::engine {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 6> kFormats{{
    {Format::text, "text"},
    {Format::json, "json"},
    {Format::markdown, "markdown"},
    {Format::junit, "junit"},
    {Format::prometheus, "prometheus"},
    {Format::nfd, "nfd"},
}};

constexpr std::array<std::pair<ColorMode, std::string_view>, 3> kColors{{
    {ColorMode::automatic, "auto"},
    {ColorMode::always, "always"},
    {ColorMode::never, "never"},
}};

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Format f) { return name_of(kFormats, f); }
std::string_view to_string(ColorMode c) { return name_of(kColors, c); }
std::optional<Format> parse_format(std::string_view name) { return value_of(kFormats, name); }
std::optional<ColorMode> parse_color(std::string_view name) { return value_of(kColors, name); }

}  // namespace amdml::engine
