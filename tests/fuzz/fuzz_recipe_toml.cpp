// Fuzz target: fix recipes (recipes/fixes/*.toml, also user-supplied with --recipes DIR).
// A recipe that loads must be complete: an id, a title and steps of known kinds.
#include <variant>

#include "formats/recipe_toml.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<amdml::RecipeFile> files{{"fixes/fuzz.toml", std::string(amdml::fuzz::as_text(data, size))}};
  auto recipes = amdml::formats::load_recipes(files);
  if (!recipes) {
    FUZZ_CHECK(!recipes.error().message.empty());
    FUZZ_CHECK(recipes.error().message.find('\n') == std::string::npos);
    return 0;
  }
  for (const auto& r : *recipes) {
    FUZZ_CHECK(!r.id.empty());
    FUZZ_CHECK(!r.steps.empty());
    // The paths a step kind writes are absolute.
    for (const auto& s : r.steps) {
      if (const auto* m = std::get_if<amdml::ModprobeOptionStep>(&s))
        FUZZ_CHECK(!m->path.empty() && m->path[0] == '/' && !m->dir.empty() && m->dir[0] == '/');
      if (const auto* e = std::get_if<amdml::EnvFileStep>(&s)) FUZZ_CHECK(!e->path.empty() && e->path[0] == '/');
      if (const auto* g = std::get_if<amdml::GroupMembersStep>(&s))
        for (const auto& f : g->files) FUZZ_CHECK(!f.empty() && f[0] == '/');
    }
  }
  return 0;
}
