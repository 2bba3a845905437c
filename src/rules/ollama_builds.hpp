// Questions over the ollama release data (recipes/knowledge/ollama.toml, loaded into
// Knowledge::ollama and Knowledge::ollama_policy).
#pragma once

#include <optional>
#include <string>

#include "amdml/knowledge.hpp"

namespace amdml::rules::ollama_builds {

// "v0.18.0 to the last release before v0.31.2": the newest run of adjacent ranges that
// ships gfx, for the advice to downgrade; nullopt when no release ships it.
std::optional<std::string> last_range_with(const Knowledge& kb, const GfxTarget& gfx);

}  // namespace amdml::rules::ollama_builds
