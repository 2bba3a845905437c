// amdml --version (see version.hpp).
#include "cli/version.hpp"
#include "platform/embedded.hpp"

#include "amdml/knowledge.hpp"

namespace amdml::cli {

std::string version_text() {
  std::string out = std::string("amdml ") + AMDML_VERSION + "\ncommit " + build_commit() + "\n";
  std::string newest = "unreadable";
  if (auto v = builtin_newest_rocm()) newest = "ROCm " + short_version(*v);
  return out + "knowledge base: " + newest + " (the newest ROCm release amdml knows)\n";
}

}  // namespace amdml::cli
