// An enum's names written once, as a table, and looked up both ways:
//
//   constexpr EnumName<Color> kColorNames[] = {{Color::red, "red"}, {Color::blue, "blue"}};
//   const char* to_string(Color c) { return enum_name(kColorNames, c, "red"); }
//   std::optional<Color> parse_color(std::string_view s) { return enum_from_name(kColorNames, s); }
//
// A value may have one name; when the table lists a name twice the first entry wins
// for enum_from_name, and when it lists a value twice the first wins for enum_name.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace amdml {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// The name of value, or fallback when the table has no entry for it.
template <class E, std::size_t N>
constexpr const char* enum_name(const EnumName<E> (&names)[N], E value, const char* fallback) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  return fallback;
}

// The value named exactly name (case matters), or nullopt.
template <class E, std::size_t N>
constexpr std::optional<E> enum_from_name(const EnumName<E> (&names)[N], std::string_view name) {
  for (const auto& n : names)
    if (name == n.name) return n.value;
  return std::nullopt;
}

}  // namespace amdml
