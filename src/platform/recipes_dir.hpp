// The recipe and knowledge files: the ones embedded at build time, or a --recipes DIR
// override read from disk (every *.toml below it).
#pragma once

#include <string>
#include <vector>

#include "amdml/knowledge.hpp"

namespace amdml::platform {

Result<std::vector<RecipeFile>> read_recipes_dir(const std::string& dir);

}  // namespace amdml::platform

namespace amdml::platform {

// The embedded recipes, or those under dir when given (--recipes DIR).
Result<std::vector<RecipeFile>> recipe_files(const std::string& dir);

}  // namespace amdml::platform