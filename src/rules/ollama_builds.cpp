// Questions over the ollama release data; see ollama_builds.hpp.
#include "rules/ollama_builds.hpp"

#include <algorithm>

namespace amdml::rules::ollama_builds {

static bool ships(const OllamaBuild& b, const GfxTarget& g) {
  return std::find(b.targets.begin(), b.targets.end(), g) != b.targets.end();
}

std::optional<std::string> last_range_with(const Knowledge& kb, const GfxTarget& gfx) {
  const auto& t = kb.ollama;
  for (auto it = t.rbegin(); it != t.rend(); ++it) {
    if (!ships(*it, gfx)) continue;
    // widen to the earliest adjacent range that also ships it
    auto first = it;
    while (std::next(first) != t.rend() && ships(*std::next(first), gfx)) ++first;
    std::string s = "v" + first->from.str() + " to ";
    if (!it->until) return s + "the current release";
    // the release before `until`: show "before vX" rather than guess its number
    return s + "the last release before v" + it->until->str();
  }
  return std::nullopt;
}

}  // namespace amdml::rules::ollama_builds
