// The JSON form of a fix recipe's parameters (amdml/fix_params.hpp): the report's
// `fix.params` (schema amdml.doctor/1), the plan's "params" line and the fix journal's
// recorded requests. Keys sorted, as nlohmann's objects keep them:
//   groups {"groups": ["render"], "user": "alice"}
//   ttm    {"module": "ttm", "page_pool_size": 6815744, "pages_limit": 6815744}
//   hsa    {"value": "11.0.0"}  or  {"per_node": {"2": "10.3.0"}}, with "shell_unset": [...] when the
//          shell has override variables in the way
//   env    {"env": {"OLLAMA_IGPU_ENABLE": "1"}, "unset": ["HSA_OVERRIDE_GFX_VERSION"]}
// Absent optional keys (page_pool_size, an empty unset or shell_unset list) are left out.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "amdml/fix_params.hpp"
#include "base/result.hpp"

namespace amdml::formats {

nlohmann::json fix_params_json(const FixParams& params);

// Back from JSON: the kind is told by its keys ("user"/"groups", "module"/"pages_limit"/
// "page_pool_size", "value"/"per_node", "env"/"unset"). A value of the wrong type, an
// unknown key or a mix of kinds is an error; what the values mean is the fix engine's
// to check.
Result<FixParams> parse_fix_params(const nlohmann::json& j);

}  // namespace amdml::formats