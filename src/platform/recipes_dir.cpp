#include "platform/recipes_dir.hpp"

#include <algorithm>

#include "platform/embedded.hpp"
#include "platform/fs.hpp"

namespace amdml::platform {

static Status walk(const std::string& base, const std::string& rel, std::vector<RecipeFile>& out, int depth) {
  if (depth > 8) return make_error("--recipes " + base + ": directories nested too deep");
  std::string dir = rel.empty() ? base : base + "/" + rel;
  auto entries = list_real_dir(dir, dir);
  if (!entries) return make_error("--recipes: " + entries.error().message, entries.error().code);
  for (const auto& e : *entries) {
    std::string r = rel.empty() ? e.name : rel + "/" + e.name;
    if (e.type == FileType::directory) {
      if (auto s = walk(base, r, out, depth + 1); !s) return s;
    } else if (e.name.size() > 5 && e.name.substr(e.name.size() - 5) == ".toml") {
      auto text = read_real_file(base + "/" + r, base + "/" + r, 4 << 20);
      if (!text) return make_error("--recipes: " + text.error().message, text.error().code);
      out.push_back({r, std::move(*text)});
    }
  }
  return {};
}

Result<std::vector<RecipeFile>> read_recipes_dir(const std::string& dir) {
  std::vector<RecipeFile> out;
  AMDML_TRY_STATUS(walk(dir, "", out, 0));
  std::sort(out.begin(), out.end(), [](const RecipeFile& a, const RecipeFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace amdml::platform

namespace amdml::platform {

Result<std::vector<RecipeFile>> recipe_files(const std::string& dir) {
  if (dir.empty()) {
    std::vector<RecipeFile> out;
    for (const auto& e : embedded_recipes()) out.push_back({e.path, e.text});
    return out;
  }
  return platform::read_recipes_dir(dir);
}

}  // namespace amdml::platform