// `amdml doctor --list`: the probes in run order and the finding catalog, as text for
// people and as a JSON document (schema amdml.list/1).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace amdml::render {

// One probe as listed: its name and what it reads (the engine copies the probe table).
struct ListedProbe {
  std::string name;
  std::string what;
};

std::string render_list_text(const std::vector<ListedProbe>& probes);
nlohmann::json list_json(const std::vector<ListedProbe>& probes);

}  // namespace amdml::render