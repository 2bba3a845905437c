#include "render/list.hpp"

#include <algorithm>

#include "amdml/finding_id.hpp"

namespace amdml::render {

std::string render_list_text(const std::vector<ListedProbe>& probes) {
  std::string out = "Probes (in run order):\n";
  for (const auto& p : probes) out += "  " + p.name + std::string(12 - std::min<std::size_t>(11, p.name.size()), ' ') + p.what + "\n";
  out += "\nFinding ids:\n";
  for (const auto& f : finding_catalog()) {
    std::string id(f.name);
    out += "  " + id + std::string(id.size() < 28 ? 28 - id.size() : 1, ' ') + std::string(to_string(f.severity)) +
           std::string(9 - to_string(f.severity).size(), ' ') + std::string(f.summary) + "\n";
  }
  return out;
}

nlohmann::json list_json(const std::vector<ListedProbe>& probes) {
  nlohmann::json listed = nlohmann::json::array();
  for (const auto& p : probes) listed.push_back({{"name", p.name}, {"what", p.what}});
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : finding_catalog())
    findings.push_back({{"id", std::string(f.name)}, {"severity", std::string(to_string(f.severity))}, {"summary", std::string(f.summary)}});
  return {{"schema", "amdml.list/1"}, {"probes", listed}, {"findings", findings}};
}

}  // namespace amdml::render