// The knowledge base's codec: recipes/knowledge/*.toml into a Knowledge. Strict: a
// malformed file, a missing key, a key the table does not know (a typo would otherwise
// be ignored) or a value of the wrong kind is an error naming file and line -- for the
// embedded data and a user's --recipes DIR alike.
#pragma once

#include <vector>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// Parses the knowledge/*.toml files; a malformed file is an error naming file and line.
Result<Knowledge> load_knowledge(const std::vector<RecipeFile>& files);

}  // namespace amdml::formats