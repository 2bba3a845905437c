// The fix recipes' codec: recipes/fixes/*.toml (embedded, or a user's --recipes DIR)
// into Recipe values over the closed set of step kinds. Strict: anything the fix engine
// would not know how to do -- an unknown step kind, a missing or unknown key, a
// relative path -- is an error naming the file and line, so a typo in a recipe fails
// at start-up, not half-way through an apply.
#pragma once

#include <vector>

#include "amdml/knowledge.hpp"
#include "amdml/recipe.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// Every fixes/*.toml of files, sorted by id. A file with an unknown step kind or key, a
// missing key or a duplicate id is a one-line error naming the file.
Result<std::vector<Recipe>> load_recipes(const std::vector<RecipeFile>& files);

}  // namespace amdml::formats