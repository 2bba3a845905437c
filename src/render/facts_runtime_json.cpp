#include "render/facts_json.hpp"

namespace amdml {

nlohmann::json runtime_facts_json(const RuntimeFacts& r) { return {{"probed", r.probed}}; }

}  // namespace amdml
