// Fuzz target: fix recipes (recipes/fixes/*.toml, also user-supplied with --recipes DIR).
// A recipe that loads must be complete: an id, a title and steps of known kinds.
#include "amdml/fix.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<amdml::RecipeFile> files{{"fixes/fuzz.toml", std::string(amdml::fuzz::as_text(data, size))}};
  auto recipes = amdml::fix::load_recipes(files);
  if (!recipes) {
    FUZZ_CHECK(!recipes.error().message.empty());
    FUZZ_CHECK(recipes.error().message.find('\n') == std::string::npos);
    return 0;
  }
  for (const auto& r : *recipes) {
    FUZZ_CHECK(!r.id.empty());
    FUZZ_CHECK(amdml::fix::find_recipe(*recipes, r.id) != nullptr);
    for (const auto& s : r.steps) {
      if (!s.path.empty()) FUZZ_CHECK(s.path[0] == '/');
      if (!s.dir.empty()) FUZZ_CHECK(s.dir[0] == '/');
    }
  }
  return 0;
}
