// Bounded JSON parsing (see formats/json.hpp).
#include "formats/json.hpp"

namespace amdml::formats {

namespace {

// The deepest nesting of arrays and objects, counted outside strings; stops counting
// once past max (the text is refused then).
int nesting(std::string_view text, int max) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size() && deepest <= max; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Status check_json_depth(std::string_view text, int max_depth) {
  if (nesting(text, max_depth) > max_depth)
    return make_error("nested deeper than " + std::to_string(max_depth) + " levels");
  return {};
}

Result<nlohmann::json> parse_json(std::string_view text, int max_depth) {
  AMDML_TRY_STATUS(check_json_depth(text, max_depth));
  auto doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return make_error("not valid JSON");
  return doc;
}

}  // namespace amdml::formats