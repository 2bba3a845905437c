// The deep record: the JSON form of what `doctor --deep` proved by running (facts_deep.hpp).
// One step is what a deep child (`amdml __deep-hsa STEP ...`) prints; the whole record is
// kept in amdml-host.json under "deep" and read back under --root. Format: docs/deep.md.
#pragma once

#include <nlohmann/json.hpp>

#include "amdml/facts_deep.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// Reading is strict about types and lenient about absent keys, like the runtime record:
// a value of the wrong kind is an error naming the key ("deep.gpus[0].steps[1].bytes
// must be a non-negative integer").
nlohmann::json deep_step_json(const DeepStep& s);
Result<DeepStep> parse_deep_step(const nlohmann::json& j, const std::string& where = "step.");
nlohmann::json deep_record_json(const DeepFacts& d);
Result<DeepFacts> parse_deep_record(const nlohmann::json& j);

}  // namespace amdml::formats