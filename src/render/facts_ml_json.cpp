#include "render/facts_json.hpp"

namespace amdml {

nlohmann::json ml_facts_json(const MlFacts& m) { return {{"probed", m.probed}}; }

}  // namespace amdml
