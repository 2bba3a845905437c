// Fuzz target: fix recipes (recipes/fixes/*.toml, also user-supplied with --recipes DIR).
// A recipe that loads must be complete: an id, a title and steps of known kinds.
#include "fix/fix.hpp"
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
    // The paths a step kind writes are absolute (keys a kind does not use are ignored).
    for (const auto& s : r.steps) {
      using amdml::fix::StepKind;
      if (s.kind == StepKind::modprobe_option || s.kind == StepKind::env_file) FUZZ_CHECK(!s.path.empty() && s.path[0] == '/');
      if (s.kind == StepKind::modprobe_option) FUZZ_CHECK(!s.dir.empty() && s.dir[0] == '/');
      if (s.kind == StepKind::group_members)
        for (const auto& f : s.files) FUZZ_CHECK(!f.empty() && f[0] == '/');
    }
  }
  return 0;
}
