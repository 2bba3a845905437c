// amdml --version (see version.hpp).
#include "cli/version.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"

#include "amdml/knowledge.hpp"

namespace amdml::cli {

std::string version_text() {
  std::string out = std::string("amdml ") + AMDML_VERSION + "\ncommit " + build_commit() + "\n";
  std::string newest = "unreadable";
  if (auto files = recipe_files(""))
    if (auto kb = load_knowledge(*files); kb && kb->newest_rocm()) newest = "ROCm " + short_version(kb->newest_rocm()->version);
  return out + "knowledge base: " + newest + " (the newest ROCm release amdml knows)\n";
}

}  // namespace amdml::cli
