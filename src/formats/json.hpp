// The one way amdml parses JSON it reads: the host manifest (amdml-host.json), a runtime
// child's record, the torch probe's line and the fix journal. A document nested deeper
// than kMaxJsonDepth is refused before it is parsed: nothing amdml writes comes near it,
// and every later walk of a parsed document (redaction, dump, comparison) recurses once
// per level, so 300,000 nested arrays in 600 KB would otherwise overflow the stack.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.hpp"

namespace amdml::formats {

inline constexpr int kMaxJsonDepth = 64;

// The parsed document, or one line: "not valid JSON" or "nested deeper than 64 levels".
Result<nlohmann::json> parse_json(std::string_view text, int max_depth = kMaxJsonDepth);

// The depth check parse_json makes before it parses: "nested deeper than N levels".
Status check_json_depth(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace amdml::formats