// amdml --version (see version.hpp).
#include "cli/version.hpp"

#include "amdml/knowledge.hpp"
#include "platform/embedded.hpp"
#include "platform/host.hpp"
#include "platform/knowledge_store.hpp"

namespace amdml::cli {

std::string version_text() {
  std::string out = std::string("amdml ") + AMDML_VERSION + "\ncommit " + build_commit() + "\n";
  const KnowledgeMeta builtin = platform::builtin_knowledge_meta();
  std::optional<Version> newest = platform::builtin_newest_rocm();
  std::string date = builtin.date, source = "built in";
  int format = builtin.format;
  // A bundle `amdml update` installed on this machine, when it is what the doctor uses.
  if (auto host = platform::make_host("/"))
    if (auto installed = platform::read_installed_knowledge(**host); installed && *installed &&
                                                                      (*installed)->meta.date > builtin.date) {
      newest = (*installed)->newest_rocm() ? std::optional((*installed)->newest_rocm()->version) : std::nullopt;
      date = (*installed)->meta.date;
      format = (*installed)->meta.format;
      source = "installed by amdml update; built in: " + builtin.date;
    }
  std::string rocm = newest ? "ROCm " + short_version(*newest) : std::string("unreadable");
  return out + "knowledge base: " + rocm + ", dated " + date + " (format " + std::to_string(format) + ", " +
         source + ")\n";
}

}  // namespace amdml::cli
