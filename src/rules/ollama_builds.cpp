// The ollama release table; see ollama_builds.hpp.
#include "rules/ollama_builds.hpp"

namespace amdml::rules::ollama_builds {

const std::vector<Build>& table() {
  static const std::vector<Build> t = {
      {{0, 5, 8}, Version{0, 5, 13}, {6, 1, 2},
       {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100",
        "gfx1101", "gfx1102"}},
      {{0, 5, 13}, Version{0, 6, 2}, {6, 3, 3},
       {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100",
        "gfx1101", "gfx1102"}},
      {{0, 6, 2}, Version{0, 6, 4}, {6, 3, 3},
       {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100",
        "gfx1101", "gfx1102", "gfx1151"}},
      {{0, 6, 4}, Version{0, 12, 4}, {6, 3, 3},
       {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100",
        "gfx1101", "gfx1102", "gfx1151", "gfx1200", "gfx1201"}},
      {{0, 12, 4}, Version{0, 18, 0}, {6, 3, 3},
       {"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100", "gfx1101",
        "gfx1102", "gfx1151", "gfx1200", "gfx1201"}},
      {{0, 18, 0}, Version{0, 20, 7}, {7, 2, 0},
       {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1012", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
        "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201"}},
      {{0, 20, 7}, Version{0, 31, 2}, {7, 2, 1},
       {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1012", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
        "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201"}},
      {{0, 31, 2}, std::nullopt, {7, 2, 1},
       {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151",
        "gfx1200", "gfx1201"}},
  };
  return t;
}

const Build* find(const Version& v) {
  for (const auto& b : table())
    if (v >= b.from && (!b.until || v < *b.until)) return &b;
  return nullptr;
}

static bool ships(const Build& b, const GfxTarget& g) {
  for (const char* t : b.targets)
    if (GfxTarget::parse_name(t) == g) return true;
  return false;
}

std::optional<std::string> last_range_with(const GfxTarget& gfx) {
  const auto& t = table();
  for (auto it = t.rbegin(); it != t.rend(); ++it) {
    if (!ships(*it, gfx)) continue;
    // widen to the earliest adjacent range that also ships it
    auto first = it;
    while (std::next(first) != t.rend() && ships(*std::next(first), gfx)) ++first;
    std::string s = "v" + first->from.str() + " to ";
    if (!it->until) return s + "the current release";
    auto u = *it->until;
    // the release before `until`: show "before vX" rather than guess its number
    return s + "the last release before v" + u.str();
  }
  return std::nullopt;
}

bool igpu_allowlisted(const GfxTarget& gfx, const Version& ollama) {
  return ollama >= Version{0, 30, 1} && GfxTarget::parse_name("gfx1151") == gfx;
}

}  // namespace amdml::rules::ollama_builds
