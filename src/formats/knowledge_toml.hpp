// The knowledge base's codec: recipes/knowledge/*.toml into a Knowledge. Strict: a
// malformed file, a missing key or a value of the wrong kind is an error naming file
// and line.
#pragma once

#include <vector>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml {

// Parses the knowledge/*.toml files; a malformed file is an error naming file and line.
Result<Knowledge> load_knowledge(const std::vector<RecipeFile>& files);

}  // namespace amdml
