// The error catalogue's codec: recipes/errors/*.toml into an ErrorCatalog and back.
//
//   [[error]]
//   id = "hip.no-binary-for-gpu"
//   title = "hipErrorNoBinaryForGpu"
//   meaning = "..."
//   patterns = ["hipErrorNoBinaryForGpu", "No compatible code objects found for: {gfx}"]
//   kernel = "probe-failed"          # optional: kmsg::classify's kind also matches
//   ollama = "igpu-filtered"         # optional: ollama_log's reason also matches
//   sample = "..."                   # a real message; the tests check it is answered
//   [[error.cause]]                  # most likely first
//   text = "..."
//   findings = ["gfx.override-needed"]
//   checks = ["amd-gpu", "!driver-loaded"]
//   fix = "..."
//
// A pattern is literal text, matched ignoring case, with captures {gfx}, {num}, {word}
// and {text}; "{{" is a literal brace. Unknown keys, finding ids, checks, kinds and
// captures are errors, each one line naming the file and line. Pure; a fuzz target.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "amdml/error_catalog.hpp"
#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// One catalogue file; `path` names it in errors.
Result<ErrorCatalog> parse_error_catalog(std::string_view text, const std::string& path);
// Every errors/*.toml of a recipe set, in path order; ids unique across them. No file
// at all is an error too: explain needs its catalogue.
Result<ErrorCatalog> load_error_catalog(const std::vector<RecipeFile>& files);
// A pattern as written ("Memory access fault by GPU node-{num}").
Result<ErrorPattern> parse_error_pattern(std::string_view source);
// The catalogue as TOML that parses back to the same entries.
std::string write_error_catalog(const ErrorCatalog& catalog);

}  // namespace amdml::formats