// Reading a --recipes DIR override from disk (every *.toml below it).
#pragma once

#include <string>
#include <vector>

#include "amdml/knowledge.hpp"

namespace amdml::platform {

Result<std::vector<RecipeFile>> read_recipes_dir(const std::string& dir);

}  // namespace amdml::platform
